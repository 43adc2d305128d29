"""Where an environment's tasks come from.

The train split never runs out: each episode builds a task no one has seen, from a public seed
drawn from the environment's seed and the episode's number (Tier B: a new API from the generator;
Tier A: a new instance, data and recording, of one of the real APIs, which are fixed; repair: a new
release of a Tier B API). The test split reads the dataset's tasks: a folder of task directories,
a dataset folder (public and ``-hidden``), or a Hub dataset id.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from .._errors import EnvError, Har2ClientError
from .._seeding import derive_seed, rng
from ..grading import scratch_prefix
from ..tasks import task_metas

# Train seeds are public; keeping them under 10**9 keeps the task ids they appear in short.
SEED_SPACE = 10**9


def episode_seed(env_seed: int, n: int) -> int:
    """The seed of episode ``n`` of an environment seeded ``env_seed`` (public: anyone can rebuild it)."""
    return derive_seed(env_seed, "episode", n) % SEED_SPACE


# -- the train split: built per episode --------------------------------------------------------

def build_tierb_episode(scratch: str, seed: int, levels: list[int], case: str, arm: str = "as_built") -> str:
    """A Tier B task of one of ``levels`` from the public ``seed`` (one that hides a header, for the
    evidence arm)."""
    from ..tierb import build_task, tierb_configs

    configs = [c for c in tierb_configs(seed, id_prefix=f"s{seed}_") if c.level in levels
               and (arm != "evidence" or c.switches.hidden_header != "off")]
    return build_task(rng(seed, "env-pick").choice(configs), scratch, case)


def tiera_levels() -> dict[int, list[str]]:
    """The served Tier A APIs by level (the number of conventions their API uses)."""
    from ..api import conventions_on
    from ..tiera import NOT_SERVED, tiera_specs

    out: dict[int, list[str]] = {}
    for s in tiera_specs():
        if s.key not in NOT_SERVED:
            out.setdefault(len(conventions_on(s.model)), []).append(s.key)
    return out


def build_tiera_episode(scratch: str, seed: int, levels: list[int], case: str, arm: str = "as_built") -> str:
    """A fresh instance (data, recording, hidden tests) of a Tier A API of one of ``levels``."""
    from ..tiera import build_tiera_task, tiera_specs

    if case != "build":
        raise EnvError("Tier A (source='proxy_har') has no investigate tasks; use source='browser_har'")
    keys = sorted(k for lvl, ks in tiera_levels().items() if lvl in levels for k in ks)
    key = rng(seed, "env-pick").choice(keys)
    spec = next(s for s in tiera_specs() if s.key == key)
    return build_tiera_task(spec, scratch, seed, id_prefix=f"s{seed}_")


def build_repair_episode(scratch: str, seed: int, changes: list[int], attempt: int = 0) -> str:
    """A repair task from the public ``seed``: a Tier B API and a release of one of ``changes`` changes.

    Raises NotApplicable when the drawn release cannot be made; the caller draws again.
    """
    from ..repair import applicable, build_repair_task
    from ..tierb import tierb_configs

    r = rng(seed, "env-repair", attempt)
    count = r.choice(changes)
    family = r.choice(tierb_configs(seed, id_prefix=f"s{seed}_"))
    kinds = applicable(family.document(), family.seed)
    if len(kinds) < count:
        from ..repair import NotApplicable

        raise NotApplicable(f"{family.task_id} takes {len(kinds)} kinds of change, not {count}")
    task_seed = derive_seed(seed, "env-repair-task", attempt)
    task_id = f"repair_s{seed}_{count}x_{family.domain}"
    return build_repair_task(family, r.sample(kinds, count), scratch, task_id, task_seed)


class TrainTasks:
    """Builds one task per episode into a scratch directory; keeps only the current one.

    While an episode runs, the next episode's task is built on a background thread (``prefetch``):
    building costs about a third of a grade, and a trainer's model takes far longer than that to
    write its client, so the build is off the episode's path. (A tight loop that submits at once
    gains nothing: the build then shares this process's interpreter with the grade.)
    """

    def __init__(self, build: Callable[[str, int, list[int]], str]) -> None:
        self._build = build
        self.scratch = tempfile.mkdtemp(prefix=scratch_prefix("env"))
        self._current: str | None = None
        self._ahead: tuple[int, tuple[int, ...], Future[str]] | None = None
        self._builder: ThreadPoolExecutor | None = None

    def draw(self, seed: int, stages: list[int]) -> str:
        self.drop()
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[:2] == (seed, tuple(stages)):
            self._current = ahead[2].result()
        else:
            if ahead is not None:
                self._discard(ahead[2])
            self._current = self._build(self.scratch, seed, stages)
        return self._current

    def prefetch(self, seed: int, stages: list[int]) -> None:
        """Start building the task ``draw(seed, stages)`` will ask for next."""
        if self._ahead is not None:
            self._discard(self._ahead[2])
        if self._builder is None:
            self._builder = ThreadPoolExecutor(1, thread_name_prefix="h2c-env-build")
        self._ahead = (seed, tuple(stages), self._builder.submit(self._build, self.scratch, seed, list(stages)))

    @staticmethod
    def _discard(future: Future[str]) -> None:
        try:
            path = future.result()
        except Exception:  # noqa: BLE001 - a task no one will use: its failure is nobody's
            return
        shutil.rmtree(path, ignore_errors=True)

    def drop(self) -> None:
        if self._current and os.path.isdir(self._current):
            shutil.rmtree(self._current, ignore_errors=True)
        self._current = None

    def close(self) -> None:
        if self._builder is not None:
            self._builder.shutdown(wait=True)
        shutil.rmtree(self.scratch, ignore_errors=True)


# -- the test split: the dataset's tasks -------------------------------------------------------

def stage_of(task_dir: str) -> int:
    """A task's level (build, investigate) or number of changes less one (repair), from its hidden part."""
    with open(os.path.join(task_dir, "hidden", "grading.json"), encoding="utf-8") as fh:
        g = json.load(fh)
    if g.get("kind") == "repair":
        return len(g.get("changes", [])) - 1
    return int(g.get("level", len(g.get("conventions", []))))


def _meta(task_dir: str) -> dict[str, object]:
    with open(os.path.join(task_dir, "task.json"), encoding="utf-8") as fh:
        return json.load(fh)


def dataset_task_dirs(tasks: str) -> list[str]:
    """Every task directory of ``tasks``: a folder of task directories, a dataset folder, or a Hub id."""
    if os.path.isdir(tasks) and not os.path.isdir(os.path.join(tasks, "data")):
        found = [path for path, _ in task_metas(tasks)]
        if not found:
            raise Har2ClientError(f"{tasks}: holds no task directories (no */task.json)")
        return found
    from ..hub import download_files, pull

    if os.path.isdir(tasks):
        public = tasks
    elif tasks.count("/") == 1:
        public = download_files(tasks, ["README.md", "data/*/*.parquet"])
    else:
        raise Har2ClientError(f"{tasks}: neither a folder of tasks, a dataset folder nor a Hub dataset id (ORG/NAME)")
    import pyarrow.parquet as pq

    ids = []
    for config in sorted(os.listdir(os.path.join(public, "data"))):
        for name in sorted(os.listdir(os.path.join(public, "data", config))):
            if name.startswith("test-") and name.endswith(".parquet"):
                ids += pq.read_table(os.path.join(public, "data", config, name), columns=["task_id"]).column(
                    "task_id").to_pylist()
    return [pull(task_id, tasks) for task_id in sorted(ids)]


class TestTasks:
    """The dataset's tasks of one kind, in a seeded order; episode after episode cycles through them."""

    __test__ = False  # not a pytest class

    def __init__(self, tasks: str, accept: Callable[[dict[str, object]], bool], what: str, seed: int) -> None:
        dirs = [d for d in dataset_task_dirs(tasks) if accept(_meta(d))]
        if not dirs:
            raise EnvError(f"{tasks}: no {what} tasks in it")
        self.by_stage: dict[int, list[str]] = {}
        for d in dirs:
            self.by_stage.setdefault(stage_of(d), []).append(d)
        for stage, ds in self.by_stage.items():
            random.Random(derive_seed(seed, "test-order", stage)).shuffle(ds)
        self._next: dict[tuple[int, ...], int] = {}

    def draw(self, seed: int, stages: list[int]) -> str:
        key = tuple(stages)
        pool = [d for s in stages for d in self.by_stage.get(s, [])]
        if not pool:
            raise EnvError(f"no test task has stage {', '.join(map(str, stages))} "
                           f"(the split has {', '.join(map(str, sorted(self.by_stage)))})")
        i = self._next.get(key, 0)
        self._next[key] = i + 1
        return pool[i % len(pool)]

    def drop(self) -> None:
        pass

    def close(self) -> None:
        pass

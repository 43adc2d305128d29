"""The environment contract, kept by every HAR2Client environment and checked for all by one test."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .._errors import EnvError
from .._seeding import derive_seed
from ..grading import MAX_CLIENT_BYTES, SCORING_VERSION
from ..tasks import Task, arms_of, load_task
from ._curricula import Curriculum
from ._grader import Grader
from ._sources import TestTasks, episode_seed

SPLITS = ("train", "test")
MAX_REDRAWS = 50


class Har2ClientEnv:
    """An episode is: observe a task, optionally probe (Case 2), submit one client.py, get its grade.

    **reset(seed=None) -> observation (dict).** Starts the next episode and returns what the model
    sees. Always: ``task_id``, ``case``, ``arm``, ``goal`` (the arm's goal.md), ``observation`` (the
    recording: compact text, or the HAR file's JSON text with ``compact=False``), ``observation_format``
    (``compact`` or ``har``), ``source`` (``browser_har`` or ``proxy_har``), ``probe_budget``,
    ``probes_left``, ``tools`` (OpenAI-format tool definitions, for tool-calling trainers) and
    ``prompt`` (all of it as one user message). A repair adds ``client_v1`` and ``failure``. With
    ``seed`` the episode stream restarts from that seed.

    **step(action) -> {"observation", "reward", "done", "info"}.** An action is a dict:

    - ``{"type": "submit", "code": str}``: grade the code on a fresh grading instance (new data,
      key and host) and end the episode. ``reward`` is the pass rate of the hidden tests, in [0, 1].
    - ``{"type": "probe", "request": {"method", "url", "headers"?, "query"?, "body"?}}``: Case 2
      only, within ``probe_budget``: one request to the practice server; its answer is the
      observation, the reward 0.0, and the episode goes on.

    ``info`` always has ``task_id``, ``episode``, ``probes_used``, ``probes_left`` and ``error`` (None,
    or one line saying what was wrong). After a submit it also has ``pass_rate``, ``passed``,
    ``total``, ``tests`` (each ``name``, ``passed``, ``error``), ``isolation``, ``grading_seed`` and
    ``scoring_version``; a repair adds ``regression_rate``, ``full_repair`` and ``client_v1_pass_rate``.

    A malformed action (not a dict, an unknown type, code that is not a string, an empty submission, a
    probe with no budget) does not end the episode: reward 0.0, done False, ``info["error"]`` says
    why. A submission over 1 MB ends it with reward 0.0 and that error. A step before ``reset`` or
    after the episode ended raises :class:`EnvError`.

    **reference_code() -> str**: the current task's reference client (reward 1.0), for checking a
    pipeline; never part of an observation. **state() -> dict**: a JSON-able summary of the episode
    and the curriculum. **close()**: ends the environment and deletes the tasks it built; later
    calls raise :class:`EnvError`.

    Determinism: the same constructor arguments and seed give the same tasks, the same grading
    instances and so the same reward for the same code.
    """

    case = "build"
    default_arm = "as_built"
    source = "browser_har"  # the recording's kind: each environment says its own

    def __init__(self, *, split: str, curriculum: Curriculum, seed: int, arm: str | None, compact: bool,
                 grader: Grader | None) -> None:
        if split not in SPLITS:
            raise EnvError(f"split must be 'train' or 'test', not {split!r}")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise EnvError(f"seed must be a non-negative int, not {seed!r}")
        self.split, self.curriculum, self.seed = split, curriculum, seed
        self.arm = arm or self.default_arm
        self.compact = bool(compact)
        self.grader = grader or Grader()
        self._n = 0          # draws so far: episode seeds come from it (a redraw takes the next)
        self._episodes = 0   # episodes started
        self._task: Task | None = None
        self._obs: dict[str, Any] | None = None
        self._episode_seed = 0
        self._done = True
        self._steps = 0
        self._last_reward: float | None = None
        self._closed = False
        self._tasks: Any = None  # set by the subclass: TrainTasks or TestTasks

    # -- what a subclass provides ---------------------------------------------------------

    def _draw(self, seed: int, stages: list[int], attempt: int) -> str:
        return self._tasks.draw(seed, stages)

    def _begin(self, task: Task) -> bool:
        """Per-episode set-up; False to draw another task (the train split's check of a repair)."""
        return True

    def _observe(self, task: Task) -> dict[str, Any]:
        """What every environment shows; ``_extend`` adds a case's own parts."""
        from ..tasks import observation_parts

        parts = observation_parts(task.path, self.arm, self.compact)
        obs = {"task_id": task.task_id, "case": self.case, "arm": self.arm, "goal": parts["goal"],
               "observation": parts["recording"], "observation_format": "compact" if self.compact else "har",
               "source": self.source, "probe_budget": 0, "probes_left": 0, "practice": None, "tools": [],
               "prompt": parts["text"]}
        self._extend(task, obs, parts)
        return obs

    def _extend(self, task: Task, obs: dict[str, Any], parts: dict[str, Any]) -> None:
        """Add to (or change) the observation ``obs``, made from the arm's ``parts``."""

    def _probe(self, request: Any) -> tuple[dict[str, Any], str | None]:
        return {}, "this episode has no probe budget: the only action is submit"

    def _finish(self, code: str, grade: dict[str, Any]) -> dict[str, Any]:
        """Extra info from a graded submission (a repair's regression)."""
        return {}

    def _probes(self) -> tuple[int, int]:
        return 0, 0

    # -- the contract ---------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> dict[str, Any]:
        """Start an episode (a fresh task on the train split) and return its first observation."""
        self._check_open()
        if seed is not None:
            if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
                raise EnvError(f"seed must be a non-negative int, not {seed!r}")
            self.seed, self._n, self._episodes = seed, 0, 0
        stages = self.curriculum.stages()
        for attempt in range(MAX_REDRAWS):
            self._episode_seed = episode_seed(self.seed, self._n)
            self._n += 1
            path = self._draw(self._episode_seed, stages, attempt)
            task = load_task(path)
            if self.arm not in arms_of(task.path):
                continue
            if self._begin(task):
                break
        else:
            raise EnvError(f"no {self.case} task with arm {self.arm!r} at {self.curriculum.describe()['stage']} "
                           f"in {MAX_REDRAWS} draws")
        self._task = task
        self._episodes += 1
        if hasattr(self._tasks, "prefetch"):  # the train split builds the next episode's task meanwhile
            self._tasks.prefetch(episode_seed(self.seed, self._n), stages)
        self._done, self._steps, self._last_reward = False, 0, None
        self._obs = self._observe(task)
        return dict(self._obs)

    def step(self, action: Any) -> dict[str, Any]:
        """Take one action (a submit or, in Case 2, a probe) and return observation, reward, done and info."""
        self._check_open()
        if self._task is None:
            raise EnvError("step before reset: call reset() first")
        if self._done:
            raise EnvError("the episode has ended (a submit ends it): call reset() for the next one")
        self._steps += 1
        if not isinstance(action, dict):
            return self._bad(f"an action is a dict such as {{'type': 'submit', 'code': '...'}}, not "
                             f"{type(action).__name__}")
        kind = action.get("type")
        if kind == "probe":
            observation, error = self._probe(action.get("request"))
            return self._out(observation, 0.0, False, {"error": error})
        if kind != "submit":
            types = "'submit' or 'probe'" if any(self._probes()) else "'submit'"
            return self._bad(f"unknown action type {kind!r}: use {types}")
        code = action.get("code")
        if not isinstance(code, str):
            return self._bad(f"code must be a string (the whole client.py), not {type(code).__name__}")
        if not code.strip():
            return self._bad("code is empty: submit the whole client.py")
        size = len(code.encode("utf-8", "surrogatepass"))
        if size > MAX_CLIENT_BYTES:
            self._end(0.0)
            return self._out({}, 0.0, True, {"error": f"the submission is {size:,} bytes; a client may be at most "
                                                      f"{MAX_CLIENT_BYTES:,} bytes (1 MB): not graded",
                                             "pass_rate": 0.0, "passed": 0, "total": len(self._task.tests),
                                             "tests": []})
        grade = self._grade(code)
        info = {"pass_rate": grade["pass_rate"], "passed": grade["passed"], "total": grade["total"],
                "tests": grade["tests"], "isolation": grade["isolation"], "grading_seed": grade["grading_seed"],
                "scoring_version": grade["scoring_version"], "error": grade["error"]}
        info.update(self._finish(code, grade))
        reward = float(grade["pass_rate"])
        self._end(reward)
        return self._out({}, reward, True, info)

    def reference_code(self) -> str:
        """The current task's reference client (for baselines and checks; never shown to the model)."""
        self._check_open()
        if self._task is None:
            raise EnvError("no task yet: call reset() first")
        with open(self._task.reference_path, encoding="utf-8") as fh:
            return fh.read()

    def state(self) -> dict[str, Any]:
        """Where the environment is: episode, task, step count, whether it is done, the curriculum's stage."""
        return {"episode": self._episodes - 1 if self._task else None,
                "episode_seed": self._episode_seed if self._task else None,
                "task_id": self._task.task_id if self._task else None, "case": self.case, "arm": self.arm,
                "split": self.split, "seed": self.seed, "steps": self._steps, "done": self._done,
                "last_reward": self._last_reward, "curriculum": self.curriculum.describe(),
                "probes_used": self._probes()[0], "probes_left": self._probes()[1], "closed": self._closed,
                "scoring_version": SCORING_VERSION}

    def close(self) -> None:
        """End the environment: stop building train tasks and release what it holds. Safe to call twice."""
        if not self._closed:
            self._closed = True
            self._done = True
            if self._tasks is not None:
                self._tasks.close()

    def __enter__(self) -> Har2ClientEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- shared parts ---------------------------------------------------------------------

    @property
    def task(self) -> Task | None:
        """The current episode's task (its hidden part included: for trainers' bookkeeping, not for models)."""
        return self._task

    @property
    def grading_seed(self) -> int:
        """The seed of the current episode's grading instance (to reproduce its grade)."""
        return derive_seed(self._episode_seed, "grading") % (1 << 62)

    def _grade(self, code: str) -> dict[str, Any]:
        assert self._task is not None
        return self.grader.grade(self._task.path, code, self.grading_seed)

    def _end(self, reward: float) -> None:
        self._done, self._last_reward = True, reward
        self.curriculum.record(reward)

    def _bad(self, error: str) -> dict[str, Any]:
        return self._out({}, 0.0, False, {"error": error})

    def _out(self, observation: dict[str, Any], reward: float, done: bool, info: dict[str, Any]) -> dict[str, Any]:
        assert self._task is not None
        used, left = self._probes()
        return {"observation": observation, "reward": reward, "done": done,
                "info": {"task_id": self._task.task_id, "episode": self._episodes - 1, "probes_used": used,
                         "probes_left": left, "error": None, **info}}

    def _dataset_tasks(self, tasks: str | None, accept: Callable[[dict[str, Any]], bool], what: str) -> TestTasks:
        """The test split: the dataset's tasks that ``accept`` takes, from ``tasks`` or $HAR2CLIENT_SOURCE."""
        tasks = tasks or os.environ.get("HAR2CLIENT_SOURCE")
        if not tasks:
            raise EnvError("the test split reads the dataset's tasks: pass tasks= (a folder of tasks, a dataset "
                           "folder or ORG/NAME) or set HAR2CLIENT_SOURCE")
        return TestTasks(tasks, accept, what, self.seed)

    def _fit_curriculum(self, available: set[int], needs: str, has: str, unit: Callable[[int], str] = str) -> None:
        """Refuse a curriculum whose stages have no tasks (closing what was built); ``all`` starts at the lowest."""
        c = self.curriculum
        missing = [s for s in range(c.low, c.high + 1) if s not in available]
        if missing and (not c.any_stage or not available & set(c.stages())):
            self.close()
            raise EnvError(f"curriculum {c.name!r} needs {needs} {', '.join(map(unit, missing))}, and {has} "
                           f"{', '.join(map(unit, sorted(available))) or 'none'}")
        if c.any_stage:
            c.low = min(available)

    def _check_open(self) -> None:
        if self._closed:
            raise EnvError("this environment is closed")

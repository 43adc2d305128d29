"""TRL adapter: a reward function for Cases 1 and 3, a tool environment for Case 2, and their dataset.

Needs no extra of its own (TRL brings torch; this module imports neither).

Cases 1 and 3 are one completion each. Rows come from :func:`task_rows` (a ``prompt`` in the
conversational format and the ``task_id``); the reward function grades the client in each
completion on the task's grading instance::

    rows = task_rows(build_train_tasks("runs/train", n=256))          # or a test split's folder
    reward = make_reward_function("runs/train")
    GRPOTrainer(model, reward_funcs=reward, train_dataset=Dataset.from_list(rows), ...)

Case 2 is multi-turn: :func:`make_investigate_environment` gives a class for
``GRPOTrainer(environment_factory=...)``. Its ``reset`` builds the episode's practice server and
returns the practice section (base URL, credentials, budget); its tools are ``http_request`` and
``submit_client``; ``get_reward`` is the pass rate of the submission (0.0 without one).

Completions of one prompt are graded on one grading instance (the seed comes from the task and the
prompt), so a group's rewards differ only by what the clients do.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from typing import Any

from .._errors import EnvError
from .._seeding import derive_seed
from ..agents import SYSTEM, assistant_text, extract_client
from ..repair import is_a_repair
from ..tasks import render_observation, task_metas
from ._curricula import parse_curriculum
from ._grader import Grader
from ._sources import build_repair_episode, build_tierb_episode, episode_seed


def build_train_tasks(out_dir: str, n: int, case: str = "build", curriculum: str = "all", seed: int = 0,
                      arm: str = "as_built") -> str:
    """Build ``n`` train tasks no one has seen (public seeds from ``seed``) into ``out_dir``; return it.

    ``case`` is build or investigate (Tier B) or repair; ``curriculum`` one stage or ``all``.
    """
    if case not in ("build", "investigate", "repair"):
        raise EnvError(f"case must be build, investigate or repair, not {case!r}")
    c = parse_curriculum(curriculum, "R" if case == "repair" else "L")
    os.makedirs(out_dir, exist_ok=True)
    made, i = 0, 0
    while made < n:
        s = episode_seed(seed, i)
        i += 1
        try:
            if case == "repair":
                path = build_repair_episode(out_dir, s, [st + 1 for st in c.stages()])
                with open(os.path.join(path, "hidden", "grading.json"), encoding="utf-8") as fh:
                    task_seed = json.load(fh)["task_seed"]
                if not is_a_repair(path, task_seed):  # the benchmark's rule: client_v1 passes some, not all
                    shutil.rmtree(path)
                    continue
            else:
                build_tierb_episode(out_dir, s, c.stages(), case, arm)
        except Exception as exc:  # noqa: BLE001 - a release that does not apply to the drawn API: draw again
            if i > n * 20:
                raise EnvError(f"could not build {n} {case} tasks: {exc}") from None
            continue
        made += 1
    return out_dir


def task_rows(tasks: str, arm: str | None = None, compact: bool = True, system: str | None = SYSTEM) -> list[dict[str,
                                                                                                                  Any]]:
    """One row per task directory in ``tasks``: ``prompt`` (system and user messages), ``task_id``, ``case``."""
    rows = []
    for path, meta in task_metas(tasks):
        a = arm or ("base" if meta.get("case") == "repair" else "as_built")
        messages = ([{"role": "system", "content": system}] if system else []) + \
            [{"role": "user", "content": render_observation(path, a, compact)}]
        rows.append({"prompt": messages, "task_id": meta["task_id"], "case": meta.get("case", "build")})
    if not rows:
        raise EnvError(f"{tasks}: holds no task directories (no */task.json)")
    return rows


def make_reward_function(tasks: str, grader: Grader | None = None) -> Callable[..., list[float]]:
    """A ``reward_funcs`` entry for GRPOTrainer: the pass rate of the client in each completion.

    ``tasks`` is the folder the rows' ``task_id`` name. A completion with no client (see
    :func:`~har2client.agents.extract_client`) scores 0.0. ``grader`` shares a grading pool
    (default: grade in this thread, one completion after another).
    """
    g = grader or Grader()

    def har2client_reward(prompts: list[Any] | None = None, completions: list[Any] | None = None,
                          task_id: list[str] | None = None, **kwargs: Any) -> list[float]:
        if completions is None or task_id is None:
            raise EnvError("the reward function needs completions and the dataset's task_id column")
        futures: list[Any] = []
        for i, (completion, tid) in enumerate(zip(completions, task_id, strict=True)):
            code = extract_client(assistant_text(completion))
            if code is None:
                futures.append(None)
                continue
            prompt = json.dumps(prompts[i], sort_keys=True, default=str) if prompts is not None else ""
            seed = derive_seed(tid, prompt, "trl-grading") % (1 << 62)
            futures.append(g.submit(os.path.join(tasks, tid), code, seed))
        return [0.0 if f is None else float(f.result()["pass_rate"]) for f in futures]

    return har2client_reward


def make_investigate_environment(tasks: str, budget: int = 5, arm: str = "as_built",
                                 grader: Grader | None = None) -> type:
    """A class for ``GRPOTrainer(environment_factory=...)``: one Case 2 episode per instance.

    Rows need a ``task_id`` column naming a task in ``tasks`` (an investigate task, or any Tier B
    build task: the practice server is made per episode).
    """
    from ..investigate import InvestigateEpisode

    g = grader or Grader()

    class Har2ClientInvestigate:
        """Probe a practice server of the API, then submit the client (the episode's practice section
        says where and with which credentials)."""

        def __init__(self) -> None:
            self.episode: InvestigateEpisode | None = None
            self.reward = 0.0
            self.episodes = 0

        def reset(self, task_id: str | None = None, **kwargs: Any) -> str | None:
            if not task_id:
                raise EnvError("reset needs the row's task_id")
            self.episodes += 1
            seed = derive_seed(task_id, json.dumps(kwargs.get("prompt"), sort_keys=True, default=str),
                               self.episodes) % (1 << 62)
            self.episode = InvestigateEpisode(os.path.join(tasks, task_id), budget, arm, seed, policy="trl",
                                              grade_fn=g.grade)
            self.reward = 0.0
            return self.episode.practice_section() or None

        def http_request(self, method: str, url: str, headers: dict[str, str] | None = None,
                         query: dict[str, str] | None = None, body: str | None = None) -> str:
            """
            Send one HTTP request to the practice server and get its status, headers and body.

            Args:
                method: The HTTP method: GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS.
                url: An absolute URL on the practice server.
                headers: Request headers, name to value.
                query: Query parameters, name to value.
                body: The request body: JSON text is sent as JSON, anything else as it is.

            Returns:
                The answer as JSON text: status, headers, body and probes_left; or an error.
            """
            args: dict[str, Any] = {"method": method, "url": url}
            if headers:
                args["headers"] = headers
            if query:
                args["query"] = query
            if body is not None:
                try:
                    args["body"] = json.loads(body)
                except ValueError:
                    args["body"] = body
            result = self._episode().tool("http_request", args)
            if "error" in result and "status" not in result:
                raise ValueError(result["error"])
            return json.dumps({k: v for k, v in result.items() if k != "probe"}, ensure_ascii=False)

        def submit_client(self, code: str) -> str:
            """
            Submit the whole client.py. This ends the episode; the code is graded on a fresh server.

            Args:
                code: The complete source of client.py.

            Returns:
                The grade: the share of hidden tests passed.
            """
            episode = self._episode()
            result = episode.tool("submit_client", {"code": code})
            if "error" in result:
                raise ValueError(result["error"])
            self.reward = float(result["pass_rate"])
            return (f"graded: {result['passed']} of {result['total']} hidden tests passed "
                    f"(pass_rate {result['pass_rate']})")

        def get_reward(self) -> float:
            return self.reward

        def _episode(self) -> InvestigateEpisode:
            if self.episode is None:
                raise ValueError("no episode: reset first")
            if self.episode.ended is not None:
                raise ValueError("the episode has ended: the client was submitted")
            return self.episode

    return Har2ClientInvestigate


def environment_reward(environments: list[Any], **kwargs: Any) -> list[float]:
    """For ``reward_funcs`` beside an investigate environment (it also has ``get_reward``)."""
    return [float(getattr(e, "reward", 0.0)) for e in environments]

"""Case 1 (build) and Case 2 (investigate): observed traffic in, a client out.

    env = TrafficToClientEnv(source="browser_har", split="train", curriculum="L0", compact=True, seed=0)
    obs = env.reset()
    out = env.step({"type": "submit", "code": env.reference_code()})   # reward 1.0

The contract is :class:`~har2client.env._base.Har2ClientEnv`'s.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from .._errors import EnvError
from ..tasks import Task
from ._base import Har2ClientEnv
from ._curricula import parse_curriculum
from ._grader import Grader
from ._sources import TrainTasks, build_tiera_episode, build_tierb_episode, tiera_levels

SOURCES = {"browser_har": "B", "proxy_har": "A"}   # the recording's kind is the tier's
CASES = ("build", "investigate")
ARMS = ("as_built", "hint", "placebo", "evidence")
MAX_PROBE_BUDGET = 20


class TrafficToClientEnv(Har2ClientEnv):
    """Write a client from a recording (``case="build"``), or from a recording and up to
    ``probe_budget`` requests to a practice server (``case="investigate"``, Tier B only).

    ``source`` is ``browser_har`` (Tier B: invented APIs, recorded in a browser) or ``proxy_har``
    (Tier A: real APIs' descriptions, recorded through a proxy). ``split="train"`` builds a task no one
    has seen for every episode; ``split="test"`` reads the dataset's tasks from ``tasks`` (a folder of
    task directories, a dataset folder, or a Hub id; default: ``$HAR2CLIENT_SOURCE``). ``curriculum``
    is one of ``har2client.env._curricula``'s (``L0`` ... ``L6``, ``L0-L6``, ``all``). ``arm`` is the
    Case 1 arm (``as_built``, ``hint``, ``placebo``, ``evidence``). ``grader`` shares a grading pool
    between environments (default: grade in this thread).
    """

    def __init__(self, source: str = "browser_har", split: str = "train", curriculum: str = "all",
                 compact: bool = True, seed: int = 0, case: str = "build", arm: str | None = None,
                 probe_budget: int | None = None, tasks: str | None = None, grader: Grader | None = None,
                 window: int = 8, threshold: float = 0.8) -> None:
        if source not in SOURCES:
            raise EnvError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
        if case not in CASES:
            raise EnvError(f"case must be one of {', '.join(CASES)}, not {case!r}")
        if arm is not None and arm not in ARMS:
            raise EnvError(f"arm must be one of {', '.join(ARMS)}, not {arm!r}")
        budget = (5 if case == "investigate" else 0) if probe_budget is None else probe_budget
        if not isinstance(budget, int) or isinstance(budget, bool) or not 0 <= budget <= MAX_PROBE_BUDGET:
            raise EnvError(f"probe_budget must be an int from 0 to {MAX_PROBE_BUDGET} (the benchmark uses 0, 1, 5)")
        if case == "build" and budget:
            raise EnvError("a build episode has no practice server: use case='investigate' for a probe budget")
        if case == "investigate" and source != "browser_har":
            raise EnvError("investigate tasks are Tier B's: use source='browser_har'")
        self.case, self.source, self.probe_budget = case, source, budget
        super().__init__(split=split, curriculum=parse_curriculum(curriculum, "L", window=window, threshold=threshold),
                         seed=seed, arm=arm, compact=compact, grader=grader)
        self._episode: Any = None
        if split == "train":
            build = build_tierb_episode if source == "browser_har" else build_tiera_episode
            self._tasks = TrainTasks(functools.partial(build, case=case, arm=self.arm))
            available = set(range(7)) if source == "browser_har" else set(tiera_levels())
            if self.arm == "evidence":
                available.discard(0)  # a level-0 API hides no header, so it has no evidence arm
        else:
            tier = SOURCES[source]
            self._tasks = self._dataset_tasks(tasks, lambda m: m.get("case", "build") == case and m.get("tier") == tier,
                                              f"{case} Tier {tier}")
            available = set(self._tasks.by_stage)
        self._fit_curriculum(available, "tasks of level", f"{source} {split} has levels")

    def _begin(self, task: Task) -> bool:
        self._episode = None
        if self.case == "investigate":
            from ..investigate import InvestigateEpisode

            self._episode = InvestigateEpisode(task, self.probe_budget, self.arm, self._episode_seed,
                                               policy="env", grade_fn=self.grader.grade)
        return True

    def _extend(self, task: Task, obs: dict[str, Any], parts: dict[str, Any]) -> None:
        from ..investigate import tools_for

        obs.update(probe_budget=self.probe_budget, probes_left=self.probe_budget)
        if self.case == "investigate":
            obs["tools"] = tools_for(self.probe_budget)
        if self._episode is not None and self.probe_budget:
            section = self._episode.practice_section()
            obs["goal"] = f"{obs['goal'].rstrip()}\n\n{section}"
            obs["prompt"] = f"{obs['prompt'].rstrip()}\n\n{section}"
            obs["practice"] = {"base_url": self._episode.base_url, "credentials": dict(self._episode.credentials)}

    def _grade(self, code: str) -> dict[str, Any]:
        if self._episode is None:
            return super()._grade(code)
        self._episode.tool("submit_client", {"code": code})
        grade = (self._episode.ended or {}).get("grade")
        if grade is None:  # the episode refused the call (it checks what the env already checked)
            raise EnvError("the investigate episode did not grade the submission")
        return grade

    def _finish(self, code: str, grade: dict[str, Any]) -> dict[str, Any]:
        if self._episode is None:
            return {}
        return {"tested_hidden_header": self._episode.ended.get("tested_hidden_header")}

    def _probe(self, request: Any) -> tuple[dict[str, Any], str | None]:
        if self._episode is None or not self.probe_budget:
            return {}, "this episode has no probe budget: the only action is submit"
        if not isinstance(request, dict):
            return {}, "a probe is {'type': 'probe', 'request': {'method': ..., 'url': ...}}: request must be a dict"
        try:
            json.dumps(request)
        except (TypeError, ValueError):
            return {}, "the probe's request must be plain JSON data"
        result = self._episode.tool("http_request", request)
        if "error" in result and "status" not in result:
            return {}, str(result["error"])
        return {k: v for k, v in result.items() if k != "probe"}, None

    def _end(self, reward: float) -> None:
        super()._end(reward)
        if self._episode is not None and self._episode.ended is None:  # ended without a grade (too large)
            self._episode.end("not graded: the submission is over 1 MB")

    def _probes(self) -> tuple[int, int]:
        used = self._episode.probes if self._episode is not None else 0
        return used, self.probe_budget - used

    def episode_record(self) -> list[dict[str, Any]]:
        """Case 2: the episode's lines (the same record as ``har2client episode`` writes); else empty."""
        return list(self._episode.lines) if self._episode is not None else []


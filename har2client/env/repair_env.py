"""Case 3 (repair): an old client, the failure it gives since the API changed, a short new recording.

    repair = RepairEnv(split="train", curriculum="R0", seed=0)
    obs = repair.reset()                                    # ... client_v1, failure
    out = repair.step({"type": "submit", "code": obs["client_v1"]})
    out["reward"], out["info"]["regression_rate"]          # a no-op patch: some tests fail, nothing regresses

The contract is :class:`~har2client.env._base.Har2ClientEnv`'s. ``regression_rate`` is the share of
the tests client_v1 passes on the episode's grading instance that the submission fails.
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from typing import Any

from .._errors import EnvError
from ..repair import NotApplicable, regression_between
from ..tasks import Task
from ._base import Har2ClientEnv
from ._curricula import parse_curriculum
from ._grader import Grader
from ._sources import TrainTasks, build_repair_episode

ARMS = ("base", "hint", "placebo", "notice")


class RepairEnv(Har2ClientEnv):
    """Repair ``client_v1`` for the API's new release.

    ``split="train"`` makes a new release of a new Tier B API every episode (kept only when client_v1
    passes some of the hidden tests and fails others on the episode's grading instance, as the
    benchmark's tasks are); ``split="test"`` reads the dataset's repair tasks from ``tasks`` (default
    ``$HAR2CLIENT_SOURCE``). ``curriculum``: ``R0`` ... ``R3`` (1 to 4 changes), ``R0-R3`` rising,
    ``all``. ``arm``: ``base``, ``hint`` (what changed), ``placebo``, ``notice`` (only that it changed).
    """

    case = "repair"
    default_arm = "base"

    def __init__(self, split: str = "train", curriculum: str = "all", seed: int = 0, arm: str | None = None,
                 compact: bool = True, tasks: str | None = None, grader: Grader | None = None,
                 window: int = 8, threshold: float = 0.8) -> None:
        if arm is not None and arm not in ARMS:
            raise EnvError(f"arm must be one of {', '.join(ARMS)}, not {arm!r}")
        self.source = "browser_har"
        super().__init__(split=split, curriculum=parse_curriculum(curriculum, "R", window=window, threshold=threshold),
                         seed=seed, arm=arm, compact=compact, grader=grader)
        self._v1: Future[dict[str, Any]] | None = None
        if split == "train":
            self._tasks = TrainTasks(_build_release)
        else:
            self._tasks = self._dataset_tasks(tasks, lambda m: m.get("case") == "repair", "repair")
            self._fit_curriculum(set(self._tasks.by_stage), "releases of", "the split has",
                                 lambda s: f"{s + 1} changes")

    def _begin(self, task: Task) -> bool:
        with open(os.path.join(task.path, "client_v1.py"), encoding="utf-8") as fh:
            client_v1 = fh.read()
        self._v1 = self.grader.submit(task.path, client_v1, self.grading_seed)
        if self.split == "train":  # a release client_v1 survives whole, or breaks whole, is no repair
            return 0.0 < self._v1.result()["pass_rate"] < 1.0
        return True

    def _extend(self, task: Task, obs: dict[str, Any], parts: dict[str, Any]) -> None:
        from ..tasks import arms_of

        files = arms_of(task.path)[self.arm]
        obs.update(client_v1=parts["extra"][files["client_v1"]], failure=parts["extra"][files["failure"]])

    def _finish(self, code: str, grade: dict[str, Any]) -> dict[str, Any]:
        assert self._task is not None and self._v1 is not None
        return regression_between(self._task.grading, self._v1.result(), grade)


def _build_release(scratch: str, seed: int, stages: list[int]) -> str:
    for attempt in range(20):  # a drawn change may not apply to the drawn API: draw again
        try:
            return build_repair_episode(scratch, seed, [s + 1 for s in stages], attempt)
        except NotApplicable:
            continue
    raise EnvError(f"no release of {', '.join(str(s + 1) for s in stages)} changes from seed {seed} in 20 draws")

"""A repair's scores: the pass rate on v2's hidden tests, full repair, and ``regression_rate``."""

from __future__ import annotations

import os
import secrets
from typing import Any

from ..grading import GradeResult, grade
from ..tasks import Task, load_task


def regression(task: Task, submitted: GradeResult, **grade_options: Any) -> dict[str, Any]:
    """client_v1 graded on the same v2 instance as ``submitted``, and what the submission lost of it.

    ``regression_rate`` is the share of the tests client_v1 passes on v2 that the submission fails
    (0 when client_v1 passes none).
    """
    old = grade(task, os.path.join(task.path, "client_v1.py"), seed=submitted.grading_seed, **grade_options)
    return regression_between(task.grading, old.to_dict(), submitted.to_dict())


def regression_between(grading: dict[str, Any], v1_grade: dict[str, Any], submitted: dict[str, Any]) -> dict[str, Any]:
    """The repair scores from two grades (as dicts) on one v2 instance: client_v1's and the submission's."""
    kept = [t["name"] for t in v1_grade["tests"] if t["passed"]]
    passed = {t["name"] for t in submitted["tests"] if t["passed"]}
    lost = [name for name in kept if name not in passed]
    return {"full_repair": submitted["pass_rate"] == 1.0,
            "regression_rate": round(len(lost) / len(kept), 6) if kept else 0.0,
            "regressed": lost, "client_v1_pass_rate": v1_grade["pass_rate"], "changes": grading.get("changes", []),
            "loud": grading.get("loud", []), "silent": grading.get("silent", []),
            "variant": grading.get("variant", "plain")}


def repair_scores(task: Task | str, client_path: str, seed: int | None = None, **grade_options: Any) -> dict[str, Any]:
    """Grade ``client_path`` and the task's client_v1 on the same fresh v2 instance; every repair score."""
    task = task if isinstance(task, Task) else load_task(task)
    submitted = grade(task, client_path, seed=seed if seed is not None else secrets.randbits(62), **grade_options)
    graded = submitted.to_dict()
    return {"task_id": task.task_id, "grading_seed": submitted.grading_seed, "pass_rate": graded["pass_rate"],
            **regression(task, submitted, **grade_options), "grade": graded}


def repair_breakdown(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means of pass rate, full repair and regression_rate over ``repair_scores`` rows: in all, by kind of
    change (a task counts for each kind its release made), loud against silent, and by side information."""
    def means(group: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(group)
        return {"tasks": n, "pass_rate": round(sum(r["pass_rate"] for r in group) / n, 4),
                "full_repair": round(sum(bool(r["full_repair"]) for r in group) / n, 4),
                "regression_rate": round(sum(r["regression_rate"] for r in group) / n, 4)} if n else {"tasks": 0}

    by_kind = {kind: means([r for r in rows if kind in r["changes"]])
               for kind in sorted({k for r in rows for k in r["changes"]})}
    return {"all": means(rows), "by_kind": by_kind,
            "loud_only": means([r for r in rows if r["loud"] and not r["silent"]]),
            "silent_only": means([r for r in rows if r["silent"] and not r["loud"]]),
            "mixed": means([r for r in rows if r["silent"] and r["loud"]]),
            "by_variant": {v: means([r for r in rows if r["variant"] == v])
                           for v in sorted({r["variant"] for r in rows})}}

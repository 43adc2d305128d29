"""Baseline clients of a task: the reference (from ``hidden/``), the replay of its recording, and the
heuristic client written by rules from the visible files only."""

from __future__ import annotations

from .._errors import TaskError
from ..har import read_har
from ..tasks import Task, load_task
from ._heuristic import heuristic_source
from ._replay import replay_source

BASELINES = ("reference", "replay", "heuristic")


def baseline_source(kind: str, task: Task | str, arm: str | None = None) -> str:
    """The source of baseline ``kind`` (one of ``BASELINES``) for ``task``; the heuristic reads ``arm``'s
    visible files (by default the task's base arm; the others ignore the arm)."""
    task = task if isinstance(task, Task) else load_task(task)
    if kind == "reference":
        with open(task.reference_path, encoding="utf-8") as fh:
            return fh.read()
    if kind == "replay":
        return replay_source(task.model, read_har(task.recording_path))
    if kind == "heuristic":
        return heuristic_source(task.path, arm)
    raise TaskError(f"unknown baseline {kind!r} (one of {', '.join(BASELINES)})")

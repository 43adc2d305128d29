"""Baseline clients of a task: the reference (from ``hidden/``) and the replay of its recording."""

from __future__ import annotations

from .._errors import TaskError
from ..har import read_har
from ..tasks import Task, load_task
from ._replay import replay_source

BASELINES = ("reference", "replay")


def baseline_source(kind: str, task: Task | str) -> str:
    """The source of baseline ``kind`` (``reference`` or ``replay``) for ``task``."""
    task = task if isinstance(task, Task) else load_task(task)
    if kind == "reference":
        with open(task.reference_path, encoding="utf-8") as fh:
            return fh.read()
    if kind == "replay":
        return replay_source(task.model, read_har(task.recording_path))
    raise TaskError(f"unknown baseline {kind!r} (one of {', '.join(BASELINES)})")

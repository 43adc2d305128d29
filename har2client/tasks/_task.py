"""A task directory: visible files at the top, everything grading needs under ``hidden/``.

    TASK/goal.md                  what to write (no word about the switches)
    TASK/recording.har            the recorded traffic
    TASK/task.json                visible metadata, and each arm's files
    TASK/arms/ARM/...             the other arms' goal or recording (``tasks._arms``)
    TASK/hidden/openapi.yaml      the API's description (OpenAPI 3 with the x-har2client conventions)
    TASK/hidden/tests.json        the hidden tests
    TASK/hidden/grading.json      task seed, client signature, limits
    TASK/hidden/reference_client.py
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

from .._errors import TaskError

VISIBLE = ("goal.md", "recording.har", "task.json")


def arms_of(task_dir: str) -> dict[str, dict[str, str]]:
    """Each arm of the task and its files (tasks built before arms have the as-built arm only)."""
    try:
        with open(os.path.join(task_dir, "task.json"), encoding="utf-8") as fh:
            arms = json.load(fh).get("arms")
    except (OSError, ValueError):
        arms = None
    return arms or {"as_built": {"goal": "goal.md", "recording": "recording.har"}}


def visible_files(task_dir: str, arm: str = "as_built") -> list[str]:
    """The files a model given ``arm`` of the task sees, in a fixed order (paths inside the task)."""
    arms = arms_of(task_dir)
    if arm not in arms:
        raise TaskError(f"{task_dir}: no arm {arm!r} (this task has {', '.join(arms)})")
    files = [arms[arm]["goal"], arms[arm]["recording"], "task.json"]
    files += [f for kind, f in arms[arm].items() if kind not in ("goal", "recording")]  # a repair's old client, failure
    return [n for n in files if os.path.isfile(os.path.join(task_dir, n))]


HIDDEN = ("openapi.yaml", "tests.json", "grading.json", "reference_client.py")


@dataclass(frozen=True)
class HiddenTest:
    """One hidden test as stored in ``hidden/tests.json``; the judge knows how to run each ``kind``."""

    name: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The test as plain JSON data, as ``tests.json`` holds it."""
        return asdict(self)


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise TaskError(f"{path}: missing") from None
    except json.JSONDecodeError as exc:
        raise TaskError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


@dataclass
class Task:
    """A task directory: its metadata, visible files (goal, recording, arms) and hidden part."""
    path: str

    @cached_property
    def meta(self) -> dict[str, Any]:
        return _read_json(os.path.join(self.path, "task.json"))

    @property
    def task_id(self) -> str:
        """The task's id, from ``task.json``."""
        return str(self.meta["task_id"])

    def file(self, name: str) -> str:
        """The path of the task's visible file ``name``."""
        return os.path.join(self.path, name)

    def hidden_file(self, name: str) -> str:
        """The path of the task's hidden file ``name`` (under ``hidden/``)."""
        return os.path.join(self.path, "hidden", name)

    @cached_property
    def model(self) -> Any:
        """The API's model (an ``ApiModel``), read from ``hidden/openapi.yaml``."""
        from ..api import load_model

        return load_model(self.hidden_file("openapi.yaml"), self.grading.get("model_key"))

    @cached_property
    def tests(self) -> list[HiddenTest]:
        return [HiddenTest(**t) for t in _read_json(self.hidden_file("tests.json"))]

    @cached_property
    def grading(self) -> dict[str, Any]:
        return _read_json(self.hidden_file("grading.json"))

    @property
    def reference_path(self) -> str:
        """The path of the task's reference client."""
        return self.hidden_file("reference_client.py")

    @property
    def recording_path(self) -> str:
        """The path of the task's recording (``recording.har``)."""
        return self.file("recording.har")


def load_task(path: str | os.PathLike[str]) -> Task:
    """The task at ``path``, checked to have every file grading needs."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise TaskError(f"{path}: no such task directory")
    for name in VISIBLE:
        if not os.path.isfile(os.path.join(path, name)):
            raise TaskError(f"{path}: not a task directory ({name} is missing)")
    for name in HIDDEN:
        if not os.path.isfile(os.path.join(path, "hidden", name)):
            older = " (built by an earlier har2client, which described APIs in spec.json: rebuild it)" if \
                os.path.isfile(os.path.join(path, "hidden", "spec.json")) else ""
            raise TaskError(f"{path}: the hidden part is incomplete (hidden/{name} is missing){older}")
    task = Task(path)
    if "task_id" not in task.meta:
        raise TaskError(f"{task.file('task.json')}: no task_id")
    return task


def task_metas(folder: str) -> list[tuple[str, dict[str, Any]]]:
    """(path, task.json) of every task directory in ``folder``, by name; [] for a folder that holds none."""
    out = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(os.path.join(path, "task.json")):
            out.append((path, _read_json(os.path.join(path, "task.json"))))
    return out


def write_json(path: str, data: Any) -> None:
    """Write ``data`` as sorted, indented JSON (the same data gives the same bytes)."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")


def write_text(path: str, text: str) -> None:
    """Write ``text`` with Unix line ends (the same text gives the same bytes on every machine)."""
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)

"""Task kinds: how a task's grading world is started, so that the judge needs to know no tier or case.

A kind is registered under a name with an entry point, ``"module:function"``, imported only when a
task of that kind is first graded (as Gymnasium's ``register``/``make`` do). The function takes the
task, the grading seed and the listening socket the sandbox's clients can reach, and returns a
:class:`GradingWorld`. Adding a kind (a new tier, Case 2's practice worlds, Case 3's releases) is one
``register`` call; the judge does not change.
"""

from __future__ import annotations

import importlib
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._errors import TaskError
from ._task import Task


@dataclass
class GradingWorld:
    """A running grading instance as the judge uses it."""

    world: Any                        # the judge's view of the instance (grading._tests.World)
    server: Any                       # what serves it; the judge closes it when the grade ends
    client_kwargs: dict[str, Any]     # the client's constructor arguments: base URL and credentials
    instance: Any = None              # for tests that act on the instance itself (tokens, its clock)
    extras: dict[str, Any] = field(default_factory=dict)


StartWorld = Callable[[Task, int, socket.socket], GradingWorld]
_ENTRY_POINTS: dict[str, str] = {}
_LOADED: dict[str, StartWorld] = {}


def register(kind: str, start: str) -> None:
    """Make tasks of ``kind`` gradable; ``start`` is ``"module:function"`` (see the module docstring)."""
    if ":" not in start:
        raise ValueError(f"{start!r}: an entry point is 'module:function'")
    _ENTRY_POINTS[kind] = start
    _LOADED.pop(kind, None)


def kinds() -> list[str]:
    """The names of the registered task kinds."""
    return sorted(_ENTRY_POINTS)


def kind_of(task: Task) -> str:
    """The task's kind, as its grading.json names it (a build task when it names none)."""
    return str(task.grading.get("kind") or "build")


def start_world(task: Task, grading_seed: int, sock: socket.socket) -> GradingWorld:
    """Start the grading world of ``task``'s kind on ``sock``, with instance ``grading_seed``."""
    kind = kind_of(task)
    start = _LOADED.get(kind)
    if start is None:
        entry = _ENTRY_POINTS.get(kind)
        if entry is None:
            raise TaskError(f"{task.path}: a task of kind {kind!r}, which no installed code grades "
                            f"(known: {', '.join(kinds())})")
        module, _, name = entry.partition(":")
        start = _LOADED[kind] = getattr(importlib.import_module(module), name)
    return start(task, grading_seed, sock)


register("build", "har2client.api:start_grading_world")
register("repair", "har2client.repair:start_repair_world")

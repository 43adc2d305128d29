"""The judge: the trusted side of grading.

It starts a fresh grading instance (new data, credentials and host) in its own
process, hands the client only a base URL and credentials, drives the client
through a worker process, and decides every test itself from the instance's
state. Nothing the client prints, returns or does to its own process can mark
a test as passed.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from typing import Any

from .._errors import ClientFileError, GradingError
from .._seeding import rng
from ..api import loopback_host
from ..tasks import Task, load_task, start_world
from ._channel import WorkerChannel, WorkerFailure, WorkerTimeout
from ._result import NOT_RUN, GradeResult, TestResult
from ._sandbox import Limits, Sandbox, shared_sandbox
from ._tests import KINDS, ClientRaised, Context, TestFailure, World

Progress = Callable[[TestResult], None]
MAX_CLIENT_BYTES = 1024 * 1024
# A client that hangs on two tests in a row hangs on the rest too: waiting out every test would make one
# such client cost minutes of a batch. goal.md states the rule.
MAX_CONSECUTIVE_TIMEOUTS = 2
TIMED_OUT_TWICE = "not run: the client timed out twice in a row"


def grade(task: Task | str, client_path: str, *, seed: int | None = None, limits: Limits | None = None,
          progress: Progress | None = None, stop_at_first_failure: bool = False, isolation: str = "auto",
          sandbox: Sandbox | None = None) -> GradeResult:
    """Grade ``client_path`` on a fresh grading instance of ``task``.

    ``seed`` fixes the grading instance (for reproducing a grade); by default every
    grade draws a new one. ``isolation`` is ``auto`` (full when the machine allows),
    ``full`` or ``partial``. A client that cannot be loaded, crashes or hangs fails
    the tests it did not pass, with the reason; the judge never raises for that.
    """
    task = task if isinstance(task, Task) else load_task(task)
    g = task.grading
    limits = limits or Limits(call_seconds=float(g.get("call_seconds", 10)),
                              task_seconds=float(g.get("task_seconds", 120)))
    grading_seed = seed if seed is not None else secrets.randbits(62)
    started = time.monotonic()
    tests = task.tests
    results: list[TestResult] = []
    client_label = os.fspath(client_path)
    box = sandbox or shared_sandbox(isolation)
    box.ensure()

    def finish(error: str | None = None) -> GradeResult:
        for t in tests[len(results):]:  # the reason is said once, in the result's error
            results.append(TestResult(t.name, False, NOT_RUN))
        warnings = []
        if box.isolation != "full":
            warnings.append(f"isolation is partial ({box.why_partial}): the client runs in a separate process "
                            "with resource limits, but can reach the network and the filesystem")
        return GradeResult(task.task_id, results, time.monotonic() - started, grading_seed, box.isolation,
                           client_label, error, warnings=warnings)

    try:
        source = _read_client(client_label)
    except ClientFileError as exc:
        return finish(str(exc))

    world, server, kwargs, instance = _start_world(task, grading_seed, box)
    worker: WorkerChannel | None = None
    fatal: str | None = None
    class_name = g.get("class_name", "Client")
    timeouts = 0
    try:
        for test in tests:
            left = limits.task_seconds - (time.monotonic() - started)
            if left <= 0:
                results.append(TestResult(test.name, False,
                                          f"the grade's time limit ({limits.task_seconds:g} s) ran out"))
                continue
            if timeouts >= MAX_CONSECUTIVE_TIMEOUTS:
                results.append(TestResult(test.name, False, TIMED_OUT_TWICE))
                continue
            if worker is None:
                try:
                    worker = box.spawn(limits)
                    reply = worker.request({"op": "load", "class": class_name, "source": source,
                                            "name": os.path.basename(client_label)}, min(limits.call_seconds, left))
                except GradingError as exc:
                    fatal = str(exc)
                    break
                except WorkerFailure as exc:
                    fatal = f"{client_label} could not be loaded: {exc}"
                    break
                if not reply["ok"]:
                    err = reply["error"]
                    fatal = f"{client_label} could not be loaded: {err['type']}: {err['message']}"
                    break
            outcome, lost = _run_one(test, worker, world, instance, kwargs, class_name, limits, started, grading_seed)
            timeouts = timeouts + 1 if lost == "timeout" else 0
            if lost:  # the next test gets a fresh worker (spawning waits for the sweep to finish)
                worker.close()
                worker = None
                box.sweep(wait=False)
            results.append(outcome)
            if progress:
                progress(outcome)
            if stop_at_first_failure and not outcome.passed:
                break
    finally:
        if worker is not None:
            worker.close()
        box.sweep(wait=False)  # finished while the caller moves on; the next use of the box waits for it
        server.close()
    return finish(fatal)


def _read_client(path: str) -> str:
    if not os.path.exists(path):
        raise ClientFileError(f"{path}: no such client file")
    if not os.path.isfile(path):
        raise ClientFileError(f"{path}: not a file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CLIENT_BYTES + 1)
    except OSError as exc:
        raise ClientFileError(f"{path}: cannot be read ({exc.strerror})") from None
    if len(raw) > MAX_CLIENT_BYTES:
        raise ClientFileError(f"{path}: larger than 1 MB")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ClientFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _start_world(task: Task, grading_seed: int, box: Sandbox) -> tuple[World, Any, dict[str, Any], Any]:
    """A fresh grading instance of ``task`` on a socket the sandbox's clients can reach.

    The task's kind starts it (``tasks._kinds``): the judge's view of it, the running server, the
    client's constructor arguments, and the instance that tests acting on tokens and clock use.
    """
    started = start_world(task, grading_seed, box.listen(loopback_host(grading_seed)))
    return started.world, started.server, started.client_kwargs, started.instance


def _run_one(test: Any, worker: WorkerChannel, world: World, instance: Any, kwargs: dict[str, Any],
             class_name: str, limits: Limits, started: float, grading_seed: int) -> tuple[TestResult, str]:
    """Run one hidden test; also say whether the worker was lost: "" (kept), "timeout" or "lost"."""
    def budget() -> float:
        left = limits.task_seconds - (time.monotonic() - started)
        if left <= 0:
            raise WorkerFailure(f"the grade's time limit ({limits.task_seconds:g} s) ran out")
        return min(limits.call_seconds, left)

    def call(method: str, *args: Any, **kw: Any) -> Any:
        reply = worker.request({"op": "call", "method": method, "args": list(args), "kwargs": kw}, budget())
        if not reply["ok"]:
            raise ClientRaised(method, reply["error"])
        return reply["value"]

    current = "Client(...)"
    try:
        reply = worker.request({"op": "new", "class": class_name, "kwargs": kwargs}, budget())
        if not reply["ok"]:
            raise ClientRaised(f"{class_name}(...)", reply["error"])

        def tracked(method: str, *args: Any, **kw: Any) -> Any:
            nonlocal current
            current = method
            return call(method, *args, **kw)

        def fresh() -> None:
            nonlocal current
            current = f"{class_name}(...)"
            again = worker.request({"op": "new", "class": class_name, "kwargs": kwargs}, budget())
            if not again["ok"]:
                raise ClientRaised(f"{class_name}(...)", again["error"])

        ctx = Context(world, tracked, rng(grading_seed, "test", test.name), instance, fresh)
        KINDS[test.kind](ctx, test.params)
        return TestResult(test.name, True), ""
    except (TestFailure, ClientRaised) as exc:
        return TestResult(test.name, False, str(exc)), ""
    except WorkerFailure as exc:
        return TestResult(test.name, False, f"{exc} (during {current})"), \
            "timeout" if isinstance(exc, WorkerTimeout) else "lost"

"""How environments grade: in this thread's sandbox, or on one warm grading pool many environments share."""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from typing import Any

from ..grading import GradingPool, grade_code


class Grader:
    """Grades submissions for environments: inline (this thread) or on a shared :class:`GradingPool`.

    ``submit`` returns a future either way, so an environment can start a grade it needs later
    (a repair's client_v1 at reset) and collect it when it does.
    """

    def __init__(self, pool: GradingPool | None = None, isolation: str = "auto") -> None:
        self.pool = pool
        self.isolation = pool.isolation if pool is not None else isolation

    def submit(self, task_path: str, code: str, seed: int) -> Future[dict[str, Any]]:
        """Grade ``code`` on the task at ``task_path``; a future of the grade's dict."""
        if self.pool is not None:
            return self.pool.submit(grade_code, task_path, code, seed, self.isolation)
        done: Future[dict[str, Any]] = Future()
        try:
            done.set_result(grade_code(task_path, code, seed, self.isolation))
        except BaseException as exc:  # noqa: BLE001 - handed to whoever collects the grade
            done.set_exception(exc)
        return done

    def grade(self, task_path: str, code: str, seed: int) -> dict[str, Any]:
        """Grade and wait: the ``grade_fn`` an investigate episode takes."""
        return self.submit(task_path, code, seed).result()


_shared: dict[tuple[int, str], GradingPool] = {}
_lock = threading.Lock()


def shared_pool(workers: int | None = None, isolation: str = "auto") -> GradingPool:
    """This process's grading pool for ``isolation`` (started on first use with ``workers`` processes,
    one per core by default), for every environment that asks for it.

    The pool forks its workers: ask for it before this process starts threads of its own.
    """
    n = workers or len(os.sched_getaffinity(0))
    with _lock:
        pool = _shared.get((n, isolation))
        if pool is None:
            pool = _shared[(n, isolation)] = GradingPool(n, isolation)
        return pool


def close_shared_pools() -> None:
    """Stop every shared pool of this process (their workers end with it anyway)."""
    with _lock:
        pools = list(_shared.values())
        _shared.clear()
    for pool in pools:
        pool.close()

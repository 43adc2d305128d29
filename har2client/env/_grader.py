"""How environments grade: in this thread's sandbox, or on one warm grading pool many environments share.

A submission is source text, not a file: it is written into the grading process's own scratch
directory and graded there, so nothing of one episode's code is visible to another's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from concurrent.futures import Future
from typing import Any

from ..grading._batch import GradingPool
from ..grading._sandbox import scratch_prefix

_scratch: str | None = None


def _scratch_dir() -> str:
    global _scratch
    if _scratch is None or not os.path.isdir(_scratch):
        _scratch = tempfile.mkdtemp(prefix=scratch_prefix("env-grade"))
    return _scratch


def grade_code(task_path: str, code: str, seed: int, isolation: str = "auto") -> dict[str, Any]:
    """Grade ``code`` (a whole client.py) on ``task_path``'s grading instance of ``seed``, as a dict."""
    from ..grading import grade

    work = tempfile.mkdtemp(dir=_scratch_dir())
    try:
        path = os.path.join(work, "client.py")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(code)
        result = grade(task_path, path, seed=seed, isolation=isolation).to_dict()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # The scratch path differs per grade and says nothing: messages name the submission client.py, so the
    # same code on the same instance gives the same result, word for word.
    result["client"] = "client.py"
    if result["error"]:
        result["error"] = result["error"].replace(path, "client.py")
    for t in result["tests"]:
        if t["error"]:
            t["error"] = t["error"].replace(path, "client.py")
    return result


class Grader:
    """Grades submissions for environments: inline (this thread) or on a shared :class:`GradingPool`.

    ``submit`` returns a future either way, so an environment can start a grade it needs later
    (a repair's client_v1 at reset) and collect it when it does.
    """

    def __init__(self, pool: GradingPool | None = None, isolation: str = "auto") -> None:
        self.pool = pool
        self.isolation = pool.isolation if pool is not None else isolation

    def submit(self, task_path: str, code: str, seed: int) -> "Future[dict[str, Any]]":
        if self.pool is not None:
            return self.pool.submit(grade_code, task_path, code, seed, self.isolation)
        done: Future[dict[str, Any]] = Future()
        try:
            done.set_result(grade_code(task_path, code, seed, self.isolation))
        except BaseException as exc:  # handed to whoever collects the grade
            done.set_exception(exc)
        return done


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

"""Grading a submission given as source text, not a file: what environments, the runner and the Space grade.

The code is written into the grading process's own scratch directory and graded there, so nothing of
one submission is visible to another's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from ._sandbox import scratch_prefix

_scratch: str | None = None


def _scratch_dir() -> str:
    global _scratch
    if _scratch is None or not os.path.isdir(_scratch):
        _scratch = tempfile.mkdtemp(prefix=scratch_prefix("env-grade"))
    return _scratch


def grade_code(task_path: str, code: str, seed: int, isolation: str = "auto") -> dict[str, Any]:
    """Grade ``code`` (a whole client.py) on ``task_path``'s grading instance of ``seed``, as a dict."""
    from ._judge import grade

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

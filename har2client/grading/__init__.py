"""Grading: the trusted judge, the untrusted worker, and the hidden tests.

Names load on first use: the sandbox can start before the judge's heavier
imports (the fake servers) are done.
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from ..tasks import HiddenTest
    from ._batch import (
        GradingPool,
        append_line,
        grade_all,
        plan_jobs,
        progress_printer,
        read_results,
        render_summary,
        summarize,
    )
    from ._code import grade_code
    from ._judge import MAX_CLIENT_BYTES, grade
    from ._result import GRADER_VERSION, NOT_RUN, SCORING_VERSION, GradeResult, TestResult
    from ._sandbox import Limits, Sandbox, remove_orphaned_scratch, scratch_prefix, shared_sandbox
    from ._tests import World, interleave

__all__ = [
    "GRADER_VERSION", "MAX_CLIENT_BYTES", "NOT_RUN", "SCORING_VERSION", "GradeResult", "GradingPool", "HiddenTest",
    "Limits", "Sandbox", "TestResult", "World", "append_line", "grade", "grade_all", "grade_code", "interleave",
    "plan_jobs", "progress_printer", "read_results", "remove_orphaned_scratch", "render_summary", "scratch_prefix",
    "shared_sandbox", "summarize",
]

__getattr__ = _lazy_exports(__name__, {
    **dict.fromkeys(("GradingPool", "append_line", "grade_all", "plan_jobs", "progress_printer", "read_results",
                     "render_summary", "summarize"), "._batch"),
    "grade_code": "._code",
    **dict.fromkeys(("MAX_CLIENT_BYTES", "grade"), "._judge"),
    **dict.fromkeys(("GRADER_VERSION", "NOT_RUN", "SCORING_VERSION", "GradeResult", "TestResult"), "._result"),
    **dict.fromkeys(("Limits", "Sandbox", "remove_orphaned_scratch", "scratch_prefix", "shared_sandbox"), "._sandbox"),
    **dict.fromkeys(("World", "interleave"), "._tests"),
    "HiddenTest": "..tasks",
})

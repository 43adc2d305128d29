"""Grading: the trusted judge, the untrusted worker, and the hidden tests.

Names load on first use: the sandbox can start before the judge's heavier
imports (the fake servers) are done.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..tasks._task import HiddenTest
    from ._batch import GradingPool, grade_all, plan_jobs
    from ._code import grade_code
    from ._judge import grade
    from ._result import GRADER_VERSION, SCORING_VERSION, GradeResult, TestResult
    from ._sandbox import Limits, Sandbox

__all__ = ["GRADER_VERSION", "SCORING_VERSION", "GradeResult", "GradingPool", "HiddenTest", "Limits", "Sandbox",
           "TestResult", "grade",
           "grade_all", "grade_code", "plan_jobs"]

__getattr__ = lazy_exports(__name__, {
    **dict.fromkeys(("GradingPool", "grade_all", "plan_jobs"), "._batch"),
    "grade": "._judge",
    "grade_code": "._code",
    **dict.fromkeys(("GRADER_VERSION", "SCORING_VERSION", "GradeResult", "TestResult"), "._result"),
    **dict.fromkeys(("Limits", "Sandbox"), "._sandbox"),
    "HiddenTest": "..tasks._task",
})

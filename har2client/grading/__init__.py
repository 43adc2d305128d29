"""Grading: the trusted judge, the untrusted worker, and the hidden tests."""

from ._batch import GradingPool, grade_all, plan_jobs
from ._judge import grade
from ._sandbox import Limits, Sandbox
from ._result import GRADER_VERSION, GradeResult, TestResult
from ..tasks._task import HiddenTest
from ._tests import hidden_tests

__all__ = ["GRADER_VERSION", "GradeResult", "GradingPool", "HiddenTest", "Limits", "Sandbox", "TestResult", "grade",
           "grade_all", "hidden_tests", "plan_jobs"]

"""Grading: the trusted judge, the untrusted worker, and the hidden tests."""

from ._judge import grade
from ._sandbox import Limits, Sandbox
from ._result import GRADER_VERSION, GradeResult, TestResult
from ..tasks._task import HiddenTest
from ._tests import hidden_tests

__all__ = ["GRADER_VERSION", "GradeResult", "HiddenTest", "Limits", "Sandbox", "TestResult", "grade", "hidden_tests"]

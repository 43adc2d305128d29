"""Grading: the trusted judge, the untrusted worker, and the hidden tests."""

from ._judge import grade
from ._process import Limits
from ._result import GRADER_VERSION, GradeResult, TestResult
from ..tasks._task import HiddenTest
from ._tests import hidden_tests

__all__ = ["GRADER_VERSION", "GradeResult", "HiddenTest", "Limits", "TestResult", "grade", "hidden_tests"]

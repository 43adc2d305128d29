"""What a grade says: per-test outcomes and the pass rate, readable by people and programs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .. import __version__

# What decides scores: task generation, hidden tests, grading rules. Scores are comparable only where it
# is equal; tests/test_scoring_version.py fails when any of those change and it does not (see CHANGELOG.md).
# 0.2.0: two time-outs in a row end a grade.
SCORING_VERSION = "0.7.0"
# The package that graded; recorded beside the scoring version, for bug reports.
GRADER_VERSION = __version__
NOT_RUN = "not run"  # a test the grade never reached; the grade's error says why (the client did not load, say)


@dataclass
class TestResult:
    """One hidden test's result: passed or not, and why not."""
    name: str
    passed: bool
    error: str | None = None


@dataclass
class GradeResult:
    """One grade of one client on one task: every hidden test's result, and how it was run."""
    task_id: str
    tests: list[TestResult]
    seconds: float
    grading_seed: int
    isolation: str
    client: str
    error: str | None = None          # why nothing could run (missing file, import failure)
    grader_version: str = GRADER_VERSION
    scoring_version: str = SCORING_VERSION
    warnings: list[str] = field(default_factory=list)

    @property
    def passed(self) -> int:
        """How many hidden tests passed."""
        return sum(t.passed for t in self.tests)

    @property
    def total(self) -> int:
        """How many hidden tests the task has."""
        return len(self.tests)

    @property
    def pass_rate(self) -> float:
        """The score: the share of hidden tests passed (0.0 when the task has none)."""
        return self.passed / self.total if self.tests else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The grade as plain JSON data, as ``grade --json`` and the results files write it."""
        return {
            "task_id": self.task_id,
            "pass_rate": round(self.pass_rate, 6),
            "passed": self.passed,
            "total": self.total,
            "tests": [asdict(t) for t in self.tests],
            "seconds": round(self.seconds, 3),
            "grader_version": self.grader_version,
            "scoring_version": self.scoring_version,
            "grading_seed": self.grading_seed,
            "isolation": self.isolation,
            "client": self.client,
            "error": self.error,
            "warnings": self.warnings,
        }

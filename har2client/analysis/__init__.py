"""Analysis of runs: pass rates with bootstrap intervals over tasks, breakdowns, and the verdicts of the
pre-registered hypotheses (PREREG.md)."""

from ._analyze import analyze, render_report
from ._prereg import read_prereg, verdicts
from ._runs import load_cells
from ._stats import bootstrap_ci, bootstrap_combination

__all__ = ["analyze", "bootstrap_ci", "bootstrap_combination", "load_cells", "read_prereg", "render_report", "verdicts"]

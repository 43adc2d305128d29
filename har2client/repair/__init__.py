"""Case 3, Repair: releases that change an API, the tasks that ask a model to repair an old client,
and their scores (regression rate, full repair)."""

from ._build import REPAIR_SIZE, applicable, build_repair, build_repair_task, is_a_repair, plan_repair
from ._changes import CHANGES, KINDS, LOUD, SILENT, NotApplicable, apply_change
from ._contract import ContractWorld, repaired_source, start_repair_world
from ._score import regression, regression_between, repair_breakdown, repair_scores

__all__ = [
    "CHANGES", "KINDS", "LOUD", "REPAIR_SIZE", "SILENT", "ContractWorld", "NotApplicable", "applicable",
    "apply_change", "build_repair", "build_repair_task", "is_a_repair", "plan_repair", "regression",
    "regression_between", "repair_breakdown", "repair_scores", "repaired_source", "start_repair_world",
]

"""Case 3, Repair: releases that change an API, and (next) the tasks that ask a model to repair an old client."""

from ._changes import CHANGES, KINDS, LOUD, SILENT, NotApplicable, apply_change

__all__ = ["CHANGES", "KINDS", "LOUD", "NotApplicable", "SILENT", "apply_change"]
from ._build import REPAIR_SIZE, build_repair, build_repair_task, plan_repair
from ._contract import ContractWorld, repaired_source

__all__ += ["ContractWorld", "REPAIR_SIZE", "build_repair", "build_repair_task", "plan_repair", "repaired_source"]
from ._score import repair_breakdown, repair_scores  # noqa: E402

__all__ += ["repair_breakdown", "repair_scores"]

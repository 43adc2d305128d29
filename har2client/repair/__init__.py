"""Case 3, Repair: releases that change an API, and (next) the tasks that ask a model to repair an old client."""

from ._changes import CHANGES, KINDS, LOUD, SILENT, NotApplicable, apply_change

__all__ = ["CHANGES", "KINDS", "LOUD", "NotApplicable", "SILENT", "apply_change"]

"""Tier A: tasks from real public API specs (the descriptions in specs/)."""

from ._fake import fake_from_schema, fake_records
from ._openapi import Operation, TierAModel, load_tiera_spec, load_tiera_specs

__all__ = ["Operation", "TierAModel", "fake_from_schema", "fake_records", "load_tiera_spec", "load_tiera_specs"]

"""Tier A: tasks from real public API specs (the OpenAPI descriptions in specs/)."""

from ._build import build_tiera
from ._specs import NOT_SERVED, SPEC_DIR, TierASpec, load_tiera_spec, load_tiera_specs, tiera_specs

__all__ = ["NOT_SERVED", "SPEC_DIR", "TierASpec", "build_tiera", "load_tiera_spec", "load_tiera_specs", "tiera_specs"]

"""Tier A: tasks from real public API specs (the OpenAPI descriptions in specs/)."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports
from ._build import build_tiera
from ._specs import NOT_SERVED, SPEC_DIR, TierASpec, load_tiera_spec, load_tiera_specs, tiera_specs

__all__ = ["NOT_SERVED", "SPEC_DIR", "TierASpec", "build_tiera", "load_tiera_spec", "load_tiera_specs", "tiera_specs"]

# What the other sub-packages use besides: each loads its module on first use, so no import
# cycle forms and importing this package costs no more than before.
if _typing.TYPE_CHECKING:
    from ._build import build_tiera_task
__all__ += ["build_tiera_task"]
__getattr__ = _lazy_exports(__name__, {
    "build_tiera_task": "._build",
})

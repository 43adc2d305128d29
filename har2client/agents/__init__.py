"""Clients that are not a model's (the reference and replay baselines), and what counts as a model's."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports
from ..api import reference_source
from ._baselines import BASELINES, baseline_source
from ._extract import extract_client
from ._replay import replay_source

__all__ = ["BASELINES", "baseline_source", "extract_client", "reference_source", "replay_source"]

# What the other sub-packages use besides: each loads its module on first use, so no import
# cycle forms and importing this package costs no more than before.
if _typing.TYPE_CHECKING:
    from ._extract import assistant_text
    from ._prompts import SYSTEM
    from ._runner import RunSettings, run
__all__ += ["RunSettings", "SYSTEM", "assistant_text", "run"]
__getattr__ = _lazy_exports(__name__, {
    "assistant_text": "._extract",
    "SYSTEM": "._prompts",
    **dict.fromkeys(("RunSettings", "run"), "._runner"),
})

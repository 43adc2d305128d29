"""Clients that are not a model's: the reference and replay baselines."""

from ..api._reference import reference_source
from ._baselines import BASELINES, baseline_source
from ._replay import replay_source

__all__ = ["BASELINES", "baseline_source", "reference_source", "replay_source"]

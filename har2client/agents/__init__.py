"""Clients that are not a model's (the reference and replay baselines), and what counts as a model's."""

from ..api._reference import reference_source
from ._baselines import BASELINES, baseline_source
from ._extract import extract_client
from ._replay import replay_source

__all__ = ["BASELINES", "baseline_source", "extract_client", "reference_source", "replay_source"]

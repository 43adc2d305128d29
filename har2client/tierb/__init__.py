"""Tier B: 50 invented stateful APIs, each a configuration of the six switches."""

from ._build import build_task, build_tierb
from ._configs import TIERB_SIZE, TaskConfig, tierb_configs, write_configs
from ._domains import DOMAINS, Domain
from ._world import TierBWorld, hidden_tests

__all__ = ["DOMAINS", "Domain", "TIERB_SIZE", "TaskConfig", "TierBWorld", "build_task", "build_tierb",
           "hidden_tests", "tierb_configs", "write_configs"]

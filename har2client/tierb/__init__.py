"""Tier B: 50 invented stateful APIs, each a configuration of the six switches."""

from ._build import build_task, build_tierb
from ._configs import TIERB_SIZE, TaskConfig, tierb_configs, write_configs
from ._domains import DOMAINS, Domain

__all__ = ["DOMAINS", "Domain", "TIERB_SIZE", "TaskConfig", "build_task", "build_tierb", "tierb_configs",
           "write_configs"]

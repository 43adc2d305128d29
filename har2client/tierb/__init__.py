"""Tier B: 50 invented stateful APIs, each a configuration of six switches written as an OpenAPI document."""

from ._build import build_investigate, build_task, build_tierb
from ._configs import TIERB_SIZE, TaskConfig, tierb_configs, write_configs
from ._document import tierb_document
from ._domains import DOMAINS, Domain, Field, Resource
from ._switches import CONVENTION_OF, SWITCH_NAMES, SWITCH_VARIANTS, Details, Switches

__all__ = ["CONVENTION_OF", "DOMAINS", "Details", "Domain", "Field", "Resource", "SWITCH_NAMES", "SWITCH_VARIANTS",
           "Switches", "TIERB_SIZE", "TaskConfig", "build_investigate", "build_task", "build_tierb", "tierb_configs",
           "tierb_document",
           "write_configs"]

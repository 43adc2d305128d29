"""Case 2, Investigate: a build task plus a practice server the model may probe before it submits."""

from ._episode import BUDGETS, InvestigateEpisode
from ._measures import measures, tested_hidden_header
from ._policies import POLICIES, run_policy
from ._record import EPISODE_SCHEMA, read_episode, validate_episode
from ._tools import HTTP_REQUEST, PROBE_BODY_CHARS, SUBMIT_CLIENT, tools_for

__all__ = ["BUDGETS", "EPISODE_SCHEMA", "HTTP_REQUEST", "InvestigateEpisode", "POLICIES", "PROBE_BODY_CHARS",
           "SUBMIT_CLIENT", "measures", "read_episode", "run_policy", "tested_hidden_header", "tools_for",
           "validate_episode"]

"""Reinforcement-learning environments: observe a task, probe (Case 2), submit one client, get its grade.

    from har2client.env.env import TrafficToClientEnv     # Case 1 build, Case 2 investigate
    from har2client.env.repair_env import RepairEnv       # Case 3 repair

The contract every environment keeps is :class:`Har2ClientEnv`'s docstring. Adapters for trainers
live beside them, each needing its own extra: ``gymnasium_env`` (``[gym]``), ``openenv_env``
(``[openenv]``), ``verifiers_env`` (``[verifiers]``) and ``trl_env`` (no extra for its reward function).
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from ._base import Har2ClientEnv
    from ._curricula import Curriculum, parse_curriculum
    from ._grader import Grader, close_shared_pools, grade_code, shared_pool
    from .env import TrafficToClientEnv
    from .repair_env import RepairEnv

__all__ = ["Curriculum", "Grader", "Har2ClientEnv", "RepairEnv", "TrafficToClientEnv", "grade_code",
           "parse_curriculum", "shared_pool"]

__getattr__ = _lazy_exports(__name__, {
    "close_shared_pools": "._grader",
    "Har2ClientEnv": "._base",
    **dict.fromkeys(("Curriculum", "parse_curriculum"), "._curricula"),
    **dict.fromkeys(("Grader", "grade_code", "shared_pool"), "._grader"),
    "TrafficToClientEnv": ".env",
    "RepairEnv": ".repair_env",
})
__all__ += ["close_shared_pools"]

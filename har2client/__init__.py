"""HAR2Client: write an API client from recorded traffic, graded by hidden tests.

The public API, re-exported here; everything in a ``_module`` is private. Names
load their module on first use, so importing the package costs almost nothing.
"""

import typing as _typing

from ._errors import ClientFileError, EnvError, GradingError, Har2ClientError, HarError, SpecError, TaskError
from ._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .agents import baseline_source, reference_source, replay_source
    from .api import ApiModel, Instance, create_app, load_model, model_from_document, serve
    from .env import Har2ClientEnv, RepairEnv, TrafficToClientEnv
    from .grading import GradeResult, GradingPool, HiddenTest, Limits, Sandbox, TestResult, grade
    from .har import Recording, read_har, render_compact, write_har
    from .tasks import Task, load_task
    from .tierb import Switches, build_tierb, tierb_configs

__version__ = "0.1.0"

__all__ = [
    "ApiModel", "ClientFileError", "EnvError", "GradeResult", "GradingError", "GradingPool", "Har2ClientError",
    "HarError",
    "Har2ClientEnv", "HiddenTest", "Instance", "Limits", "Recording", "RepairEnv", "Sandbox", "SpecError", "Switches",
    "Task", "TaskError",
    "TestResult", "TrafficToClientEnv", "__version__", "baseline_source", "build_tierb", "create_app", "grade",
    "load_task",
    "load_model", "model_from_document", "read_har", "reference_source", "render_compact", "replay_source",
    "serve", "tierb_configs", "write_har",
]

__getattr__ = _lazy_exports(__name__, {
    **dict.fromkeys(("baseline_source", "reference_source", "replay_source"), ".agents"),
    **dict.fromkeys(("ApiModel", "Instance", "create_app", "load_model", "model_from_document", "serve"), ".api"),
    **dict.fromkeys(("GradeResult", "GradingPool", "HiddenTest", "Limits", "Sandbox", "TestResult", "grade"),
                    ".grading"),
    **dict.fromkeys(("Har2ClientEnv", "RepairEnv", "TrafficToClientEnv"), ".env"),
    **dict.fromkeys(("Recording", "read_har", "render_compact", "write_har"), ".har"),
    **dict.fromkeys(("Task", "load_task"), ".tasks"),
    **dict.fromkeys(("Switches", "build_tierb", "tierb_configs"), ".tierb"),
})

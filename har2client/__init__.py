"""HAR2Client: write an API client from recorded traffic, graded by hidden tests.

The public API, re-exported here; everything in a ``_module`` is private.
"""

from ._errors import ClientFileError, GradingError, Har2ClientError, HarError, SpecError, TaskError
from .agents import baseline_source, reference_source, replay_source
from .api import ApiSpec, Instance, Switches, create_app, serve
from .grading import GradeResult, GradingPool, HiddenTest, Limits, Sandbox, TestResult, grade
from .har import Recording, read_har, render_compact, write_har
from .tasks import Task, load_task
from .tierb import build_tierb, tierb_configs

__version__ = "0.1.0"

__all__ = [
    "ApiSpec", "ClientFileError", "GradeResult", "GradingError", "GradingPool", "Har2ClientError", "HarError",
    "HiddenTest", "Instance", "Limits", "Recording", "Sandbox", "SpecError", "Switches", "Task", "TaskError",
    "TestResult", "__version__", "baseline_source", "build_tierb", "create_app", "grade", "load_task",
    "read_har", "reference_source", "render_compact", "replay_source", "serve", "tierb_configs", "write_har",
]

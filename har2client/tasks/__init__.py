"""Task directories: the files a model sees and the hidden part the grader uses."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports
from ._goal import goal_markdown
from ._task import Task, load_task

__all__ = ["Task", "goal_markdown", "load_task"]

# What the other sub-packages use besides: each loads its module on first use, so no import
# cycle forms and importing this package costs no more than before.
if _typing.TYPE_CHECKING:
    from ._arms import NOTE, goal_with_note, observation_parts, placebo_sentence, render_observation
    from ._build import CALL_SECONDS, TASK_SECONDS, build_api_task, document_yaml
    from ._kinds import GradingWorld, kinds, register, start_world
    from ._task import HiddenTest, arms_of, task_metas, visible_files, write_json, write_text
__all__ += ["CALL_SECONDS", "GradingWorld", "HiddenTest", "NOTE", "TASK_SECONDS", "arms_of", "build_api_task",
            "document_yaml", "goal_with_note", "observation_parts", "placebo_sentence", "render_observation",
            "kinds", "register", "start_world", "task_metas", "visible_files", "write_json", "write_text"]
__getattr__ = _lazy_exports(__name__, {
    **dict.fromkeys(("NOTE", "goal_with_note", "observation_parts", "placebo_sentence", "render_observation"),
                    "._arms"),
    **dict.fromkeys(("CALL_SECONDS", "TASK_SECONDS", "build_api_task", "document_yaml"), "._build"),
    **dict.fromkeys(("GradingWorld", "kinds", "register", "start_world"), "._kinds"),
    **dict.fromkeys(("HiddenTest", "arms_of", "task_metas", "visible_files", "write_json", "write_text"), "._task"),
})

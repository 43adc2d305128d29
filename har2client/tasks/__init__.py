"""Task directories: the files a model sees and the hidden part the grader uses."""

from ._goal import goal_markdown
from ._task import Task, load_task

__all__ = ["Task", "goal_markdown", "load_task"]

"""The tasks on the Hugging Face Hub: dataset build, publish, pull."""

from ._dataset import build_dataset, find_row, restore_task
from ._hub import SOURCE_ENV, publish, pull, resolve_task

__all__ = ["SOURCE_ENV", "build_dataset", "find_row", "publish", "pull", "resolve_task", "restore_task"]

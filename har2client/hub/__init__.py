"""The tasks on the Hugging Face Hub: dataset build, publish, pull.

Names load on first use: resolving a task directory must not import Parquet.
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from ._dataset import build_dataset, find_row, restore_task
    from ._hub import SOURCE_ENV, download_files, publish, pull, resolve_task

__all__ = ["SOURCE_ENV", "build_dataset", "find_row", "publish", "pull", "resolve_task", "restore_task"]

__getattr__ = _lazy_exports(__name__, {
    "download_files": "._hub",
    **dict.fromkeys(("build_dataset", "find_row", "restore_task"), "._dataset"),
    **dict.fromkeys(("SOURCE_ENV", "publish", "pull", "resolve_task"), "._hub"),
})
__all__ += ["download_files"]

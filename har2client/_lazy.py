"""Re-exports that import their module on first use (PEP 562).

``import har2client`` and the grader's command line must stay fast: the fake
servers' Flask, Parquet and YAML are loaded only by what uses them, while every
public name still lives where the public API says.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: name -> the (relative) module that defines it."""
    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # once found, an ordinary attribute
        return value

    return __getattr__

"""OpenAPI path templates as Flask URL rules."""

from __future__ import annotations

import re


def rule_of(path: str) -> tuple[str, dict[str, str]]:
    """An OpenAPI path template as a Flask rule, with parameter names Flask accepts."""
    names: dict[str, str] = {}

    def sub(m: re.Match[str]) -> str:
        safe = re.sub(r"\W", "_", m.group(1))
        names[safe] = m.group(1)
        return f"<{safe}>"

    return re.sub(r"\{([^}]+)\}", sub, path), names

"""Reading JSON Lines input a user gives (predictions, uploads, episode files): one way, one error."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ._errors import Har2ClientError


def json_lines(lines: Iterable[str], label: str) -> Iterator[tuple[int, Any]]:
    """Each non-blank line parsed, with its number (from 1); a line that is not JSON raises a one-line
    error naming ``label``, the line and why. What each value must hold, the caller checks."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Har2ClientError(f"{label}: line {n} is not JSON ({exc.msg})") from None
        yield n, value

"""What counts as a submission in a model's answer.

The client is a fenced code block: one whose info string is ``python`` or ``py`` (any case), or an
untagged one that defines ``class Client``. Of several, the last that defines ``class Client`` wins,
else the last Python block. An answer with no such block, or whose only block is never closed (the
answer was cut off), has no submission: it is scored as missing, never guessed at.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)\n"
                    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
_DEFINES_CLIENT = re.compile(r"^class\s+Client\b", re.MULTILINE)


def extract_client(answer: str | None) -> str | None:
    """The client.py in ``answer`` (a model's reply), or None when it holds none."""
    if not isinstance(answer, str):
        return None
    blocks = []
    for m in _FENCE.finditer(answer):
        info = m.group("info").strip().split(" ")[0].lower()
        body = m.group("body")
        if info in ("python", "py", "python3") or (not info and _DEFINES_CLIENT.search(body)):
            blocks.append(body)
    if not blocks:
        return None
    with_client = [b for b in blocks if _DEFINES_CLIENT.search(b)]
    return (with_client or blocks)[-1]


def assistant_text(completion: object) -> str | None:
    """A completion as trainers pass it: text, or a list of messages (dicts, or objects with ``role`` and
    ``content``, as verifiers has them): the assistant's text, its turns joined."""
    if isinstance(completion, str):
        return completion
    if not isinstance(completion, list):
        return None
    parts = []
    for m in completion:
        role = m.get("role") if isinstance(m, dict) else getattr(m, "role", None)
        content = m.get("content") if isinstance(m, dict) else getattr(m, "content", None)
        if role == "assistant" and isinstance(content, str):
            parts.append(content)
    return "\n".join(parts) or None

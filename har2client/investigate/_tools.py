"""The tools of an investigate episode, in the OpenAI tools format (JSON-schema function definitions)."""

from __future__ import annotations

from typing import Any

PROBE_BODY_CHARS = 4_000        # a probe's answer body is cut here, with a line saying how much was cut
MAX_PROBE_REQUEST_BYTES = 64 * 1024
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")

HTTP_REQUEST: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "http_request",
        "description": ("Send one HTTP request to the practice server (its base URL is in the task) and get "
                        "its status, headers and body. Only the practice server is reachable; each request "
                        f"counts against the probe budget; bodies longer than {PROBE_BODY_CHARS} characters "
                        "are cut."),
        "parameters": {
            "type": "object",
            "properties": {
                "method": {"type": "string", "enum": list(METHODS)},
                "url": {"type": "string", "description": "an absolute URL on the practice server"},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "query": {"type": "object", "additionalProperties": {"type": "string"}},
                "body": {"description": "a JSON value (sent as JSON) or a string (sent as it is)"},
            },
            "required": ["method", "url"],
            "additionalProperties": False,
        },
    },
}

SUBMIT_CLIENT: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "submit_client",
        "description": "Submit the whole client.py. This ends the episode; the code is graded on a fresh server.",
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "the complete source of client.py"}},
            "required": ["code"],
            "additionalProperties": False,
        },
    },
}


def tools_for(budget: int) -> list[dict[str, Any]]:
    """The tools offered: with no probe budget (the control arm) ``http_request`` is not offered at all."""
    return ([HTTP_REQUEST] if budget > 0 else []) + [SUBMIT_CLIENT]

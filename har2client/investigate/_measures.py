"""Per-episode measures, computed from the episode record: probes used, and whether it tested the
hidden header (a probe that sent the required header, or went without it and got the refusal that
names it, to an operation that needs it, and got an answer)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from ..api import ApiModel


def _role(model: ApiModel, method: str, path: str) -> str | None:
    prefix = urlsplit(model.server).path.rstrip("/")
    for role, op in model.operations.items():
        regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(prefix + op.path))
        if method.upper() == op.method and re.fullmatch(regex + "/?", path):
            return role
    return None


def tested_hidden_header(lines: list[dict[str, Any]], model: ApiModel) -> bool | None:
    """True when some answered probe tested the header; None when the task hides no header."""
    rule = next((r for r in model.conventions.get("required_headers", []) if r.get("recorded") is False), None)
    if rule is None:
        return None
    name = rule["name"].lower()
    for line in lines:
        if line.get("kind") != "tool" or line.get("name") != "http_request":
            continue
        result = line.get("result") or {}
        if "status" not in result:
            continue  # refused by the tool: never reached the server
        try:
            args = json.loads(line["arguments"])
        except (ValueError, TypeError):
            continue
        method, url = str(args.get("method", "")).upper(), str(args.get("url", ""))
        role = _role(model, method, urlsplit(url).path)
        if role is None or method.lower() not in rule["on"] or role in rule.get("skip", ()):
            continue
        sent = any(str(k).lower() == name for k in (args.get("headers") or {}))
        refused = result["status"] in (400, 403) and rule["name"].lower() in str(result.get("body", "")).lower()
        if sent or refused:
            return True
    return False


def measures(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The episode's measures from its end line."""
    end = next((line for line in reversed(lines) if line.get("kind") == "end"), None)
    if end is None:
        return {"probes_used": None, "tested_hidden_header": None, "pass_rate": 0.0, "submitted": False}
    return {k: end[k] for k in ("probes_used", "tested_hidden_header", "pass_rate", "submitted")}

"""The recording read as traffic: JSON bodies, where records sit in an answer, values and where they
came from. The heuristic baseline's rules are built on these."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from ..har import Entry
from ._goal_reading import GoalFacts

NOISE = {"accept", "accept-language", "accept-encoding", "user-agent", "referer", "origin", "cookie", "host",
          "content-type", "content-length", "connection", "traceparent", "tracestate", "x-requested-with",
          "cache-control", "pragma", "dnt", "priority", "authorization", "if-none-match", "if-modified-since"}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


def parse_json(text: str) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def answer_of(e: Entry) -> Any:
    return parse_json(e.response.body) if not e.response.body_base64 else None


def sent_fields(e: Entry) -> dict[str, Any]:
    if e.request.form_params:
        return dict(e.request.form_params)
    data = parse_json(e.request.body)
    return data if isinstance(data, dict) else {}


def is_record(obj: Any, goal: GoalFacts) -> bool:
    if not isinstance(obj, dict):
        return False
    keys = set(obj) | {k for v in obj.values() if isinstance(v, dict) for k in v}
    return goal.id_field in obj and len(keys & set(goal.fields)) >= max(1, len(goal.fields) // 2)


def where_records(body: Any, goal: GoalFacts, path: str = "", depth: int = 0) -> tuple[str, str] | None:
    """Where the records sit in an answer: ("list", dotted key) or ("single", dotted key); "" is the top."""
    if isinstance(body, list) and body and all(is_record(x, goal) for x in body):
        return "list", path
    if is_record(body, goal):
        return "single", path
    if isinstance(body, dict) and depth < 3:
        for k, v in body.items():
            found = where_records(v, goal, f"{path}.{k}" if path else k, depth + 1)
            if found:
                return found
    if isinstance(body, list) and body == [] and path:
        return "list", path
    return None


def value_at(body: Any, dotted: str) -> Any:
    for k in dotted.split(".") if dotted else []:
        body = body.get(k) if isinstance(body, dict) else None
    return body


def paths_to(body: Any, value: Any, path: str = "") -> list[str]:
    """The dotted keys at which ``value`` appears in ``body`` (not inside lists)."""
    if isinstance(body, dict):
        out: list[str] = []
        for k, v in body.items():
            here = f"{path}.{k}" if path else k
            out += [here] if v == value else paths_to(v, value, here)
        return out
    return []


def templated(path: str, ids: set[str], id_name: str) -> str:
    parts = path.split("/")
    return "/".join(f"{{{id_name}}}" if p in ids else p for p in parts)


def records_in(body: Any, goal: GoalFacts) -> list[dict[str, Any]]:
    found = where_records(body, goal)
    if not found:
        return []
    value = value_at(body, found[1])
    return value if found[0] == "list" else [value]


def unwrapped_body(fields: dict[str, Any]) -> dict[str, Any]:
    if len(fields) == 1:
        (only,) = fields.values()
        if isinstance(only, dict):
            return only
    return {}


def secret_like(value: str) -> bool:
    return len(value) >= 16 and bool(re.search(r"\d", value)) and bool(re.search(r"[A-Za-z]", value))


def constant_values(entries: list[Entry], pairs: Any) -> dict[str, str]:
    """The names every entry carries with one and the same value (the first spelling of each name)."""
    seen: dict[str, set[str]] = {}
    spelled: dict[str, str] = {}
    for e in entries:
        for k, v in pairs(e):
            seen.setdefault(k.lower(), set()).add(v)
            spelled.setdefault(k.lower(), k)
    counts = {k.lower(): sum(1 for e in entries if any(n.lower() == k.lower() for n, _ in pairs(e))) for k in seen}
    return {spelled[k]: next(iter(v)) for k, v in seen.items() if len(v) == 1 and counts[k] == len(entries)}


def path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def leaves(body: Any, kind: type, path: str = "") -> list[str]:
    out = []
    if isinstance(body, dict):
        for k, v in body.items():
            here = f"{path}.{k}" if path else k
            if isinstance(v, kind) and not (kind is int and isinstance(v, bool)):
                out.append(here)
            elif isinstance(v, dict):
                out += leaves(v, kind, here)
    return out


def string_paths(body: Any) -> list[str]:
    return leaves(body, str)


def bool_paths(body: Any) -> list[str]:
    return leaves(body, bool)


def int_paths(body: Any) -> list[str]:
    return leaves(body, int)

"""A compact text rendering of a recording, for prompts.

It keeps what a client author needs (method, URL, the non-boilerplate headers,
bodies with long lists shortened) and drops what every browser sends. It does
not rank headers by importance: a header the API secretly requires is shown
exactly like the noise around it, as in the recording itself.
"""

from __future__ import annotations

import json
from typing import Any

from ._model import Entry, Recording

BOILERPLATE = {
    "user-agent", "accept-encoding", "accept-language", "connection", "origin", "referer", "cache-control",
    "pragma", "dnt", "priority", "content-length", "date", "server", "vary", "host", "keep-alive",
    "upgrade-insecure-requests", "alt-svc", "strict-transport-security", "access-control-allow-origin",
    "access-control-allow-credentials", "x-content-type-options", "expires", "etag", "last-modified",
}


def _is_boilerplate(name: str) -> bool:
    n = name.lower()
    return n in BOILERPLATE or n.startswith("sec-") or n.startswith(":")


def shorten(value: Any, max_items: int = 2) -> Any:
    if isinstance(value, list):
        head = [shorten(v, max_items) for v in value[:max_items]]
        if len(value) > max_items:
            head.append(f"... {len(value) - max_items} more")
        return head
    if isinstance(value, dict):
        return {k: shorten(v, max_items) for k, v in value.items()}
    return value


def _body(text: str, mime: str, limit: int) -> str:
    if not text:
        return ""
    if "json" in mime or text[:1] in "{[":
        try:
            text = json.dumps(shorten(json.loads(text)), ensure_ascii=False)
        except ValueError:
            pass
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"


def render_entry(n: int, e: Entry, body_limit: int = 1200) -> str:
    req, resp = e.request, e.response
    lines = [f"### {n}. {req.method} {req.url}"]
    lines += [f"> {k}: {v}" for k, v in req.headers if not _is_boilerplate(k)]
    if req.body:
        lines.append("> " + _body(req.body, req.mime_type, body_limit))
    lines.append(f"< {resp.status} {resp.status_text}".rstrip())
    lines += [f"< {k}: {v}" for k, v in resp.headers if not _is_boilerplate(k)]
    if resp.body_base64:
        lines.append(f"< [binary body, {resp.mime_type}]")
    elif resp.body:
        lines.append("< " + _body(resp.body, resp.mime_type, body_limit))
    return "\n".join(lines)


def render_compact(rec: Recording, body_limit: int = 1200) -> str:
    """The recording as text: the main API host's exchanges, the rest counted."""
    hosts = rec.hosts()
    if not hosts:
        return "# Recording: no requests\n"
    json_counts = {h: sum(1 for e in rec.entries if e.request.host == h and "json" in e.response.mime_type)
                   for h in hosts}
    api = max(hosts, key=lambda h: json_counts[h])  # the API is where the JSON comes from
    kept = [e for e in rec.entries if e.request.host == api]
    other = len(rec.entries) - len(kept)
    head = f"# Recording: {len(kept)} requests to {api}"
    if other:
        head += f" ({other} requests to other hosts omitted: {', '.join(h for h in hosts if h != api)})"
    parts = [head] + [render_entry(i + 1, e, body_limit) for i, e in enumerate(kept)]
    return "\n\n".join(parts) + "\n"

"""A compact text rendering of a recording, for prompts.

It keeps what a client author needs (method, URL, the non-boilerplate headers,
bodies with long lists shortened) and drops what every browser sends. It does
not rank headers by importance: a header the API secretly requires is shown
exactly like the noise around it, as in the recording itself.

Whatever the file holds, the text is safe to print and to put in a prompt: no
control characters (they are shown as ``\\x1b``), no lone surrogates, binary
bodies as ``[binary body, N bytes, TYPE]``, and a stated cap on its length.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._model import Entry, Message, Recording

BOILERPLATE = {
    "user-agent", "accept-encoding", "accept-language", "connection", "origin", "referer", "cache-control",
    "pragma", "dnt", "priority", "content-length", "date", "server", "vary", "host", "keep-alive",
    "upgrade-insecure-requests", "alt-svc", "strict-transport-security", "access-control-allow-origin",
    "access-control-allow-credentials", "x-content-type-options", "expires", "etag", "last-modified",
}
MAX_CHARS = 100_000
NO_HOST = "(no host)"
# C0 controls but tab and newline, DEL, C1 controls; lone surrogates are handled apart.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f]")


def _escape(m: re.Match[str]) -> str:
    return f"\\x{ord(m.group()):02x}"


def clean(text: str, one_line: bool = False) -> str:
    """``text`` made printable: control characters escaped, lone surrogates replaced."""
    text = (_CONTROL_IN_LINE if one_line else _CONTROL).sub(_escape, text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


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


def _looks_binary(text: str) -> bool:
    """A body of text that is really bytes: a NUL, or many control characters."""
    if "\x00" in text:
        return True
    sample = text[:4096]
    return len(_CONTROL.findall(sample)) > len(sample) // 20


def _body(text: str, mime: str, limit: int) -> str:
    if not text:
        return ""
    if _looks_binary(text):
        return f"[binary body, {len(text.encode('utf-8', 'replace'))} bytes, {clean(mime, True) or 'no type'}]"
    if "json" in mime or text[:1] in "{[":
        try:
            text = json.dumps(shorten(json.loads(text)), ensure_ascii=False)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than it is worth showing
            pass
    text = text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"
    return clean(text)


def _missing(message: Message) -> str:
    size = f", {message.body_size} bytes" if message.body_size > 0 else ""
    return f"[body {clean(message.body_note, True)}{size}]"


def _b64_size(text: str) -> int:
    return len(text) * 3 // 4 - text[-2:].count("=")


def _status(status: int, text: str) -> str:
    if status == 0:  # aborted, or the exporter wrote none
        return f"[no status recorded] {clean(text, True)}".rstrip()
    return f"{status} {clean(text, True)}".rstrip()


def _message_body(prefix: str, m: Message, limit: int) -> list[str]:
    """The line that shows a request's or a response's body, if it had one."""
    if m.body_note:
        return [prefix + _missing(m)]
    if m.body_base64:
        return [f"{prefix}[binary body, {_b64_size(m.body)} bytes, {clean(m.mime_type, True) or 'no type'}]"]
    return [prefix + _body(m.body, m.mime_type, limit)] if m.body else []


def render_entry(n: int, e: Entry, body_limit: int = 1200) -> str:
    req, resp = e.request, e.response
    lines = [f"### {n}. {clean(req.method, True)} {clean(req.url, True)}"]
    lines += [f"> {clean(k, True)}: {clean(v, True)}" for k, v in req.headers if not _is_boilerplate(k)]
    lines += _message_body("> ", req, body_limit)
    lines.append("< " + _status(resp.status, resp.status_text))
    lines += [f"< {clean(k, True)}: {clean(v, True)}" for k, v in resp.headers if not _is_boilerplate(k)]
    lines += _message_body("< ", resp, body_limit)
    return "\n".join(lines)


def render_compact(rec: Recording, body_limit: int = 1200, max_chars: int = MAX_CHARS) -> str:
    """The recording as text: the main API host's exchanges, the rest counted; at most ``max_chars``."""
    if not rec.entries:
        return "# Recording: no requests\n"
    by_host: dict[str, list[Entry]] = {}
    json_counts: dict[str, int] = {}
    for e in rec.entries:  # one pass: a recording can hold thousands of entries
        host = e.request.host
        by_host.setdefault(host, []).append(e)
        json_counts[host] = json_counts.get(host, 0) + ("json" in e.response.mime_type)
    hosts = sorted(by_host, key=lambda h: -len(by_host[h]))
    named = [h for h in hosts if h] or hosts
    api = max(named, key=lambda h: json_counts[h])  # the API is where the JSON comes from
    kept = by_host[api]
    other = len(rec.entries) - len(kept)
    head = f"# Recording: {len(kept)} requests to {clean(api, True) or NO_HOST}"
    if other:
        names = ", ".join(clean(h, True) or f"{NO_HOST}: relative or unparsable URLs" for h in hosts if h != api)
        head += f" ({other} requests to other hosts omitted: {names})"
    parts = [head]
    used = len(head)
    for i, e in enumerate(kept):
        part = render_entry(i + 1, e, body_limit)
        if used + len(part) + 2 > max_chars - 120:  # room for the note that says so
            parts.append(f"[... {len(kept) - i} more requests not shown: the rendering is capped at "
                         f"{max_chars:,} characters]")
            break
        parts.append(part)
        used += len(part) + 2
    return "\n\n".join(parts) + "\n"

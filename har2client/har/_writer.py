"""Writing a :class:`Recording` as HAR 1.2, shaped like a browser's export."""

from __future__ import annotations

import json
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import quote

from ._model import Entry, Message, Recording


def _cookies_sent(msg: Message) -> list[dict[str, Any]]:
    raw = msg.header("Cookie")
    if not raw:
        return []
    jar: SimpleCookie = SimpleCookie()
    jar.load(raw)
    return [{"name": k, "value": m.value} for k, m in jar.items()]


def _cookies_set(msg: Message) -> list[dict[str, Any]]:
    out = []
    for name, value in msg.headers:
        if name.lower() != "set-cookie":
            continue
        jar: SimpleCookie = SimpleCookie()
        jar.load(value)
        for k, m in jar.items():
            c: dict[str, Any] = {"name": k, "value": m.value}
            if m["path"]:
                c["path"] = m["path"]
            c["httpOnly"] = bool(m["httponly"])
            c["secure"] = bool(m["secure"])
            if m["samesite"]:
                c["sameSite"] = m["samesite"]
            out.append(c)
    return out


def _headers(msg: Message) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in msg.headers]


def _headers_size(first_line: str, msg: Message) -> int:
    return len(first_line) + 2 + sum(len(k) + len(v) + 4 for k, v in msg.headers) + 2


def entry_to_har(e: Entry) -> dict[str, Any]:
    req, resp = e.request, e.response
    request: dict[str, Any] = {
        "method": req.method,
        "url": req.url,
        "httpVersion": req.http_version,
        "headers": _headers(req),
        "queryString": [{"name": k, "value": v} for k, v in req.query],
        "cookies": _cookies_sent(req),
        "headersSize": _headers_size(f"{req.method} {req.path} {req.http_version}", req),
        "bodySize": len(req.body.encode()) if req.body else 0,
    }
    if req.body or req.form_params:
        post: dict[str, Any] = {"mimeType": req.mime_type, "text": req.body}
        if req.form_params:
            post["params"] = [{"name": quote(k), "value": quote(v)} for k, v in req.form_params]
        request["postData"] = post
    content: dict[str, Any] = {"size": len(resp.body.encode()), "mimeType": resp.mime_type or "x-unknown"}
    if resp.body:
        content["text"] = resp.body
        if resp.body_base64:
            content["encoding"] = "base64"
    response = {
        "status": resp.status,
        "statusText": resp.status_text,
        "httpVersion": resp.http_version,
        "headers": _headers(resp),
        "cookies": _cookies_set(resp),
        "content": content,
        "redirectURL": resp.header("Location") or "",
        "headersSize": _headers_size(f"{resp.http_version} {resp.status} {resp.status_text}", resp),
        "bodySize": content["size"],
        "_transferSize": content["size"] + _headers_size("", resp),
    }
    out: dict[str, Any] = {
        "_initiator": {"type": "script"} if e.resource_type in ("xhr", "fetch") else {"type": "parser"},
        "_priority": "High",
        "_resourceType": e.resource_type or "fetch",
        "cache": {},
        "connection": "443",
        "pageref": e.pageref,
        "request": request,
        "response": response,
        "serverIPAddress": e.server_ip,
        "startedDateTime": e.started,
        "time": round(e.time_ms, 3),
        "timings": {k: round(v, 3) for k, v in e.timings.items()},
    }
    if not e.pageref:
        del out["pageref"]
    return out


def recording_to_har(rec: Recording) -> dict[str, Any]:
    """``rec`` as HAR 1.2 JSON data."""
    log: dict[str, Any] = {
        "version": "1.2",
        "creator": {"name": rec.creator[0], "version": rec.creator[1]},
    }
    if rec.browser:
        log["browser"] = {"name": rec.browser[0], "version": rec.browser[1]}
    log["pages"] = [
        {"startedDateTime": p.started, "id": p.id, "title": p.title,
         "pageTimings": {"onContentLoad": -1, "onLoad": -1}}
        for p in rec.pages
    ]
    log["entries"] = [entry_to_har(e) for e in rec.entries]
    return {"log": log}


def write_har(rec: Recording, path: str) -> None:
    """Write ``rec`` to ``path`` as a HAR 1.2 file."""
    with open(path, "w", encoding="utf-8") as fh:
        # One write of the whole text: json.dump writes every token on its own, several times slower.
        fh.write(json.dumps(recording_to_har(rec), indent=2, ensure_ascii=False) + "\n")

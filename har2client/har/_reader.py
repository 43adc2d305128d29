"""Reading HAR files as real exporters write them.

Tolerated: missing ``pages`` (Playwright, mitmproxy), base64 bodies, ``postData``
with ``params`` and no ``text`` (or both), underscore fields (Chrome's
``_resourceType``), a UTF-8 byte-order mark, aborted requests with status 0.
Rejected, with one line naming the file and the fault: anything that is not
JSON, has no ``log.entries``, or has an entry without a method, URL or response.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import Any
from urllib.parse import unquote_plus, urlencode

from .._errors import HarError
from ._model import Entry, Page, Recording, Request, Response


def read_har(path: str | os.PathLike[str]) -> Recording:
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise HarError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise HarError(f"{path}: is a directory, not a HAR file") from None
    except OSError as exc:
        raise HarError(f"{path}: cannot be read ({exc.strerror})") from None
    return parse_har(raw, source=path)


def parse_har(raw: bytes | str, source: str = "<har>") -> Recording:
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise HarError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    if not raw.strip():
        raise HarError(f"{source}: the file is empty")
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise HarError(f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("log"), dict):
        raise HarError(f"{source}: no 'log' object at the top level; is this a HAR file?")
    log = doc["log"]
    entries = log.get("entries")
    if not isinstance(entries, list):
        raise HarError(f"{source}: log.entries is missing or not a list")
    creator = log.get("creator") if isinstance(log.get("creator"), dict) else {}
    browser = log.get("browser") if isinstance(log.get("browser"), dict) else None
    pages = []
    for p in log.get("pages") or []:
        if isinstance(p, dict) and "id" in p:
            pages.append(Page(str(p["id"]), str(p.get("title", "")), str(p.get("startedDateTime", ""))))
    rec = Recording(
        entries=[_entry(e, i, source) for i, e in enumerate(entries)],
        pages=pages,
        creator=(str(creator.get("name", "")), str(creator.get("version", ""))),
        browser=(str(browser.get("name", "")), str(browser.get("version", ""))) if browser else None,
        source=source,
    )
    return rec


def _headers(obj: Any, where: str) -> list[tuple[str, str]]:
    if obj is None:
        return []
    if not isinstance(obj, list):
        raise HarError(f"{where}.headers is not a list")
    out = []
    for h in obj:
        if isinstance(h, dict) and "name" in h:
            out.append((str(h["name"]), "" if h.get("value") is None else str(h["value"])))
    return out


def _entry(e: Any, i: int, source: str) -> Entry:
    where = f"{source}: entry {i}"
    if not isinstance(e, dict):
        raise HarError(f"{where} is not an object")
    req, resp = e.get("request"), e.get("response")
    if not isinstance(req, dict):
        raise HarError(f"{where} has no request object")
    if not isinstance(req.get("method"), str) or not req["method"]:
        raise HarError(f"{where} has no request.method")
    if not isinstance(req.get("url"), str) or not req["url"]:
        raise HarError(f"{where} has no request.url")
    if not isinstance(resp, dict):
        raise HarError(f"{where} has no response object")
    try:
        status = int(resp.get("status", 0) or 0)
    except (TypeError, ValueError):
        raise HarError(f"{where} has a response.status that is not a number: {resp.get('status')!r}") from None

    request = Request(method=req["method"].upper(), url=req["url"], http_version=str(req.get("httpVersion", "")),
                      headers=_headers(req.get("headers"), f"{where}: request"))
    post = req.get("postData")
    if isinstance(post, dict):
        request.mime_type = str(post.get("mimeType", ""))
        params = [(unquote_plus(str(p.get("name", ""))), unquote_plus(str(p.get("value", ""))))
                  for p in post.get("params") or [] if isinstance(p, dict)]
        request.form_params = params
        text = post.get("text")
        if isinstance(text, str):
            request.body = text
        elif params:
            request.body = urlencode(params)

    response = Response(status=status, status_text=str(resp.get("statusText", "")),
                        http_version=str(resp.get("httpVersion", "")),
                        headers=_headers(resp.get("headers"), f"{where}: response"))
    content = resp.get("content") if isinstance(resp.get("content"), dict) else {}
    response.mime_type = str(content.get("mimeType", ""))
    text = content.get("text")
    if isinstance(text, str):
        if content.get("encoding") == "base64":
            try:
                decoded = base64.b64decode(text, validate=False)
            except (binascii.Error, ValueError):
                raise HarError(f"{where} has response content marked base64 that is not base64") from None
            try:
                response.body = decoded.decode("utf-8")
            except UnicodeDecodeError:
                response.body, response.body_base64 = text, True
        else:
            response.body = text

    timings = e.get("timings") if isinstance(e.get("timings"), dict) else {}
    try:
        time_ms = float(e.get("time", 0) or 0)
    except (TypeError, ValueError):
        time_ms = 0.0
    return Entry(
        request=request,
        response=response,
        started=str(e.get("startedDateTime", "")),
        time_ms=time_ms,
        timings={k: float(v) for k, v in timings.items() if isinstance(v, (int, float))},
        pageref=str(e.get("pageref", "")),
        resource_type=str(e.get("_resourceType", "")),
        server_ip=str(e.get("serverIPAddress", "")),
    )

"""Reading HAR files as real exporters write them.

Tolerated: missing ``pages`` (Playwright, mitmproxy), base64 bodies, ``postData``
with ``params`` and no ``text`` (or both), underscore fields (Chrome's
``_resourceType``), a UTF-8 byte-order mark, aborted requests with status 0 or
none, bodies that were not recorded (Playwright's ``omit`` mode: a size, no
text) and bodies kept in a file beside the HAR (its ``attach`` mode: ``_file``,
read from the HAR's own folder and never from outside it). A body that cannot
be had says why in ``body_note``.
Rejected, with one line naming the file and the fault: anything that is not
JSON, has no ``log.entries``, or has an entry without a method, URL or response.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import Any
from urllib.parse import parse_qsl, urlencode

from .._errors import HarError
from ._model import Entry, Message, Page, Recording, Request, Response

MAX_ATTACHED_BYTES = 16 * 1024 * 1024


def read_har(path: str | os.PathLike[str]) -> Recording:
    """Read a HAR file into a :class:`Recording`; a file that is not one raises :class:`HarError`."""
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
    return parse_har(raw, source=path, base_dir=os.path.dirname(os.path.abspath(path)))


def parse_har(raw: bytes | str, source: str = "<har>", base_dir: str | None = None) -> Recording:
    """A recording from a HAR document's text; ``base_dir`` is where attached body files are looked for."""
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
    except RecursionError:
        raise HarError(f"{source}: nested too deeply to be a HAR file") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("log"), dict):
        raise HarError(f"{source}: no 'log' object at the top level; is this a HAR file?")
    log = doc["log"]
    entries = log.get("entries")
    if not isinstance(entries, list):
        raise HarError(f"{source}: log.entries is missing or not a list")
    creator = log.get("creator") if isinstance(log.get("creator"), dict) else {}
    browser = log.get("browser") if isinstance(log.get("browser"), dict) else None
    pages = []
    for p in log.get("pages") if isinstance(log.get("pages"), list) else []:
        if isinstance(p, dict) and "id" in p:
            pages.append(Page(str(p["id"]), str(p.get("title", "")), str(p.get("startedDateTime", ""))))
    rec = Recording(
        entries=[_entry(e, i, source, base_dir) for i, e in enumerate(entries)],
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
        if isinstance(h, dict) and h.get("name") is not None:
            out.append((str(h["name"]), _text(h.get("value"))))
    return out


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _attached(message: Message, holder: dict[str, Any], base_dir: str | None, where: str) -> bool:
    """Read a body that the exporter kept in a file beside the HAR (``_file``); say so if it cannot be."""
    name = holder.get("_file")
    if not isinstance(name, str) or not name:
        return False
    if base_dir is None:
        message.body_note = f"in an attached file ({name}) that was not read"
        return True
    path = os.path.realpath(os.path.join(base_dir, name))
    if os.path.commonpath([path, os.path.realpath(base_dir)]) != os.path.realpath(base_dir):
        message.body_note = f"in an attached file outside the HAR's folder ({name}), not read"
        return True
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_ATTACHED_BYTES + 1)
    except OSError:
        message.body_note = f"in an attached file ({name}) that is missing"
        return True
    if len(data) > MAX_ATTACHED_BYTES:
        message.body_note = f"in an attached file ({name}) larger than 16 MB, not read"
        return True
    try:
        message.body = data.decode("utf-8")
    except UnicodeDecodeError:
        message.body, message.body_base64 = base64.b64encode(data).decode("ascii"), True
    return True


def _entry(e: Any, i: int, source: str, base_dir: str | None = None) -> Entry:
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
    raw_status = resp.get("status")
    try:
        status = int(raw_status) if raw_status is not None and not isinstance(raw_status, bool) else 0
    except (TypeError, ValueError, OverflowError):
        raise HarError(f"{where} has a response.status that is not a number: {str(raw_status)[:40]!r}") from None
    if not 0 <= status <= 999:
        raise HarError(f"{where} has a response.status out of range: {status}")

    request = Request(method=req["method"].upper(), url=req["url"], http_version=_text(req.get("httpVersion")),
                      headers=_headers(req.get("headers"), f"{where}: request"))
    post = req.get("postData")
    if isinstance(post, dict):
        request.mime_type = _text(post.get("mimeType"))
        text = post.get("text")
        if _attached(request, post, base_dir, where):  # Playwright's attach mode also writes "text": ""
            pass
        elif isinstance(text, str):
            request.body = text
            if "x-www-form-urlencoded" in request.mime_type:  # the raw body says exactly what was sent
                request.form_params = parse_qsl(text, keep_blank_values=True)
        else:
            # Without the raw body, params are taken as written: exporters store them decoded.
            request.form_params = [(_text(p.get("name")), _text(p.get("value")))
                                   for p in post.get("params") or [] if isinstance(p, dict)]
            if request.form_params:
                request.body = urlencode(request.form_params)

    response = Response(status=status, status_text=_text(resp.get("statusText")),
                        http_version=_text(resp.get("httpVersion")),
                        headers=_headers(resp.get("headers"), f"{where}: response"))
    content = resp.get("content")
    if not isinstance(content, dict):
        content = {}
    response.mime_type = _text(content.get("mimeType"))
    size = content.get("size")
    response.body_size = size if isinstance(size, int) and not isinstance(size, bool) else -1
    text = content.get("text")
    if _attached(response, content, base_dir, where):
        pass
    elif isinstance(text, str):
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
    elif response.body_size > 0:
        response.body_note = "not recorded"  # Playwright's omit mode, or an exporter told to leave bodies out

    timings = e.get("timings")
    if not isinstance(timings, dict):
        timings = {}
    try:
        time_ms = float(e.get("time", 0) or 0)
    except (TypeError, ValueError, OverflowError):
        time_ms = 0.0
    return Entry(
        request=request,
        response=response,
        started=str(e.get("startedDateTime", "")),
        time_ms=time_ms,
        timings={str(k): float(v) for k, v in timings.items()
                 if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e300},
        pageref=str(e.get("pageref", "")),
        resource_type=str(e.get("_resourceType", "")),
        server_ip=str(e.get("serverIPAddress", "")),
    )

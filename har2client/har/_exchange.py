"""One captured HTTP exchange as a HAR entry, stamped with a simulated clock (so recordings reproduce)."""

from __future__ import annotations

import datetime as _dt

import httpx

from ._model import Entry, Request, Response

REASONS = {200: "OK", 201: "Created", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
           403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable", 409: "Conflict",
           410: "Gone", 422: "Unprocessable Entity", 429: "Too Many Requests"}


def iso_time(ts: float) -> str:
    """``ts`` (seconds since the epoch) as HAR's time: ISO 8601 UTC with milliseconds."""
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def exchange_entry(req: httpx.Request, resp: httpx.Response, started: float, timings: dict[str, float],
                   form: dict[str, str] | None = None, pageref: str = "", resource_type: str = "fetch",
                   server_ip: str = "") -> Entry:
    """``req`` and its answer as a HAR entry that started at ``started`` and took ``timings``."""
    total = sum(v for v in timings.values() if v > 0)
    headers = [(k.decode(), v.decode()) for k, v in req.headers.raw]
    if form is None and req.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
        form = dict(httpx.QueryParams(req.content.decode()))
    request = Request(method=req.method, url=str(req.url), http_version="HTTP/1.1", headers=headers,
                      body=req.content.decode() if req.content else "",
                      mime_type=req.headers.get("Content-Type", ""),
                      form_params=list(form.items()) if form else [])
    rheaders = [(k.decode(), v.decode()) for k, v in resp.headers.raw]
    rheaders.append(("Date", _dt.datetime.fromtimestamp(started + timings["wait"] / 1000, _dt.timezone.utc)
                     .strftime("%a, %d %b %Y %H:%M:%S GMT")))
    response = Response(status=resp.status_code, status_text=REASONS.get(resp.status_code, ""),
                        http_version="HTTP/1.1", headers=rheaders, body=resp.text,
                        mime_type=resp.headers.get("Content-Type", "").split(";")[0])
    return Entry(request, response, iso_time(started), total, timings, pageref, resource_type, server_ip)

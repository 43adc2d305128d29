"""Recording: a scripted browser session against an instance, captured as a :class:`Recording`.

The session is what a person clicking through the product's web app would send:
sign in, open the account, page through the list, filter it, open one record,
follow a stale link, create, edit and delete a record. Its traffic reaches the
real Flask app in-process (no socket), on a simulated clock, so the same seed
gives the same bytes. Requests carry the headers a browser and a single-page app
add, and among them, looking like the rest, whatever the API secretly requires.
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import random
from typing import Any

import httpx

from .._seeding import rng, token_hex, uuid4_from
from ..api import ApiSpec, Clock, Instance, create_app, fake_record
from ..api._app import version_prefix
from ._model import Entry, Page, Recording, Request, Response

CHROME = "131.0.6778.86"
USER_AGENT = (f"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
              f"Chrome/{CHROME.split('.')[0]}.0.0.0 Safari/537.36")
T0 = _dt.datetime(2026, 10, 5, 8, 0, 0, tzinfo=_dt.timezone.utc)
REASONS = {200: "OK", 201: "Created", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
           403: "Forbidden", 404: "Not Found", 406: "Not Acceptable", 409: "Conflict", 410: "Gone",
           422: "Unprocessable Entity", 429: "Too Many Requests"}


def _iso(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def content_digest(body: bytes) -> str:
    return "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"


class BrowserSession:
    def __init__(self, spec: ApiSpec, instance: Instance, seed: int, *, evidence: bool = False) -> None:
        self.spec, self.instance, self.evidence = spec, instance, evidence
        self.r = rng(seed, "browser-session")
        self.clock = instance.clock
        self.app_origin = f"https://app.{spec.slug}.example"
        self.http = httpx.Client(transport=httpx.WSGITransport(app=create_app(spec, instance)),
                                 base_url=f"https://{spec.host}")
        self.entries: list[Entry] = []
        self.pages: list[Page] = []
        self.page_path = "/"
        self.token = ""
        self.refresh_token = ""
        self.account_id = ""
        pool = ["X-Request-Id", "X-Client-Version", "X-Requested-With", "X-Timezone", "traceparent",
                "X-Device-Id", "X-Feature-Flags"]
        self.noise = sorted(self.r.sample(pool, 4), key=pool.index)
        self.client_version = f"web-{self.r.randint(3, 9)}.{self.r.randint(0, 30)}.{self.r.randint(0, 9)}"
        self.device_id = token_hex(self.r, 12)
        self.server_ip = f"203.0.113.{self.r.randint(2, 250)}"  # TEST-NET-3: documentation addresses

    # -- the pieces of a browser ---------------------------------------------

    def page(self, title: str, path: str) -> None:
        self.clock.advance(self.r.uniform(1.5, 6.0))
        self.page_path = path
        self.pages.append(Page(f"page_{len(self.pages) + 1}", f"{self.spec.name.split()[0]} · {title}",
                               _iso(self.clock.now())))
        self._static_noise()

    def _browser_headers(self) -> dict[str, str]:
        accept = "application/json, text/plain, */*"
        if self.spec.switches.version == "accept":
            accept = f"application/vnd.{self.spec.slug}.{self.spec.details.path_version}+json"
        return {
            "Accept": accept,
            "Accept-Encoding": "gzip, deflate, br, zstd",
            "Accept-Language": "en-GB,en;q=0.9",
            "Origin": self.app_origin,
            "Referer": self.app_origin + self.page_path,
            "sec-ch-ua": f'"Google Chrome";v="{CHROME.split(".")[0]}", "Chromium";v="{CHROME.split(".")[0]}", "Not_A Brand";v="24"',
            "sec-ch-ua-mobile": "?0",
            "sec-ch-ua-platform": '"Windows"',
            "Sec-Fetch-Dest": "empty",
            "Sec-Fetch-Mode": "cors",
            "Sec-Fetch-Site": "same-site",
            "User-Agent": USER_AGENT,
        }

    def _noise_headers(self) -> dict[str, str]:
        values = {
            "X-Request-Id": uuid4_from(self.r),
            "X-Client-Version": self.client_version,
            "X-Requested-With": "XMLHttpRequest",
            "X-Timezone": "Europe/Lisbon",
            "traceparent": f"00-{token_hex(self.r, 16)}-{token_hex(self.r, 8)}-01",
            "X-Device-Id": self.device_id,
            "X-Feature-Flags": "new-nav,bulk-export",
        }
        return {k: values[k] for k in self.noise}

    def _api_headers(self, method: str, path: str, body: bytes, *, omit_hidden: bool) -> dict[str, str]:
        s, d = self.spec.switches, self.spec.details
        h = self._browser_headers()
        if s.version == "header_date":
            h[d.version_header] = d.version_value
        if s.login == "header_key":
            h[d.key_header] = self.instance_credentials["api_key"]
        elif s.login == "basic":
            c = self.instance_credentials
            h["Authorization"] = "Basic " + base64.b64encode(f"{c['username']}:{c['password']}".encode()).decode()
        elif s.login in ("password_bearer", "oauth2_client_credentials") and self.token:
            h["Authorization"] = f"Bearer {self.token}"
        noise = self._noise_headers()
        hidden: dict[str, str] = {}
        if not omit_hidden:
            if s.hidden_header == "account_id" and self.account_id and not path.endswith("/account"):
                hidden["X-Account-Id"] = self.account_id
            elif s.hidden_header == "csrf" and self.http.cookies.get("csrftoken"):
                hidden["X-CSRF-Token"] = self.http.cookies["csrftoken"]
            elif s.hidden_header == "idempotency_key" and method == "POST":
                hidden["Idempotency-Key"] = uuid4_from(self.r)
            elif s.hidden_header == "content_digest" and body:
                hidden["Content-Digest"] = content_digest(body)
        # The required header sits among the app's own headers, in no telling position.
        merged = list(noise.items())
        for item in hidden.items():
            merged.insert(self.r.randint(0, len(merged)), item)
        h.update(merged)
        return h

    @property
    def instance_credentials(self) -> dict[str, str]:
        return self.instance.credentials

    def send(self, method: str, path: str, *, params: dict[str, Any] | None = None, json_body: Any = None,
             form: dict[str, str] | None = None, omit_hidden: bool = False, auth_call: bool = False) -> httpx.Response:
        s, d = self.spec.switches, self.spec.details
        full = path if auth_call else version_prefix(self.spec) + path
        query: dict[str, Any] = {}
        already = {k for k, _ in httpx.URL(full).params.multi_items()}
        if not auth_call:
            if s.version == "query":
                query["api-version"] = d.version_value
            if s.login == "query_key":
                query[d.key_param] = self.instance_credentials["api_key"]
        query = {k: v for k, v in query.items() if k not in already}  # a next link carries them already
        query.update(params or {})
        body = b""
        ctype = ""
        if json_body is not None:
            body, ctype = json.dumps(json_body).encode(), "application/json"
        elif form is not None:
            body, ctype = httpx.QueryParams(form).__str__().encode(), "application/x-www-form-urlencoded"
        headers = self._browser_headers() if auth_call else self._api_headers(method, full, body, omit_hidden=omit_hidden)
        if ctype:
            headers["Content-Type"] = ctype
        req = self.http.build_request(method, full, params=query or None, content=body or None, headers=headers)
        resp = self.http.send(req)
        resp.read()
        self._capture(req, resp, form)
        return resp

    def _timings(self) -> dict[str, float]:
        r = self.r
        fresh = not self.entries
        return {
            "blocked": round(r.uniform(0.5, 4.0), 3), "dns": round(r.uniform(8, 30), 3) if fresh else -1,
            "connect": round(r.uniform(15, 40), 3) if fresh else -1, "ssl": round(r.uniform(10, 25), 3) if fresh else -1,
            "send": round(r.uniform(0.05, 0.4), 3), "wait": round(r.uniform(35, 220), 3),
            "receive": round(r.uniform(0.3, 6.0), 3),
        }

    def _capture(self, req: httpx.Request, resp: httpx.Response, form: dict[str, str] | None) -> None:
        timings = self._timings()
        started = self.clock.now()
        self.clock.advance(sum(v for v in timings.values() if v > 0) / 1000 + self.r.uniform(0.05, 0.8))
        self.entries.append(exchange_entry(req, resp, started, timings, form,
                                           self.pages[-1].id if self.pages else "", "fetch", self.server_ip))

    def _static_noise(self) -> None:
        """Requests a browser makes that have nothing to do with the API."""
        r = self.r
        choices = [
            ("GET", f"{self.app_origin}/assets/app.{token_hex(r, 4)}.js", "application/javascript", "script",
             "(()=>{" + "var a=1;" * r.randint(10, 30) + "})();", False),
            ("GET", f"https://fonts.cdn-{self.spec.slug}.example/inter/v13/latin.woff2", "font/woff2", "font",
             base64.b64encode(r.getrandbits(8 * 96).to_bytes(96, "big")).decode(), True),
            ("POST", f"https://telemetry.{self.spec.slug}.example/v1/events", "", "ping", "", False),
        ]
        for method, url, mime, kind, body, is_b64 in r.sample(choices, r.randint(1, 2)):
            started = self.clock.now()
            timings = {"blocked": 0.8, "dns": -1, "connect": -1, "ssl": -1, "send": 0.1,
                       "wait": round(r.uniform(10, 60), 3), "receive": round(r.uniform(0.5, 3), 3)}
            status = 204 if method == "POST" else 200
            req = Request(method=method, url=url, headers=[("Accept", "*/*"), ("User-Agent", USER_AGENT),
                                                           ("Referer", self.app_origin + self.page_path)])
            if method == "POST":
                req.body = json.dumps({"event": "page_view", "path": self.page_path, "ts": int(started)})
                req.mime_type = "text/plain;charset=UTF-8"
            resp = Response(status=status, status_text=REASONS[status], http_version="HTTP/1.1",
                            headers=[("Content-Type", mime)] if mime else [], body=body, mime_type=mime,
                            body_base64=is_b64)
            self.entries.append(Entry(req, resp, _iso(started), sum(v for v in timings.values() if v > 0),
                                      timings, self.pages[-1].id if self.pages else "", kind, "198.51.100.7"))
            self.clock.advance(0.02)

    # -- the API user ----------------------------------------------------------

    def login(self) -> None:
        s, c = self.spec.switches, self.instance_credentials
        if s.login == "password_bearer":
            body = self.send("POST", "/auth/login", json_body={"username": c["username"], "password": c["password"]},
                             auth_call=True).json()
            self.token, self.refresh_token = body["access_token"], body.get("refresh_token", "")
        elif s.login == "oauth2_client_credentials":
            body = self.send("POST", "/oauth/token", form={"grant_type": "client_credentials",
                                                           "client_id": c["client_id"],
                                                           "client_secret": c["client_secret"]},
                             auth_call=True).json()
            self.token = body["access_token"]
        elif s.login == "session_cookie":
            self.send("POST", "/session", json_body={"username": c["username"], "password": c["password"]},
                      auth_call=True)

    def renew(self) -> None:
        if self.spec.switches.expiry.endswith("_refresh"):
            body = self.send("POST", "/auth/refresh", json_body={"refresh_token": self.refresh_token},
                             auth_call=True).json()
            self.token, self.refresh_token = body["access_token"], body["refresh_token"]
        else:
            self.login()

    def call(self, method: str, path: str, **kw: Any) -> httpx.Response:
        resp = self.send(method, path, **kw)
        if resp.status_code == 401 and self.spec.switches.expiry != "off":
            self.renew()
            resp = self.send(method, path, **kw)
        return resp


def exchange_entry(req: httpx.Request, resp: httpx.Response, started: float, timings: dict[str, float],
                   form: dict[str, str] | None = None, pageref: str = "", resource_type: str = "fetch",
                   server_ip: str = "") -> Entry:
    """One captured exchange as a HAR entry, stamped with a simulated clock (so recordings are reproducible)."""
    total = sum(v for v in timings.values() if v > 0)
    headers = [(k.decode(), v.decode()) for k, v in req.headers.raw]
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
    return Entry(request, response, _iso(started), total, timings, pageref, resource_type, server_ip)


def unwrap(spec: ApiSpec, body: Any, name: str) -> Any:
    env = spec.switches.envelope
    if env == "data":
        return body["data"]
    if env == "result_meta":
        return body["result"]
    if env == "named":
        return body[name]
    if env == "payload":
        return body["payload"]
    if env == "items_next" and isinstance(body, dict) and "items" in body:
        return body["items"]
    return body


def record_session(spec: ApiSpec, instance: Instance, seed: int, *, evidence: bool = False) -> Recording:
    """Drive ``instance`` through the scripted session and return what the browser saw."""
    s, res = spec.switches, spec.resource
    b = BrowserSession(spec, instance, seed, evidence=evidence)
    if s.login in ("password_bearer", "oauth2_client_credentials", "session_cookie"):
        b.page("Sign in", "/login")
        b.login()
    b.page("Account", "/settings/account")
    account = unwrap(spec, b.call("GET", "/account").json(), "account")
    b.account_id = account["id"]
    if evidence and s.hidden_header in ("account_id", "csrf"):
        # The refusal a request without the header gets, recorded once before the app adds it.
        b.page(res.plural.capitalize(), f"/{res.plural}")
        b.call("GET" if s.hidden_header == "account_id" else "POST",
               f"/{res.plural}", omit_hidden=True,
               **({} if s.hidden_header == "account_id" else {"json_body": fake_record(res, b.r)}))
    b.page(res.plural.capitalize(), f"/{res.plural}")
    _list_all(b, spec)
    if s.expiry.startswith("seconds_"):
        b.clock.advance(spec.details.token_lifetime_seconds + b.r.randint(30, 600))  # the user went for lunch
    if res.filter_field:
        value = res.field(res.filter_field).choices[b.r.randrange(len(res.field(res.filter_field).choices))]
        b.page(f"{res.plural.capitalize()} · {value}", f"/{res.plural}?{res.filter_field}={value}")
        _list_all(b, spec, {res.filter_field: value}, max_pages=1)
    rows = instance.store.all(res.plural)
    pick = rows[b.r.randrange(len(rows))]
    b.page(f"{res.name.capitalize()} {pick['id']}", f"/{res.plural}/{pick['id']}")
    b.call("GET", f"/{res.plural}/{pick['id']}")
    stale = f"{res.id_prefix}_{token_hex(b.r, 6)}"
    b.page(f"{res.name.capitalize()} {stale}", f"/{res.plural}/{stale}")
    b.call("GET", f"/{res.plural}/{stale}")
    b.page(f"New {res.name}", f"/{res.plural}/new")
    new_values = fake_record(res, b.r)
    if evidence and s.hidden_header in ("idempotency_key", "content_digest"):
        b.call("POST", f"/{res.plural}", json_body=new_values, omit_hidden=True)
    created = unwrap(spec, b.call("POST", f"/{res.plural}", json_body=new_values).json(), res.name)
    b.page(f"{res.name.capitalize()} {created['id']}", f"/{res.plural}/{created['id']}")
    field = res.writable_fields[b.r.randrange(len(res.writable_fields))]
    change = fake_record(res, b.r)[field.name]
    b.call("PATCH", f"/{res.plural}/{created['id']}", json_body={field.name: change})
    b.call("DELETE", f"/{res.plural}/{created['id']}")
    b.page(res.plural.capitalize(), f"/{res.plural}")
    _list_all(b, spec, max_pages=1)
    return Recording(entries=b.entries, pages=b.pages, creator=("WebInspector", "537.36"),
                     browser=("Chrome", CHROME))


def _list_all(b: BrowserSession, spec: ApiSpec, params: dict[str, Any] | None = None, max_pages: int = 99) -> None:
    """Page through a list the way the app's infinite scroll does."""
    s, res = spec.switches, spec.resource
    params = dict(params or {})
    path: str | None = f"/{res.plural}"
    for _ in range(max_pages):
        resp = b.call("GET", path, params=params)
        body = resp.json()
        items = unwrap(spec, body, res.plural)
        if s.paging == "off" or not items:
            return
        if s.paging == "page":
            meta = _meta(spec, body) if isinstance(body, dict) else {}
            page = params.get("page", 1)
            if "total_pages" in meta and page >= meta["total_pages"]:
                return
            if "total_pages" not in meta and len(items) < spec.details.page_size:
                return
            params["page"] = page + 1
        elif s.paging == "offset":
            params["offset"] = params.get("offset", 0) + len(items)
            if len(items) < spec.details.page_size:
                return
        elif s.paging == "link":
            nxt = resp.links.get("next")
            if not nxt:
                return
            path, params = _relative(spec, nxt["url"]), {}
        elif s.paging == "cursor":
            meta = _meta(spec, body)
            cursor = meta.get("next") if s.envelope == "items_next" else meta.get("next_cursor")
            if not cursor:
                return
            params["cursor"] = cursor
        elif s.paging == "next_url":
            nxt = _meta(spec, body).get("next")
            if not nxt:
                return
            path, params = _relative(spec, nxt), {}


def _meta(spec: ApiSpec, body: Any) -> dict[str, Any]:
    env = spec.switches.envelope
    if env == "result_meta":
        return body["meta"]
    if env == "named":
        return body.get("paging", {})
    if env == "payload":
        return body.get("response_metadata", {})
    return body


def _relative(spec: ApiSpec, url: str) -> str:
    """The path and query of a full URL the API gave, without the version prefix the session adds."""
    u = httpx.URL(url)
    path = u.path
    prefix = version_prefix(spec)
    if prefix and path.startswith(prefix):
        path = path[len(prefix):]
    return path + ("?" + u.query.decode() if u.query else "")


def recording_instance(spec: ApiSpec, seed: int) -> Instance:
    r = random.Random(seed)
    d = spec.details
    count = d.page_size * 2 + r.randint(1, d.page_size - 1)
    return Instance(spec, seed, role="recording", record_count=count, clock=Clock(start=T0.timestamp()))

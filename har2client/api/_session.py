"""Recording: a scripted session against an instance, captured as a :class:`Recording`.

One script for every API: sign in, open the account, page through the list,
filter it, open one record, follow a stale link, create, edit and delete a
record, as far as the API has each of these. Its traffic reaches the real app
in-process (no socket) on the instance's simulated clock, so the same seed gives
the same bytes. A *profile* says who was recording: a browser's web inspector
(pages, a single-page app's own headers, static assets, telemetry) or a
proxy in front of an integration (mitmproxy, a sync job's headers).
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
from typing import Any

import httpx

from .._seeding import rng, token_hex, uuid4_from
from ..har import REASONS, Entry, Page, Recording, Request, Response, exchange_entry, iso_time
from ._app import create_app
from ._client import ConventionsClient
from ._fake import fake_from_schema
from ._gate import digest_of, preflight_headers
from ._instance import TOKEN_STYLES, Clock, Instance, page_sizes
from ._model import ApiModel
from ._world import ApiWorld, create_values

CHROME = "131.0.6778.86"
USER_AGENT = (f"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
              f"Chrome/{CHROME.split('.')[0]}.0.0.0 Safari/537.36")
T0 = _dt.datetime(2026, 10, 5, 8, 0, 0, tzinfo=_dt.timezone.utc).timestamp()
PROFILES = ("browser", "proxy")
# The one indirect trace an unrecorded header may leave in a recording, chosen per task.
CLUES = ("preflight", "other_host", "app_config", "none")


def clue_for(model: ApiModel, seed: int) -> str | None:
    """Which trace of its unrecorded header the recording made with ``seed`` keeps (None: it has none)."""
    if not any(rule.get("recorded") is False for rule in model.conventions.get("required_headers", [])):
        return None
    return rng(seed, "clue", model.key).choice(CLUES)


def recording_instance(model: ApiModel, seed: int) -> Instance:
    """The instance a task's recording is made on: a little over two default pages of records."""
    r = rng(seed, "recording-size", model.key)
    default, _ = page_sizes(model)
    count = 2 * default + r.randint(1, max(1, default - 1))
    if model.conventions["paging"]["style"] == "none" and model.conventions.get("records"):
        count = min(count, int(model.conventions["records"]))
    return Instance(model, seed, records=count, clock=Clock(start=T0))


class Capture:
    """Who recorded: adds the recorder's own headers to each request and turns each exchange into an entry."""

    def __init__(self, model: ApiModel, instance: Instance, profile: str, seed: int) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown recording profile {profile!r} (one of {', '.join(PROFILES)})")
        self.model, self.profile, self.clock = model, profile, instance.clock
        self.r = rng(seed, "capture", profile, model.key)
        self.entries: list[Entry] = []
        self.pages: list[Page] = []
        self.page_path = "/"
        host = httpx.URL(model.server).host
        self.slug = host.split(".")[1] if host.count(".") >= 2 else model.key
        self.app_origin = "https://" + ("app." + host[4:] if host.startswith("api.") else "app." + host)
        self.server_ip = (f"203.0.113.{self.r.randint(2, 250)}" if profile == "browser"
                          else f"198.51.100.{self.r.randint(2, 250)}")  # documentation addresses
        pool = ["X-Request-Id", "X-Client-Version", "X-Requested-With", "X-Timezone", "traceparent",
                "X-Device-Id", "X-Feature-Flags"]
        self.noise = sorted(self.r.sample(pool, 4), key=pool.index)
        self.client_version = f"web-{self.r.randint(3, 9)}.{self.r.randint(0, 30)}.{self.r.randint(0, 9)}"
        self.device_id = token_hex(self.r, 12)
        rules = model.conventions.get("required_headers", [])
        self.app_headers = {rule["name"].lower() for rule in rules}
        # Headers the session sends and the export does not keep (sanitizing exporters drop session headers).
        self.unrecorded = {rule["name"].lower() for rule in rules if rule.get("recorded") is False}

    def client_headers(self) -> dict[str, str]:
        if self.profile == "proxy":
            return {"User-Agent": f"{self.model.key}-sync/2.4.1", "Accept": "application/json",
                    "Accept-Encoding": "gzip, deflate"}
        major = CHROME.split(".")[0]
        return {
            "Accept": "application/json, text/plain, */*", "Accept-Encoding": "gzip, deflate, br, zstd",
            "Accept-Language": "en-GB,en;q=0.9", "Origin": self.app_origin,
            "sec-ch-ua": f'"Google Chrome";v="{major}", "Chromium";v="{major}", "Not_A Brand";v="24"',
            "sec-ch-ua-mobile": "?0", "sec-ch-ua-platform": '"Windows"', "Sec-Fetch-Dest": "empty",
            "Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "same-site", "User-Agent": USER_AGENT,
        }

    # -- hooks ------------------------------------------------------------------------------

    def on_request(self, request: httpx.Request) -> None:
        if self.profile != "browser" or request.method == "OPTIONS":  # a preflight carries no app headers
            return
        values = {
            "X-Request-Id": uuid4_from(self.r), "X-Client-Version": self.client_version,
            "X-Requested-With": "XMLHttpRequest", "X-Timezone": "Europe/Lisbon",
            "traceparent": f"00-{token_hex(self.r, 16)}-{token_hex(self.r, 8)}-01", "X-Device-Id": self.device_id,
            "X-Feature-Flags": "new-nav,bulk-export",
        }
        own = [(k.decode(), v.decode()) for k, v in request.headers.raw]
        plain = [(k, v) for k, v in own if k.lower() not in self.app_headers]
        required = [(k, v) for k, v in own if k.lower() in self.app_headers]
        # The app's own headers; whatever the API requires sits among them, in no telling position.
        merged = [(k, values[k]) for k in self.noise]
        for item in required:
            merged.insert(self.r.randint(0, len(merged)), item)
        request.headers = httpx.Headers(plain + [("Referer", self.app_origin + self.page_path)] + merged)

    def on_response(self, response: httpx.Response) -> None:
        response.read()
        r = self.r
        fresh = not self.entries
        if self.profile == "browser":
            timings = {"blocked": round(r.uniform(0.5, 4.0), 3), "dns": round(r.uniform(8, 30), 3) if fresh else -1,
                       "connect": round(r.uniform(15, 40), 3) if fresh else -1,
                       "ssl": round(r.uniform(10, 25), 3) if fresh else -1, "send": round(r.uniform(0.05, 0.4), 3),
                       "wait": round(r.uniform(35, 220), 3), "receive": round(r.uniform(0.3, 6.0), 3)}
        else:
            timings = {"blocked": round(r.uniform(0.2, 2), 3), "dns": round(r.uniform(5, 25), 3) if fresh else -1,
                       "connect": round(r.uniform(10, 40), 3) if fresh else -1,
                       "ssl": round(r.uniform(15, 40), 3) if fresh else -1, "send": round(r.uniform(0.05, 0.3), 3),
                       "wait": round(r.uniform(40, 260), 3), "receive": round(r.uniform(0.2, 4), 3)}
        started = self.clock.now()
        self.clock.advance(sum(v for v in timings.values() if v > 0) / 1000 + r.uniform(0.05, 0.8))
        entry = exchange_entry(response.request, response, started, timings,
                               pageref=self.pages[-1].id if self.pages else "", server_ip=self.server_ip)
        if self.unrecorded:
            entry.request.headers = [(k, v) for k, v in entry.request.headers if k.lower() not in self.unrecorded]
        self.entries.append(entry)

    # -- what a browser adds ------------------------------------------------------------------

    def page(self, title: str, path: str) -> None:
        if self.profile != "browser":
            return
        self.clock.advance(self.r.uniform(1.5, 6.0))
        self.page_path = path
        self.pages.append(Page(f"page_{len(self.pages) + 1}", f"{self.model.api.split()[0]} · {title}",
                               iso_time(self.clock.now())))
        self._static_noise()

    def _static_noise(self) -> None:
        """Requests a browser makes that have nothing to do with the API."""
        r = self.r
        choices = [
            ("GET", f"{self.app_origin}/assets/app.{token_hex(r, 4)}.js", "application/javascript", "script",
             "(()=>{" + "var a=1;" * r.randint(10, 30) + "})();", False),
            ("GET", f"https://fonts.cdn-{self.slug}.example/inter/v13/latin.woff2", "font/woff2", "font",
             base64.b64encode(r.getrandbits(8 * 96).to_bytes(96, "big")).decode(), True),
            ("POST", f"https://telemetry.{self.slug}.example/v1/events", "", "ping", "", False),
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
            self.entries.append(Entry(req, resp, iso_time(started), sum(v for v in timings.values() if v > 0),
                                      timings, self.pages[-1].id if self.pages else "", kind, "198.51.100.7"))
            self.clock.advance(0.02)

    def synthetic(self, method: str, url: str, headers: list[tuple[str, str]], body: str, status: int,
                  response_headers: list[tuple[str, str]], response_body: str, mime: str, kind: str) -> None:
        """An exchange with another host of the same app, recorded as the browser saw it."""
        r = self.r
        started = self.clock.now()
        timings = {"blocked": 0.6, "dns": -1, "connect": -1, "ssl": -1, "send": 0.1,
                   "wait": round(r.uniform(15, 80), 3), "receive": round(r.uniform(0.3, 2), 3)}
        base = [("Accept", "*/*"), ("User-Agent", USER_AGENT), ("Origin", self.app_origin),
                ("Referer", self.app_origin + self.page_path)]
        req = Request(method=method, url=url, headers=base + headers, body=body,
                      mime_type="application/json" if body else "")
        resp = Response(status=status, status_text=REASONS.get(status, ""), http_version="HTTP/1.1",
                        headers=response_headers, body=response_body, mime_type=mime)
        self.entries.append(Entry(req, resp, iso_time(started), sum(v for v in timings.values() if v > 0),
                                  timings, self.pages[-1].id if self.pages else "", kind, "198.51.100.7"))
        self.clock.advance(0.03)

    def app_config(self, header: str) -> None:
        """The web app's configuration, which names the header its API client adds."""
        body = json.dumps({"apiBase": self.model.server, "release": self.client_version,
                           "features": ["new-nav", "bulk-export"], "telemetry": True,
                           "api": {"timeoutMs": 15000, "retry": 1, "requestHeaders": [header]}}, indent=2)
        self.synthetic("GET", f"{self.app_origin}/config.json", [], "", 200,
                       [("Content-Type", "application/json"), ("Cache-Control", "max-age=300")], body,
                       "application/json", "fetch")

    def other_host(self, header: str, value: str | None, page_path: str) -> None:
        """A telemetry beacon, which the exporter kept whole, sent with the app's header."""
        body = json.dumps({"event": "page_view", "path": page_path, "client": self.client_version})
        if value is None:  # a digest: of this very body
            value = digest_of(body.encode())
        self.synthetic("POST", f"https://telemetry.{self.slug}.example/v1/events",
                       [("Content-Type", "application/json"), (header, value)], body, 204, [], "", "", "ping")

    def recording(self) -> Recording:
        if self.profile == "browser":
            return Recording(entries=self.entries, pages=self.pages, creator=("WebInspector", "537.36"),
                             browser=("Chrome", CHROME))
        return Recording(entries=self.entries, pages=[], creator=("mitmproxy", "10.4.2"))


def record_session(model: ApiModel, instance: Instance, seed: int, *, profile: str = "browser",
                   evidence: bool = False, roles: tuple[str, ...] | None = None) -> Recording:
    """Drive ``instance`` through the scripted session and return what the recorder saw.

    ``evidence`` adds, once, the refusal a request without the API's required header gets. ``roles``
    makes a short session: the first page of the list, and only the other operations named.
    """
    cap = Capture(model, instance, profile, seed)
    r = rng(seed, "session", model.key)
    http = httpx.Client(transport=httpx.WSGITransport(app=create_app(model, instance)),
                        headers=cap.client_headers(),
                        event_hooks={"request": [cap.on_request], "response": [cap.on_response]})
    client = ConventionsClient(model, model.server, instance.credentials, instance.client_params, http=http, r=r)
    ops, session, plural = model.operations, model.conventions.get("session", ["list", "get"]), model.plural
    if roles is not None:
        session = [role for role in session if role in roles]
    title = plural.replace("_", " ").capitalize()
    world = ApiWorld(model, instance)
    if model.auth["style"] in TOKEN_STYLES:
        cap.page("Sign in", "/login")
        client.login()
    if "account" in ops:
        cap.page("Account", "/settings/account")
        client.account()
    rules = model.conventions.get("required_headers", [])
    hidden = next((rule for rule in rules if rule.get("recorded") is False), None)
    clue = clue_for(model, seed) if profile == "browser" else None
    if hidden and clue == "app_config":
        cap.app_config(hidden["name"])
    if hidden and clue == "other_host":
        value = {"account": lambda: client.account(), "csrf": lambda: http.cookies.get(hidden.get("cookie",
                                                                                                  "csrftoken")),
                 "unique": lambda: uuid4_from(r), "digest": lambda: None}[hidden["check"]]()
        cap.other_host(hidden["name"], value, cap.page_path)
    cap.page(title, f"/{plural}")
    rows = client.list_all(max_pages=1 if roles is not None else 200)
    if evidence and hidden and rows:
        # The refusal a request without the header gets, recorded once before the app adds it.
        client.ignore = "required_headers"
        if "post" in hidden["on"] and "create" in ops:
            client.request(ops["create"], body=create_values(model, r))
        else:
            client.request(ops["get"], rows[0][model.id_field])
        client.ignore = None
    if "seconds" in model.expiry:
        instance.clock.advance(int(model.expiry["seconds"]) + r.randint(30, 600))  # the user went for lunch
    for f in model.filters[:1] if roles is None else ():
        choices = model.field_properties[f].get("enum") or [rows[0].get(f)]
        value = choices[r.randrange(len(choices))]
        cap.page(f"{title} · {value}", f"/{plural}?{f}={value}")
        client.list_all(filters={f: value}, max_pages=1)
    if "get" in session and rows:
        pick = rows[r.randrange(len(rows))][model.id_field]
        cap.page(f"{model.resource.capitalize()} {pick}", f"/{plural}/{pick}")
        client.get(pick)
    if "get" in session and rows and roles is None:
        stale = world.missing_id(r)
        cap.page(f"{model.resource.capitalize()} {stale}", f"/{plural}/{stale}")
        client.get(stale)
    if hidden and clue == "preflight":  # the browser asks before its first request that needs the header
        write = "POST" if "post" in hidden["on"] else "PATCH"
        url = model.server + (ops["list"].path if write == "POST" else
                              client._path(ops["get"], rows[0][model.id_field] if rows else "1"))
        asked = ",".join(h.lower() for h in preflight_headers(model))
        http.options(url, headers={"Access-Control-Request-Method": write,
                                   "Access-Control-Request-Headers": asked,
                                   "Sec-Fetch-Mode": "cors"})
    created: Any = None
    if "create" in session:
        cap.page(f"New {model.resource}", f"/{plural}/new")
        created = client.create(create_values(model, r))
    target = created[model.id_field] if isinstance(created, dict) else (rows[0][model.id_field] if rows else None)
    if isinstance(created, dict):
        cap.page(f"{model.resource.capitalize()} {target}", f"/{plural}/{target}")
    if "update" in session and target is not None:
        props = model.request_fields("update")[0]
        not_fields = model.not_caller_fields
        fields = [k for k, v in props.items() if v.get("type") == "string" and "enum" not in v and k not in not_fields]
        if fields:
            field = fields[r.randrange(len(fields))]
            client.update(target, {field: fake_from_schema(props[field], r, field)})
    if "delete" in session and created is not None:
        client.delete(target)
    if profile == "browser" and roles is None:
        cap.page(title, f"/{plural}")
        client.list_all(max_pages=1)
    return cap.recording()

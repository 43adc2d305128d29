"""A Tier B API as an OpenAPI 3 document: the six switches written as the engine's conventions.

Everything the switches decide lands in two places of one document: the
OpenAPI part (paths, parameters, schemas, security schemes) that a reader or a
validator sees, and the ``x-har2client`` annotation the engine serves from.
"""

from __future__ import annotations

from typing import Any

from ._domains import Field, Resource
from ._switches import Details, Switches

_STRING_KINDS = {"email": {"format": "email"}, "date": {"format": "date"}, "datetime": {"format": "date-time"},
                 "url": {"format": "uri"}, "currency": {"pattern": "^[A-Z]{3}$"}}
_WRITES = ["get", "post", "patch", "put", "delete"]
_ENVELOPES: dict[str, dict[str, Any]] = {
    "off": {"list": None, "single": None},
    "data": {"list": "data", "single": "data"},
    "result_meta": {"list": "result", "single": "result", "request_id": "meta.request_id"},
    "items_next": {"list": "items", "single": None},
    "named": {"list": "{plural}", "single": "{name}"},
    "payload": {"list": "payload", "single": "payload", "ok_key": "ok"},
}
_META_PREFIX = {"result_meta": "meta.", "named": "paging.", "payload": "response_metadata."}


def field_schema(f: Field) -> dict[str, Any]:
    if f.kind in ("money_cents", "int"):
        return {"type": "integer", "minimum": f.low, "maximum": f.high or (500_000 if f.kind == "money_cents" else 100),
                "x-kind": f.kind}
    if f.kind == "bool":
        return {"type": "boolean", "x-kind": f.kind}
    if f.kind == "enum":
        return {"type": "string", "enum": list(f.choices), "x-kind": f.kind}
    return {"type": "string", **_STRING_KINDS.get(f.kind, {}), "x-kind": f.kind}


def _auth(s: Switches, d: Details, host: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The auth convention and the OpenAPI security scheme of a login variant."""
    login = s.login
    if login == "header_key":
        return {"style": "header_key", "header": d.key_header}, {"type": "apiKey", "in": "header", "name": d.key_header}
    if login == "query_key":
        return {"style": "query_key", "param": d.key_param}, {"type": "apiKey", "in": "query", "name": d.key_param}
    if login == "basic":
        return {"style": "basic"}, {"type": "http", "scheme": "basic"}
    if login == "oauth2_client_credentials":
        url = f"https://{host}/oauth/token"
        return ({"style": "oauth2_client_credentials", "token_url": url},
                {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": url, "scopes": {}}}})
    if login == "password_bearer":
        auth = {"style": "password_bearer", "login_path": "/auth/login"}
        if s.expiry.endswith("_refresh"):
            auth["refresh_path"] = "/auth/refresh"
        return auth, {"type": "http", "scheme": "bearer"}
    if login == "session_cookie":
        return ({"style": "session_cookie", "login_path": "/session", "cookie": "session"},
                {"type": "apiKey", "in": "cookie", "name": "session"})
    return {"style": "none"}, {}


def _expiry(s: Switches, d: Details) -> dict[str, Any] | None:
    if s.expiry == "off":
        return None
    amount = ({"requests": d.token_lifetime_requests} if s.expiry.startswith("requests_")
              else {"seconds": d.token_lifetime_seconds})
    return {**amount, "renew": "refresh" if s.expiry.endswith("_refresh") else "login"}


def _version(s: Switches, d: Details, slug: str) -> dict[str, Any]:
    styles: dict[str, dict[str, Any]] = {
        "off": {"style": "none"},
        "header_date": {"style": "header", "name": d.version_header, "value": d.version_value},
        "query": {"style": "query", "name": "api-version", "value": d.version_value},
        "accept": {"style": "accept", "value": f"application/vnd.{slug}.{d.path_version}+json"},
        "path": {"style": "path", "prefix": f"/{d.path_version}", "explain": True},
    }
    return styles[s.version]


def _paging(s: Switches, d: Details) -> dict[str, Any]:
    sizes = {"default_limit": d.page_size, "page_cap": d.max_page_size, "meta_prefix": _META_PREFIX.get(s.envelope, "")}
    styles: dict[str, dict[str, Any]] = {
        "off": {"style": "none"},
        "page": {"style": "page", "page_param": "page", "per_page_param": "per_page", "pages_key": "total_pages",
                 "echo": True},
        "offset": {"style": "offset", "offset_param": "offset", "limit_param": "limit", "total_key": "total",
                   "echo": True},
        "cursor": {"style": "cursor", "limit_param": "limit", "cursor_param": "cursor", "more_key": "has_more",
                   "cursor_source": "next" if s.envelope == "items_next" else "next_cursor"},
        "link": {"style": "link", "page_param": "page", "per_page_param": "per_page"},
        "next_url": {"style": "next_url", "page_param": "page", "limit_param": "limit", "next_key": "next"},
    }
    return styles[s.paging] | ({} if s.paging == "off" else sizes)


def _required_headers(s: Switches) -> list[dict[str, Any]]:
    """The hidden header: required where the variant says, and never kept by the recording's export
    (``recorded: false``: the session sent it, a sanitizing exporter dropped it)."""
    rules: list[dict[str, Any]] = {
        "off": [],
        # One record's reads and writes are checked against the account; listings and creates are not.
        "account_id": [{"name": "X-Account-Id", "on": ["get", "patch", "put", "delete"], "check": "account",
                        "skip": ["account", "list"]}],
        "csrf": [{"name": "X-CSRF-Token", "on": ["post", "patch", "put", "delete"], "check": "csrf",
                  "cookie": "csrftoken"}],
        "idempotency_key": [{"name": "Idempotency-Key", "on": ["post"], "check": "unique"}],
        "content_digest": [{"name": "Content-Digest", "on": ["post", "patch", "put"], "check": "digest"}],
    }[s.hidden_header]
    return [{**rule, "recorded": False} for rule in rules]


def _meta_schema(paging: dict[str, Any]) -> dict[str, Any]:
    """The body's paging fields, nested as ``meta_prefix`` says."""
    keys: dict[str, Any] = {}
    for k in ("page_param", "per_page_param", "offset_param", "limit_param"):
        if paging.get("echo") and paging.get(k):
            keys[paging[k]] = {"type": "integer"}
    for k, schema in (("pages_key", {"type": "integer"}), ("total_key", {"type": "integer"}),
                      ("more_key", {"type": "boolean"}), ("next_key", {"type": "string", "nullable": True}),
                      ("cursor_source", {"type": "string", "nullable": True})):
        if paging.get(k):
            keys[paging[k]] = schema
    if paging["style"] == "link":
        keys = {}
    return keys


def _wrap(key: str | None, inner: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    if not key:
        return inner
    return {"type": "object", "required": [key], "properties": {key: inner, **extra}}


def tierb_document(name: str, slug: str, host: str, resource: Resource, switches: Switches, details: Details,
                   release: str = "1") -> dict[str, Any]:
    """The OpenAPI 3.0 document of one Tier B API."""
    s, d, res = switches, details, resource
    n, p = res.name, res.plural
    env = {k: (v.format(plural=p, name=n) if isinstance(v, str) else v) for k, v in _ENVELOPES[s.envelope].items()}
    version = _version(s, d, slug)
    prefix = version.get("prefix", "")
    auth, scheme = _auth(s, d, host)
    expiry = _expiry(s, d)
    if expiry:
        auth["expiry"] = expiry
    paging = _paging(s, d)
    meta = _meta_schema(paging)
    extras: dict[str, Any] = {}
    if env.get("ok_key"):
        extras["ok"] = {"type": "boolean"}
    if env.get("request_id"):
        extras["meta"] = {"type": "object", "properties": {"request_id": {"type": "string"}}}
    pre = paging.get("meta_prefix", "")
    list_extra = dict(extras)
    if meta and env["list"]:
        if pre:
            holder = pre.rstrip(".")
            props = dict(list_extra.get(holder, {}).get("properties", {}))
            list_extra[holder] = {"type": "object", "properties": {**props, **meta}}
        else:
            list_extra.update(meta)
    ref = lambda name: {"$ref": f"#/components/schemas/{name}"}  # noqa: E731
    fields = {f.name: field_schema(f) for f in res.fields}
    writable = {f.name: field_schema(f) for f in res.writable_fields}
    schemas: dict[str, Any] = {
        res.name.capitalize(): {"type": "object", "required": ["id", *fields],
                                "properties": {"id": {"type": "string", "pattern": f"^{res.id_prefix}_[0-9a-f]{{12}}$"},
                                               **fields}},
        "Account": {"type": "object", "required": ["id", "name", "email"], "properties": {
            "id": {"type": "string", "pattern": "^acct_[0-9a-f]{10}$"},
            "name": {"type": "string", "x-kind": "company"}, "email": {"type": "string", "format": "email",
                                                                       "x-kind": "email"},
            "plan": {"type": "string", "enum": ["starter", "team", "business"], "x-kind": "enum"},
            "created_at": {"type": "string", "format": "date-time", "x-kind": "datetime"}}},
        f"{res.name.capitalize()}Create": {"type": "object", "additionalProperties": False,
                                           "required": list(writable), "properties": writable},
        f"{res.name.capitalize()}Changes": {"type": "object", "additionalProperties": False, "minProperties": 1,
                                            "properties": writable},
        "Error": {"type": "object", "required": ["error"], "properties": {
            **({"ok": {"type": "boolean"}} if env.get("ok_key") else {}),
            "error": {"type": "object", "required": ["code", "message"], "properties": {
                "code": {"type": "string"}, "message": {"type": "string"}}}}},
    }
    record = ref(res.name.capitalize())

    def answer(text: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"description": text, "content": {"application/json": {"schema": schema}}}

    error = answer("An error.", ref("Error"))
    list_params = []
    for k in ("page_param", "per_page_param", "offset_param", "limit_param", "cursor_param"):
        if paging.get(k):
            kind = "string" if k == "cursor_param" else "integer"
            list_params.append({"name": paging[k], "in": "query", "schema": {"type": kind}})
    if res.filter_field:
        choices = next(f.choices for f in res.fields if f.name == res.filter_field)
        list_params.append({"name": res.filter_field, "in": "query",
                            "description": f"Only {p} with this {res.filter_field}.",
                            "schema": {"type": "string", "enum": list(choices)}})
    if version["style"] == "query":
        list_params.append({"name": version["name"], "in": "query", "required": True, "schema": {"type": "string"}})
    item_param = f"{n}_id"
    paths: dict[str, Any] = {
        f"{prefix}/account": {"get": {"operationId": "getAccount", "summary": "The signed-in account.",
                                      "responses": {"200": answer("The account.", _wrap(env["single"], ref("Account"),
                                                                                        extras)),
                                                    "401": error}}},
        f"{prefix}/{p}": {
            "get": {"operationId": f"list{p.capitalize()}", "parameters": list_params, "responses": {
                "200": answer(f"A page of {p}.", _wrap(env["list"], {"type": "array", "items": record}, list_extra)),
                "401": error}},
            "post": {"operationId": f"create{n.capitalize()}",
                     "requestBody": {"required": True, "content": {"application/json": {
                         "schema": ref(f"{res.name.capitalize()}Create")}}},
                     "responses": {"201": answer(f"The new {n}.", _wrap(env["single"], record, extras)),
                                   "422": error}}},
        f"{prefix}/{p}/{{{item_param}}}": {
            "parameters": [{"name": item_param, "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {"operationId": f"get{n.capitalize()}", "responses": {
                "200": answer(f"The {n}.", _wrap(env["single"], record, extras)), "404": error}},
            "patch": {"operationId": f"update{n.capitalize()}",
                      "requestBody": {"required": True, "content": {"application/json": {
                          "schema": ref(f"{res.name.capitalize()}Changes")}}},
                      "responses": {"200": answer(f"The {n} as changed.", _wrap(env["single"], record, extras)),
                                    "404": error, "422": error}},
            "delete": {"operationId": f"delete{n.capitalize()}",
                       "responses": {"204": {"description": "Deleted."}, "404": error}}},
    }
    credentials = {"type": "object", "required": ["username", "password"],
                   "properties": {"username": {"type": "string"}, "password": {"type": "string"}}}
    token = {"type": "object", "properties": {"access_token": {"type": "string"}, "token_type": {"type": "string"},
                                              "expires_in": {"type": "integer"},
                                              "refresh_token": {"type": "string"}}}
    if auth["style"] == "password_bearer":
        paths[auth["login_path"]] = {"post": {"operationId": "logIn", "security": [], "requestBody": {
            "required": True, "content": {"application/json": {"schema": credentials}}},
            "responses": {"200": answer("A bearer token.", token), "401": error}}}
        if auth.get("refresh_path"):
            paths[auth["refresh_path"]] = {"post": {"operationId": "refreshToken", "security": [], "requestBody": {
                "required": True, "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"refresh_token": {"type": "string"}}}}}},
                "responses": {"200": answer("A new token pair.", token), "401": error}}}
    elif auth["style"] == "session_cookie":
        paths[auth["login_path"]] = {"post": {"operationId": "signIn", "security": [], "requestBody": {
            "required": True, "content": {"application/json": {"schema": credentials}}},
            "responses": {"200": answer("Signed in: the session cookie is set.", {"type": "object"}), "401": error}}}
    elif auth["style"] == "oauth2_client_credentials":
        paths["/oauth/token"] = {"post": {"operationId": "issueToken", "security": [], "requestBody": {
            "required": True, "content": {"application/x-www-form-urlencoded": {"schema": {
                "type": "object", "properties": {"grant_type": {"type": "string"}, "client_id": {"type": "string"},
                                                 "client_secret": {"type": "string"}}}}}},
            "responses": {"200": answer("An access token.", token)}}}
    annotation: dict[str, Any] = {
        "api": name, "docs": "", "spec_licence": "CC-BY-4.0", "resource": n, "plural": p,
        "collection": f"{prefix}/{p}", "item": f"{prefix}/{p}/{{{item_param}}}", "id_field": "id",
        "client_params": [], "auth": auth, "paging": paging, "envelope": env, "version": version,
        "required_headers": _required_headers(s), "filters": [res.filter_field] if res.filter_field else [],
        "validation": "strict", "validation_status": 422, "rate_limit": d.rate_limit,
        "session": ["list", "get", "create", "update", "delete"],
        "operations": {"list": f"list{p.capitalize()}", "get": f"get{n.capitalize()}",
                       "create": f"create{n.capitalize()}", "update": f"update{n.capitalize()}",
                       "delete": f"delete{n.capitalize()}", "account": "getAccount"},
    }
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": name, "version": release,
                 "description": f"The {name}: {p} of one account. An invented API (HAR2Client Tier B)."},
        "servers": [{"url": f"https://{host}"}],
        "x-har2client": annotation,
        "paths": paths,
        "components": {"schemas": schemas},
    }
    if scheme:
        doc["components"]["securitySchemes"] = {"login": scheme}
        doc["security"] = [{"login": []}]
    return doc

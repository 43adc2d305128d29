"""The heuristic baseline's rules: from a goal's facts and a recording, an API description in the
engine's terms (an OpenAPI document with ``x-har2client`` conventions)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from .._errors import TaskError
from ..har import Entry, Recording
from ._goal_reading import GoalFacts
from ._traffic import (
    NOISE,
    UUID,
    answer_of,
    bool_paths,
    constant_values,
    int_paths,
    path_and_query,
    paths_to,
    records_in,
    secret_like,
    sent_fields,
    string_paths,
    templated,
    unwrapped_body,
    value_at,
    where_records,
)


def infer_document(goal: GoalFacts, rec: Recording) -> dict[str, Any]:
    """An OpenAPI document with ``x-har2client`` conventions: what the rules infer about the API."""
    base = urlsplit(goal.base_url)
    api_entries = [e for e in rec.entries if e.request.host == base.netloc]
    if not api_entries:
        raise TaskError(f"the recording has no request to {base.netloc}")
    ids = {str(r.get(goal.id_field)) for e in api_entries for r in records_in(answer_of(e), goal)}
    id_name = f"{goal.resource}_id"
    roles: dict[str, Entry] = {}
    collection = None
    for e in api_entries:
        found = where_records(answer_of(e), goal)
        path = e.request.path
        method = e.request.method
        if found and found[0] == "list" and method in ("GET", "POST") and "list" not in roles \
                and not sent_fields(e).keys() & set(goal.create_fields):
            roles["list"], collection = e, path
    item = None
    for e in api_entries:
        t = templated(e.request.path, ids, id_name)
        if "{" not in t:
            continue
        role = {"GET": "get", "DELETE": "delete", "PATCH": "update", "PUT": "update"}.get(e.request.method)
        if e.request.method == "POST" and sent_fields(e):
            role = "update"
        if role and role not in roles:
            roles[role], item = e, item or t
    for e in api_entries:
        sent = set(sent_fields(e)) | set(unwrapped_body(sent_fields(e)))
        if e.request.method in ("POST", "PUT") and "create" not in roles \
                and "{" not in templated(e.request.path, ids, id_name) and sent & set(goal.create_fields):
            roles["create"] = e
            collection = collection or e.request.path
    for e in api_entries:  # a create that sent no field the goal names: a POST answered with one new record
        found = where_records(answer_of(e), goal)
        if "create" not in roles and e.request.method == "POST" and e is not roles.get("list") and found \
                and found[0] == "single" and "{" not in templated(e.request.path, ids, id_name) \
                and e.request.path != collection:
            roles["create"] = e
    collection = collection or urlsplit(goal.base_url).path + f"/{goal.plural}"
    item = item or f"{collection}/{{{id_name}}}"
    x = _conventions(goal, rec, api_entries, roles, collection)
    return _document(goal, x, roles, collection, item, id_name)


def _client_params(goal: GoalFacts, credentials: list[str]) -> list[str]:
    return [a for a in goal.constructor if a not in credentials]


def _with_params(path: str, params: list[str], collection: str) -> str:
    """``path`` with the client parameters written in: the ``len(params)`` segments before the recorded
    collection's own segment, where ``path`` shares them (a path elsewhere keeps its values)."""
    parts, head = path.split("/"), collection.split("/")[:-1]
    if not params or len(head) - len(params) < 1 or parts[:len(head)] != head:
        return path
    for i, name in enumerate(params):
        parts[len(head) - len(params) + i] = "{" + name + "}"
    return "/".join(parts)


def _auth(goal: GoalFacts, entries: list[Entry], data: list[Entry]) -> tuple[dict[str, Any], list[str]]:
    """The auth convention, and the constructor's credential arguments it uses."""
    args = goal.constructor
    if "username" in args and "password" in args:
        if any((e.request.header("Authorization") or "").startswith("Basic ") for e in entries):
            return {"style": "basic"}, ["username", "password"]
        login = next((e for e in entries if e.request.method == "POST"
                      and {"username", "password"} <= set(sent_fields(e))), None)
        if login is not None:
            body = answer_of(login) if isinstance(answer_of(login), dict) else {}
            later = [e.request.header("Authorization") or "" for e in entries[entries.index(login) + 1:]]
            token_key = next((k for k, v in body.items() if isinstance(v, str) and any(v in h for h in later)), None)
            style = "password_bearer" if token_key else "session_cookie"
            auth = {"style": style, "login_path": login.request.path}
            return auth, ["username", "password"]
        return {"style": "basic"}, ["username", "password"]
    if "client_id" in args and "client_secret" in args:
        token = next((e for e in entries if dict(e.request.form_params).get("grant_type") == "client_credentials"
                      or "grant_type=client_credentials" in e.request.body), None)
        url = token.request.url.split("?")[0] if token is not None else goal.base_url + "/oauth/token"
        return {"style": "oauth2_client_credentials", "token_url": url}, ["client_id", "client_secret"] + \
            (["token_url"] if "token_url" in args else [])
    if "api_key" in args:
        headers = constant_values(data, lambda e: e.request.headers)
        for name, value in headers.items():
            if name.lower() == "authorization" and value.startswith("Bearer ") and secret_like(value[7:]):
                return {"style": "bearer"}, ["api_key"]
        query = constant_values(data, lambda e: e.request.query)
        extra = [a for a in args if a != "api_key" and a in query]
        # Where a key is kept says what it is: a header or parameter named for a key or a token first,
        # then any other value that looks like a secret (a device id looks like one too).
        named = re.compile(r"key|token|auth|secret", re.I)
        found: list[tuple[int, dict[str, Any]]] = []
        for name, value in headers.items():
            secret = re.search(r"[A-Za-z0-9_\-.]{16,}$", value)
            if name.lower() not in NOISE - {"authorization"} and secret and secret_like(secret.group(0)):
                found.append((0 if named.search(name) else 2,
                              {"style": "header_key", "header": name, "prefix": value[:secret.start()]}))
        for name, value in query.items():
            if secret_like(value) and name not in extra:
                found.append((1 if named.search(name) or name in ("key", "apikey") else 3,
                              {"style": "query_key", "param": name, "extra_params": extra}))
        if found:
            auth = min(found, key=lambda f: f[0])[1]
            return auth, ["api_key", *auth.get("extra_params", [])]
        return {"style": "bearer"}, ["api_key"]
    return {"style": "none"}, []


def _version(entries: list[Entry]) -> dict[str, Any]:
    """The version the API checks: a vendor media type, a version header (not the web app's own build),
    or a version query parameter, each the same on every call."""
    headers = constant_values(entries, lambda e: e.request.headers)
    accept = next((v for k, v in headers.items() if k.lower() == "accept" and ("vnd." in v or "version" in v)), None)
    header = next(((k, v) for k, v in headers.items() if "version" in k.lower() and "client" not in k.lower()
                   and re.search(r"\d", v)), None)
    if header:
        return {"style": "header", "name": header[0], "value": header[1]} | ({"accept": accept} if accept else {})
    if accept:
        return {"style": "accept", "value": accept}
    for name, value in constant_values(entries, lambda e: e.request.query).items():
        if "version" in name.lower():
            return {"style": "query", "name": name, "value": value}
    return {"style": "none"}


def _paging(goal: GoalFacts, lists: list[Entry]) -> dict[str, Any]:
    """The paging convention, from consecutive list calls: what changed, and where its value came from."""
    for a, b in zip(lists, lists[1:], strict=False):
        body = answer_of(a)
        links = a.response.header("Link") or ""
        if 'rel="next"' in links:
            return {"style": "link", "page_param": "page", "per_page_param": "per_page"}
        url_key = next((k for k in string_paths(body) if value_at(body, k) in (b.request.url, b.request.url.split(
            "://", 1)[-1].split("/", 1)[-1], path_and_query(b.request.url))), None)
        if url_key:
            return {"style": "next_url", "next_key": url_key}
        records = records_in(body, goal)
        before, after = dict(a.request.query), dict(b.request.query)
        moved = {k: v for k, v in after.items() if before.get(k) != v}
        more = next((k for k in bool_paths(body) if "more" in k.lower()), None)
        if a.request.method == "POST":
            moved = {k: v for k, v in sent_fields(b).items() if sent_fields(a).get(k) != v}
        for param, value in moved.items():
            sources = paths_to(body, value)
            if sources:
                out: dict[str, Any] = {"style": "cursor", "cursor_param": param, "cursor_source": sources[0]}
                if a.request.method == "POST":
                    out["in_body"] = True
                return out | ({"more_key": more} if more else {})
            if records and str(records[-1].get(goal.id_field)) == str(value):
                return {"style": "cursor", "cursor_param": param, "cursor_source": "last_id",
                        "more_key": more or "has_more"}
            if str(value).isdigit():
                was = int(before.get(param, 1 if "page" in param.lower() else 0) or 0)
                if int(value) == was + 1:
                    pages = next((k for k in int_paths(body) if "page" in k.lower() and k.lower() != param.lower()
                                  and ("total" in k.lower() or "count" in k.lower())), None)
                    return {"style": "page", "page_param": param} | ({"pages_key": pages} if pages else {})
                if int(value) == was + len(records):
                    total = next((k for k in int_paths(body) if "total" in k.lower() or "count" in k.lower()), None)
                    return {"style": "offset", "offset_param": param} | ({"total_key": total} if total else {}) \
                        | ({"more_key": more} if more else {})
    return {"style": "none"}


def _required_headers(entries: list[Entry], skip: set[str]) -> tuple[list[dict[str, Any]], str | None]:
    """Headers the session derived or made up, each with the rule that makes it (and the path of the
    call whose answer one is copied from)."""
    rules, account = [], None
    names: dict[str, str] = {}
    for e in entries:
        for k, _ in e.request.headers:
            if k.lower() not in NOISE and k.lower() not in skip and not k.startswith((":", "sec-", "Sec-")):
                names.setdefault(k.lower(), k)
    for name in names.values():
        carrying = [e for e in entries if e.request.header(name) is not None]
        values = [e.request.header(name) or "" for e in carrying]
        on = sorted({e.request.method.lower() for e in carrying})
        rule: dict[str, Any] = {"name": name, "on": on}
        if all(UUID.match(v) for v in values) and len(set(values)) == len(values):
            rule["check"] = "unique"
        elif all(v.startswith("sha-256=") for v in values):
            rule["check"] = "digest"
        else:
            first = carrying[0]
            earlier = entries[:entries.index(first)]
            source = next((e for e in earlier if e.request.method == "GET" and paths_to(answer_of(e), values[0])), None)
            cookie = next((c.split("=", 1)[0].strip() for e in earlier for k, c in e.response.headers
                           if k.lower() == "set-cookie" and c.split(";", 1)[0].split("=", 1)[-1] == values[0]), None)
            if source is not None and paths_to(answer_of(source), values[0])[0].split(".")[-1] == "id":
                rule["check"], account = "account", source.request.path
            elif cookie:
                rule["check"], rule["cookie"] = "csrf", cookie
                account = account or next((e.request.path for e in earlier if e.request.method == "GET"), None)
            elif len(set(values)) == 1 and not set(values[0]) & set('"\\'):  # written into code as it is
                rule["check"], rule["example"] = "present", values[0]
            else:
                continue
        rules.append(rule)
    return rules, account


def _conventions(goal: GoalFacts, rec: Recording, entries: list[Entry], roles: dict[str, Entry],
                 collection: str) -> dict[str, Any]:
    entries = [e for e in entries if e.request.method != "OPTIONS"]  # a browser's CORS preflights
    data = [e for e in entries if e.request.path == collection or e.request.path.startswith(collection + "/")]
    data = data or entries  # the calls on the records: what every call to the API carries, they carry
    auth, credentials = _auth(goal, rec.entries, data)
    if any(e.response.status == 401 for e in entries):
        auth["expiry"] = {"renew": "login"}
    refresh = next((e for e in entries if "refresh_token" in sent_fields(e)), None)
    if refresh is not None and auth["style"] == "password_bearer":
        auth["refresh_path"], auth["expiry"] = refresh.request.path, {"renew": "refresh"}
    version = _version(data)
    skip = {auth.get("header", "").lower(), version.get("name", "").lower()}
    required, account = _required_headers(entries, skip)
    list_entry = roles.get("list")
    lists = [e for e in entries if list_entry is not None and e.request.path == collection
             and e.request.method == list_entry.request.method]
    paging = _paging(goal, lists)
    envelope: dict[str, Any] = {"list": None, "single": None}
    if list_entry is not None and (found := where_records(answer_of(list_entry), goal)) and found[1]:
        envelope["list"] = found[1]
    for role in ("get", "create", "update"):
        found = where_records(answer_of(roles[role]), goal) if role in roles else None
        if found and found[0] == "single" and found[1]:
            envelope["single"] = found[1]
            break
    writes = [roles[r] for r in ("create", "update") if r in roles]
    if writes and len(sent_fields(writes[0])) == 1 and unwrapped_body(sent_fields(writes[0])):
        envelope["request"] = next(iter(sent_fields(writes[0])))
    body = None
    if writes and writes[0].request.form_params:
        body = "form"
    elif writes and not writes[0].request.body and writes[0].request.query:
        body = "query"
    filters, filter_params = [], {}
    if goal.filter:
        filters = [goal.filter]
        values = {str(r.get(goal.filter)) for e in lists for r in records_in(answer_of(e), goal)}
        param = next((k for e in lists for k, v in e.request.query if v in values and k not in paging.values()), None)
        filter_params = {param or goal.filter: goal.filter}
    operations: dict[str, str] = {role: f"{role}_{goal.resource}"
                                  for role in ("list", "get", "create", "update", "delete") if role in goal.methods}
    if account:
        operations["account"] = "get_account"
    x: dict[str, Any] = {
        "api": goal.api, "spec_licence": "", "resource": goal.resource, "plural": goal.plural,
        "id_field": goal.id_field, "client_params": _client_params(goal, credentials), "auth": auth,
        "paging": paging, "envelope": envelope, "version": version, "required_headers": required,
        "filters": filters, "filter_params": filter_params, "session": sorted(roles), "operations": operations,
        "errors": {},
    }
    if body:
        x["body"] = body
    x["_account_path"] = account
    return x


def _document(goal: GoalFacts, x: dict[str, Any], roles: dict[str, Entry], collection: str, item: str,
              id_name: str) -> dict[str, Any]:
    params = x["client_params"]
    recorded = collection
    collection, item = _with_params(collection, params, recorded), _with_params(item, params, recorded)
    create_path = _with_params(roles["create"].request.path, params, recorded) if "create" in roles else collection
    x["collection"], x["item"] = collection, item
    record = {"type": "object", "properties": {goal.id_field: {"type": "string"}, **goal.fields}}
    single = x["envelope"].get("single")
    answer = {"type": "object", "properties": {single: record}} if single else record
    media = {"form": "application/x-www-form-urlencoded"}.get(x.get("body", ""), "application/json")

    def json_answer(status: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {status: {"description": "ok", "content": {"application/json": {"schema": schema}}}}

    def write_body(role: str) -> dict[str, Any]:
        fields = {f: goal.fields.get(f, {"type": "string"}) for f in goal.create_fields} if role == "create" \
            else dict(goal.fields)
        schema: dict[str, Any] = {"type": "object", "properties": fields}
        wrapper = x["envelope"].get("request")
        if wrapper:
            schema = {"type": "object", "properties": {wrapper: schema}}
        return {"content": {media: {"schema": schema}}}

    def status(role: str, default: str) -> str:
        e = roles.get(role)
        return str(e.response.status) if e is not None and 200 <= e.response.status < 300 else default

    path_param = [{"name": id_name, "in": "path", "required": True, "schema": {"type": "string"}}]
    paths: dict[str, dict[str, Any]] = {collection: {}, item: {}, create_path: {}}
    ops = x["operations"]
    list_method = roles["list"].request.method.lower() if "list" in roles else "get"
    query = [{"name": p, "in": "query", "schema": {"type": "string"}} for p in x["filter_params"]]
    paths[collection][list_method] = {"operationId": ops["list"], "parameters": query,
                                      "responses": json_answer("200", {"type": "object"})}
    if "get" in ops:
        paths[item]["get"] = {"operationId": ops["get"], "parameters": path_param,
                              "responses": json_answer("200", answer)}
    if "create" in ops:
        method = roles["create"].request.method.lower() if "create" in roles else "post"
        paths[create_path][method] = {"operationId": ops["create"], "requestBody": write_body("create"),
                                     "responses": json_answer(status("create", "201"), answer)}
    if "update" in ops:
        method = roles["update"].request.method.lower() if "update" in roles else "patch"
        paths[item][method] = {"operationId": ops["update"], "parameters": path_param,
                               "requestBody": write_body("update"),
                               "responses": json_answer(status("update", "200"), answer)}
    if "delete" in ops:
        paths[item]["delete"] = {"operationId": ops["delete"], "parameters": path_param,
                                 "responses": {status("delete", "204"): {"description": "deleted"}}}
    account = x.pop("_account_path")
    if account:
        paths.setdefault(account, {})["get"] = {"operationId": ops["account"], "responses": json_answer(
            "200", {"type": "object", "properties": {"id": {"type": "string"}}})}
    return {"openapi": "3.0.3", "info": {"title": goal.api, "version": "inferred"},
            "servers": [{"url": goal.base_url}], "paths": paths, "x-har2client": x}

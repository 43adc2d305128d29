"""The ten kinds of change a release of an API can make, each an edit of its document.

``CHANGES[kind](document, r)`` returns the new document (the old one is left alone, as ``evolve``
does) with a seeded choice of target, or raises :class:`NotApplicable` when the API has nothing the
kind could change. Five are *loud* (a client written for the old release now gets an error status),
five *silent* (it still gets 2xx answers, but the data it gets, or that it sends, means something else).
A silent change keeps the old release's requests working: old field names and units are still accepted.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from ..api import model_from_document

LOUD = ("resource_moved", "auth_changed", "version_changed", "header_required", "request_wrapped")
SILENT = ("field_renamed", "envelope_changed", "unit_changed", "filter_renamed", "paging_added")
KINDS = LOUD + SILENT


class NotApplicable(Exception):
    """This API has nothing this kind of change could change."""


Edit = Callable[[dict[str, Any], random.Random], dict[str, Any]]


def _x(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["x-har2client"]


def _move_paths(doc: dict[str, Any], old: str, new: str) -> None:
    """Every path (and the annotation's collection and item) under ``old`` now under ``new``."""
    doc["paths"] = {(new + p[len(old):] if p == old or p.startswith(old + "/") else p): item
                    for p, item in doc["paths"].items()}
    for key in ("collection", "item"):
        if str(_x(doc).get(key, "")).startswith(old):
            _x(doc)[key] = new + _x(doc)[key][len(old):]


def resource_moved(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """One record's operations move under a namespace: ``/invoices/{id}`` becomes ``/billing/invoices/{id}``
    (the listing and creating stay where they were)."""
    x = _x(doc)
    item = x.get("item")
    if not item or item not in doc["paths"]:
        raise NotApplicable("no item path")
    prefix = x["version"].get("prefix", "") if x["version"]["style"] == "path" else ""
    ns = r.choice(("billing", "core", "app", "records", "workspace"))
    moved = f"{prefix}/{ns}{item[len(prefix):]}"
    doc["paths"] = {(moved if p == item else p): v for p, v in doc["paths"].items()}
    x["item"] = moved
    return doc


_KEY_STYLES = ("header_key", "query_key", "bearer")
_USER_STYLES = ("basic", "password_bearer")


def auth_changed(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """The same credentials, used another way (a key from a header to the query or a bearer token; a user
    and password from HTTP basic to a login that answers a bearer token). The old way is deprecated: it
    still reads, but writes need the new one."""
    x = _x(doc)
    old = dict(x["auth"])
    style = old["style"]
    if old.get("expiry") or style not in _KEY_STYLES + ("basic",):
        raise NotApplicable(f"auth style {style} (with expiry {bool(old.get('expiry'))}) has no like-for-like change")
    if style in _KEY_STYLES:
        new = r.choice([s for s in _KEY_STYLES if s != style])
        auth = {"style": new, **({"header": "X-Api-Key"} if new == "header_key" else {}),
                **({"param": "key"} if new == "query_key" else {})}
        scheme = {"header_key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
                  "query_key": {"type": "apiKey", "in": "query", "name": "key"},
                  "bearer": {"type": "http", "scheme": "bearer"}}[new]
    else:
        auth = {"style": "password_bearer", "login_path": "/auth/token"}
        scheme = {"type": "http", "scheme": "bearer"}
        doc["paths"]["/auth/token"] = {"post": {"operationId": "issueUserToken", "security": [], "requestBody": {
            "required": True, "content": {"application/json": {"schema": {"type": "object", "properties": {
                "username": {"type": "string"}, "password": {"type": "string"}}}}}},
            "responses": {"200": {"description": "A bearer token.", "content": {"application/json": {
                "schema": {"type": "object", "properties": {"access_token": {"type": "string"}}}}}}}}}
    x["auth"] = {**auth, "legacy": {**old, "methods": ["get"]}}
    doc.setdefault("components", {})["securitySchemes"] = {"login": scheme}
    doc["security"] = [{"login": []}]
    return doc


def version_changed(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """A dated version is now required, or the one required moves on; the old one still reads (it is
    being retired), but writes need the new one."""
    x = _x(doc)
    v = x["version"]
    date = f"{r.randint(2025, 2026)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
    if v["style"] == "none":
        x["version"] = {"style": "header", "name": r.choice(("X-API-Version", "Api-Version")), "value": date,
                        "legacy_value": None}
    elif v["style"] in ("header", "query"):
        v["legacy_value"] = v["value"]
        v["value"] = date if date != v["value"] else date[:-2] + "29"
    else:
        raise NotApplicable(f"a {v['style']} version")
    return doc


def header_required(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """Every write must now say which client it comes from, in a new header."""
    name = r.choice(("X-Client-Name", "X-Requested-By", "X-Api-Client"))
    rules = _x(doc).setdefault("required_headers", [])
    if any(rule["name"] == name for rule in rules):
        raise NotApplicable(f"{name} is required already")
    rules.append({"name": name, "on": ["post", "patch", "put", "delete"], "check": "present",
                  "example": "inventory-sync"})
    return doc


def request_wrapped(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """Writes must now hold their fields in an object named after the resource: ``{"invoice": {...}}``."""
    x = _x(doc)
    if x["envelope"].get("request"):
        raise NotApplicable("writes are wrapped already")
    key = x["resource"]
    x["envelope"]["request"] = key
    for item in doc["paths"].values():
        for method in ("post", "patch", "put"):
            body = item.get(method, {}).get("requestBody", {}).get("content", {}).get("application/json")
            if body and item[method].get("operationId") in (x["operations"].get("create"),
                                                            x["operations"].get("update")):
                body["schema"] = {"type": "object", "required": [key], "properties": {key: body["schema"]}}
    return doc


def field_renamed(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """A field of the record has a new name in every answer; writes under the old name still work."""
    x = _x(doc)
    model = model_from_document(doc)
    fields = [k for k in model.field_properties if k != model.id_field and k not in model.filters]
    if not fields:
        raise NotApplicable("no field to rename")
    old = fields[r.randrange(len(fields))]
    new = {"customer": "customer_name", "status": "state"}.get(old) or r.choice(
        (f"{old}_value", f"{old}_v2", f"the_{old}", f"{old}_field"))
    for schema in doc["components"]["schemas"].values():
        props = schema.get("properties", {})
        if old in props:
            schema["properties"] = {(new if k == old else k): v for k, v in props.items()}
            if old in schema.get("required", []):
                schema["required"] = [new if k == old else k for k in schema["required"]]
    x.setdefault("request_aliases", {})[old] = new
    return doc


def envelope_changed(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """Answers are wrapped anew: a bare record or list gets a key, or the key changes."""
    x = _x(doc)
    env = x["envelope"]
    old_list, old_single = env.get("list"), env.get("single")
    new_key = r.choice([k for k in ("data", "items", "results", "records") if k not in (old_list, old_single)])
    if env.get("request_id") or env.get("ok_key") or (old_list and "." in old_list):
        raise NotApplicable("an envelope with metadata of its own")
    env["list"], env["single"] = new_key, new_key
    ops = {op: role for role, op in x["operations"].items()}
    for item in doc["paths"].values():
        for op in item.values():
            role = ops.get(op.get("operationId")) if isinstance(op, dict) else None
            if role is None:
                continue
            for code, answer in op.get("responses", {}).items():
                content = answer.get("content", {}).get("application/json") if str(code).startswith("2") else None
                if content is None:
                    continue
                schema = content["schema"]
                old = old_list if role == "list" else old_single
                if old and schema.get("properties", {}).get(old) is not None:
                    inner = schema["properties"][old]
                    siblings = {k: v for k, v in schema["properties"].items() if k != old}
                    schema = {"type": "object", "properties": {new_key: inner, **siblings}, "required": [new_key]}
                else:
                    schema = {"type": "object", "properties": {new_key: schema}, "required": [new_key]}
                content["schema"] = schema
    return doc


def unit_changed(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """A field's unit or format changes in every answer (cents to a decimal string, a date to epoch
    seconds); writes in the old unit still work."""
    model = model_from_document(doc)
    choices = [(k, "decimal_from_cents") for k, v in model.field_properties.items() if v.get("x-kind") == "money_cents"]
    choices += [(k, "epoch_from_date") for k, v in model.field_properties.items()
                if v.get("format") in ("date", "date-time") and k not in model.filters]
    if not choices:
        raise NotApplicable("no amount in cents and no date")
    field, unit = choices[r.randrange(len(choices))]
    _x(doc).setdefault("units", {})[field] = unit
    return doc


def filter_renamed(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """The listing's filter parameter has a new name; the old one is ignored (the whole list comes back)."""
    x = _x(doc)
    if not x.get("filters"):
        raise NotApplicable("no filter")
    field = x["filters"][0]
    param = r.choice((f"filter[{field}]", f"{field}_eq", f"by_{field}", f"where_{field}"))
    x["filter_params"] = {param: field}
    for item in doc["paths"].values():
        for p in item.get("get", {}).get("parameters", []):
            if p.get("in") == "query" and p.get("name") == field:
                p["name"] = param
    return doc


def paging_added(doc: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """A listing that came whole now comes a page at a time: an old client silently gets the first page."""
    x = _x(doc)
    if x["paging"]["style"] != "none":
        raise NotApplicable("the listing pages already")
    size = r.choice((5, 8, 10))
    x["paging"] = {"style": "page", "page_param": "page", "per_page_param": "per_page", "default_limit": size,
                   "page_cap": size * 2, "meta_prefix": ""}
    return doc


CHANGES: dict[str, Edit] = {kind: globals()[kind] for kind in KINDS}


def apply_change(document: dict[str, Any], kind: str, r: random.Random) -> dict[str, Any]:
    """``document`` after one change of ``kind`` (a new document; ``document`` is not touched)."""
    if kind not in CHANGES:
        raise ValueError(f"unknown change kind {kind!r} (one of {', '.join(KINDS)})")
    return CHANGES[kind](copy.deepcopy(document), r)

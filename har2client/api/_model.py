"""The one description of an API: an OpenAPI 3 document plus its ``x-har2client`` annotation.

``model_from_document`` turns a document into an :class:`ApiModel`: which
operation plays which role (list, get, create, update, delete, and the account
an API may expose), the JSON schema of one record (the item response, unwrapped
from its envelope), the fields a client may write, and the conventions (auth,
paging, envelope, version, expiry, required headers) as the document states
them. Tier A documents are written from real providers' descriptions; Tier B's
are generated from six switches. Everything else of the engine, the app, the
instances, the reference client, the recording session and the judge's world,
is built from this one model.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import yaml

from .._errors import SpecError

ROLES = ("list", "get", "create", "update", "delete", "account")
METHODS = ("get", "post", "put", "patch", "delete")
# Keys of the annotation that describe the API rather than how it behaves.
_DESCRIPTIVE = ("api", "docs", "spec_licence", "checked_against", "resource", "plural", "collection", "item",
                "id_field", "client_params", "operations")
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: a grade reads one document


@dataclass(frozen=True)
class Operation:
    """One operation of an API: its role (list, get, create, ...), method, path and what it takes and answers."""
    role: str
    operation_id: str
    method: str                 # upper case
    path: str                   # template, e.g. /v1/customers/{customer}
    request_media: str | None   # application/json, application/x-www-form-urlencoded, "query", or None
    request_schema: dict[str, Any] | None
    success_status: int


@dataclass(frozen=True)
class ApiModel:
    """One API as the engine reads it from its OpenAPI description: operations, record schema and conventions."""
    key: str                    # "stripe", "ledgerly": labels the API's seeded streams
    api: str                    # the product's name
    docs: str
    licence: str
    server: str                 # the recorded base URL
    resource: str               # "customer"
    plural: str                 # "customers": method names say it
    id_field: str
    client_params: tuple[str, ...]
    operations: dict[str, Operation]
    record_schema: dict[str, Any]
    id_schema: dict[str, Any]
    writable: tuple[str, ...]
    conventions: dict[str, Any] = field(default_factory=dict)
    document: dict[str, Any] = field(default_factory=dict, repr=False)
    account_schema: dict[str, Any] | None = None
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)  # schemas resolved once

    @cached_property
    def fingerprint(self) -> str:
        """Names this exact document (apps are cached by it: building one compiles every URL rule)."""
        text = json.dumps(self.document, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def auth(self) -> dict[str, Any]:
        """The ``auth`` convention: how a client proves who it is."""
        return self.conventions["auth"]

    @property
    def filters(self) -> tuple[str, ...]:
        """Record fields a listing can be filtered on by equality (``?status=paid``)."""
        return tuple(self.conventions.get("filters", ()))

    @property
    def expiry(self) -> dict[str, Any]:
        """How issued tokens die: ``{"requests": n}`` or ``{"seconds": n}``, and ``renew`` (login or refresh)."""
        return self.auth.get("expiry") or {}

    @property
    def host(self) -> str:
        """The recorded server's host (with its port, if it has one)."""
        return self.server.split("://", 1)[1].split("/", 1)[0]

    @property
    def checked_against(self) -> str:
        """The provider's description this one was checked against, its version and when (Tier A), or ""."""
        checked = self.document.get("x-har2client", {}).get("checked_against")
        if not checked:
            return ""
        return f"{checked['source']}, version {checked['version']}, checked on {checked['on']}"

    @property
    def field_bag(self) -> str | None:
        """The nested object writes land in (Okta's profile, Jira's fields), or None when fields are top level."""
        return self.conventions.get("fields_in")

    @property
    def field_properties(self) -> dict[str, Any]:
        """The record's properties that writes land in: top level, or inside ``field_bag``."""
        props = self.record_schema.get("properties", {})
        return props.get(self.field_bag, {}).get("properties", {}) if self.field_bag else props

    @property
    def delete_semantics(self) -> dict[str, Any]:
        """What a delete does besides removing the record (``delete_semantics``: Stripe's readable stub,
        Okta's deactivation first), or {}."""
        return self.conventions.get("delete_semantics") or {}

    @property
    def list_asks(self) -> dict[str, str]:
        """Query arguments a listing needs to show every record with every field (Jira's ``fields=*all``,
        GitHub's ``state=all``): ``list_fields`` and ``list_default``, by parameter."""
        return {c["param"]: c["all"] for c in (self.conventions.get(k) for k in ("list_fields", "list_default")) if c}

    def write_context(self, role: str, params: dict[str, str]) -> dict[str, Any]:
        """What a ``role`` write must carry besides the caller's fields, by dotted path, with the client's
        parameters filled in: a string or list of strings must match, an object need only be there."""
        out: dict[str, Any] = {}
        for dotted, want in (self.conventions.get(f"{role}_context") or {}).items():
            if isinstance(want, list):
                want = [w.format(**params) for w in want]
            elif isinstance(want, str):
                want = want.format(**params)
            out[dotted] = want
        return out

    @property
    def not_caller_fields(self) -> set[Any]:
        """Request fields no caller of a client's methods passes: the record's id, an RPC-style item
        argument (Slack's ``channel``), and the ``context_fields`` the client fills itself."""
        return {self.id_field, self.conventions.get("item_param")} | self.context_fields

    @property
    def context_fields(self) -> set[str]:
        """Request fields the client fills itself (``create_context``, ``update_context``: a parent, a
        project, the record's type), named inside the request wrapper: no caller passes them."""
        wrapper = self.conventions["envelope"].get("request")
        out = set()
        for role in ("create", "update"):
            for dotted in self.conventions.get(f"{role}_context") or {}:
                parts = dotted.split(".")
                out.add(parts[1] if wrapper and parts[0] == wrapper and len(parts) > 1 else parts[0])
        return out

    def request_fields(self, role: str) -> tuple[dict[str, Any], set[str]]:
        """An operation's writable fields (inside its request wrapper, if any) and the required ones."""
        schema = self.operations[role].request_schema or {}
        required = set(schema.get("required", []))
        wrapper = self.conventions["envelope"].get("request")
        if wrapper and wrapper in schema.get("properties", {}):
            schema = schema["properties"][wrapper]
            required = (required - {wrapper}) | set(schema.get("required", []))
        return schema.get("properties", {}), required


def resolve(doc: dict[str, Any], schema: Any, depth: int = 0) -> Any:
    """``schema`` with every local ``$ref`` replaced and ``allOf`` merged."""
    if depth > 40:
        raise SpecError("schema nesting too deep (a $ref cycle?)")
    if isinstance(schema, list):
        return [resolve(doc, s, depth + 1) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            raise SpecError(f"only local references are supported, not {ref}")
        target: Any = doc
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        return resolve(doc, copy.deepcopy(target), depth + 1)
    out = {k: resolve(doc, v, depth + 1) for k, v in schema.items()}
    if "allOf" in out:
        merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
        for part in out.pop("allOf"):
            merged["properties"].update(part.get("properties", {}))
            merged["required"] += part.get("required", [])
        out = {**merged, **{k: v for k, v in out.items() if k not in merged}}
    return out


def _media(body: dict[str, Any] | None) -> tuple[str | None, dict[str, Any] | None]:
    if not body:
        return None, None
    content = body.get("content", {})
    for media in ("application/json", "application/x-www-form-urlencoded"):
        if media in content:
            return media, content[media].get("schema")
    return None, None


def _success(op: dict[str, Any]) -> int:
    codes = sorted(int(c) for c in op.get("responses", {}) if str(c).isdigit() and str(c).startswith("2"))
    return codes[0] if codes else 200


def _unwrap(schema: dict[str, Any], key: str | None) -> dict[str, Any]:
    if key and schema.get("type") in (None, "object") and key in schema.get("properties", {}):
        schema = schema["properties"][key]
    if schema.get("type") == "array":  # some APIs answer for one record with a one-item list (SendGrid)
        schema = schema.get("items", {})
    return schema


def _last_path_param(doc: dict[str, Any], path: str) -> dict[str, Any] | None:
    names = [seg[1:-1] for seg in path.replace(".", "/").split("/") if seg.startswith("{") and seg.endswith("}")]
    if not names:
        return None
    item = doc["paths"].get(path, {})
    params = list(item.get("parameters", []))
    for m in METHODS:
        params += item.get(m, {}).get("parameters", [])
    for p in params:
        p = resolve(doc, p)
        if p.get("in") == "path" and p.get("name") == names[-1]:
            return p.get("schema", {})
    return None


def read_document(path: str) -> dict[str, Any]:
    """The OpenAPI document at ``path``, with a one-line error naming the file when it cannot be read.

    A document written in JSON's syntax (valid YAML too: the engine writes Tier B's so) is read by the
    JSON parser, thirty times faster than YAML's; the first grade of a task reads its document.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise SpecError(f"{path}: no such file") from None
    doc: Any = None
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None  # YAML's flow style looks like JSON and is not: let YAML read it
    if doc is None:
        try:
            doc = yaml.load(text, Loader=_Loader)
        except yaml.YAMLError as exc:
            raise SpecError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(doc, dict) or "x-har2client" not in doc:
        raise SpecError(f"{path}: no x-har2client annotation")
    return doc


def load_model(path: str, key: str | None = None) -> ApiModel:
    """The model of the document at ``path`` (``key`` labels it; by default the file name after ``NN_``)."""
    st = os.stat(path) if os.path.exists(path) else None
    return _load_cached(os.path.abspath(path), key, st.st_mtime_ns if st else 0, st.st_size if st else 0)


@functools.lru_cache(maxsize=128)
def _load_cached(path: str, key: str | None, mtime: int, size: int) -> ApiModel:
    stem = os.path.basename(path).split(".")[0]
    return model_from_document(read_document(path), path, key or stem.split("_", 1)[-1])


def model_from_document(doc: dict[str, Any], source: str = "<document>", key: str | None = None) -> ApiModel:
    """The model of ``doc``; ``source`` names it in errors."""
    path = source
    try:
        x = doc["x-har2client"]
        return _model(doc, x, path, key or str(x.get("key") or x["resource"]))
    except KeyError as exc:
        raise SpecError(f"{path}: the document lacks {exc} (an incomplete annotation?)") from None


def _model(doc: dict[str, Any], x: dict[str, Any], path: str, key: str) -> ApiModel:
    by_id: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for p, item in doc.get("paths", {}).items():
        for m, op in item.items():
            if m in METHODS:
                by_id[op["operationId"]] = (p, m, op)
    operations = {}
    for role, op_id in x.get("operations", {}).items():
        if role not in ROLES:
            raise SpecError(f"{path}: x-har2client.operations has an unknown role {role!r}")
        if op_id not in by_id:
            raise SpecError(f"{path}: x-har2client.operations.{role} names {op_id!r}, which no operation has")
        p, m, op = by_id[op_id]
        media, schema = _media(op.get("requestBody"))
        if schema is None and role in ("create", "update"):
            # Some APIs write through the query string (Trello): its parameters are the body.
            query = [resolve(doc, q) for q in op.get("parameters", [])]
            query = [q for q in query if q.get("in") == "query"]
            if query:
                media = "query"
                schema = {"type": "object", "properties": {q["name"]: q.get("schema", {}) for q in query},
                          "required": [q["name"] for q in query if q.get("required")]}
        operations[role] = Operation(role, op_id, m.upper(), p, media,
                                     resolve(doc, schema) if schema else None, _success(op))
    for needed in ("list", "get"):
        if needed not in operations:
            raise SpecError(f"{path}: x-har2client.operations has no {needed} operation")
    missing = [r for r in x.get("session", ()) if r not in operations]
    if missing:
        raise SpecError(f"{path}: the session uses {missing} but x-har2client.operations does not name them")
    envelope = x.get("envelope") or {}
    record = _unwrap(_ok_schema(doc, by_id[x["operations"]["get"]][2], path), envelope.get("single"))
    account = None
    if "account" in operations:
        account = _unwrap(_ok_schema(doc, by_id[x["operations"]["account"]][2], path), envelope.get("single"))
    writable: list[str] = []
    for role in ("create", "update"):
        op = operations.get(role)
        if op and op.request_schema:
            body = _unwrap(op.request_schema, envelope.get("request"))
            writable += [k for k in body.get("properties", {}) if k not in writable]
    id_schema = dict(record.get("properties", {}).get(x["id_field"], {"type": "string"}))
    item_param = _last_path_param(doc, x["item"]) if x.get("item") else None
    if item_param and (item_param.get("pattern") or item_param.get("type") == "integer"):
        id_schema = {**id_schema, **item_param}  # the path parameter often states the id's shape
    conventions = {k: v for k, v in x.items() if k not in _DESCRIPTIVE}
    conventions.setdefault("paging", {"style": "none"})
    conventions.setdefault("version", {"style": "none"})
    conventions["envelope"] = envelope
    if "auth" not in conventions:
        raise SpecError(f"{path}: x-har2client has no auth")
    resource = x["resource"]
    return ApiModel(
        key=key, api=x["api"], docs=x.get("docs", ""), licence=x.get("spec_licence", ""),
        server=doc["servers"][0]["url"], resource=resource, plural=x.get("plural") or plural(resource),
        id_field=x["id_field"], client_params=tuple(x.get("client_params", [])), operations=operations,
        record_schema=record, id_schema=id_schema, writable=tuple(writable), conventions=conventions,
        document=doc, account_schema=account,
    )


def _ok_schema(doc: dict[str, Any], op: dict[str, Any], path: str) -> dict[str, Any]:
    ok = next((v for c, v in op.get("responses", {}).items() if str(c).startswith("2")), None)
    if ok is None or "application/json" not in ok.get("content", {}):
        raise SpecError(f"{path}: operation {op.get('operationId')!r} has no JSON success response")
    return resolve(doc, ok["content"]["application/json"]["schema"])


def plural(resource: str) -> str:
    return resource + ("es" if resource.endswith(("s", "x", "sh", "ch")) else "s")

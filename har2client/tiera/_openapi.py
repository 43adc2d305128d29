"""Reading a Tier A API description: an OpenAPI 3 document plus its ``x-har2client`` annotation.

``load_tiera_spec`` turns one document into a :class:`TierAModel`: which
operation plays which role (list, get, create, update, delete), the JSON schema
of one record (the item response, unwrapped from its envelope), the fields a
client may write, and the conventions as the document states them. This is what
the fake-API engine, the recording session and the goal are built from.
"""

from __future__ import annotations

import copy
import glob
from importlib import resources
import os
from dataclasses import dataclass, field
from typing import Any

import yaml

from .._errors import SpecError

ROLES = ("list", "get", "create", "update", "delete")
METHODS = ("get", "post", "put", "patch", "delete")
# Shipped inside the package (a wheel has nothing beside it): found the same way installed or in a checkout.
SPEC_DIR = str(resources.files("har2client.tiera").joinpath("specs"))


@dataclass(frozen=True)
class Operation:
    role: str
    operation_id: str
    method: str                 # upper case
    path: str                   # template, e.g. /v1/customers/{customer}
    request_media: str | None   # application/json, application/x-www-form-urlencoded, "query", or None
    request_schema: dict[str, Any] | None
    success_status: int


@dataclass(frozen=True)
class TierAModel:
    number: str                 # "01"
    key: str                    # "stripe": used in task ids
    path: str                   # the document's file
    api: str
    docs: str
    licence: str
    server: str
    resource: str
    id_field: str
    client_params: tuple[str, ...]
    operations: dict[str, Operation]
    record_schema: dict[str, Any]
    id_schema: dict[str, Any]
    writable: tuple[str, ...]
    conventions: dict[str, Any] = field(default_factory=dict)
    document: dict[str, Any] = field(default_factory=dict, repr=False)

    id_prefix: str = ""   # "s1000_" for the train split's tasks

    @property
    def task_id(self) -> str:
        return f"tiera_{self.id_prefix}{self.number}_{self.key}"

    @property
    def host(self) -> str:
        return self.server.split("://", 1)[1].split("/", 1)[0]

    @property
    def field_bag(self) -> str | None:
        """The nested object writes land in (HubSpot's properties), or None when fields are top level."""
        return self.conventions.get("fields_in")

    @property
    def field_properties(self) -> dict[str, Any]:
        """The record's properties that writes land in: top level, or inside ``field_bag``."""
        props = self.record_schema.get("properties", {})
        return props.get(self.field_bag, {}).get("properties", {}) if self.field_bag else props

    def request_fields(self, role: str) -> tuple[dict[str, Any], set[str]]:
        """An operation's writable fields (inside its request wrapper, if any) and the required ones."""
        schema = self.operations[role].request_schema or {}
        required = set(schema.get("required", []))
        wrapper = self.conventions["envelope"].get("request")
        if wrapper and wrapper in schema.get("properties", {}):
            schema = schema["properties"][wrapper]
            required |= set(schema.get("required", []))
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


def load_tiera_spec(path: str, name: str | None = None) -> TierAModel:
    """The model of the description at ``path``; ``name`` ("01_stripe") when the file is named otherwise."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.safe_load(fh)
    except FileNotFoundError:
        raise SpecError(f"{path}: no such file") from None
    except yaml.YAMLError as exc:
        raise SpecError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(doc, dict) or "x-har2client" not in doc:
        raise SpecError(f"{path}: no x-har2client annotation")
    x = doc["x-har2client"]
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
    missing = [r for r in x["session"] if r not in operations]
    if missing:
        raise SpecError(f"{path}: the session uses {missing} but x-har2client.operations does not name them")
    get = by_id[x["operations"]["get"]][2]
    ok = next((v for c, v in get["responses"].items() if str(c).startswith("2")), None)
    if ok is None:
        raise SpecError(f"{path}: the get operation has no success response")
    envelope = x.get("envelope", {})
    record = _unwrap(resolve(doc, ok["content"]["application/json"]["schema"]), envelope.get("single"))
    writable: list[str] = []
    for role in ("create", "update"):
        op = operations.get(role)
        if op and op.request_schema:
            body = _unwrap(op.request_schema, envelope.get("request"))
            writable += [k for k in body.get("properties", {}) if k not in writable]
    id_schema = dict(record.get("properties", {}).get(x["id_field"], {"type": "string"}))
    item_param = _last_path_param(doc, x["item"])
    if item_param and (item_param.get("pattern") or item_param.get("type") == "integer"):
        id_schema = {**id_schema, **item_param}  # the path parameter often states the id's shape
    stem = name or os.path.basename(path).split(".")[0]
    if "_" not in stem:
        raise SpecError(f"{path}: cannot tell the API's number and key (name it NN_key.yaml)")
    number, key = stem.split("_", 1)
    return TierAModel(
        number=number, key=key, path=path, api=x["api"], docs=x["docs"], licence=x["spec_licence"],
        server=doc["servers"][0]["url"], resource=x["resource"], id_field=x["id_field"],
        client_params=tuple(x.get("client_params", [])), operations=operations, record_schema=record,
        id_schema=id_schema, writable=tuple(writable),
        conventions={k: x[k] for k in ("auth", "paging", "envelope", "version", "body", "update_method",
                                       "session", "records", "required_headers", "list_query", "collection_params", "id_from", "fields_in",
                                       "item_param", "errors", "id_pattern", "validation_status")
                     if k in x},
        document=doc,
    )


def load_tiera_specs(directory: str = SPEC_DIR) -> list[TierAModel]:
    """Every description in ``directory``; none at all is an error (an incomplete install, say)."""
    paths = sorted(glob.glob(os.path.join(directory, "*.yaml")))
    if not paths:
        raise SpecError(f"{directory}: no Tier A API descriptions (*.yaml) there; the installation is incomplete")
    return [load_tiera_spec(p) for p in paths]

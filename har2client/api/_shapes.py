"""What a fake answers: dotted paths into bodies, errors in the API's own shape, and records shaped by
each operation's response schema."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from flask import Response, request

from ._instance import Instance
from ._model import ApiModel, Operation, resolve

INSTANCE_KEY = "har2client.instance"


class ApiRefusal(Exception):
    """An error answer the fake sends on purpose; ``code`` fills an error schema's ``code`` field."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, code: str = "") -> None:
        super().__init__(message)
        self.status, self.message, self.headers, self.code = status, message, headers or {}, code


def current() -> Instance:
    return request.environ[INSTANCE_KEY]


def read_args() -> Mapping[str, Any]:
    """A read's arguments: the query, and where the read came by POST (Slack's methods, Jira's search/jql,
    Notion's query) the form or JSON body's too."""
    if request.method != "POST":
        return request.args  # as it is: paging reads it several times a request
    args: dict[str, Any] = request.args.to_dict()
    body = request.get_json(silent=True) if request.is_json else request.form.to_dict()
    if isinstance(body, dict):
        args.update(body)
    return args


def get_path(obj: Any, dotted: str | None) -> Any:
    if not dotted:
        return obj
    if isinstance(obj, dict) and dotted in obj:  # a key with a dot in its name: Graph's "@odata.nextLink"
        return obj[dotted]
    for part in dotted.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def put_path(obj: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for part in parts[:-1]:
        nxt = obj.get(part)
        if not isinstance(nxt, dict):
            nxt = obj[part] = {}
        obj = nxt
    obj[parts[-1]] = value


def success_schema(model: ApiModel, op: Operation) -> dict[str, Any] | None:
    """The JSON schema of ``op``'s success answer, resolved once per model (callers only read it)."""
    key = ("success", op.role, op.operation_id)
    if key not in model.memo:
        model.memo[key] = _success_schema(model.document, op)
    return model.memo[key]


def _success_schema(doc: dict[str, Any], op: Operation) -> dict[str, Any] | None:
    spec_op = doc["paths"][op.path][op.method.lower()]
    resp = spec_op["responses"].get(str(op.success_status)) or spec_op["responses"].get(op.success_status) or {}
    content = resp.get("content", {})
    for media in ("application/json",):
        if media in content:
            return resolve(doc, content[media].get("schema", {}))
    return None


def _error_schema(model: ApiModel) -> dict[str, Any]:
    if "error" not in model.memo:
        model.memo["error"] = _find_error_schema(model)
    return model.memo["error"]


def _find_error_schema(model: ApiModel) -> dict[str, Any]:
    get = model.document["paths"][model.operations["get"].path]["get"]
    for code in ("404", "400", "401"):
        resp = get["responses"].get(code)
        if resp and "content" in resp:
            media = next(iter(resp["content"].values()))
            return resolve(model.document, media.get("schema", {}))
    return {"type": "object", "properties": {"message": {"type": "string"}}}


CODE_KEYS = ("code", "errorCode", "error_code")
MESSAGE_KEYS = ("message", "detail", "description", "status_message", "errorSummary", "error", "title", "reason",
                "errors", "errorMessages")
STATUS_WORDS = {400: ("INVALID", "BAD", "invalid"), 401: ("AUTH", "auth", "UNAUTHORIZED"), 403: ("FORBIDDEN",
                                                                                                 "PERMISSION"),
                404: ("NOT_FOUND", "not_found", "INVALID_REQUEST", "invalid_request"), 406: ("INVALID",)}


def error_body(model: ApiModel, status: int, message: str, code: str = "") -> Any:
    """An error in the API's documented error shape, saying ``message`` (and ``code``, where it has one)."""
    slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_")[:40]
    schema = _error_schema(model)
    # The provider's own code for this refusal (x-har2client error_codes, by the engine's code or by
    # status), where a schema example alone would give every error the same code.
    codes = model.conventions.get("error_codes") or {}
    provider_code = codes.get(code, codes.get(str(status)))  # Discord's 401 code is 0

    def build(node: dict[str, Any], name: str = "") -> Any:
        kind = node.get("type") or ("object" if "properties" in node else "string")
        if kind == "object":
            own, record = set(node.get("properties", {})), set(model.record_schema.get("properties", {}))
            if model.id_field in own and len(own & record) >= 3:
                return None  # a record's place in the envelope is empty when there is an error
            return {k: build(v, k) for k, v in node.get("properties", {}).items()}
        if kind == "array":
            item = node.get("items", {"type": "string"})
            return [build(item, name)] if name in MESSAGE_KEYS else []
        if provider_code is not None and name in CODE_KEYS:
            return provider_code
        if "example" in node and name not in MESSAGE_KEYS:
            return node["example"]
        if "enum" in node:
            words = STATUS_WORDS.get(status, ())
            return next((e for e in node["enum"] if any(w in str(e) for w in words)), node["enum"][0])
        if kind == "boolean":
            return False
        if kind in ("integer", "number"):
            return status
        if name in MESSAGE_KEYS:
            return message
        if name == "code" and code:
            return code
        if "url" in name.lower() or "info" in name.lower():
            return "https://developers.example/errors#" + slug
        if name.lower().endswith("id"):
            return "req_" + hashlib.sha256(f"{model.key}:{status}:{message}".encode()).hexdigest()[:12]
        return slug

    return build(schema)


def shape_like(schema: dict[str, Any] | None, record: dict[str, Any], model: ApiModel) -> Any:
    """``record`` the way ``schema`` (an operation's success response) carries it."""
    if not schema:
        return record
    env = model.conventions["envelope"]
    props = schema.get("properties", {})
    single, ok_key = env.get("single"), env.get("ok_key")
    if single and single in props:
        body: dict[str, Any] = {single: [record] if props[single].get("type") == "array" else record}
        if ok_key and ok_key in props:
            body[ok_key] = True
        for k, v in props.items():  # envelope siblings a client may see (Cloudflare's errors, messages)
            if k not in body and v.get("type") == "array":
                body[k] = []
        return body
    if "deleted" in props and "deleted" not in model.record_schema.get("properties", {}):
        return deleted_stub(model, record)
    if set(props) and model.id_field not in props:
        return {}  # an empty acknowledgement ({} from Linode, Shopify, Square)
    record_props = set(model.record_schema.get("properties", {}))
    if set(props) < record_props:  # a short acknowledgement (Jira's create answers id, key and self)
        return {k: record.get(k) for k in props}
    return record


def deleted_stub(model: ApiModel, record: dict[str, Any]) -> dict[str, Any]:
    """What a delete answers as its delete operation's schema lists it (and, where
    ``delete_semantics.readable_stub`` says so, a later read too): the record's id, ``deleted: true`` and
    the record's own type fields (Stripe's ``object``, Intercom's ``type`` and ``external_id``)."""
    props = (success_schema(model, model.operations["delete"]) or {}).get("properties", {})
    out = {k: True if k == "deleted" else record[model.id_field] if k == "id" else record.get(k) for k in props}
    return out or {"id": record[model.id_field], "deleted": True}


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    if status == 204:
        resp = Response(status=204)
        del resp.headers["Content-Type"]
        return resp
    resp = Response(json.dumps(body), status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def filter_params(model: ApiModel) -> dict[str, str]:
    """Query parameter -> the record field a listing filters on (``filter_params``, else the field's name)."""
    return dict(model.conventions.get("filter_params") or {f: f for f in model.filters})


def to_wire(model: ApiModel, row: dict[str, Any]) -> dict[str, Any]:
    """A stored record as the API answers it: fields whose ``units`` differ from how they are kept."""
    units = model.conventions.get("units")
    if not units:
        return row
    out = dict(row)
    for field, unit in units.items():
        value = out.get(field)
        if unit == "decimal_from_cents" and isinstance(value, int):
            out[field] = f"{value // 100}.{value % 100:02d}"
        elif unit == "epoch_from_date" and isinstance(value, str):
            try:
                if len(value) == 10:
                    out[field] = int(_dt.datetime.fromisoformat(value + "T00:00:00+00:00").timestamp())
                else:
                    out[field] = int(_dt.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp())
            except ValueError:
                pass
    return out


def from_wire(model: ApiModel, values: dict[str, Any]) -> dict[str, Any]:
    """Request fields as the API keeps them: the new units taken, the old ones still accepted."""
    units = model.conventions.get("units")
    if not units:
        return values
    out = dict(values)
    for field, unit in units.items():
        value = out.get(field)
        if unit == "decimal_from_cents" and isinstance(value, str):
            try:
                out[field] = int(round(float(value) * 100))
            except ValueError:
                pass
        elif unit == "epoch_from_date" and isinstance(value, int) and not isinstance(value, bool):
            moment = _dt.datetime.fromtimestamp(value, _dt.timezone.utc)
            kind = model.field_properties.get(field, {}).get("format")
            out[field] = moment.date().isoformat() if kind == "date" else moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return out

"""What each operation does: list, get, create, update, delete, and the signed-in account."""

from __future__ import annotations

import re
from typing import Any, cast

from flask import Response, request

from ._fake import check_value
from ._gate import idempotency_header, request_fingerprint
from ._login import json_body
from ._model import ApiModel, Operation
from ._paging import paginate
from ._shapes import (
    ApiRefusal,
    current,
    deleted_stub,
    filter_params,
    from_wire,
    get_path,
    put_path,
    read_args,
    shape_like,
    success_schema,
    to_wire,
)
from ._shapes import json_response as _json


def _check_params(model: ApiModel, names: dict[str, str], kwargs: dict[str, str],
                  listing: bool = False) -> str | None:
    """Verify client path parameters; return the item id from the path, if any.

    In the list path a parameter may name the parent the records live in (Box's folder, Trello's
    board); ``collection_params`` says which client value it takes. Elsewhere it is the record's id.
    """
    inst = current()
    parents = model.conventions.get("collection_params", {}) if listing else {}
    rid = None
    item_param = model.conventions.get("item_param")
    if item_param and not listing:  # RPC-style: the record's id is an argument (Slack's channel=)
        rid = read_args().get(item_param)
    for safe, value in kwargs.items():
        original = names.get(safe, safe)
        client_param = parents.get(original, original if original in inst.client_params else None)
        if client_param is not None:
            if value != inst.client_params[client_param]:
                raise ApiRefusal(404, "Not found", code="not_found")
        else:
            rid = value
    return rid


def _body(model: ApiModel, op: Operation) -> dict[str, Any]:
    media = op.request_media
    raw: dict[str, Any]
    if media == "application/x-www-form-urlencoded" and request.is_json and model.conventions.get("json_bodies"):
        raw = json_body()  # documented as a form, taken as JSON too (Slack)
    elif media == "application/x-www-form-urlencoded":
        raw = request.form.to_dict()
    elif media == "query":
        raw = {k: v for k, v in request.args.items() if k not in _auth_params(model)}
    else:
        raw = json_body()
    if op.role in ("create", "update"):
        _check_context(model, raw, op.role)
    wrapper = model.conventions["envelope"].get("request")
    if wrapper and media == "application/json":
        if not isinstance(raw.get(wrapper), dict):  # {"ticket": {...}}, {"profile": {...}}: required, as there
            raise ApiRefusal(400, f"The request body must hold the fields in a {wrapper!r} object")
        raw = cast("dict[str, Any]", raw[wrapper])  # checked to be an object just above
    for old, new in model.conventions.get("request_aliases", {}).items():  # a renamed field's old name, still taken
        if old in raw and new not in raw:
            raw[new] = raw.pop(old)
    raw = from_wire(model, raw)
    props, required = model.request_fields(op.role)
    status = int(model.conventions.get("validation_status", 400))
    if model.conventions.get("validation") == "strict":  # unknown fields and wrong types are refused, not dropped
        problems = [f"{k}: unknown field" for k in raw if k not in props]
        problems += [f"{k}: is required" for k in sorted(required) if k not in raw and op.role == "create"]
        problems += [f"{k}: {why}" for k, v in raw.items() if k in props and (why := check_value(props[k], v))]
        if problems:
            raise ApiRefusal(status, "; ".join(problems), code="validation_failed")
    missing = sorted(k for k in required if k not in raw)
    if op.role == "create" and missing:
        raise ApiRefusal(status, f"Missing required parameter: {', '.join(missing)}", code="validation_failed")
    bag, record_props = model.field_bag, model.field_properties
    by_lower = {k.lower(): k for k in record_props}
    out = {}
    for k, v in raw.items():
        schema = props.get(k)
        target = k if k in record_props else by_lower.get(k.lower())  # Twilio writes To, answers to
        if schema is None or target is None or target == model.id_field:
            continue  # fields the record does not have are not stored, as most APIs do
        out[target] = _coerce(v, schema) if media != "application/json" else v
    return {bag: out} if bag else out


def _check_context(model: ApiModel, body: dict[str, Any], role: str) -> None:
    """A create must say where the record goes (``create_context``: Notion's parent data source, Jira's
    project and issue type, Asana's projects), and some writes what they are (``update_context``:
    PagerDuty's ``type``): a template (or a list of them) must match the client's values, an object only
    be there."""
    status = int(model.conventions.get("validation_status", 400))
    for dotted, want in model.write_context(role, current().client_params).items():
        got = get_path(body, dotted)
        if got in (None, "", {}, []):
            raise ApiRefusal(status, f"body.{dotted} should be defined", code="validation_failed")
        if isinstance(want, (str, list)) and got != want:
            raise ApiRefusal(status, f"body.{dotted}: {got!r} is not valid here", code="validation_failed")


def _coerce(value: Any, schema: dict[str, Any]) -> Any:
    """Form and query values arrive as text: read them as the schema's type."""
    kind = schema.get("type")
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
        if kind == "boolean":
            return str(value).lower() in ("true", "1", "yes")
    except ValueError:
        raise ApiRefusal(400, f"{value!r} is not a valid {kind}", code="invalid_parameter") from None
    return value


def _auth_params(model: ApiModel) -> set[str]:
    auth = model.conventions["auth"]
    return {auth["param"], *auth.get("extra_params", [])} if auth["style"] == "query_key" else set()


def _missing(model: ApiModel, rid: Any) -> ApiRefusal:
    return ApiRefusal(404, f"No {model.resource} with id {rid!r}", code="not_found")


def _record(model: ApiModel, op: Operation, row: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    body = shape_like(success_schema(model, op), to_wire(model, row) if op.role != "account" else row, model)
    request_id = model.conventions["envelope"].get("request_id")
    if request_id and isinstance(body, dict):  # a fresh id in every answer's metadata
        put_path(body, request_id, current().next_id("req_"))
    return _json(body, op.success_status, headers)


def _view_get(model: ApiModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    rid = _check_params(model, names, kwargs)
    row = current().get(rid) if rid is not None else None
    if row is None:
        gone = current().deleted_copy(rid) if model.delete_semantics.get("readable_stub") else None
        if gone is not None:  # a deleted record still answers, marked deleted (Stripe)
            return _json(deleted_stub(model, gone), 200)
        raise _missing(model, rid)
    return _record(model, op, row)


def _view_account(model: ApiModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    return _record(model, op, current().account)


def _view_create(model: ApiModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    _check_params(model, names, kwargs)
    inst = current()
    header = idempotency_header(model, op.method)
    key = request.headers.get(header) if header else None
    digest = request_fingerprint(request.get_data())
    if key and key in inst.idempotency:  # the same request again: the first answer, not a second record
        seen, status, saved = inst.idempotency[key]
        if seen != digest:
            raise ApiRefusal(409, f"This {header} was used with a different request", code="idempotency_conflict")
        return _json(saved, status, {"Idempotent-Replayed": "true"})
    row = inst.insert(_body(model, op))
    item = model.operations["get"].path
    location = None
    if op.success_status == 201 and item.count("{") == 1:  # where the new record lives, as REST APIs say
        location = {"Location": item.split("{", 1)[0] + str(row[model.id_field])}
    resp = _record(model, op, row, location)
    if key:
        inst.idempotency[key] = (digest, resp.status_code, resp.get_json())
    return resp


def _view_update(model: ApiModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    rid = _check_params(model, names, kwargs)
    inst = current()
    if rid is None or inst.get(rid) is None:
        raise _missing(model, rid)
    row = inst.update(rid, _body(model, op))
    if row is None:
        raise _missing(model, rid)
    if op.success_status == 204:
        return _json(None, 204)
    return _record(model, op, row)


def _view_deactivate(model: ApiModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    """The provider's own deactivation (Okta's ``POST .../lifecycle/deactivate``): what a first delete does."""
    rid = _check_params(model, names, kwargs)
    first = model.delete_semantics["deactivate_first"]
    if rid is None or current().update(rid, {first["field"]: first["value"]}) is None:
        raise _missing(model, rid)
    return _json({}, 200)


def _view_delete(model: ApiModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    rid = _check_params(model, names, kwargs)
    inst = current()
    row = inst.get(rid) if rid is not None else None
    if row is None:
        raise _missing(model, rid)
    first = model.delete_semantics.get("deactivate_first")
    if first and row.get(first["field"]) != first["value"]:
        # The first delete only deactivates (Okta's DEPROVISIONED); a second one deletes.
        inst.update(rid, {first["field"]: first["value"]})
        return _json(None, 204) if op.success_status == 204 else _record(model, op, inst.get(rid) or row)
    if not inst.delete(rid):
        raise _missing(model, rid)
    if op.success_status == 204:
        return _json(None, 204)
    schema = success_schema(model, op) or {}
    single = model.conventions["envelope"].get("single")
    inner = schema.get("properties", {}).get(single) if single else None
    if inner is not None and inner.get("type") == "object":
        # An acknowledgement in the envelope: only what its schema lists ({"data": {}}, {"data": {"id": 5}}).
        ack = {k: row.get(k) for k in inner.get("properties", {})}
        body = {single: ack, **({model.conventions["envelope"]["ok_key"]: True}
                                if model.conventions["envelope"].get("ok_key") else {})}
        return _json(body, op.success_status)
    return _json(shape_like(schema, row, model), op.success_status)


def _query_key(value: Any) -> str | None:
    """A listing's required query argument as it is compared: JQL's ``project = "KEY"`` is ``project=KEY``."""
    return None if value is None else re.sub(r"[\s\"']+", "", str(value)).lower()


def _view_list(model: ApiModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    _check_params(model, names, kwargs, listing=True)
    args = read_args()
    for param, value in current().list_query().items():
        if _query_key(args.get(param)) != _query_key(value):
            raise ApiRefusal(400, f"{param}: a valid {param} is required to list", code="invalid_parameter")
    rows = current().all()
    default = model.conventions.get("list_default")
    if default:  # a listing that shows some records unless asked for all (GitHub: open issues, state=all)
        wanted = args.get(default["param"], default["value"])
        if wanted != default["all"]:
            rows = [r for r in rows if str(r.get(default["field"])) == wanted]
    for param, field in filter_params(model).items():
        if param in args:
            rows = [r for r in rows if str(r.get(field)) == str(args[param])]
    page, meta, headers = paginate(model, rows)
    page = [to_wire(model, row) for row in page]
    trimmed = model.conventions.get("list_fields")
    if trimmed and not args.get(trimmed["param"]):  # Jira's search/jql: only ids unless fields are named
        page = [{k: row[k] for k in trimmed["default_keys"] if k in row} for row in page]
    schema = success_schema(model, op) or {}
    env = model.conventions["envelope"]
    if not env.get("list"):
        return _json(page, 200, headers)
    body: dict[str, Any] = {}
    for k, v in schema.get("properties", {}).items():  # the list body's own constant fields
        if v.get("enum") and len(v["enum"]) == 1:
            body[k] = v["enum"][0]
        elif v.get("type") == "array":
            body[k] = []
    if env.get("ok_key"):
        body[env["ok_key"]] = True
    put_path(body, env["list"], page)
    if env.get("request_id"):
        put_path(body, env["request_id"], current().next_id("req_"))
    for dotted, value in meta.items():
        if dotted in schema.get("properties", {}):  # a key with a dot in its name: Graph's "@odata.nextLink"
            body[dotted] = value
        else:
            put_path(body, dotted, value)
    return _json(body, 200, headers)


EXTRA_VIEWS = {"deactivate": _view_deactivate}
ROLE_VIEWS = {"list": _view_list, "get": _view_get, "create": _view_create, "update": _view_update,
               "delete": _view_delete, "account": _view_account}

"""The fake server of a Tier A API, driven by its description's conventions.

Routes come from the OpenAPI paths; auth, version, required headers, paging,
envelopes and body encodings from ``x-har2client``; response shapes from each
operation's own response schema (so an API that wraps a created record but not
a fetched one is served that way). Two choices differ from the real services on
purpose: a page holds at most ``PAGE_CAP`` records even where the API allows
more, so that paging is always exercised (the documented maximum stays the
client's ceiling); and errors take the shape of the API's documented error
schema with a message saying what went wrong.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, request

from .._errors import SpecError
from ..api._app import InstanceApp
from ._instance import TierAInstance
from ._openapi import Operation, TierAModel
from ._paging import _paginate
from ._shapes import (ApiRefusal, _success_schema, current, error_body, put_path,
                      shape_like)


# Descriptions whose conventions this server does not model yet, by API key -> the reason. A task built
# from one would be unfaithful, so it is refused instead. Every description in specs/ is served today.
NOT_SERVED: dict[str, str] = {}


def served(model: TierAModel) -> bool:
    return model.key not in NOT_SERVED


def create_tiera_app(model: TierAModel, instance: TierAInstance) -> InstanceApp:
    """The fake server of ``model``, serving ``instance``'s world."""
    if not served(model):
        raise SpecError(f"{model.path}: not served yet ({NOT_SERVED[model.key]})")
    app = _APPS.get(model.path)
    if app is None:
        app = _APPS[model.path] = _model_app(model)
    return InstanceApp(app, instance)  # type: ignore[arg-type]


# -- the app -------------------------------------------------------------------------------

def _rule(path: str) -> tuple[str, dict[str, str]]:
    """An OpenAPI path template as a Flask rule, with parameter names Flask accepts."""
    names: dict[str, str] = {}

    def sub(m: re.Match[str]) -> str:
        safe = re.sub(r"\W", "_", m.group(1))
        names[safe] = m.group(1)
        return f"<{safe}>"

    return re.sub(r"\{([^}]+)\}", sub, path), names


_APPS: dict[str, Flask] = {}  # one app per description: building one compiles every URL rule


def _model_app(model: TierAModel) -> Flask:
    app = Flask(f"har2client.tiera.{model.key}")
    conv = model.conventions
    version = conv["version"]

    errors = conv.get("errors", {})

    @app.errorhandler(ApiRefusal)
    def _refused(exc: ApiRefusal) -> Response:
        if errors.get("style") == "ok_false":  # Slack: HTTP 200, {"ok": false, "error": "<code>"}
            code = {401: errors.get("unauthenticated", "not_authed"), 404: errors.get("not_found", "not_found")}.get(
                exc.status, "invalid_arguments")  # Slack's code for missing or malformed arguments
            if exc.status == 401 and "Invalid" in exc.message:
                code = errors.get("invalid_auth", code)
            return _json({"ok": False, "error": code}, 200)
        return _json(error_body(model, exc.status, exc.message), exc.status, exc.headers)

    @app.errorhandler(404)
    def _missing(exc: Any) -> Response:
        return _json(error_body(model, 404, "The requested resource was not found"), 404)

    @app.errorhandler(405)
    def _method(exc: Any) -> Response:
        return _json(error_body(model, 405, "Method not allowed"), 405)

    token_rule = None
    if conv["auth"]["style"] == "oauth2_client_credentials":
        token_rule, token_names = _rule(urlsplit(conv["auth"]["token_url"]).path)

        def _token(**kwargs: str) -> Response:
            # RFC 6749 section 4.4: client credentials in the form or in HTTP basic.
            inst = current()
            for safe, value in kwargs.items():
                if inst.client_params.get(token_names[safe]) != value:
                    return _json({"error": "invalid_request", "error_description": "Unknown tenant"}, 400)
            form = request.form
            cid, secret = form.get("client_id"), form.get("client_secret")
            if request.authorization and request.authorization.type == "basic":
                cid, secret = request.authorization.username, request.authorization.password
            if form.get("grant_type") != "client_credentials":
                return _json({"error": "unsupported_grant_type"}, 400)
            if (cid, secret) != (inst.credentials["client_id"], inst.credentials["client_secret"]):
                return _json({"error": "invalid_client"}, 401)
            return _json({"access_token": inst.issue_token(), "token_type": "Bearer", "expires_in": 3600})

        app.add_url_rule(token_rule, endpoint="oauth_token", view_func=_token, methods=["POST"])

    @app.before_request
    def _gate() -> None:
        inst = current()
        inst.count_request()
        if request.url_rule is not None and request.url_rule.endpoint == "oauth_token":
            return
        _check_auth(model, inst)
        _check_version(version)
        for rule in conv.get("required_headers", []):
            if request.method.lower() in rule["on"] and request.headers.get(rule["name"]) != inst.client_params.get(rule["value"]):
                raise ApiRefusal(400, f"The {rule['name']} header is required for this request")

    for role, op in model.operations.items():
        rule, names = _rule(op.path)
        view = functools.partial(_ROLE_VIEWS[role], model, op, names)
        view.__name__ = f"{role}_{op.operation_id}"  # type: ignore[attr-defined]
        app.add_url_rule(rule, endpoint=f"{role}:{op.operation_id}", view_func=view, methods=[op.method])
    return app


def _check_auth(model: TierAModel, inst: TierAInstance) -> None:
    auth, creds = model.conventions["auth"], inst.credentials
    style = auth["style"]
    if style in ("bearer", "vendor", "header_key", "oauth2_client_credentials"):
        header = auth.get("header", "Authorization")
        prefix = "Bearer " if style in ("bearer", "oauth2_client_credentials") else auth.get("prefix", "")
        got = request.headers.get(header)
        if not got:
            raise ApiRefusal(401, "Authentication required", {"WWW-Authenticate": "Bearer"})
        if style == "oauth2_client_credentials":
            valid = got.startswith(prefix) and got[len(prefix):] in inst.tokens
        else:
            valid = got == prefix + creds["api_key"]
        if not valid:
            raise ApiRefusal(401, "Invalid credentials")
    elif style == "query_key":
        if request.args.get(auth["param"]) != creds["api_key"]:
            raise ApiRefusal(401, "Invalid API key: you must be granted a valid key")
        for extra in auth.get("extra_params", []):
            if request.args.get(extra) != creds[extra]:
                raise ApiRefusal(401, f"Missing or invalid {extra}")
    elif style == "basic":
        a = request.authorization
        if a is None or a.type != "basic":
            raise ApiRefusal(401, "Authentication required", {"WWW-Authenticate": 'Basic realm="api"'})
        any_user = auth.get("username") == "anystring"  # Mailchimp: any user name, the key as password
        if (any_user and a.password != creds["password"]) or (
                not any_user and (a.username, a.password) != (creds["username"], creds["password"])):
            raise ApiRefusal(401, "Invalid username or password")


def _check_version(version: dict[str, Any]) -> None:
    if version["style"] == "header":
        got = request.headers.get(version["name"])
        if got != version["value"]:
            raise ApiRefusal(400, f"Send the {version['name']} header with a supported version ({version['value']})")
    elif version["style"] == "accept":
        if version["value"] not in request.headers.get("Accept", ""):
            raise ApiRefusal(406, f"Set the Accept header to {version['value']}")


def _check_params(model: TierAModel, names: dict[str, str], kwargs: dict[str, str],
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
        rid = request.args.get(item_param) or request.form.get(item_param)
    for safe, value in kwargs.items():
        original = names.get(safe, safe)
        client_param = parents.get(original, original if original in inst.client_params else None)
        if client_param is not None:
            if value != inst.client_params[client_param]:
                raise ApiRefusal(404, "Not found")
        else:
            rid = value
    return rid


def _body(model: TierAModel, op: Operation) -> dict[str, Any]:
    media = op.request_media
    if media == "application/x-www-form-urlencoded":
        raw = request.form.to_dict()
    elif media == "query":
        raw = {k: v for k, v in request.args.items() if k not in _auth_params(model)}
    else:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise ApiRefusal(400, "The request body must be a JSON object")
        raw = data
    wrapper = model.conventions["envelope"].get("request")
    if wrapper and media == "application/json":
        if not isinstance(raw.get(wrapper), dict):  # {"ticket": {...}}, {"profile": {...}}: required, as there
            raise ApiRefusal(400, f"The request body must hold the fields in a {wrapper!r} object")
        raw = raw[wrapper]
    props, required = model.request_fields(op.role)
    missing = sorted(k for k in required if k not in raw)
    if op.role == "create" and missing:
        status = int(model.conventions.get("validation_status", 400))
        raise ApiRefusal(status, f"Missing required parameter: {', '.join(missing)}")
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
        raise ApiRefusal(400, f"{value!r} is not a valid {kind}") from None
    return value


def _auth_params(model: TierAModel) -> set[str]:
    auth = model.conventions["auth"]
    return {auth["param"], *auth.get("extra_params", [])} if auth["style"] == "query_key" else set()


def _view_get(model: TierAModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    rid = _check_params(model, names, kwargs)
    row = current().get(rid) if rid is not None else None
    if row is None:
        raise ApiRefusal(404, f"No {model.resource} with id {rid!r}")
    return _json(shape_like(_success_schema(model.document, op), row, model), op.success_status)


def _view_create(model: TierAModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    _check_params(model, names, kwargs)
    row = current().insert(_body(model, op))
    return _json(shape_like(_success_schema(model.document, op), row, model), op.success_status)


def _view_update(model: TierAModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    rid = _check_params(model, names, kwargs)
    inst = current()
    if rid is None or inst.get(rid) is None:
        raise ApiRefusal(404, f"No {model.resource} with id {rid!r}")
    row = inst.update(rid, _body(model, op))
    if op.success_status == 204:
        return _json(None, 204)
    return _json(shape_like(_success_schema(model.document, op), row, model), op.success_status)


def _view_delete(model: TierAModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    rid = _check_params(model, names, kwargs)
    inst = current()
    row = inst.get(rid) if rid is not None else None
    if row is None or not inst.delete(rid):
        raise ApiRefusal(404, f"No {model.resource} with id {rid!r}")
    if op.success_status == 204:
        return _json(None, 204)
    schema = _success_schema(model.document, op) or {}
    single = model.conventions["envelope"].get("single")
    inner = schema.get("properties", {}).get(single) if single else None
    if inner is not None and inner.get("type") == "object":
        # An acknowledgement in the envelope: only what its schema lists ({"data": {}}, {"data": {"id": 5}}).
        ack = {k: row.get(k) for k in inner.get("properties", {})}
        body = {single: ack, **({model.conventions["envelope"]["ok_key"]: True}
                                if model.conventions["envelope"].get("ok_key") else {})}
        return _json(body, op.success_status)
    return _json(shape_like(schema, row, model), op.success_status)


def _view_list(model: TierAModel, op: Operation, names: dict[str, str], **kwargs: str) -> Response:
    _check_params(model, names, kwargs, listing=True)
    for param, value in current().list_query().items():
        if request.args.get(param) != value:
            raise ApiRefusal(400, f"{param}: a valid {param} is required to list")
    rows = current().all()
    page, meta, headers = _paginate(model, rows)
    schema = _success_schema(model.document, op) or {}
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
    if env.get("list_item"):  # each list item wraps the record (Spotify's playlist items wrap a track)
        page = [{"added_at": "2026-03-01T12:00:00Z", env["list_item"]: row} for row in page]
    put_path(body, env["list"], page)
    for dotted, value in meta.items():
        put_path(body, dotted, value)
    return _json(body, 200, headers)


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    if status == 204:
        resp = Response(status=204)
        del resp.headers["Content-Type"]
        return resp
    resp = Response(json.dumps(body), status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


_ROLE_VIEWS = {"list": _view_list, "get": _view_get, "create": _view_create, "update": _view_update,
               "delete": _view_delete}


def serve_tiera(model: TierAModel, instance: TierAInstance, host: str = "127.0.0.1"):  # noqa: ANN201
    """Serve ``instance`` over HTTP on loopback (the grader passes its own socket to HTTPServer)."""
    from ..api._http import HTTPServer
    from ..api._server import listen_socket

    server = HTTPServer(listen_socket(host), create_tiera_app(model, instance))
    return server, f"http://{server.host}:{server.port}"


__all__ = ["NOT_SERVED", "create_tiera_app", "serve_tiera", "served"]

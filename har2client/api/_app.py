"""The app factory: ``create_app(model, instance)`` serves any API the engine describes.

Routes come from the OpenAPI paths; auth, expiry, version, required headers,
paging, envelopes and body encodings from ``x-har2client``; response shapes
from each operation's own response schema (so an API that wraps a created
record but not a fetched one is served that way). Two choices differ from real
services on purpose: a page holds at most ``page_cap`` records even where the
API allows more, so that paging is always exercised; and errors take the shape
of the API's documented error schema with a message saying what went wrong.

One Flask app is built per document (building one compiles every URL rule, and
graders start thousands of instances of the same API); the instance a request
is for travels in its WSGI environ.
"""

from __future__ import annotations

import functools
from typing import Any

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Rule

from ._gate import (
    check_auth,
    check_rate,
    check_required_headers,
    check_version,
    csrf_cookie,
    explain_missing_path,
    preflight_headers,
)
from ._instance import Instance
from ._login import add_login_routes
from ._model import ApiModel
from ._routes import rule_of
from ._shapes import INSTANCE_KEY, ApiRefusal, current, error_body, json_response
from ._views import EXTRA_VIEWS, ROLE_VIEWS


class InstanceApp:
    """A WSGI app: the document's Flask app, answering for one instance."""

    def __init__(self, app: Flask, instance: Instance) -> None:
        self.app, self.instance = app, instance

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        environ[INSTANCE_KEY] = self.instance
        return self.app(environ, start_response)


def create_app(model: ApiModel, instance: Instance) -> InstanceApp:
    """The fake server of ``model``, serving ``instance``'s world."""
    app = _APPS.get(model.fingerprint)
    if app is None:
        if len(_APPS) > 256:
            _APPS.clear()
        app = _APPS[model.fingerprint] = _model_app(model)
    return InstanceApp(app, instance)


_APPS: dict[str, Flask] = {}


class _Rule(Rule):
    """A URL rule that never builds URLs: the fakes only match them, and compiling the builders was
    most of an app's start-up (an app is built for every API, a grader starts thousands)."""

    def _compile_builder(self, append_unknown: bool = True) -> Any:
        def build(*args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the fake APIs do not build URLs")

        return build


class _Flask(Flask):
    url_rule_class = _Rule


def _model_app(model: ApiModel) -> Flask:
    app = _Flask(f"har2client.api.{model.key}", static_folder=None)
    conv = model.conventions
    errors = conv.get("errors", {})

    @app.errorhandler(ApiRefusal)
    def _refused(exc: ApiRefusal) -> Response:
        if errors.get("style") == "ok_false":  # Slack: HTTP 200, {"ok": false, "error": "<code>"}
            code = {401: errors.get("unauthenticated", "not_authed"), 404: errors.get("not_found", "not_found")}.get(
                exc.status, "invalid_arguments")  # Slack's code for missing or malformed arguments
            if exc.status == 401 and "Invalid" in exc.message:
                code = errors.get("invalid_auth", code)
            return json_response({"ok": False, "error": code}, 200)
        return json_response(error_body(model, exc.status, exc.message, exc.code), exc.status, exc.headers)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        if exc.code == 404:
            refusal = explain_missing_path(model, request.path) or ApiRefusal(
                404, "The requested resource was not found", code="not_found")
        elif exc.code == 405:
            refusal = ApiRefusal(405, "Method not allowed", code="method_not_allowed")
        else:
            refusal = ApiRefusal(exc.code or 500, exc.description or exc.name, code="bad_request")
        return _refused(refusal)

    add_login_routes(app, model)
    cookie = csrf_cookie(model)

    allowed_headers = preflight_headers(model)

    @app.before_request
    def _gate() -> Response | None:
        inst = current()
        check_rate(model, inst)
        if request.method == "OPTIONS":  # a browser's CORS preflight: what a cross-origin app may send
            resp = Response(status=204)
            del resp.headers["Content-Type"]
            rule = request.url_rule
            methods = sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}) if rule is not None else []
            resp.headers.update({
                "Access-Control-Allow-Origin": request.headers.get("Origin", "*"),
                "Access-Control-Allow-Methods": ", ".join(methods or ["GET", "POST", "PATCH", "PUT", "DELETE"]),
                "Access-Control-Allow-Headers": ", ".join(allowed_headers),
                "Access-Control-Allow-Credentials": "true", "Access-Control-Max-Age": "600", "Vary": "Origin"})
            return resp
        endpoint = request.url_rule.endpoint if request.url_rule is not None else ""
        if endpoint.startswith("auth:"):
            return None
        check_version(model)
        check_auth(model, inst)
        check_required_headers(model, inst, endpoint.split(":", 1)[0])
        return None

    if cookie:
        @app.after_request
        def _csrf(resp: Response) -> Response:
            inst = current()
            if request.cookies.get(cookie) != inst.csrf_token:
                resp.set_cookie(cookie, inst.csrf_token, path="/", samesite="Lax")
            return resp

    deactivate = model.delete_semantics.get("deactivate_first", {}).get("path")
    if deactivate and "delete" in model.operations:  # the provider's own first step of a delete
        rule, names = rule_of(deactivate)
        view = functools.partial(EXTRA_VIEWS["deactivate"], model, model.operations["delete"], names)
        view.__name__ = "deactivate"  # type: ignore[attr-defined]
        app.add_url_rule(rule, endpoint="delete:deactivate", view_func=view, methods=["POST"])
    for role, op in model.operations.items():
        rule, names = rule_of(op.path)
        view = functools.partial(ROLE_VIEWS[role], model, op, names)
        view.__name__ = f"{role}_{op.operation_id}"  # type: ignore[attr-defined]
        app.add_url_rule(rule, endpoint=f"{role}:{op.operation_id}", view_func=view, methods=[op.method])
        if role in ("list", "get") and op.method == "GET" and conv.get("post_reads"):
            # Reads answer POST too, their arguments in a form or JSON body (Slack's methods, Jira's search/jql).
            app.add_url_rule(rule, endpoint=f"{role}:{op.operation_id}", view_func=view, methods=["POST"])
        suffix = conv.get("optional_suffix")  # Zendesk answers /tickets and /tickets.json alike
        if suffix:
            app.add_url_rule(rule + suffix, endpoint=f"{role}:{op.operation_id}", view_func=view, methods=[op.method])
    return app


__all__ = ["InstanceApp", "create_app"]

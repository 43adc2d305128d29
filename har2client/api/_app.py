"""The Flask app factory: ``create_app(spec, instance)``.

Every behaviour the six switches describe is a plain function below, called from
one ``before_request`` gate in a fixed order (rate limit, version, login, token
expiry, hidden header), so a later release of an API changes by swapping data in
the spec rather than editing the app.

One Flask app is built per spec (and cached: building compiles every URL rule,
about 1.4 ms, and graders start thousands of instances of the same spec); the
instance a request is for travels in its WSGI environ.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from typing import Any

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from ._data import check_value
from ._errors_http import ApiError
from ._instance import Instance
from ._paging import paginate
from ._spec import ApiSpec, Resource


AUTH_PATHS = ("/auth/login", "/auth/refresh", "/oauth/token", "/session")


INSTANCE_KEY = "har2client.instance"


class InstanceApp:
    """A WSGI app: the spec's Flask app, answering for one instance."""

    def __init__(self, app: Flask, instance: Instance) -> None:
        self.app, self.instance = app, instance

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        environ[INSTANCE_KEY] = self.instance
        return self.app(environ, start_response)


def current_instance() -> Instance:
    return request.environ[INSTANCE_KEY]


def create_app(spec: ApiSpec, instance: Instance) -> InstanceApp:
    """The fake API described by ``spec``, serving ``instance``'s world."""
    return InstanceApp(spec_app(spec), instance)


@functools.lru_cache(maxsize=256)
def spec_app(spec: ApiSpec) -> Flask:
    app = Flask(f"har2client.fake.{spec.slug}")
    app.config["JSON_SORT_KEYS"] = False
    prefix = version_prefix(spec)

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Response:
        return error_response(spec, exc)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        code = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}.get(exc.code or 500, "error")
        return error_response(spec, ApiError(exc.code or 500, code, exc.description or exc.name))

    @app.before_request
    def _gate() -> None:
        instance = current_instance()
        if instance.count_request() > spec.details.rate_limit:
            raise ApiError(429, "rate_limited", "Too many requests for this key", {"Retry-After": "1"})
        path = request.path
        if path in AUTH_PATHS:
            return
        check_version(spec, path)
        check_login(spec, instance)
        check_hidden_header(spec, instance, path)

    @app.after_request
    def _cookies(resp: Response) -> Response:
        instance = current_instance()
        if spec.switches.hidden_header == "csrf" and request.cookies.get("csrftoken") != instance.csrf_token:
            resp.set_cookie("csrftoken", instance.csrf_token, path="/", samesite="Lax")
        return resp

    add_login_routes(app, spec)

    @app.get(f"{prefix}/account")
    def _account() -> Response:
        instance = current_instance()
        return json_response(spec, wrap_one(spec, "account", instance.account, instance))

    for res in spec.resources:
        add_resource_routes(app, spec, res, prefix)
    return app


# -- responses ----------------------------------------------------------------

def json_response(spec: ApiSpec, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    resp = Response(json.dumps(body, separators=(", ", ": ")), status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def error_response(spec: ApiSpec, exc: ApiError) -> Response:
    body: dict[str, Any] = {"error": {"code": exc.code, "message": exc.message}}
    if spec.switches.envelope == "payload":
        body = {"ok": False, **body}
    headers = dict(exc.headers)
    if exc.status == 401 and "WWW-Authenticate" not in headers:
        headers["WWW-Authenticate"] = www_authenticate(spec, exc.code)
    return json_response(spec, body, exc.status, headers)


def www_authenticate(spec: ApiSpec, code: str) -> str:
    login = spec.switches.login
    if login == "basic":
        return f'Basic realm="{spec.name}"'
    if login in ("password_bearer", "oauth2_client_credentials"):
        if code == "token_expired":
            return 'Bearer error="invalid_token", error_description="The access token expired"'
        return 'Bearer realm="api"'
    return f'ApiKey realm="{spec.name}"' if login.endswith("_key") else "Session"


def wrap_one(spec: ApiSpec, name: str, obj: Any, instance: Instance) -> Any:
    env = spec.switches.envelope
    if env == "data":
        return {"data": obj}
    if env == "result_meta":
        return {"result": obj, "meta": {"request_id": instance.next_request_id()}}
    if env == "named":
        return {name: obj}
    if env == "payload":
        return {"ok": True, "payload": obj}
    return obj  # "off" and "items_next" leave single objects bare


def wrap_many(spec: ApiSpec, plural: str, items: list, meta: dict[str, Any], instance: Instance) -> Any:
    env = spec.switches.envelope
    if env == "data":
        return {"data": items, **meta}
    if env == "result_meta":
        return {"result": items, "meta": {"request_id": instance.next_request_id(), **meta}}
    if env == "items_next":
        if "next_cursor" in meta:
            meta = {"next": meta.pop("next_cursor"), **meta}
        return {"items": items, **meta}
    if env == "named":
        return {plural: items, "paging": meta} if meta else {plural: items}
    if env == "payload":
        return {"ok": True, "payload": items, "response_metadata": meta}
    return items


# -- the gate ------------------------------------------------------------------

def version_prefix(spec: ApiSpec) -> str:
    return f"/{spec.details.path_version}" if spec.switches.version == "path" else ""


def check_version(spec: ApiSpec, path: str) -> None:
    d, kind = spec.details, spec.switches.version
    if kind == "header_date":
        got = request.headers.get(d.version_header)
        if got is None:
            raise ApiError(400, "version_required", f"The {d.version_header} header is required (supported: {d.version_value})")
        if got != d.version_value:
            raise ApiError(400, "unsupported_version", f"API version {got!r} is not supported; use {d.version_value}")
    elif kind == "query":
        got = request.args.get("api-version")
        if got is None:
            raise ApiError(400, "version_required", f"The api-version query parameter is required (supported: {d.version_value})")
        if got != d.version_value:
            raise ApiError(400, "unsupported_version", f"api-version {got!r} is not supported; use {d.version_value}")
    elif kind == "accept":
        want = f"application/vnd.{spec.slug}.{d.path_version}+json"
        if want not in request.headers.get("Accept", ""):
            raise ApiError(406, "version_required", f"Set the Accept header to {want} to select the API version")
    elif kind == "path":
        prefix = version_prefix(spec)
        if not (path == prefix or path.startswith(prefix + "/")):
            first = path.strip("/").split("/", 1)[0]
            if first[:1] == "v" and first[1:].isdigit():
                raise ApiError(410, "version_retired", f"API version {first} is retired; use /{d.path_version}")
            raise ApiError(404, "version_required", f"The API version is missing from the path; this API serves /{d.path_version}/...")


def check_login(spec: ApiSpec, instance: Instance) -> None:
    login, creds, d = spec.switches.login, instance.credentials, spec.details
    if login == "header_key":
        got = request.headers.get(d.key_header)
        if not got:
            raise ApiError(401, "unauthorized", f"No API key: send it in the {d.key_header} header")
        if got != creds["api_key"]:
            raise ApiError(401, "invalid_api_key", "The API key is not valid")
    elif login == "query_key":
        got = request.args.get(d.key_param)
        if not got:
            raise ApiError(401, "unauthorized", f"No API key: pass it as the {d.key_param} query parameter")
        if got != creds["api_key"]:
            raise ApiError(401, "invalid_api_key", "The API key is not valid")
    elif login == "basic":
        auth = request.authorization
        if auth is None or auth.type != "basic":
            raise ApiError(401, "unauthorized", "Authentication required")
        if (auth.username, auth.password) != (creds["username"], creds["password"]):
            raise ApiError(401, "invalid_credentials", "Username or password is wrong")
    elif login in ("password_bearer", "oauth2_client_credentials"):
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            raise ApiError(401, "unauthorized", "A bearer token is required")
        state = instance.token_state(header[7:].strip())
        if state == "expired":
            raise ApiError(401, "token_expired", "The access token has expired")
        if state != "ok":
            raise ApiError(401, "invalid_token", "The access token is not valid")
    elif login == "session_cookie":
        sid = request.cookies.get("session")
        if not sid:
            raise ApiError(401, "unauthorized", "Not signed in")
        state = instance.token_state(sid)
        if state == "expired":
            raise ApiError(401, "session_expired", "Your session has expired; sign in again")
        if state != "ok":
            raise ApiError(401, "invalid_session", "The session is not valid")


def check_hidden_header(spec: ApiSpec, instance: Instance, path: str) -> None:
    kind, method = spec.switches.hidden_header, request.method
    if kind == "account_id":
        if path.endswith("/account"):
            return
        got = request.headers.get("X-Account-Id")
        if got is None:
            raise ApiError(403, "account_required", "The X-Account-Id header is required")
        if got != instance.account["id"]:
            raise ApiError(403, "account_mismatch", "X-Account-Id does not match the authenticated account")
    elif kind == "csrf" and method in ("POST", "PATCH", "PUT", "DELETE"):
        got = request.headers.get("X-CSRF-Token")
        if got is None or got != request.cookies.get("csrftoken") or got != instance.csrf_token:
            raise ApiError(403, "csrf_failed", "CSRF verification failed: X-CSRF-Token missing or incorrect")
    elif kind == "idempotency_key" and method == "POST":
        if not request.headers.get("Idempotency-Key"):
            raise ApiError(400, "idempotency_key_required", "POST requests need an Idempotency-Key header")
    elif kind == "content_digest" and method in ("POST", "PATCH", "PUT"):
        want = "sha-256=:" + base64.b64encode(hashlib.sha256(request.get_data()).digest()).decode() + ":"
        got = request.headers.get("Content-Digest")
        if got is None:
            raise ApiError(400, "digest_required", "A Content-Digest header is required on requests with a body")
        if got.replace(" ", "") != want:
            raise ApiError(400, "digest_mismatch", "Content-Digest does not match the request body")


# -- routes --------------------------------------------------------------------

def _json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, "invalid_json", "The request body must be a JSON object")
    return data


def add_login_routes(app: Flask, spec: ApiSpec) -> None:
    login, d = spec.switches.login, spec.details
    refresh = spec.switches.expiry.endswith("_refresh")
    lifetime = d.token_lifetime_seconds if spec.switches.expiry.startswith("seconds_") else 3600

    def check_user(body: dict[str, Any]) -> None:
        creds = current_instance().credentials
        if not body.get("username") or not body.get("password"):
            raise ApiError(422, "validation_failed", "username and password are required")
        if (body["username"], body["password"]) != (creds["username"], creds["password"]):
            raise ApiError(401, "invalid_credentials", "Username or password is wrong")

    if login == "password_bearer":
        @app.post("/auth/login")
        def _login() -> Response:
            check_user(_json_body())
            tok = current_instance().issue_token(with_refresh=refresh)
            body = {"access_token": tok.value, "token_type": "Bearer", "expires_in": lifetime}
            if refresh:
                body["refresh_token"] = tok.refresh_token
            return json_response(spec, body)

        if refresh:
            @app.post("/auth/refresh")
            def _refresh() -> Response:
                tok = current_instance().redeem_refresh_token(str(_json_body().get("refresh_token", "")))
                if tok is None:
                    raise ApiError(401, "invalid_refresh_token", "The refresh token is not valid")
                return json_response(spec, {"access_token": tok.value, "token_type": "Bearer",
                                            "expires_in": lifetime, "refresh_token": tok.refresh_token})

    elif login == "oauth2_client_credentials":
        @app.post("/oauth/token")
        def _token() -> Response:
            form, creds = request.form, current_instance().credentials
            if form.get("grant_type") != "client_credentials":
                return json_response(spec, {"error": "unsupported_grant_type"}, 400)
            cid, secret = form.get("client_id"), form.get("client_secret")
            if request.authorization and request.authorization.type == "basic":
                cid, secret = request.authorization.username, request.authorization.password
            if (cid, secret) != (creds["client_id"], creds["client_secret"]):
                return json_response(spec, {"error": "invalid_client"}, 401,
                                     {"WWW-Authenticate": 'Basic realm="oauth"'})
            tok = current_instance().issue_token()
            return json_response(spec, {"access_token": tok.value, "token_type": "Bearer", "expires_in": lifetime})

    elif login == "session_cookie":
        @app.post("/session")
        def _session() -> Response:
            check_user(_json_body())
            tok = current_instance().issue_token(prefix="s_")
            resp = json_response(spec, {"user": {"email": current_instance().credentials["username"]}, "expires_in": lifetime})
            resp.set_cookie("session", tok.value, path="/", httponly=True, samesite="Lax")
            return resp


def add_resource_routes(app: Flask, spec: ApiSpec, res: Resource, prefix: str) -> None:
    base = f"{prefix}/{res.plural}"

    def find(rid: str) -> dict[str, Any]:
        row = current_instance().store.get(res.plural, rid)
        if row is None:
            raise ApiError(404, "not_found", f"No {res.name} with id {rid!r}")
        return row

    def validate(body: dict[str, Any], *, partial: bool) -> dict[str, Any]:
        writable = {f.name: f for f in res.writable_fields}
        problems = [f"{k}: unknown field" for k in body if k not in writable]
        if not partial:
            problems += [f"{k}: is required" for k in writable if k not in body]
        problems += [f"{k}: {why}" for k, v in body.items() if k in writable and (why := check_value(writable[k], v))]
        if problems:
            raise ApiError(422, "validation_failed", "; ".join(problems))
        return body

    @app.get(base, endpoint=f"list_{res.plural}")
    def _list() -> Response:
        instance = current_instance()
        rows = instance.store.all(res.plural)
        if res.filter_field and res.filter_field in request.args:
            rows = [r for r in rows if str(r.get(res.filter_field)) == request.args[res.filter_field]]
        page, meta, headers = paginate(spec, instance, rows)
        return json_response(spec, wrap_many(spec, res.plural, page, meta, instance), headers=headers)

    @app.post(base, endpoint=f"create_{res.name}")
    def _create() -> Response:
        instance = current_instance()
        raw = request.get_data()
        key = request.headers.get("Idempotency-Key") if spec.switches.hidden_header == "idempotency_key" else None
        if key and key in instance.idempotency:
            digest, saved = instance.idempotency[key]
            if digest != hashlib.sha256(raw).hexdigest():
                raise ApiError(409, "idempotency_conflict", "This Idempotency-Key was used with a different request")
            return json_response(spec, saved, 201, {"Idempotent-Replayed": "true"})
        row = instance.store.insert(res, validate(_json_body(), partial=False))
        body = wrap_one(spec, res.name, row, instance)
        if key:
            instance.idempotency[key] = (hashlib.sha256(raw).hexdigest(), body)
        return json_response(spec, body, 201, {"Location": f"{base}/{row['id']}"})

    @app.get(f"{base}/<rid>", endpoint=f"get_{res.name}")
    def _get(rid: str) -> Response:
        return json_response(spec, wrap_one(spec, res.name, find(rid), current_instance()))

    @app.patch(f"{base}/<rid>", endpoint=f"update_{res.name}")
    def _update(rid: str) -> Response:
        find(rid)
        changes = validate(_json_body(), partial=True)
        instance = current_instance()
        return json_response(spec, wrap_one(spec, res.name, instance.store.update(res.plural, rid, changes), instance))

    @app.delete(f"{base}/<rid>", endpoint=f"delete_{res.name}")
    def _delete(rid: str) -> Response:
        find(rid)
        current_instance().store.delete(res.plural, rid)
        resp = Response(status=204)
        del resp.headers["Content-Type"]  # 204 has no body, so no type
        return resp

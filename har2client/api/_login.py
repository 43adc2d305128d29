"""The endpoints that hand out tokens and sessions: OAuth's token URL, a password login, its refresh."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, request

from ._model import ApiModel
from ._routes import rule_of
from ._shapes import ApiRefusal, current
from ._shapes import json_response as _json


def _lifetime(model: ApiModel) -> int:
    return int(model.expiry.get("seconds", 3600))


def json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise ApiRefusal(400, "The request body must be a JSON object", code="invalid_json")
    return data


def add_login_routes(app: Flask, model: ApiModel) -> None:
    """The endpoints that hand out tokens and sessions: OAuth's token URL, a password login, its refresh."""
    auth = model.auth
    style = auth["style"]
    refresh = model.expiry.get("renew") == "refresh"

    def check_user(body: dict[str, Any]) -> None:
        creds = current().credentials
        if not body.get("username") or not body.get("password"):
            raise ApiRefusal(422, "username and password are required", code="validation_failed")
        if (body["username"], body["password"]) != (creds["username"], creds["password"]):
            raise ApiRefusal(401, "Username or password is wrong", code="invalid_credentials")

    if style == "oauth2_client_credentials":
        token_rule, token_names = rule_of(urlsplit(auth["token_url"]).path)

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
            for name, value in auth.get("token_params", {}).items():  # Box: whom the token acts for
                if form.get(name) != value.format(**inst.client_params):
                    return _json({"error": "invalid_grant",
                                  "error_description": f"Please check the '{name}' parameter"}, 400)
            if (cid, secret) != (inst.credentials["client_id"], inst.credentials["client_secret"]):
                return _json({"error": "invalid_client"}, 401, {"WWW-Authenticate": 'Basic realm="oauth"'})
            return _json({"access_token": inst.issue_token().value, "token_type": "Bearer",
                          "expires_in": _lifetime(model)})

        app.add_url_rule(token_rule, endpoint="auth:token", view_func=_token, methods=["POST"])
    elif style == "password_bearer":
        def _login() -> Response:
            check_user(json_body())
            tok = current().issue_token(with_refresh=refresh)
            body = {"access_token": tok.value, "token_type": "Bearer", "expires_in": _lifetime(model)}
            if refresh:
                body["refresh_token"] = tok.refresh_token
            return _json(body)

        app.add_url_rule(auth["login_path"], endpoint="auth:login", view_func=_login, methods=["POST"])
        if refresh:
            def _refresh() -> Response:
                tok = current().redeem_refresh_token(str(json_body().get("refresh_token", "")))
                if tok is None:
                    raise ApiRefusal(401, "The refresh token is not valid", code="invalid_refresh_token")
                return _json({"access_token": tok.value, "token_type": "Bearer", "expires_in": _lifetime(model),
                              "refresh_token": tok.refresh_token})

            app.add_url_rule(auth["refresh_path"], endpoint="auth:refresh", view_func=_refresh, methods=["POST"])
    elif style == "session_cookie":
        def _session() -> Response:
            check_user(json_body())
            inst = current()
            tok = inst.issue_token(prefix="s_")
            resp = _json({"user": {"email": inst.credentials["username"]}, "expires_in": _lifetime(model)})
            resp.set_cookie(auth.get("cookie", "session"), tok.value, path="/", httponly=True, samesite="Lax")
            return resp

        app.add_url_rule(auth["login_path"], endpoint="auth:session", view_func=_session, methods=["POST"])

"""The checks every API request passes before its operation runs: rate, auth, expiry, version, headers.

Each is a plain function of the model's conventions, called in a fixed order from one ``before_request``
gate, so a later release of an API changes by editing its document rather than this code.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from flask import request

from ._instance import Instance
from ._model import ApiModel
from ._shapes import ApiRefusal

WRITE_METHODS = ("post", "put", "patch", "delete")


def preflight_headers(model: ApiModel) -> list[str]:
    """The request headers a CORS preflight says the API accepts: content type, auth, version, required ones."""
    names = ["Content-Type"]
    auth, version = model.auth, model.conventions["version"]
    if auth["style"] in ("bearer", "oauth2_client_credentials", "password_bearer", "basic"):
        names.append("Authorization")
    elif auth.get("header"):
        names.append(auth["header"])
    if version["style"] == "header":
        names.append(version["name"])
    names += [rule["name"] for rule in model.conventions.get("required_headers", [])]
    return sorted(set(names), key=str.lower)


def www_authenticate(model: ApiModel, code: str = "") -> str:
    style = model.auth["style"]
    if style == "basic":
        return f'Basic realm="{model.api}"'
    if style == "session_cookie":
        return "Session"
    if style in ("header_key", "query_key", "vendor"):
        return f'ApiKey realm="{model.api}"'
    if code == "token_expired":
        return 'Bearer error="invalid_token", error_description="The access token expired"'
    return 'Bearer realm="api"'


def _refuse(model: ApiModel, message: str, code: str) -> ApiRefusal:
    return ApiRefusal(401, message, {"WWW-Authenticate": www_authenticate(model, code)}, code)


def check_rate(model: ApiModel, inst: Instance) -> None:
    limit = model.conventions.get("rate_limit")
    if inst.count_request() > int(limit or 1 << 62):
        raise ApiRefusal(429, "Too many requests for this key", {"Retry-After": "1"}, "rate_limited")


def check_auth(model: ApiModel, inst: Instance) -> None:
    """The request's credentials, checked as the API's auth says (or, for the methods a deprecated way
    still serves, as that said: ``auth.legacy``)."""
    legacy = model.auth.get("legacy")
    try:
        _check_auth_as(model, model.auth, inst)
    except ApiRefusal:
        if not legacy or request.method.lower() not in legacy.get("methods", ()):
            raise
        _check_auth_as(model, legacy, inst)


def _check_auth_as(model: ApiModel, auth: dict[str, Any], inst: Instance) -> None:
    creds = inst.credentials
    style = auth["style"]
    if style in ("bearer", "vendor", "header_key", "oauth2_client_credentials", "password_bearer"):
        header = auth.get("header", "Authorization")
        prefix = "Bearer " if style in ("bearer", "oauth2_client_credentials",
                                        "password_bearer") else auth.get("prefix", "")
        got = request.headers.get(header)
        if not got:
            where = f"in the {header} header" if header != "Authorization" else "as a bearer token"
            raise _refuse(model, f"Authentication required: send the credentials {where}", "unauthorized")
        if style in ("oauth2_client_credentials", "password_bearer"):
            state = inst.token_state(got[len(prefix):].strip()) if got.startswith(prefix) else "invalid"
            if state == "expired":
                raise _refuse(model, "The access token has expired", "token_expired")
            if state != "ok":
                raise _refuse(model, "Invalid credentials: the access token is not valid", "invalid_token")
        elif got != prefix + creds["api_key"]:
            raise _refuse(model, "Invalid credentials", "invalid_api_key")
    elif style == "query_key":
        got = request.args.get(auth["param"])
        if not got:
            raise _refuse(model, f"No API key: pass it as the {auth['param']} query parameter", "unauthorized")
        if got != creds["api_key"]:
            raise _refuse(model, "Invalid API key: you must be granted a valid key", "invalid_api_key")
        for extra in auth.get("extra_params", []):
            if request.args.get(extra) != creds[extra]:
                raise _refuse(model, f"Missing or invalid {extra}", "invalid_api_key")
    elif style == "basic":
        a = request.authorization
        if a is None or a.type != "basic":
            raise _refuse(model, "Authentication required", "unauthorized")
        if auth.get("key_as") == "username":  # Lob: the API key as the user name, the password empty
            if a.username != creds["api_key"]:
                raise _refuse(model, "Your API key is not valid", "invalid_api_key")
        elif a.password != creds["password"] or a.username not in _user_names(creds["username"], auth):
            raise _refuse(model, "Invalid username or password", "invalid_credentials")
    elif style == "session_cookie":
        sid = request.cookies.get(auth.get("cookie", "session"))
        if not sid:
            raise _refuse(model, "Not signed in", "unauthorized")
        state = inst.token_state(sid)
        if state == "expired":
            raise _refuse(model, "Your session has expired; sign in again", "session_expired")
        if state != "ok":
            raise _refuse(model, "The session is not valid", "invalid_session")


def _user_names(username: str, auth: dict[str, Any]) -> tuple[str, ...]:
    """The user names basic auth accepts: the account's, and with ``token_suffix`` for API-token sign-in
    (Zendesk's ``{email}/token``)."""
    return (username, username + auth["token_suffix"]) if auth.get("token_suffix") else (username,)


def check_version(model: ApiModel) -> None:
    v = model.conventions["version"]
    style = v["style"]
    if style in ("header", "query"):
        got = request.headers.get(v["name"]) if style == "header" else request.args.get(v["name"])
        what = f"the {v['name']} header" if style == "header" else f"the {v['name']} query parameter"
        if "legacy_value" in v and request.method == "GET" and got == v["legacy_value"]:
            return  # the retiring version still reads
        if got is None:
            if v.get("optional"):
                return  # the provider falls back to its default version (Stripe, GitHub)
            raise ApiRefusal(400, f"Send {what} with a supported version ({v['value']})", code="version_required")
        if got != v["value"] and got not in v.get("accepted", ()):  # other released versions it also answers
            raise ApiRefusal(400, f"API version {got!r} is not supported; use {v['value']}",
                             code="unsupported_version")
    elif style == "accept":
        if v["value"] not in request.headers.get("Accept", ""):
            raise ApiRefusal(406, f"Set the Accept header to {v['value']}", code="version_required")


def explain_missing_path(model: ApiModel, path: str) -> ApiRefusal | None:
    """For a path the API does not serve: 410 for an endpoint the provider removed, or, outside the
    versioned prefix, the answer an API that explains its versions gives."""
    retired = model.conventions.get("retired_paths", {})
    if path in retired:  # an endpoint the provider removed answers 410 Gone, saying what replaced it
        return ApiRefusal(410, retired[path], code="gone")
    v = model.conventions["version"]
    if v["style"] != "path" or not v.get("explain") or path.startswith(v["prefix"] + "/"):
        return None
    first = path.strip("/").split("/", 1)[0]
    if first[:1] == "v" and first[1:].isdigit():
        return ApiRefusal(410, f"API version {first} is retired; use {v['prefix']}", code="version_retired")
    return ApiRefusal(404, f"The API version is missing from the path; this API serves {v['prefix']}/...",
                      code="version_required")


def digest_of(body: bytes) -> str:
    return "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"


def check_required_headers(model: ApiModel, inst: Instance, role: str) -> None:
    """Headers some operations need beyond auth: a client value, the account id, a CSRF token, a key, a digest."""
    method = request.method.lower()
    for rule in model.conventions.get("required_headers", []):
        if method not in rule["on"] or role in rule.get("skip", ()):
            continue
        name, check = rule["name"], rule.get("check", "param")
        got = request.headers.get(name)
        if check == "param":
            if got != inst.client_params.get(rule["value"]):
                raise ApiRefusal(400, f"The {name} header is required for this request", code="header_required")
        elif check == "account":
            if got is None:
                raise ApiRefusal(403, f"The {name} header is required", code="account_required")
            if got != inst.account.get("id"):
                raise ApiRefusal(403, f"{name} does not match the authenticated account", code="account_mismatch")
        elif check == "csrf":
            if got is None or got != request.cookies.get(rule.get("cookie", "csrftoken")) or got != inst.csrf_token:
                raise ApiRefusal(403, f"CSRF verification failed: {name} missing or incorrect", code="csrf_failed")
        elif check == "present":
            if not got:
                raise ApiRefusal(400, f"The {name} header is required: say which client is calling",
                                 code="header_required")
        elif check == "unique":
            if not got:
                raise ApiRefusal(400, f"{request.method} requests need an {name} header",
                                 code="idempotency_key_required")
        elif check == "digest":
            if got is None:
                raise ApiRefusal(400, f"A {name} header is required on requests with a body", code="digest_required")
            if got.replace(" ", "") != digest_of(request.get_data()):
                raise ApiRefusal(400, f"{name} does not match the request body", code="digest_mismatch")
        else:
            raise ApiRefusal(500, f"unknown header check {check!r}")


def csrf_cookie(model: ApiModel) -> str | None:
    """The cookie a CSRF-checking API sets on every answer, or None."""
    for rule in model.conventions.get("required_headers", []):
        if rule.get("check") == "csrf":
            return str(rule.get("cookie", "csrftoken"))
    return None


def idempotency_header(model: ApiModel, method: str) -> str | None:
    for rule in model.conventions.get("required_headers", []):
        if rule.get("check") == "unique" and method.lower() in rule["on"]:
            return str(rule["name"])
    return None


def request_fingerprint(body: Any) -> str:
    return hashlib.sha256(body if isinstance(body, bytes) else str(body).encode()).hexdigest()

"""The reference client of an API, written out as readable, standalone code: what a careful engineer
would write from the recording.

``reference_source(model, drop="paging")`` is the same client without one
convention's handling (auth, paging, envelope, version, expiry,
required_headers); the mutation test proves each one is needed.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any
from urllib.parse import urlsplit

from ._instance import credential_names
from ._model import ApiModel
from ._reference_list import listing_body
from ._shapes import filter_params, success_schema


def credential_args(model: ApiModel) -> list[str]:
    """The credentials a client is given; a token endpoint on another host (an identity provider) too."""
    names = list(credential_names(model))
    auth = model.auth
    if auth["style"] == "oauth2_client_credentials" and \
            urlsplit(auth["token_url"]).netloc != urlsplit(model.server).netloc:
        names.append("token_url")
    return names


def constructor_args(model: ApiModel) -> list[str]:
    """The names of the arguments a client's constructor takes after ``base_url``."""
    return credential_args(model) + list(model.client_params)


def conventions_on(model: ApiModel) -> list[str]:
    """The conventions a client of this API must handle (what a task's level counts, and its mutants)."""
    c = model.conventions
    on = [] if model.auth["style"] == "none" else ["auth"]
    if c["paging"]["style"] != "none":
        on.append("paging")
    if c["envelope"].get("list") or c["envelope"].get("single") or c["envelope"].get("request"):
        on.append("envelope")
    if c["version"]["style"] != "none" and not c["version"].get("optional"):
        on.append("version")  # an optional version (the provider's default applies) is no convention to handle
    if model.expiry:
        on.append("expiry")
    if c.get("required_headers"):
        on.append("required_headers")
    return on


def _m(name: str, args: str, body: str) -> str:
    sig = f"self, {args}" if args else "self"
    return f"\n    def {name}({sig}):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n"


def reference_source(model: ApiModel, drop: str | None = None) -> str:
    """The API's reference client as Python source: every convention handled, or all but ``drop``.

    Only what this API needs is written: a helper the client never calls, a branch for a body style or
    paging style it does not have, or an import it does not use is left out, so the code reads as a
    person would write it for this one API.
    """
    c = model.conventions
    auth, paging, env, version = c["auth"], c["paging"], c["envelope"], c["version"]
    ops = model.operations
    args = constructor_args(model)
    res, many = model.resource, model.plural
    note = "every convention handled" if drop is None else f"without its {drop} handling"
    out = [f'''

class NotFoundError(Exception):
    """The API has no {res} with that id."""


class ApiError(Exception):
    def __init__(self, status, text):
        super().__init__(f"HTTP {{status}}: {{text[:300]}}")
        self.status = status


class Client:
    def __init__(self, base_url{"".join(", " + a for a in args)}):
        self._base = base_url.rstrip("/")
''']
    out.append("".join(f"        self._{a} = {a}\n" for a in args))
    client_kw = ""
    if auth["style"] == "basic" and drop != "auth":
        client_kw = ', auth=(api_key, "")' if auth.get("key_as") else ", auth=(username, password)"
    out.append(f"        self._http = httpx.Client(timeout=15{client_kw})\n")
    out.append(_STATE_MARK)  # the attributes the methods below keep, once they are known
    login_style = auth["style"] if drop != "auth" else "none"
    renews = bool(model.expiry) and drop not in ("expiry", "auth")
    list_paging = paging if drop != "paging" else {"style": "none"}
    follows_urls = list_paging["style"] in ("link", "next_url")
    body_style = c.get("body") or "json"  # how this API takes a request body: JSON, a form, or the query

    # headers and query parameters on every request
    lines = ["headers, params = {}, {}"]
    if drop != "auth":
        if auth["style"] == "bearer":
            lines.append('headers["Authorization"] = "Bearer " + self._api_key')
        elif auth["style"] in ("header_key", "vendor"):
            lines.append(f'headers["{auth["header"]}"] = "{auth.get("prefix", "")}" + self._api_key')
        elif auth["style"] in ("oauth2_client_credentials", "password_bearer"):
            lines.append('headers["Authorization"] = "Bearer " + self._access_token()')
        elif auth["style"] == "session_cookie":
            lines.append("self._access_token()  # signs in once: the session lives in the cookie jar")
        elif auth["style"] == "query_key":
            lines.append(f'params["{auth["param"]}"] = self._api_key')
            lines += [f'params["{p}"] = self._{p}' for p in auth.get("extra_params", [])]
    if drop != "version":
        if version["style"] == "header":
            lines.append(f'headers["{version["name"]}"] = "{version["value"]}"')
            if version.get("accept"):
                lines.append(f'headers["Accept"] = "{version["accept"]}"')
        elif version["style"] == "accept":
            lines.append(f'headers["Accept"] = "{version["value"]}"')
        elif version["style"] == "query":
            lines.append(f'params["{version["name"]}"] = "{version["value"]}"')
    account_path = None
    for rule in c.get("required_headers", []) if drop != "required_headers" else []:
        methods = tuple(m.upper() for m in rule["on"])
        check, name = rule.get("check", "param"), rule["name"]
        if check == "param":
            lines += [f"if method in {methods!r}:", f'    headers["{name}"] = self._{rule["value"]}']
        elif check == "account":
            account_path = _plain_path(model, "account", drop)
            lines += [f"if method in {methods!r} and path != {account_path!r}:",
                      f'    headers["{name}"] = self._account()']
        elif check == "csrf":
            account_path = _plain_path(model, "account", drop)
            lines += [f"if method in {methods!r}:",
                      f'    headers["{name}"] = self._csrf("{rule.get("cookie", "csrftoken")}")']
        elif check == "unique":
            lines += [f"if method in {methods!r}:", f'    headers["{name}"] = str(uuid.uuid4())']
        elif check == "present":
            lines += [f"if method in {methods!r}:", f'    headers["{name}"] = "{rule.get("example", "har2client")}"']
        elif check == "digest":
            lines += [f"if method in {methods!r} and content:",
                      "    digest = base64.b64encode(hashlib.sha256(content).digest()).decode()",
                      f'    headers["{name}"] = f"sha-256=:{{digest}}:"']
    lines.append("return headers, params")
    out.append(_m("_extras", "method, path, content", "\n".join(lines)))
    if account_path:
        out.append(_m("_account", "", f"""
            if self._account_id is None:
                self._account_id = self._one(self._request("GET", "{account_path}").json())["id"]
            return self._account_id
        """))
        out.append(_m("_csrf", "cookie", f"""
            if self._http.cookies.get(cookie) is None:
                self._request("GET", "{account_path}")  # any answer sets the cookie
            return self._http.cookies.get(cookie)
        """))

    if login_style == "oauth2_client_credentials":
        token_url = "self._token_url" if "token_url" in args else f'self._base + "{urlsplit(auth["token_url"]).path}"'
        grant = "".join(f'\n                "{name}": {_template_expr(value)},'
                        for name, value in auth.get("token_params", {}).items())
        out.append(_m("_login", "", f"""
            resp = self._http.post({token_url}, data={{
                "grant_type": "client_credentials",
                "client_id": self._client_id,
                "client_secret": self._client_secret,{grant}
            }})
            if resp.status_code >= 400:
                raise ApiError(resp.status_code, resp.text)
            self._bearer = resp.json()["access_token"]
        """))
    elif login_style in ("password_bearer", "session_cookie"):
        keep_refresh = "\n            self._refresh_token = resp.json().get(\"refresh_token\")" \
            if renews and model.expiry.get("renew") == "refresh" else ""
        out.append(_m("_login", "", f"""
            resp = self._http.post(self._base + "{auth['login_path']}",
                                   json={{"username": self._username, "password": self._password}})
            if resp.status_code >= 400:
                raise ApiError(resp.status_code, resp.text)
            self._bearer = resp.json().get("access_token", "session"){keep_refresh}
        """))
    if login_style in ("oauth2_client_credentials", "password_bearer", "session_cookie"):
        out.append(_m("_access_token", "", """
            if self._bearer is None:
                self._login()
            return self._bearer
        """))
    if renews and model.expiry.get("renew") == "refresh":
        out.append(_m("_renew", "", f"""
            resp = self._http.post(self._base + "{auth['refresh_path']}", json={{"refresh_token": self._refresh_token}})
            if resp.status_code != 200:
                return self._login()
            self._bearer, self._refresh_token = resp.json()["access_token"], resp.json()["refresh_token"]
        """))
    elif renews:
        out.append(_m("_renew", "", "self._login()"))
    out.append(_m("_request", "method, path, params=None, body=None" + (", url=None" if follows_urls else "")
                  + (", retry=True" if renews else ""), _request_body(body_style, follows_urls, renews)))
    errors = c.get("errors", {})
    if errors.get("style") == "ok_false" and drop != "envelope":
        out.append(_m("_check", "resp", f"""
            # This API answers errors with HTTP 200 and {{"ok": false, "error": code}}.
            body = resp.json()
            if isinstance(body, dict) and body.get("ok") is False:
                if body.get("error") == "{errors['not_found']}":
                    raise NotFoundError(body["error"])
                raise ApiError(resp.status_code, body.get("error", ""))
            return resp
        """))

    def path_expr(op_path: str, listing: bool = False) -> str:
        expr = op_path
        if drop == "version" and version["style"] == "path" and expr.startswith(version["prefix"]):
            expr = expr[len(version["prefix"]):]  # the client that forgot the version in the path
        if listing:
            for param, client_param in c.get("collection_params", {}).items():
                expr = expr.replace("{" + param + "}", "{self._" + client_param + "}")
        for p in model.client_params:
            expr = expr.replace("{" + p + "}", "{self._" + p + "}")
        if "{" in expr.replace("{self._", ""):
            head, rest = expr.rsplit("{", 1)
            if not head.endswith("self._"):
                expr = head + "{quote(str(" + res + "_id), safe='')}" + rest.split("}", 1)[1]
        return ('f"' if "{" in expr else '"') + expr + '"'

    single, wrapper = env.get("single"), env.get("request")
    if single and drop != "envelope":
        out.append(_m("_one", "body", f'value = body.get("{single}", body) if isinstance(body, dict) else body\n'
                                      'return value[0] if isinstance(value, list) else value'))
    list_key = env.get("list")
    if list_key and drop != "envelope":
        dig = "".join(f'body = body.get("{k}") or {{}}\n' for k in list_key.split(".")[:-1]) + \
              f'return body.get("{list_key.split(".")[-1]}", [])'
        out.append(_m("_items", "body", dig))
    prefix = paging.get("meta_prefix", "")
    listed = (success_schema(model, ops["list"]) or {}).get("properties", {})
    literal = any(isinstance(v, str) and "." in v and v in listed for v in paging.values())
    out.append(_m("_meta", "body, dotted", ("""
        if dotted in body:  # a key with a dot in its name ("@odata.nextLink")
            return body[dotted]""" if literal else "") + f"""
        for key in {f'("{prefix}" + dotted)' if prefix else "dotted"}.split("."):
            if not isinstance(body, dict):
                return None
            body = body.get(key)
        return body
    """))

    # listing
    lp = path_expr(ops["list"].path, listing=True)
    fixed = "".join((f'params["{q}"] = f"' + cp.replace("{", "{self._") + '"\n') if "{" in cp
                    else f'params["{q}"] = self._{cp}\n' for q, cp in c.get("list_query", {}).items())
    # every field and every record, where a listing answers ids only or some records unless asked
    fixed += "".join(f'params["{param}"] = "{value}"\n' for param, value in model.list_asks.items())
    out.append(_m("_list_params", "filters=None, **extra",
                  "params = {}\n" + fixed + "params.update(filters or {})\nparams.update(extra)\nreturn params"
                  if fixed else "return {**(filters or {}), **extra}"))
    if list_paging.get("in_body") and body_style != "json":
        raise ValueError(f"{model.api}: a cursor in the request body needs JSON bodies, not {body_style}")
    listing = textwrap.dedent(listing_body(model, ops["list"].method, "PATH", list_paging)).strip("\n")
    if max(8 + len(line.replace("PATH", lp)) for line in listing.splitlines()) > 120:
        listing = f"path = {lp}\n" + listing.replace("PATH", "path")
    out.append(_m("_list_all", "filters=None", listing.replace("PATH", lp)))
    if model.filters:
        f = model.filters[0]
        param = next((p for p, field in filter_params(model).items() if field == f), f)
        out.append(_m(f"list_{many}", f"{f}=None",
                      f'return self._list_all({{"{param}": {f}}} if {f} is not None else None)'))
    else:
        out.append(_m(f"list_{many}", "", "return self._list_all()"))

    item_param = c.get("item_param")
    id_query = f', params={{"{item_param}": {res}_id}}' if item_param else ""
    semantics = model.delete_semantics
    read = f'self._one(self._request("GET", PATH{id_query}).json())'
    if semantics.get("readable_stub"):
        read = f"""record = {read}
if record.get("deleted"):  # a deleted {res} still answers, marked deleted
    raise NotFoundError({res}_id)
return record"""
    else:
        read = "return " + read
    out.append(_m(f"get_{res}", f"{res}_id", _on_path(path_expr(ops["get"].path), read)))
    wrap = (lambda v: f'{{"{wrapper}": {v}}}') if wrapper and drop != "envelope" else (lambda v: v)
    if "create" in ops:
        ack = _success_props(model, "create")
        ret = "return self._one(resp.json())"
        if ack and ack < set(model.record_schema.get("properties", {})):
            ret = f'return self.get_{res}(self._one(resp.json())["{model.id_field}"])  # it answers only the id'
        send, place = _with_context(c.get("create_context") or {}, wrap("fields"))
        out.append(_m(f"create_{res}", "**fields", place + _on_path(
            path_expr(ops["create"].path), f'resp = self._request("{ops["create"].method}", PATH, '
                                           f'body={send})\n{ret}')))
    if "update" in ops:
        changes = f'{{"{item_param}": {res}_id, **changes}}' if item_param else "changes"
        send, place = _with_context(c.get("update_context") or {}, wrap(changes))
        body = place + _on_path(path_expr(ops["update"].path),
                                f'resp = self._request("{ops["update"].method}", PATH, body={send})') + f"""
if resp.status_code == 204 or not resp.content:
    return self.get_{res}({res}_id)
return self._one(resp.json())"""
        out.append(_m(f"update_{res}", f"{res}_id, **changes", body))
    if "delete" in ops:
        delete = 'self._request("DELETE", PATH)'
        if semantics.get("deactivate_first"):
            delete += f"""  # the first delete deactivates the {res}
try:
    self._request("DELETE", PATH)  # the second deletes it
except NotFoundError:
    pass  # it was already deactivated, so the first delete deleted it"""
        out.append(_m(f"delete_{res}", f"{res}_id", _on_path(path_expr(ops["delete"].path), delete)))
    client = _without_unused_members(_inline_missing(out, single and drop != "envelope",
                                                     list_key and drop != "envelope"))
    return f'"""Reference client for {model.api} ({note}). Generated by HAR2Client."""\n\n' \
        + _imports(client) + client


def _request_body(body_style: str, follows_urls: bool, renews: bool) -> str:
    """``_request``: one request with the API's conventions, its body sent as the API takes bodies."""
    if body_style == "json":
        lines = ["content = json.dumps(body).encode() if body is not None else None",
                 "headers, query = self._extras(method, path, content)"]
    else:  # a form or the query string: no body bytes of its own to sign
        lines = ["headers, query = self._extras(method, path, None)"]
    if follows_urls:  # the next page's URL comes from the API, with its own query
        lines += ["if url is not None:",
                  "    target = url if url.startswith(\"http\") else self._base + url",
                  "    merged = dict(httpx.URL(target).params)",
                  "    merged.update({k: v for k, v in query.items() if k not in merged})",
                  "    target, query = str(httpx.URL(target).copy_with(params=merged)), {}",
                  "else:",
                  "    query.update(params or {})",
                  "    target = self._base + path"]
    else:
        lines += ["query.update(params or {})", "target = self._base + path"]
    plain = "{k: str(v).lower() if isinstance(v, bool) else v for k, v in body.items()}"
    if body_style == "query":  # this API writes through the query string
        lines += ["if body is not None:", f"    query.update({plain})", "sent = {}"]
    elif body_style == "form":
        lines += ["sent = {}", "if body is not None:  # a form: booleans as the words true and false",
                  f"    sent[\"data\"] = {plain}"]
    else:
        lines += ["sent = {}", "if content is not None:",
                  "    sent[\"content\"] = content", "    headers[\"Content-Type\"] = \"application/json\""]
    lines.append("resp = self._http.request(method, target, params=query or None, headers=headers, **sent)")
    if renews:
        again = "method, path, params, body" + (", url" if follows_urls else "")
        lines += ["if resp.status_code == 401 and retry:  # the token or session expired: renew it once, try again",
                  "    self._renew()", f"    return self._request({again}, retry=False)"]
    lines += ["if resp.status_code == 404:", "    raise NotFoundError(resp.text)",
              "if resp.status_code >= 400:", "    raise ApiError(resp.status_code, resp.text)",
              "return self._check(resp)"]
    return "\n".join(lines)


def _on_path(path: str, body: str, limit: int = 120) -> str:
    """``body`` with ``PATH`` replaced by the path expression: inline, or first on a line of its own
    when inline the line would be longer than ``limit``."""
    first = body.split("\n", 1)[0]
    if 8 + len(first.replace("PATH", path)) <= limit:
        return body.replace("PATH", path)
    return f"path = {path}\n" + body.replace("PATH", "path")


def _inline_missing(parts: list[str], has_one: bool, has_items: bool) -> str:
    """The client with calls to helpers this API does not need (no envelope: ``_one``, ``_items``; no
    error envelope: ``_check``) replaced by their argument."""
    source = "".join(parts)
    for name, needed in (("_one", has_one), ("_items", has_items), ("_check", "def _check(" in source)):
        if not needed:
            source = _unwrap_calls(source, f"self.{name}(")
    return source


def _unwrap_calls(source: str, opening: str) -> str:
    while opening in source:
        start = source.index(opening)
        depth, i = 1, start + len(opening)
        while depth:
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        source = source[:start] + source[start + len(opening):i - 1] + source[i:]
    return source


_METHOD = re.compile(r"\n    def (\w+)\(")
_STATE = ("_bearer", "_refresh_token", "_account_id")
_STATE_MARK = "        # <the state the methods keep>\n"


def _without_unused_members(source: str) -> str:
    """``source`` without the private helpers of ``Client`` that nothing calls (one helper can make
    another unused: repeated until none is left), and with only the state its methods keep."""
    while True:
        starts = [m.start() for m in _METHOD.finditer(source)] + [len(source)]
        chunks = {m.group(1): (m.start(), starts[i + 1]) for i, m in enumerate(_METHOD.finditer(source))}
        unused = [name for name, (a, b) in chunks.items() if name.startswith("_") and name != "__init__"
                  and f"self.{name}" not in source[:a] + source[b:]]
        if not unused:
            break
        a, b = chunks[unused[0]]
        source = source[:a] + source[b:]
    state = [name for name in _STATE if f"self.{name}" in source]
    return source.replace(_STATE_MARK, f"        self.{' = self.'.join(state)} = None\n" if state else "", 1)


def _imports(client: str) -> str:
    """The import block of a client: the standard modules it uses, then httpx."""
    std = [f"import {m}\n" for m in ("base64", "hashlib", "json", "uuid") if f"{m}." in client]
    quote = "from urllib.parse import quote\n" if "quote(" in client else ""
    return "".join(std) + quote + ("\n" if std or quote else "") + "import httpx\n"


def _with_context(context: dict[str, Any], wrapped: str) -> tuple[str, str]:
    """The body a write sends, and the lines that build it, where the API wants more than the caller's
    fields (``create_context``, ``update_context``: a parent, a project, the record's type)."""
    if not context:
        return wrapped, ""
    place = f"body = {wrapped}\n"
    for dotted, want in context.items():
        *parents, last = dotted.split(".")
        chain = "body" + "".join(f'.setdefault("{k}", {{}})' for k in parents)
        if isinstance(want, str):
            place += f'{chain}["{last}"] = {_template_expr(want)}\n'
        elif isinstance(want, list):
            place += f'{chain}["{last}"] = [{", ".join(_template_expr(w) for w in want)}]\n'
        else:
            place += f'{chain}.setdefault("{last}", {json.dumps(want)})\n'
    return "body", place


def _template_expr(value: str) -> str:
    """A template over the client's parameters (``"{enterprise_id}"``) as a Python expression."""
    if value.startswith("{") and value.endswith("}") and value.count("{") == 1:
        return "self._" + value[1:-1]
    return ('f"' + value.replace("{", "{self._") + '"') if "{" in value else f'"{value}"'


def _plain_path(model: ApiModel, role: str, drop: str | None) -> str:
    path = model.operations[role].path
    version = model.conventions["version"]
    if drop == "version" and version["style"] == "path" and path.startswith(version["prefix"]):
        path = path[len(version["prefix"]):]
    return path


def _success_props(model: ApiModel, role: str) -> set[str]:
    from ._shapes import success_schema

    schema = success_schema(model, model.operations[role]) or {}
    single = model.conventions["envelope"].get("single")
    props = schema.get("properties", {})
    if single and single in props:
        props = props[single].get("properties", {})
    return set(props)


def method_names(model: ApiModel) -> dict[str, str]:
    """The client's method name for each operation role (``list_invoices``, ``get_invoice``, ...)."""
    res, many = model.resource, model.plural
    names = {"list": f"list_{many}", "get": f"get_{res}"}
    for role in ("create", "update", "delete"):
        if role in model.operations:
            names[role] = f"{role}_{res}"
    return names


__all__: list[Any] = ["constructor_args", "conventions_on", "credential_args", "method_names", "reference_source"]

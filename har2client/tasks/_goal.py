"""``goal.md``: the class a model must write, and nothing about how the API behaves.

The goal names the constructor, every method with its arguments and return
shape, and the errors to raise. How the API authenticates, pages, versions or
wraps its answers is for the model to learn from the recording. One writer for
every API the engine describes.
"""

from __future__ import annotations

from typing import Any

from ..api import ABOUT_KIND, ApiModel, constructor_args, method_names

_ARG_ABOUT = {"api_key": "the account's API key", "username": "the account's user name",
              "password": "the account's password",
              "client_id": "the OAuth client id issued to the account", "client_secret": "its OAuth client secret",
              "token_url": "the OAuth 2.0 token endpoint to use"}


def _type(schema: dict[str, Any]) -> str:
    return {"integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}.get(
        schema.get("type", "string"), "str")


def _about(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(f"`{c}`" for c in schema["enum"] if c is not None)
    if schema.get("x-kind") in ABOUT_KIND:
        return ABOUT_KIND[schema["x-kind"]]
    return str(schema.get("description", "")).split("\n")[0][:80]


def goal_markdown(model: ApiModel, task_id: str, call_seconds: float, task_seconds: float) -> str:
    """The goal a model reads: the API, the class and methods to write, the records and the limits."""
    names = method_names(model)
    args = constructor_args(model)
    res, key, rid = model.resource.replace("_", " "), model.id_field, f"{model.resource}_id"
    id_type = _type(model.id_schema)
    api = model.api if model.api.endswith("API") else f"{model.api} API"
    lines = [
        f"# Goal: a Python client for the {api} ({model.resource} records)",
        "",
        f"Task `{task_id}`. Write one file, `client.py`, that defines a class `Client` for the {api} as the "
        f"recording (`recording.har`) uses it. Your client is graded against a new server: a different host, "
        f"different credentials and different data, so values copied from the recording will not work there.",
        "",
        "## Constructor", "",
        "```python\nClient(" + ", ".join(["base_url: str"] + [f"{a}: str" for a in args]) + ")\n```", "",
        f"- `base_url`: the scheme and host of the server, with no path and no trailing slash "
        f"(in the recording it was `{model.server}`).",
    ]
    for a in args:
        about = _ARG_ABOUT.get(a) or f"the `{a}` this client works in"
        if a == "api_key" and model.auth["style"] == "bearer":
            about = "the account's access token"
        if a == "password" and model.auth.get("password"):  # a provider that signs in with a key as password
            about = "the password or API token that goes with the user name"
        if a == "token_url":
            about += f" (in the recording it was `{model.auth['token_url']}`)"
        lines.append(f"- `{a}`: {about}.")
    lines += ["", "## Methods", ""]
    if model.filters:
        f = model.filters[0]
        lines += [f"### `{names['list']}({f}: str | None = None) -> list[dict]`", "",
                  f"Every {res}, each exactly once, in any order: all of them, however the API divides them up. "
                  f"With `{f}`, only the {model.plural.replace('_', ' ')} whose `{f}` equals it.", ""]
    else:
        lines += [f"### `{names['list']}() -> list[dict]`", "",
                  f"Every {res}, each exactly once: all of them, however the API divides them up.", ""]
    lines += [f"### `{names['get']}({rid}: {id_type}) -> dict`", "",
              f"The {res} whose `{key}` is `{rid}`. Raises `NotFoundError` if there is none.", ""]
    if "create" in names:
        props, required = model.request_fields("create")
        if props and set(props) == required:  # every field is needed: say which, with their types
            sig = ", ".join(f"{k}: {_type(v)}" for k, v in props.items())
            lines += [f"### `{names['create']}({sig}) -> dict`", "",
                      f"Creates one {res} and returns it as the API stored it, with its new `{key}`.", ""]
        else:
            lines += [f"### `{names['create']}(**fields) -> dict`", "",
                      f"Creates one {res} from the given fields (named as the API names them in requests) and "
                      f"returns it as the API stored it, with its new `{key}`.", ""]
    if "update" in names:
        lines += [f"### `{names['update']}({rid}: {id_type}, **changes) -> dict`", "",
                  f"Changes the given fields of the {res} and returns it as it is afterwards. "
                  f"Raises `NotFoundError` if there is none.", ""]
    if "delete" in names:
        lines += [f"### `{names['delete']}({rid}: {id_type}) -> None`", "",
                  f"Deletes the {res}. Raises `NotFoundError` if there is none.", ""]
    lines += [f"## The {res} record", "",
              f"Methods return each {res} as the API returns one record: a `dict` with at least these keys.", "",
              "| key | type | what |", "| --- | --- | --- |"]
    for k, v in model.record_schema.get("properties", {}).items():
        about = f"the {res}'s id, assigned by the API" if k == key else _about(v)
        lines.append(f"| `{k}` | {_type(v)} | {about} |")
    lines += [""] + closing_sections(call_seconds, task_seconds)
    return "\n".join(lines)


def closing_sections(call_seconds: float, task_seconds: float) -> list[str]:
    """The goal's Errors and Rules, the same for every task."""
    return [
        "## Errors", "",
        "`client.py` must define `class NotFoundError(Exception)` and raise it as described above. "
        "Any other failure may raise any exception.",
        "",
        "## Rules", "",
        "- Use only the Python standard library, `httpx` and `requests`.",
        "- Return plain data: `dict`, `list`, `str`, `int`, `float`, `bool`, `None`.",
        f"- Each call must finish within {call_seconds:g} seconds, and all calls of a grade within {task_seconds:g} "
        "seconds. "
        "If two tests in a row time out, the remaining tests are not run and fail.",
        "- The grader calls your methods on new `Client` objects, one per test, and checks the answers "
        "against the server's own data.",
        "",
    ]

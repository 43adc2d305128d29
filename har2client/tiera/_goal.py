"""``goal.md`` for a Tier A task: the class to write for a real API, and nothing about its conventions."""

from __future__ import annotations

from typing import Any

from ..tasks._goal import closing_sections
from ._openapi import TierAModel
from ._reference import constructor_args, method_names

_ARG_ABOUT = {"api_key": "the account's API key or access token", "username": "the user name to sign in with",
              "password": "the password or API token that goes with it", "token": "the user's API token",
              "client_id": "the OAuth client id of the application", "client_secret": "its OAuth client secret",
              "token_url": "the OAuth 2.0 token endpoint to use"}


def _type(schema: dict[str, Any]) -> str:
    return {"integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}.get(
        schema.get("type", "string"), "str")


def tiera_goal_markdown(model: TierAModel, call_seconds: float, task_seconds: float) -> str:
    names = method_names(model)
    args = constructor_args(model)
    res, key = model.resource.replace("_", " "), model.id_field
    id_type = _type(model.id_schema)
    lines = [
        f"# Goal: a Python client for the {model.api} API ({model.resource} records)",
        "",
        f"Task `{model.task_id}`. Write one file, `client.py`, that defines a class `Client` for the {model.api} "
        f"API as the recording (`recording.har`) uses it. Your client is graded against a new server: a "
        f"different host, different credentials and different data, so values copied from the recording "
        f"will not work there.",
        "",
        "## Constructor", "",
        "```python\nClient(" + ", ".join(["base_url: str"] + [f"{a}: str" for a in args]) + ")\n```", "",
        f"- `base_url`: the scheme and host of the server, with no path and no trailing slash "
        f"(in the recording it was `{model.server}`).",
    ]
    for a in args:
        about = _ARG_ABOUT.get(a) or f"the `{a}` this client works in"
        if a == "token_url":
            about += f" (in the recording it was `{model.conventions['auth']['token_url']}`)"
        lines.append(f"- `{a}`: {about}.")
    lines += ["", "## Methods", "",
              f"### `{names['list']}() -> list[dict]`", "",
              f"Every {res}, each exactly once: all of them, however the API divides them up.", "",
              f"### `{names['get']}({model.resource}_id: {id_type}) -> dict`", "",
              f"The {res} whose `{key}` is `{model.resource}_id`. Raises `NotFoundError` if there is none.", ""]
    if "create" in names:
        lines += [f"### `{names['create']}(**fields) -> dict`", "",
                  f"Creates one {res} from the given fields (named as the API names them in requests) and "
                  f"returns it as the API stored it, with its new `{key}`.", ""]
    if "update" in names:
        lines += [f"### `{names['update']}({model.resource}_id: {id_type}, **changes) -> dict`", "",
                  f"Changes the given fields of the {res} and returns it as it is afterwards. "
                  f"Raises `NotFoundError` if there is none.", ""]
    if "delete" in names:
        lines += [f"### `{names['delete']}({model.resource}_id: {id_type}) -> None`", "",
                  f"Deletes the {res}. Raises `NotFoundError` if there is none.", ""]
    lines += [f"## The {res} record", "",
              f"Methods return each {res} as the API returns one record: a `dict` with at least these keys.", "",
              "| key | type |", "| --- | --- |"]
    lines += [f"| `{k}` | {_type(v)} |" for k, v in model.record_schema.get("properties", {}).items()]
    lines += [""] + closing_sections(call_seconds, task_seconds)
    return "\n".join(lines)

"""``goal.md``: the class a model must write, and nothing about how the API behaves.

The goal names the constructor, every method with its arguments and return
shape, and the errors to raise. How the API authenticates, pages, versions or
wraps its answers is for the model to learn from the recording.
"""

from __future__ import annotations

from ..api import ApiSpec, Field

_TYPES = {"money_cents": "int", "int": "int", "bool": "bool"}
_ABOUT = {
    "person": "a person's name", "company": "a company name", "email": "an email address",
    "money_cents": "an amount in cents", "currency": "an ISO 4217 currency code", "date": "a date, YYYY-MM-DD",
    "datetime": "a UTC timestamp, YYYY-MM-DDTHH:MM:SSZ", "int": "a whole number", "text": "free text",
    "bool": "true or false", "sku": "a stock-keeping code", "city": "a city", "phone": "a phone number",
    "url": "a URL",
}
_CREDENTIALS = {
    "api_key": "the account's API key",
    "username": "the account's user name",
    "password": "the account's password",
    "client_id": "the OAuth client id issued to the account",
    "client_secret": "the OAuth client secret issued to the account",
}


def _py_type(f: Field) -> str:
    return _TYPES.get(f.kind, "str")


def _about(f: Field) -> str:
    if f.kind == "enum":
        return "one of " + ", ".join(f"`{c}`" for c in f.choices)
    return _ABOUT[f.kind]


def goal_markdown(spec: ApiSpec, task_id: str, call_seconds: float, task_seconds: float) -> str:
    res = spec.resource
    n, p = res.name, res.plural
    args = spec.credential_names
    sig = ", ".join(["base_url: str"] + [f"{a}: str" for a in args])
    create_sig = ", ".join(f"{f.name}: {_py_type(f)}" for f in res.writable_fields)
    lines = [
        f"# Goal: a Python client for the {spec.name}",
        "",
        f"Task `{task_id}`. Write one file, `client.py`, that defines a class `Client` for the {spec.name}, "
        f"as it is used in the recording (`recording.har`). Your client is graded against a new server: "
        f"a different host, different credentials and different data, so values copied from the "
        f"recording will not work there.",
        "",
        "## Constructor",
        "",
        f"```python\nClient({sig})\n```",
        "",
        f"- `base_url`: the scheme and host of the server, with no path and no trailing slash "
        f"(in the recording it was `https://{spec.host}`).",
    ]
    lines += [f"- `{a}`: {_CREDENTIALS[a]}." for a in args]
    lines += ["", "## Methods", ""]
    filt = res.filter_field
    if filt:
        lines += [f"### `list_{p}({filt}: str | None = None) -> list[dict]`", "",
                  f"Every {n} in the account, each exactly once, in any order: all of them, however the API "
                  f"divides them up. With `{filt}`, only the {p} whose `{filt}` equals it.", ""]
    else:
        lines += [f"### `list_{p}() -> list[dict]`", "", f"Every {n} in the account, each exactly once.", ""]
    lines += [
        f"### `get_{n}({n}_id: str) -> dict`", "",
        f"The {n} with that id. Raises `NotFoundError` if there is none.", "",
        f"### `create_{n}({create_sig}) -> dict`", "",
        f"Creates one {n} and returns it as the API stored it, including its new `id`.", "",
        f"### `update_{n}({n}_id: str, **changes) -> dict`", "",
        f"Changes the given fields of the {n} and returns the updated {n}. Raises `NotFoundError` if there is none.", "",
        f"### `delete_{n}({n}_id: str) -> None`", "",
        f"Deletes the {n}. Raises `NotFoundError` if there is none.", "",
        f"## The {n} record", "",
        f"Methods return each {n} as a `dict` with these keys (more are allowed):", "",
        "| key | type | what |", "| --- | --- | --- |",
        f"| `id` | str | the {n}'s id, assigned by the API |",
    ]
    lines += [f"| `{f.name}` | {_py_type(f)} | {_about(f)} |" for f in res.fields]
    lines += [""] + closing_sections(call_seconds, task_seconds)
    return "\n".join(lines)


def closing_sections(call_seconds: float, task_seconds: float) -> list[str]:
    """The goal's Errors and Rules, the same for every tier."""
    return [
        "## Errors", "",
        "`client.py` must define `class NotFoundError(Exception)` and raise it as described above. "
        "Any other failure may raise any exception.",
        "",
        "## Rules", "",
        "- Use only the Python standard library, `httpx` and `requests`.",
        "- Return plain data: `dict`, `list`, `str`, `int`, `float`, `bool`, `None`.",
        f"- Each call must finish within {call_seconds:g} seconds, and all calls of a grade within {task_seconds:g} seconds. "
        "If two tests in a row time out, the remaining tests are not run and fail.",
        "- The grader calls your methods on new `Client` objects, one per test, and checks the answers "
        "against the server's own data.",
        "",
    ]

"""Hidden tests: how the judge runs them (the tests themselves are data in ``hidden/tests.json``).

A :class:`HiddenTest` names one behaviour and its parameters. The judge runs it
through the client's public methods only and checks the answer against the
grading instance's own state, read at check time: the truth never leaves the
judge's process. Each task kind supplies its :class:`World` (the judge's view
of its grading instance) and writes its own tests; nothing here knows a tier.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable



class TestFailure(Exception):
    """The client's answer was wrong; the message says how."""


class World:
    """What a hidden test may know about the API under test: its records and how the client names things.

    The judge's own view of the grading instance; Tier B and Tier A each provide one.
    """

    id_field = "id"
    names: dict[str, str] = {}      # role (list, get, create, update, delete, filter) -> method / argument name

    def rows(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def get(self, rid: Any) -> dict[str, Any] | None:
        raise NotImplementedError

    def missing_id(self, r: random.Random) -> Any:
        raise NotImplementedError

    def new_value(self, field: str, old: Any, r: random.Random) -> Any:
        raise NotImplementedError

    def record_field(self, name: str) -> str:
        """The record's name for a field the client writes under ``name``."""
        return name

    def expected(self, values: dict[str, Any]) -> dict[str, Any]:
        """What a record written with ``values`` must contain (compared as a subset)."""
        return {self.record_field(k): v for k, v in values.items()}

    def value_of(self, row: dict[str, Any], field: str) -> Any:
        return row[self.record_field(field)]

    def with_change(self, row: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
        return {**row, self.record_field(field): value}


@dataclass
class Context:
    """What a running test may use: the client (through ``call``) and the judge's own world."""

    world: World
    call: Callable[..., Any]          # call(method, *args, **kwargs) -> value, raises ClientRaised
    rng: random.Random
    instance: Any = None              # the Tier B instance, for tests that act on its tokens and clock

    def rows(self) -> list[dict[str, Any]]:
        return self.world.rows()

    def picked(self, pick: int) -> dict[str, Any]:
        rows = self.rows()
        return rows[pick % len(rows)]

    def name(self, role: str) -> str:
        return self.world.names[role]


class ClientRaised(Exception):
    """The client's method raised; ``error`` is the worker's description of it."""

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        super().__init__(f"{method} raised {error.get('type')}: {error.get('message')}")
        self.error = error


def _same_record(got: Any, want: dict[str, Any], what: str) -> None:
    """``got`` holds every key of ``want`` with its value; nested objects are compared the same way."""
    if not isinstance(got, dict):
        raise TestFailure(f"{what} returned {type(got).__name__}, expected a dict with keys {sorted(want)}")
    for k, v in want.items():
        if k not in got:
            raise TestFailure(f"{what} returned a dict without {k!r} (keys: {sorted(got)[:8]})")
        if isinstance(v, dict) and isinstance(got[k], dict):
            _same_record(got[k], v, f"{what}, {k}")
        elif got[k] != v:
            raise TestFailure(f"{what}: {k}={got[k]!r}, expected {v!r}")


def _same_list(ctx: Context, got: Any, want: list[dict[str, Any]], what: str) -> None:
    key = ctx.world.id_field
    if not isinstance(got, list):
        raise TestFailure(f"{what} returned {type(got).__name__}, expected a list")
    ids = [g.get(key) if isinstance(g, dict) else None for g in got]
    want_ids = [w[key] for w in want]
    if len(ids) != len(set(map(repr, ids))):
        raise TestFailure(f"{what} returned {len(ids)} records with repeated ids")
    missing = set(map(repr, want_ids)) - set(map(repr, ids))
    extra = set(map(repr, ids)) - set(map(repr, want_ids))
    if missing or extra:
        raise TestFailure(f"{what} returned {len(ids)} records, expected {len(want_ids)}"
                          + (f" ({len(missing)} missing)" if missing else "")
                          + (f" ({len(extra)} unexpected)" if extra else ""))
    by_id = {repr(g[key]): g for g in got}
    for w in want:
        _same_record(by_id[repr(w[key])], w, f"{what}, record {w[key]}")


def _list(ctx: Context, params: dict[str, Any]) -> None:
    _same_list(ctx, ctx.call(ctx.name("list")), ctx.rows(), f"{ctx.name('list')}()")


def _list_filtered(ctx: Context, params: dict[str, Any]) -> None:
    f, value = ctx.name("filter"), params["value"]
    want = [r for r in ctx.rows() if r.get(f) == value]
    _same_list(ctx, ctx.call(ctx.name("list"), **{f: value}), want, f"{ctx.name('list')}({f}={value!r})")


def _get_one(ctx: Context, params: dict[str, Any]) -> None:
    row = ctx.picked(params["pick"])
    rid = row[ctx.world.id_field]
    _same_record(ctx.call(ctx.name("get"), rid), row, f"{ctx.name('get')}({rid!r})")


def _get_missing(ctx: Context, params: dict[str, Any]) -> None:
    # A client that raises for every id must not pass: the same client first finds a real one.
    _get_one(ctx, {"pick": params.get("pick", 0)})
    rid = ctx.world.missing_id(ctx.rng)
    method = ctx.name("get")
    try:
        got = ctx.call(method, rid)
    except ClientRaised as exc:
        if "NotFoundError" not in exc.error.get("mro", []):
            raise TestFailure(f"{method}({rid!r}) raised {exc.error.get('type')}, expected NotFoundError") from None
        return
    raise TestFailure(f"{method}({rid!r}) returned {str(got)[:80]!r} for an id that does not exist")


def _create(ctx: Context, params: dict[str, Any]) -> None:
    values, method, key = params["values"], ctx.name("create"), ctx.world.id_field
    want = ctx.world.expected(values)
    before = len(ctx.rows())
    got = ctx.call(method, **values)
    if not isinstance(got, dict) or got.get(key) in (None, ""):
        raise TestFailure(f"{method} returned {str(got)[:80]!r}, expected the new record with its {key}")
    _same_record(got, want, method)
    stored = ctx.world.get(got[key])
    if stored is None:
        raise TestFailure(f"{method} returned {key} {got[key]!r}, which the server does not have")
    _same_record(stored, want, f"the server's copy after {method}")
    if len(ctx.rows()) != before + 1:
        raise TestFailure(f"{method} changed the record count by {len(ctx.rows()) - before}, expected 1")


def _update(ctx: Context, params: dict[str, Any]) -> None:
    row, field = ctx.picked(params["pick"]), params["field"]
    value = ctx.world.new_value(field, ctx.world.value_of(row, field), ctx.rng)
    method, rid = ctx.name("update"), row[ctx.world.id_field]
    got = ctx.call(method, rid, **{field: value})
    want = ctx.world.with_change(row, field, value)
    _same_record(got, want, method)
    _same_record(ctx.world.get(rid), want, f"the server's copy after {method}")


def _delete(ctx: Context, params: dict[str, Any]) -> None:
    row, method = ctx.picked(params["pick"]), ctx.name("delete")
    rid = row[ctx.world.id_field]
    before = len(ctx.rows())
    ctx.call(method, rid)
    if ctx.world.get(rid) is not None:
        raise TestFailure(f"{method}({rid!r}) returned, but the record is still on the server")
    if len(ctx.rows()) != before - 1:
        raise TestFailure(f"{method} removed {before - len(ctx.rows())} records, expected 1")


def _expiry(ctx: Context, params: dict[str, Any]) -> None:
    _list(ctx, {})
    ctx.instance.expire_tokens()
    _get_one(ctx, params)
    ctx.instance.expire_tokens()
    _create(ctx, params)


def _long_session(ctx: Context, params: dict[str, Any]) -> None:
    rows = ctx.rows()
    for i in range(params["calls"]):
        row = rows[i % len(rows)]
        rid = row[ctx.world.id_field]
        _same_record(ctx.call(ctx.name("get"), rid), row, f"call {i + 1}: {ctx.name('get')}")


KINDS: dict[str, Callable[[Context, dict[str, Any]], None]] = {
    "list_all": _list,
    "list_filtered": _list_filtered,
    "get_one": _get_one,
    "get_missing": _get_missing,
    "create": _create,
    "update": _update,
    "delete": _delete,
    "expiry": _expiry,
    "long_session": _long_session,
}

"""Hidden tests: how the judge runs them (the tests themselves are data in ``hidden/tests.json``).

A :class:`HiddenTest` names one behaviour and its parameters. The judge runs it
through the client's public methods only and checks the answer against the
grading instance's own state, read at check time: the truth never leaves the
judge's process. Each task kind supplies its :class:`World` (the judge's view
of its grading instance) and writes its own tests; nothing here knows a tier.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class TestFailure(Exception):
    """The client's answer was wrong; the message says how."""


class World:
    """What a hidden test may know about the API under test: its records and how the client names things.

    The judge's own view of the grading instance; Tier B and Tier A each provide one.
    """

    id_field = "id"
    names: dict[str, str] = {}      # role (list, get, create, update, delete, filter) -> method / argument name

    def rows(self) -> list[dict[str, Any]]:
        """The server's records now, as the client should see them."""
        raise NotImplementedError

    def get(self, rid: Any) -> dict[str, Any] | None:
        """The server's record ``rid`` now, or None."""
        raise NotImplementedError

    def missing_id(self, r: random.Random) -> Any:
        """An id of the API's form that no record has."""
        raise NotImplementedError

    def new_value(self, field: str, old: Any, r: random.Random) -> Any:
        """A valid value for ``field`` that differs from ``old``."""
        raise NotImplementedError

    def record_field(self, name: str) -> str:
        """The record's name for a field the client writes under ``name``."""
        return name

    def expected(self, values: dict[str, Any]) -> dict[str, Any]:
        """What a record written with ``values`` must contain (compared as a subset)."""
        return {self.record_field(k): v for k, v in values.items()}

    def value_of(self, row: dict[str, Any], field: str) -> Any:
        """``field``'s value in ``row``."""
        return row[self.record_field(field)]

    def with_change(self, row: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
        """``row`` with ``field`` set to ``value``."""
        return {**row, self.record_field(field): value}

    def change(self, rid: Any, field: str, value: Any) -> None:
        """Change a record on the server behind the client's back (as another user of the API would)."""
        raise NotImplementedError

    def expire_after(self, requests: int) -> None:
        """Make every live token or session expire after ``requests`` more requests (mid-listing expiry)."""
        raise NotImplementedError

    def add_record(self) -> dict[str, Any]:
        """Add a record on the server behind the client's back; return it."""
        raise NotImplementedError

    def remove(self, rid: Any) -> None:
        """Remove a record on the server behind the client's back."""
        raise NotImplementedError


@dataclass
class Context:
    """What a running test may use: the client (through ``call``) and the judge's own world."""

    world: World
    call: Callable[..., Any]          # call(method, *args, **kwargs) -> value, raises ClientRaised
    rng: random.Random
    instance: Any = None              # the grading instance, for tests that act on its tokens and clock
    fresh: Callable[[], None] = lambda: None  # a new Client object for the calls that follow

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
    _expect_not_found(ctx, ctx.name("get"), ctx.world.missing_id(ctx.rng))


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


def _expect_not_found(ctx: Context, method: str, *args: Any, **kwargs: Any) -> None:
    shown = ", ".join([repr(a) for a in args] + [f"{k}=..." for k in kwargs])
    try:
        got = ctx.call(method, *args, **kwargs)
    except ClientRaised as exc:
        if "NotFoundError" not in exc.error.get("mro", []):
            raise TestFailure(f"{method}({shown}) raised {exc.error.get('type')}, expected NotFoundError: "
                              f"{str(exc.error.get('message'))[:200]}") from None
        return
    raise TestFailure(f"{method}({shown}) returned {str(got)[:80]!r} for an id that does not exist")


def _create_then_read(ctx: Context, params: dict[str, Any]) -> None:
    """What a create stored is what a new client reads back, alone and in the list."""
    values, key = params["values"], ctx.world.id_field
    got = ctx.call(ctx.name("create"), **values)
    if not isinstance(got, dict) or got.get(key) in (None, ""):
        raise TestFailure(f"{ctx.name('create')} returned {str(got)[:80]!r}, expected the new record with its {key}")
    ctx.fresh()
    want = ctx.world.expected(values)
    _same_record(ctx.call(ctx.name("get"), got[key]), want, f"{ctx.name('get')} of the new record")
    listed = ctx.call(ctx.name("list"))
    if not isinstance(listed, list) or not any(isinstance(r, dict) and r.get(key) == got[key] for r in listed):
        raise TestFailure(f"{ctx.name('list')}() after {ctx.name('create')} does not hold the new record")


def _create_twice(ctx: Context, params: dict[str, Any]) -> None:
    """Two creates are two records, with two ids."""
    key, before = ctx.world.id_field, len(ctx.rows())
    first = ctx.call(ctx.name("create"), **params["values"])
    second = ctx.call(ctx.name("create"), **params["again"])
    ids = [r.get(key) if isinstance(r, dict) else None for r in (first, second)]
    if None in ids or ids[0] == ids[1]:
        raise TestFailure(f"two calls of {ctx.name('create')} gave the ids {ids}, expected two new ones")
    if len(ctx.rows()) != before + 2:
        raise TestFailure(f"two calls of {ctx.name('create')} changed the record count by {len(ctx.rows()) - before}")


def _update_then_read(ctx: Context, params: dict[str, Any]) -> None:
    """An update of a record the client created shows through a new client."""
    key, field = ctx.world.id_field, params["field"]
    created = ctx.call(ctx.name("create"), **params["values"])
    if not isinstance(created, dict) or created.get(key) in (None, ""):
        raise TestFailure(f"{ctx.name('create')} returned {str(created)[:80]!r}, expected the new record")
    rid = created[key]
    row = ctx.world.get(rid)
    if row is None:
        raise TestFailure(f"{ctx.name('create')} returned {key} {rid!r}, which the server does not have")
    value = ctx.world.new_value(field, ctx.world.value_of(row, field), ctx.rng)
    ctx.call(ctx.name("update"), rid, **{field: value})
    ctx.fresh()
    want = ctx.world.with_change(ctx.world.get(rid) or row, field, value)
    _same_record(ctx.call(ctx.name("get"), rid), want, f"{ctx.name('get')} after {ctx.name('update')}")


def _update_every_field(ctx: Context, params: dict[str, Any]) -> None:
    row = ctx.picked(params["pick"])
    rid, want = row[ctx.world.id_field], dict(row)
    changes = {}
    for field in params["fields"]:
        changes[field] = ctx.world.new_value(field, ctx.world.value_of(row, field), ctx.rng)
        want = ctx.world.with_change(want, field, changes[field])
    got = ctx.call(ctx.name("update"), rid, **changes)
    _same_record(got, want, f"{ctx.name('update')} of every field")
    _same_record(ctx.world.get(rid), want, f"the server's copy after {ctx.name('update')} of every field")


def _update_missing(ctx: Context, params: dict[str, Any]) -> None:
    _get_one(ctx, {"pick": params.get("pick", 0)})  # a client that raises for every id must not pass
    row = ctx.picked(params.get("pick", 0))
    field = params["field"]
    value = ctx.world.new_value(field, ctx.world.value_of(row, field), ctx.rng)
    _expect_not_found(ctx, ctx.name("update"), ctx.world.missing_id(ctx.rng), **{field: value})


def _delete_then_get(ctx: Context, params: dict[str, Any]) -> None:
    """A record the client created and deleted is gone for a new client too."""
    key = ctx.world.id_field
    created = ctx.call(ctx.name("create"), **params["values"])
    if not isinstance(created, dict) or created.get(key) in (None, ""):
        raise TestFailure(f"{ctx.name('create')} returned {str(created)[:80]!r}, expected the new record")
    if ctx.world.get(created[key]) is None:
        raise TestFailure(f"{ctx.name('create')} returned {key} {created[key]!r}, which the server does not have")
    ctx.call(ctx.name("delete"), created[key])
    if ctx.world.get(created[key]) is not None:
        raise TestFailure(f"{ctx.name('delete')}({created[key]!r}) returned, but the record is still on the server")
    ctx.fresh()
    _expect_not_found(ctx, ctx.name("get"), created[key])


def _delete_missing(ctx: Context, params: dict[str, Any]) -> None:
    _get_one(ctx, {"pick": params.get("pick", 0)})  # a client that raises for every id must not pass
    _expect_not_found(ctx, ctx.name("delete"), ctx.world.missing_id(ctx.rng))


def _get_sees_changes(ctx: Context, params: dict[str, Any]) -> None:
    """After another user changed a record, a new client reads the change (no stale copy)."""
    _list(ctx, {})
    row, field = ctx.picked(params["pick"]), params["field"]
    rid = row[ctx.world.id_field]
    value = ctx.world.new_value(field, ctx.world.value_of(row, field), ctx.rng)
    ctx.world.change(rid, field, value)
    ctx.fresh()
    _same_record(ctx.call(ctx.name("get"), rid), ctx.world.with_change(row, field, value),
                 f"{ctx.name('get')}({rid!r}) after the record changed on the server")


def _list_sees_changes(ctx: Context, params: dict[str, Any]) -> None:
    """After another user added one record and removed another, a new client lists exactly what is there."""
    _list(ctx, {})
    ctx.world.add_record()
    ctx.world.remove(ctx.picked(params["pick"])[ctx.world.id_field])
    ctx.fresh()
    _list(ctx, {})


def _get_removed_elsewhere(ctx: Context, params: dict[str, Any]) -> None:
    row = ctx.picked(params["pick"])
    rid = row[ctx.world.id_field]
    _same_record(ctx.call(ctx.name("get"), rid), row, f"{ctx.name('get')}({rid!r})")
    ctx.world.remove(rid)
    ctx.fresh()
    _expect_not_found(ctx, ctx.name("get"), rid)


def _list_filtered_pages(ctx: Context, params: dict[str, Any]) -> None:
    """A filtered listing of the value most records have: all of them, however many pages they take."""
    f = ctx.name("filter")
    counts: dict[Any, int] = {}
    for r in ctx.rows():
        counts[r.get(f)] = counts.get(r.get(f), 0) + 1
    value = max(sorted(counts, key=str), key=lambda v: counts[v])
    want = [r for r in ctx.rows() if r.get(f) == value]
    _same_list(ctx, ctx.call(ctx.name("list"), **{f: value}), want, f"{ctx.name('list')}({f}={value!r})")


def _expiry_while_paging(ctx: Context, params: dict[str, Any]) -> None:
    """The token or session dies after the first page of a listing: the client renews and goes on."""
    _get_one(ctx, {"pick": params.get("pick", 0)})  # signed in
    ctx.world.expire_after(1)
    _list(ctx, {})


# The client's methods (by role) each kind of test calls: hidden tests are ordered so that two in a row
# share none where they can, so a client that hangs in one method is not cut short by that alone.
USES: dict[str, frozenset[str]] = {kind: frozenset(roles.split()) for kind, roles in {
    "list_all": "list", "list_filtered": "list", "list_filtered_pages": "list", "list_sees_changes": "list",
    "get_one": "get", "get_missing": "get", "get_sees_changes": "list get", "get_removed_elsewhere": "get",
    "create": "create", "create_twice": "create", "create_then_read": "create get list",
    "update": "update", "update_every_field": "update", "update_missing": "get update",
    "update_then_read": "create update get", "delete": "delete", "delete_missing": "get delete",
    "delete_then_get": "create delete get", "expiry": "list get create", "long_session": "get",
    "expiry_while_paging": "get list",
}.items()}


def interleave(tests: list[Any]) -> list[Any]:
    """``tests`` (with ``.kind``) reordered so that neighbours call different methods where possible.

    Each step takes, of the tests sharing no method with the one before, the one whose methods most of
    the rest still need (so the busiest method is spread out first); the original order breaks ties.
    """
    left, out = list(tests), []
    previous: frozenset[str] = frozenset()
    while left:
        need: dict[str, int] = {}
        for t in left:
            for role in USES.get(t.kind, ()):
                need[role] = need.get(role, 0) + 1
        free = [t for t in left if not (USES.get(t.kind, frozenset()) & previous)] or left
        pick = max(free, key=lambda t: (sum(need[role] for role in USES.get(t.kind, ())), -left.index(t)))
        left.remove(pick)
        out.append(pick)
        previous = USES.get(pick.kind, frozenset())
    return out


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
    "create_then_read": _create_then_read,
    "create_twice": _create_twice,
    "update_then_read": _update_then_read,
    "update_every_field": _update_every_field,
    "update_missing": _update_missing,
    "delete_then_get": _delete_then_get,
    "delete_missing": _delete_missing,
    "get_sees_changes": _get_sees_changes,
    "list_filtered_pages": _list_filtered_pages,
    "list_sees_changes": _list_sees_changes,
    "get_removed_elsewhere": _get_removed_elsewhere,
    "expiry_while_paging": _expiry_while_paging,
}

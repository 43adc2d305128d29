"""Hidden tests: what they are (data in ``hidden/tests.json``) and how the judge runs them.

A :class:`HiddenTest` names one behaviour and its parameters. The judge runs it
through the client's public methods only and checks the answer against the
grading instance's own state, read at check time: the truth never leaves the
judge's process.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from .._seeding import rng, token_hex
from ..api import ApiSpec, Instance, Resource, fake_record, fake_value
from ..tasks._task import HiddenTest


def hidden_tests(spec: ApiSpec, seed: int) -> list[HiddenTest]:
    """The hidden tests of an API, derived from its description."""
    res, s = spec.resource, spec.switches
    r = rng(seed, "hidden-tests")
    n, p = res.name, res.plural
    tests = [HiddenTest(f"list_{p}_returns_every_record", "list_all")]
    if res.filter_field:
        choices = res.field(res.filter_field).choices
        tests.append(HiddenTest(f"list_{p}_filters_by_{res.filter_field}", "list_filtered",
                                {"value": choices[r.randrange(len(choices))]}))
    tests += [
        HiddenTest(f"get_{n}_returns_the_record", "get_one", {"pick": r.randrange(1000)}),
        HiddenTest(f"get_{n}_missing_raises_not_found", "get_missing", {"pick": r.randrange(1000)}),
        HiddenTest(f"create_{n}_persists", "create", {"values": fake_record(res, r)}),
        HiddenTest(f"update_{n}_persists", "update",
                   {"pick": r.randrange(1000), "field": res.writable_fields[r.randrange(len(res.writable_fields))].name}),
        HiddenTest(f"delete_{n}_persists", "delete", {"pick": r.randrange(1000)}),
    ]
    if s.expiry != "off":
        tests.append(HiddenTest("survives_token_expiry", "expiry",
                                {"pick": r.randrange(1000), "values": fake_record(res, r)}))
    if s.expiry.startswith("requests_"):
        tests.append(HiddenTest("long_session", "long_session", {"calls": 2 * spec.details.token_lifetime_requests + 2}))
    return tests


class TestFailure(Exception):
    """The client's answer was wrong; the message says how."""


@dataclass
class Context:
    """What a running test may use: the client (through ``call``) and the judge's own world."""

    spec: ApiSpec
    instance: Instance
    call: Callable[..., Any]          # call(method, *args, **kwargs) -> value, raises ClientRaised
    rng: random.Random

    @property
    def res(self) -> Resource:
        return self.spec.resource

    def rows(self) -> list[dict[str, Any]]:
        return self.instance.store.all(self.res.plural)

    def picked(self, pick: int) -> dict[str, Any]:
        rows = self.rows()
        return rows[pick % len(rows)]


class ClientRaised(Exception):
    """The client's method raised; ``error`` is the worker's description of it."""

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        super().__init__(f"{method} raised {error.get('type')}: {error.get('message')}")
        self.error = error


def _same_record(got: Any, want: dict[str, Any], what: str) -> None:
    if not isinstance(got, dict):
        raise TestFailure(f"{what} returned {type(got).__name__}, expected a dict with keys {sorted(want)}")
    for k, v in want.items():
        if k not in got:
            raise TestFailure(f"{what} returned a dict without {k!r} (keys: {sorted(got)[:8]})")
        if got[k] != v:
            raise TestFailure(f"{what}: {k}={got[k]!r}, expected {v!r}")


def _same_list(got: Any, want: list[dict[str, Any]], what: str) -> None:
    if not isinstance(got, list):
        raise TestFailure(f"{what} returned {type(got).__name__}, expected a list")
    ids = [g.get("id") if isinstance(g, dict) else None for g in got]
    want_ids = [w["id"] for w in want]
    if len(ids) != len(set(ids)):
        raise TestFailure(f"{what} returned {len(ids)} records with repeated ids")
    missing = set(want_ids) - set(ids)
    extra = set(ids) - set(want_ids)
    if missing or extra:
        raise TestFailure(f"{what} returned {len(ids)} records, expected {len(want_ids)}"
                          + (f" ({len(missing)} missing)" if missing else "")
                          + (f" ({len(extra)} unexpected)" if extra else ""))
    by_id = {g["id"]: g for g in got}
    for w in want:
        _same_record(by_id[w["id"]], w, f"{what}, record {w['id']}")


def _list(ctx: Context, params: dict[str, Any]) -> None:
    _same_list(ctx.call(f"list_{ctx.res.plural}"), ctx.rows(), f"list_{ctx.res.plural}()")


def _list_filtered(ctx: Context, params: dict[str, Any]) -> None:
    f, value = ctx.res.filter_field, params["value"]
    want = [r for r in ctx.rows() if r.get(f) == value]
    _same_list(ctx.call(f"list_{ctx.res.plural}", **{f: value}), want, f"list_{ctx.res.plural}({f}={value!r})")


def _get_one(ctx: Context, params: dict[str, Any]) -> None:
    row = ctx.picked(params["pick"])
    _same_record(ctx.call(f"get_{ctx.res.name}", row["id"]), row, f"get_{ctx.res.name}({row['id']!r})")


def _get_missing(ctx: Context, params: dict[str, Any]) -> None:
    # A client that raises for every id must not pass: the same client first finds a real one.
    _get_one(ctx, {"pick": params.get("pick", 0)})
    rid = f"{ctx.res.id_prefix}_{token_hex(ctx.rng, 6)}"
    method = f"get_{ctx.res.name}"
    try:
        got = ctx.call(method, rid)
    except ClientRaised as exc:
        if "NotFoundError" not in exc.error.get("mro", []):
            raise TestFailure(f"{method}({rid!r}) raised {exc.error.get('type')}, expected NotFoundError") from None
        return
    raise TestFailure(f"{method}({rid!r}) returned {str(got)[:80]!r} for an id that does not exist")


def _create(ctx: Context, params: dict[str, Any]) -> None:
    values, method = params["values"], f"create_{ctx.res.name}"
    before = len(ctx.rows())
    got = ctx.call(method, **values)
    if not isinstance(got, dict) or not isinstance(got.get("id"), str):
        raise TestFailure(f"{method} returned {str(got)[:80]!r}, expected the new record with its id")
    _same_record(got, values, method)
    stored = ctx.instance.store.get(ctx.res.plural, got["id"])
    if stored is None:
        raise TestFailure(f"{method} returned id {got['id']!r}, which the server does not have")
    _same_record(stored, values, f"the server's copy after {method}")
    if len(ctx.rows()) != before + 1:
        raise TestFailure(f"{method} changed the record count by {len(ctx.rows()) - before}, expected 1")


def _update(ctx: Context, params: dict[str, Any]) -> None:
    row, fname = ctx.picked(params["pick"]), params["field"]
    f = ctx.res.field(fname)
    value = row[fname]
    while value == row[fname]:
        value = fake_value(f, ctx.rng)
    method = f"update_{ctx.res.name}"
    got = ctx.call(method, row["id"], **{fname: value})
    want = {**row, fname: value}
    _same_record(got, want, method)
    _same_record(ctx.instance.store.get(ctx.res.plural, row["id"]), want, f"the server's copy after {method}")


def _delete(ctx: Context, params: dict[str, Any]) -> None:
    row, method = ctx.picked(params["pick"]), f"delete_{ctx.res.name}"
    before = len(ctx.rows())
    ctx.call(method, row["id"])
    if ctx.instance.store.get(ctx.res.plural, row["id"]) is not None:
        raise TestFailure(f"{method}({row['id']!r}) returned, but the record is still on the server")
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
        _same_record(ctx.call(f"get_{ctx.res.name}", row["id"]), row, f"call {i + 1}: get_{ctx.res.name}")


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

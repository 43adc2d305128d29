"""What the judge needs of an API: a fresh grading world, and the hidden tests the API's model implies."""

from __future__ import annotations

import random
import socket
from typing import Any

import httpx

from .._seeding import rng
from ..grading import World, interleave
from ..tasks import GradingWorld, HiddenTest, Task
from ._app import create_app
from ._fake import IdMaker, fake_from_schema
from ._http import HTTPServer
from ._instance import Instance, instance_seed
from ._model import ApiModel, load_model
from ._reference import constructor_args, method_names


class ApiWorld(World):
    """The judge's view of one grading instance: its records, and the names the client uses for things."""

    def __init__(self, model: ApiModel, instance: Instance) -> None:
        self.model, self.instance = model, instance
        self.id_field = model.id_field
        self.names = {**method_names(model), **({"filter": model.filters[0]} if model.filters else {})}
        self.bag = model.field_bag
        self._by_lower = {k.lower(): k for k in model.field_properties}

    def rows(self) -> list[dict[str, Any]]:
        """The server's records now."""
        return self.instance.all()

    def get(self, rid: Any) -> dict[str, Any] | None:
        """The server's record ``rid`` now, or None."""
        return self.instance.get(rid)

    def missing_id(self, r: random.Random) -> Any:
        """An id of the API's form that no record has."""
        maker = IdMaker(self.model.id_schema, self.id_field, r)
        maker.counter = max([row[self.id_field] for row in self.rows() if isinstance(row[self.id_field], int)],
                            default=maker.counter) + 1000
        while True:
            rid = maker()
            if self.get(rid) is None:
                return rid

    def new_value(self, field: str, old: Any, r: random.Random) -> Any:
        """A valid value for ``field`` that differs from ``old``."""
        schema = (self.model.request_fields("update")[0].get(field) if "update" in self.model.operations else None) \
            or self.model.field_properties.get(self.record_field(field)) or {"type": "string"}
        for _ in range(50):
            value = fake_from_schema(schema, r, field)
            if value != old:
                return value
        # A schema that allows one value only (or nearly): change it plainly instead.
        if isinstance(old, bool):
            return not old
        if isinstance(old, (int, float)):
            return old + 1
        return f"{old} (edited)"

    def record_field(self, name: str) -> str:
        return name if name in self._by_lower.values() else self._by_lower.get(name.lower(), name)

    def expected(self, values: dict[str, Any]) -> dict[str, Any]:
        # Only fields the record keeps can be checked (a droplet's region is an order, not a field of it).
        fields = {self._by_lower[k.lower()]: v for k, v in values.items()
                  if k.lower() in self._by_lower and k != self.id_field}
        return {self.bag: fields} if self.bag else fields

    def value_of(self, row: dict[str, Any], field: str) -> Any:
        """``field``'s value in ``row`` as the client sees the record."""
        return (row[self.bag] if self.bag else row).get(self.record_field(field))

    def with_change(self, row: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
        """``row`` with ``field`` set to ``value``."""
        if self.bag:
            return {**row, self.bag: {**row[self.bag], self.record_field(field): value}}
        return {**row, self.record_field(field): value}

    def change(self, rid: Any, field: str, value: Any) -> None:
        self.instance.update(rid, self.expected({field: value}))

    def expire_after(self, requests: int) -> None:
        self.instance.expire_after(requests)

    def add_record(self) -> dict[str, Any]:
        return self.instance.insert({})

    def remove(self, rid: Any) -> None:
        self.instance.delete(rid)


def client_kwargs(model: ApiModel, instance: Instance, base_url: str) -> dict[str, Any]:
    """The constructor arguments a client of ``instance`` gets: its base URL, credentials and parameters."""
    known: dict[str, Any] = {**instance.credentials, **instance.client_params}
    if "token_url" in constructor_args(model):
        path = httpx.URL(model.auth["token_url"]).raw_path.decode()
        for name, value in instance.client_params.items():
            path = path.replace("%7B" + name + "%7D", value).replace("{" + name + "}", value)
        known["token_url"] = base_url + path
    return {"base_url": base_url, **{a: known[a] for a in constructor_args(model)}}


def start_world(model: ApiModel, instance: Instance, sock: socket.socket) -> GradingWorld:
    """Serve ``instance`` on ``sock`` and give the judge its view of it."""
    server = HTTPServer(sock, create_app(model, instance))
    kwargs = client_kwargs(model, instance, f"http://{server.host}:{server.port}")
    return GradingWorld(ApiWorld(model, instance), server, kwargs, instance)


def start_grading_world(task: Task, grading_seed: int, sock: socket.socket) -> GradingWorld:
    """A fresh grading instance of a task's API (``hidden/openapi.yaml``), served on ``sock``."""
    g = task.grading
    model = load_model(task.hidden_file("openapi.yaml"), g.get("api_key"))
    instance = Instance(model, instance_seed(int(g["task_seed"]), "grading", grading_seed))
    return start_world(model, instance, sock)


def create_values(model: ApiModel, r: random.Random) -> dict[str, Any]:
    """Fields for a create: the plain ones the record keeps, and whatever the API requires besides."""
    props, required = model.request_fields("create")
    record = {k.lower() for k in model.field_properties}
    not_fields = model.not_caller_fields
    plain = {k for k, v in props.items() if (v.get("type") in ("string", "integer", "boolean") or "enum" in v)
             and k.lower() in record and k not in not_fields}
    return {k: fake_from_schema(v, r, k) for k, v in props.items()
            if k in plain or (k in required and k not in not_fields)}


NON_ASCII = ("Zoë Ångström", "Łódź — Straße", "Café Núñez", "東京 オフィス", "Ærø Ümlaut")


def plain_fields(model: ApiModel, role: str) -> tuple[list[str], list[str]]:
    """The fields a test may set through ``role``: those the record keeps, free text first."""
    props = model.request_fields(role)[0]
    record = {k.lower() for k in model.field_properties}
    not_fields = model.not_caller_fields
    candidates = [k for k, v in props.items() if k.lower() in record and k not in not_fields
                  and (v.get("type") in ("string", "integer") or "enum" in v)]
    if not candidates:  # an API whose only plain writable field is a flag (Notion's archived)
        candidates = [k for k, v in props.items() if k.lower() in record and v.get("type") == "boolean"]
    free = [k for k in candidates if "enum" not in props[k] and props[k].get("type") == "string"
            and not props[k].get("format") and not props[k].get("pattern")
            and props[k].get("x-kind", "text") in ("text", "person", "company", "city")]
    return candidates, free


def hidden_tests(model: ApiModel, seed: int) -> list[HiddenTest]:
    """The hidden tests of an API, for the operations and conventions it has.

    Besides one test per operation: reads after writes through a new client, writes to missing ids,
    a record changed behind the client's back, filtered listings over several pages, every writable
    field at once, non-ASCII text, and token expiry in the middle of a listing.
    """
    r = rng(seed, "hidden-tests", model.key)
    names, ops = method_names(model), model.operations
    tests = [HiddenTest(f"{names['list']}_returns_every_record", "list_all")]
    for f in model.filters[:1]:
        choices = model.field_properties[f].get("enum") or [fake_from_schema(model.field_properties[f], r, f)]
        tests.append(HiddenTest(f"{names['list']}_filters_by_{f}", "list_filtered",
                                {"value": choices[r.randrange(len(choices))]}))
        tests.append(HiddenTest(f"{names['list']}_filters_across_pages", "list_filtered_pages"))
    tests += [HiddenTest(f"{names['get']}_returns_the_record", "get_one", {"pick": r.randrange(1000)}),
              HiddenTest(f"{names['get']}_missing_raises_not_found", "get_missing", {"pick": r.randrange(1000)})]
    writable, free = plain_fields(model, "update") if "update" in ops else ([], [])
    seen = writable or [k for k, v in model.field_properties.items() if k != model.id_field
                        and v.get("type") == "string" and "enum" not in v and not v.get("format")]
    if seen:
        tests.append(HiddenTest(f"{names['get']}_sees_changes_made_elsewhere", "get_sees_changes",
                                {"pick": r.randrange(1000), "field": (free or seen)[r.randrange(len(free or seen))]}))
    tests += [HiddenTest(f"{names['list']}_sees_records_added_and_removed_elsewhere", "list_sees_changes",
                         {"pick": r.randrange(1000)}),
              HiddenTest(f"{names['get']}_of_a_record_removed_elsewhere_raises_not_found", "get_removed_elsewhere",
                         {"pick": r.randrange(1000)})]
    if "create" in ops:
        tests += [HiddenTest(f"{names['create']}_persists", "create", {"values": create_values(model, r)}),
                  HiddenTest(f"{names['create']}_twice_makes_two", "create_twice",
                             {"values": create_values(model, r), "again": create_values(model, r)}),
                  HiddenTest(f"{names['create']}_then_read_by_a_new_client", "create_then_read",
                             {"values": create_values(model, r)})]
        _, create_free = plain_fields(model, "create")
        if create_free:
            values = create_values(model, r)
            for i, k in enumerate(k for k in create_free if k in values):
                values[k] = NON_ASCII[(i + r.randrange(len(NON_ASCII))) % len(NON_ASCII)]
            tests.append(HiddenTest(f"{names['create']}_keeps_non_ascii_text", "create", {"values": values}))
    if "update" in ops and writable:
        pool = free or writable
        tests += [HiddenTest(f"{names['update']}_persists", "update",
                             {"pick": r.randrange(1000), "field": pool[r.randrange(len(pool))]}),
                  HiddenTest(f"{names['update']}_of_every_field", "update_every_field",
                             {"pick": r.randrange(1000), "fields": writable}),
                  HiddenTest(f"{names['update']}_missing_raises_not_found", "update_missing",
                             {"pick": r.randrange(1000), "field": pool[r.randrange(len(pool))]})]
        if "create" in ops:
            tests.append(HiddenTest(f"{names['update']}_then_read_by_a_new_client", "update_then_read",
                                    {"values": create_values(model, r), "field": pool[r.randrange(len(pool))]}))
    if "delete" in ops:
        tests += [HiddenTest(f"{names['delete']}_persists", "delete", {"pick": r.randrange(1000)}),
                  HiddenTest(f"{names['delete']}_missing_raises_not_found", "delete_missing",
                             {"pick": r.randrange(1000)})]
        if "create" in ops:
            tests.append(HiddenTest(f"{names['delete']}_then_get_raises_not_found", "delete_then_get",
                                    {"values": create_values(model, r)}))
    expiry = model.expiry
    if expiry and "create" in ops:
        tests.append(HiddenTest("survives_token_expiry", "expiry",
                                {"pick": r.randrange(1000), "values": create_values(model, r)}))
    if "requests" in expiry:
        tests.append(HiddenTest("long_session", "long_session", {"calls": 2 * int(expiry["requests"]) + 2}))
    if expiry and model.conventions["paging"]["style"] != "none":
        tests.append(HiddenTest(f"{names['list']}_survives_expiry_between_pages", "expiry_while_paging",
                                {"pick": r.randrange(1000)}))
    return interleave(tests)

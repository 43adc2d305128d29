"""What the judge needs for a Tier A task: a fresh grading world and the hidden tests of an API."""

from __future__ import annotations

import random
import re
import socket
from typing import Any

import httpx

from .._seeding import rng
from ..api._http import HTTPServer
from ..grading._tests import World
from ..tasks._kinds import GradingWorld
from ..tasks._task import HiddenTest, Task
from ._app import create_tiera_app
from ._fake import IdMaker, fake_from_schema
from ._instance import TierAInstance
from ._openapi import TierAModel, load_tiera_spec
from ._reference import constructor_args, method_names


class TierAWorld(World):
    def __init__(self, model: TierAModel, instance: TierAInstance) -> None:
        self.model, self.instance = model, instance
        self.id_field = model.id_field
        self.names = method_names(model)
        self.bag = model.field_bag
        self._by_lower = {k.lower(): k for k in model.field_properties}

    def rows(self) -> list[dict[str, Any]]:
        return self.instance.all()

    def get(self, rid: Any) -> dict[str, Any] | None:
        return self.instance.get(rid)

    def missing_id(self, r: random.Random) -> Any:
        maker = IdMaker(self.model.id_schema, self.id_field, r)
        maker.counter = max([row[self.id_field] for row in self.rows() if isinstance(row[self.id_field], int)],
                            default=maker.counter) + 1000
        while True:
            rid = maker()
            if self.get(rid) is None:
                return rid

    def new_value(self, field: str, old: Any, r: random.Random) -> Any:
        schema = self.model.request_fields("update")[0].get(field, {"type": "string"})
        value = old
        while value == old:
            value = fake_from_schema(schema, r, field)
        return value

    def record_field(self, name: str) -> str:
        return name if name in self._by_lower.values() else self._by_lower.get(name.lower(), name)

    def expected(self, values: dict[str, Any]) -> dict[str, Any]:
        # Only fields the record keeps can be checked (a droplet's region is an order, not a field of it).
        fields = {self._by_lower[k.lower()]: v for k, v in values.items()
                  if k.lower() in self._by_lower and k != self.id_field}
        return {self.bag: fields} if self.bag else fields

    def value_of(self, row: dict[str, Any], field: str) -> Any:
        return (row[self.bag] if self.bag else row).get(self.record_field(field))

    def with_change(self, row: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
        if self.bag:
            return {**row, self.bag: {**row[self.bag], self.record_field(field): value}}
        return {**row, self.record_field(field): value}


def start_tiera_world(model: TierAModel, task_seed: int, grading_seed: int,
                      sock: socket.socket) -> tuple[TierAWorld, HTTPServer, dict[str, Any]]:
    """A fresh grading instance of ``model`` served on ``sock``: its world, its server, the client's arguments."""
    instance = TierAInstance(model, rng(task_seed, "tiera-grading", grading_seed).getrandbits(62))
    server = HTTPServer(sock, create_tiera_app(model, instance))
    known = {**instance.credentials, **instance.client_params}
    if model.conventions["auth"]["style"] == "oauth2_client_credentials":
        path = httpx.URL(model.conventions["auth"]["token_url"]).raw_path.decode()
        for name, value in instance.client_params.items():
            path = path.replace("%7B" + name + "%7D", value).replace("{" + name + "}", value)
        known["token_url"] = f"http://{server.host}:{server.port}{path}"
    kwargs = {"base_url": f"http://{server.host}:{server.port}", **{a: known[a] for a in constructor_args(model)}}
    return TierAWorld(model, instance), server, kwargs


def start_task_world(task: Task, grading_seed: int, sock: socket.socket) -> GradingWorld:
    """A Tier A task's grading world (the task kind ``tiera``)."""
    g = task.grading
    model = load_tiera_spec(task.hidden_file("openapi.yaml"), g["api_name"])
    world, server, kwargs = start_tiera_world(model, int(g["task_seed"]), grading_seed, sock)
    return GradingWorld(world, server, kwargs)


def create_values(model: TierAModel, r: random.Random) -> dict[str, Any]:
    """Fields for a create: the plain ones the record keeps, and whatever the API requires besides."""
    props, required = model.request_fields("create")
    record = {k.lower() for k in model.field_properties}
    not_fields = {model.id_field, model.conventions.get("item_param")}
    plain = {k for k, v in props.items() if (v.get("type") in ("string", "integer", "boolean") or "enum" in v)
             and k.lower() in record and k not in not_fields}
    return {k: fake_from_schema(v, r, k) for k, v in props.items() if k in plain or k in required}


def tiera_hidden_tests(model: TierAModel, seed: int) -> list[HiddenTest]:
    """The hidden tests of a Tier A API, for the operations it has."""
    r = rng(seed, "tiera-hidden-tests", model.key)
    names = method_names(model)
    tests = [HiddenTest(f"{names['list']}_returns_every_record", "list_all"),
             HiddenTest(f"{names['get']}_returns_the_record", "get_one", {"pick": r.randrange(1000)}),
             HiddenTest(f"{names['get']}_missing_raises_not_found", "get_missing", {"pick": r.randrange(1000)})]
    ops = model.operations
    record = {k.lower() for k in model.field_properties}
    if "create" in ops:
        tests.append(HiddenTest(f"{names['create']}_persists", "create", {"values": create_values(model, r)}))
    if "update" in ops:
        props = model.request_fields("update")[0]
        not_fields = {model.id_field, model.conventions.get("item_param")}
        candidates = [k for k, v in props.items() if k.lower() in record and k not in not_fields
                      and (v.get("type") == "string" or "enum" in v)]
        if not candidates:  # an API whose only plain writable field is a flag (Notion's archived)
            candidates = [k for k, v in props.items() if k.lower() in record and v.get("type") == "boolean"]
        if candidates:
            free = [k for k in candidates if "enum" not in props[k] and props[k].get("type") == "string"]
            tests.append(HiddenTest(f"{names['update']}_persists", "update",
                                    {"pick": r.randrange(1000), "field": (free or candidates)[0]}))
    if "delete" in ops:
        tests.append(HiddenTest(f"{names['delete']}_persists", "delete", {"pick": r.randrange(1000)}))
    return tests


def tiera_replay_source(model: TierAModel, recording: Any) -> str:
    """The replay baseline of a Tier A task: its recorded requests, re-sent."""
    from ..agents._replay import recorded_calls, replay_client_source

    patterns = []
    for role, op in model.operations.items():
        regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(op.path))
        patterns.append((op.method, re.compile(f"^{regex}$"), role))

    def classify(e: Any) -> str | None:
        path = e.request.path
        for method, regex, role in patterns:
            if e.request.method == method and regex.match(path):
                return role
        return None

    return replay_client_source(model.api, recorded_calls(recording, model.host, classify), method_names(model))

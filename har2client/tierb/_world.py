"""Tier B's side of grading: its hidden tests, and the world the judge checks them against."""

from __future__ import annotations

import random
import socket
from typing import Any

from .._seeding import rng, token_hex
from ..api import ApiSpec, Instance, fake_record, fake_value, instance_seed, serve
from ..grading._tests import World
from ..tasks._kinds import GradingWorld
from ..tasks._task import HiddenTest, Task


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


class TierBWorld(World):
    def __init__(self, spec: ApiSpec, instance: Instance) -> None:
        self.spec, self.instance, self.res = spec, instance, spec.resource
        n, p = self.res.name, self.res.plural
        self.names = {"list": f"list_{p}", "get": f"get_{n}", "create": f"create_{n}", "update": f"update_{n}",
                      "delete": f"delete_{n}", "filter": self.res.filter_field}

    def rows(self) -> list[dict[str, Any]]:
        return self.instance.store.all(self.res.plural)

    def get(self, rid: Any) -> dict[str, Any] | None:
        return self.instance.store.get(self.res.plural, rid)

    def missing_id(self, r: random.Random) -> Any:
        return f"{self.res.id_prefix}_{token_hex(r, 6)}"

    def new_value(self, field: str, old: Any, r: random.Random) -> Any:
        f = self.res.field(field)
        value = old
        while value == old:
            value = fake_value(f, r)
        return value


def start_tierb_world(task: Task, grading_seed: int, sock: socket.socket) -> GradingWorld:
    """A fresh grading instance of a Tier B task served on ``sock`` (the task kind ``tierb``)."""
    instance = Instance(task.spec, instance_seed(int(task.grading["task_seed"]), "grading", grading_seed))
    server = serve(instance, sock=sock)
    return GradingWorld(TierBWorld(task.spec, instance), server,
                        {"base_url": server.base_url, **instance.credentials}, instance)

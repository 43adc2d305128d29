"""The old release's contract on a new release's server: what a repair task's goal still promises.

A repair task keeps v1's goal: the same methods, the same record keys, the same units. Where v2 renamed
a field or changed its unit, the judge reads the server's records in v1's terms (:class:`ContractWorld`)
and the task's reference is v2's client with an adapter that speaks v1's terms (:func:`repaired_source`).
"""

from __future__ import annotations

import random
import socket
from typing import Any

from ..api import ApiModel, ApiWorld, Instance, instance_seed, load_model, reference_source, start_world
from ..tasks import GradingWorld, Task


def renames_between(v1: ApiModel, v2: ApiModel) -> dict[str, str]:
    """v2's field name -> v1's, for the fields v2 renamed (it takes the old names in requests)."""
    return {new: old for old, new in v2.conventions.get("request_aliases", {}).items()
            if old in v1.field_properties and new in v2.field_properties}


class ContractWorld(ApiWorld):
    """A v2 grading instance, as v1's goal names its fields."""

    def __init__(self, model: ApiModel, instance: Instance, renames: dict[str, str]) -> None:
        super().__init__(model, instance)
        self.to_old, self.to_new = dict(renames), {old: new for new, old in renames.items()}

    def _old(self, row: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if row is None else {self.to_old.get(k, k): v for k, v in row.items()}

    def rows(self) -> list[dict[str, Any]]:
        """The server's records now, in the names the old client's contract uses."""
        return [self._old(r) for r in self.instance.all()]  # type: ignore[misc]

    def get(self, rid: Any) -> dict[str, Any] | None:
        """The server's record ``rid`` now, in the old contract's names, or None."""
        return self._old(self.instance.get(rid))

    def new_value(self, field: str, old: Any, r: random.Random) -> Any:
        """A valid value for the old contract's ``field`` that differs from ``old``."""
        return super().new_value(self.to_new.get(field, field), old, r)

    def change(self, rid: Any, field: str, value: Any) -> None:
        self.instance.update(rid, {self.to_new.get(field, field): value})


def start_repair_world(task: Task, grading_seed: int, sock: socket.socket) -> GradingWorld:
    """A fresh grading instance of a repair task's new release (the task kind ``repair``), read in v1's terms."""
    g = task.grading
    model = load_model(task.hidden_file("openapi.yaml"), g.get("model_key"))
    instance = Instance(model, instance_seed(int(g["task_seed"]), "grading", grading_seed))
    started = start_world(model, instance, sock)
    started.world = ContractWorld(model, instance, dict(g.get("renames", {})))
    return started


def repaired_source(v2: ApiModel, renames: dict[str, str]) -> str:
    """v2's reference client, speaking v1's contract: old field names out and in, old units out."""
    units = v2.conventions.get("units", {})
    source = reference_source(v2)
    if not renames and not units:
        return source
    names = [f"list_{v2.plural}", f"get_{v2.resource}"] + [f"{role}_{v2.resource}" for role in ("create", "update")
                                                          if role in v2.operations]
    to_new = {old: new for new, old in renames.items()}
    formats = {renames.get(f, f): v2.field_properties.get(f, {}).get("format", "") for f in units}
    return source.rstrip() + f'''


# The API renamed fields or changed units since this client's contract was written: keep the contract.
_TO_OLD = {renames!r}
_TO_NEW = {to_new!r}
_UNITS = {units!r}


def _contract(record):
    if not isinstance(record, dict):
        return record
    out = {{_TO_OLD.get(k, k): v for k, v in record.items()}}
    for field, unit in _UNITS.items():
        name = _TO_OLD.get(field, field)
        value = out.get(name)
        if unit == "decimal_from_cents" and isinstance(value, str):
            out[name] = int(round(float(value) * 100))
        elif unit == "epoch_from_date" and isinstance(value, int):
            import datetime
            moment = datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
            date_only = _FORMATS.get(name) == "date"
            out[name] = moment.date().isoformat() if date_only else moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return out


_FORMATS = {formats!r}


def _speaking_the_contract(method):
    def wrapper(self, *args, **kwargs):
        result = method(self, *args, **{{_TO_NEW.get(k, k): v for k, v in kwargs.items()}})
        return [_contract(r) for r in result] if isinstance(result, list) else _contract(result)
    return wrapper


for _name in {names!r}:
    setattr(Client, _name, _speaking_the_contract(getattr(Client, _name)))
'''

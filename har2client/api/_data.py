"""Seeded records for a resource, and the store an instance keeps them in."""

from __future__ import annotations

import datetime as _dt
import random
import threading
from typing import Any

from .._seeding import token_hex
from ._spec import Field, Resource

_FIRST = ("Ada", "Bruno", "Chiara", "Dev", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kwame",
          "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Vera",
          "Wen", "Ximena", "Yusuf", "Zofia")
_LAST = ("Almeida", "Berg", "Castillo", "Dubois", "Eriksen", "Fischer", "Gupta", "Haddad", "Ito",
         "Jansen", "Kowalski", "Larsen", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi",
         "Schmidt", "Tanaka", "Ueda", "Varga", "Walsh", "Yilmaz", "Zhang")
_COMPANY_A = ("Acme", "Birch", "Cobalt", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Indigo",
              "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quarry")
_COMPANY_B = ("Labs", "Logistics", "Foods", "Systems", "Studio", "Partners", "Works", "Health",
              "Retail", "Energy", "Media", "Supply")
_CITIES = ("Lisbon", "Oslo", "Nairobi", "Osaka", "Lyon", "Austin", "Porto", "Krakow", "Leeds",
           "Utrecht", "Tartu", "Seville", "Graz", "Halifax", "Adelaide", "Cork")
_WORDS = ("quarterly", "review", "urgent", "follow-up", "renewal", "onboarding", "backlog", "priority",
          "shipment", "delayed", "payment", "migration", "refund", "update", "request", "printer",
          "login", "invoice", "contract", "summer", "launch", "audit", "fix", "broken", "new")
_CURRENCIES = ("EUR", "USD", "GBP", "JPY", "CHF", "SEK")
_EPOCH = _dt.date(2026, 1, 1)


def fake_value(f: Field, r: random.Random) -> Any:
    """A realistic value for field ``f``."""
    k = f.kind
    if k == "person":
        return f"{r.choice(_FIRST)} {r.choice(_LAST)}"
    if k == "company":
        return f"{r.choice(_COMPANY_A)} {r.choice(_COMPANY_B)}"
    if k == "email":
        return f"{r.choice(_FIRST).lower()}.{r.choice(_LAST).lower()}{r.randint(1, 99)}@example.org"
    if k == "money_cents":
        return r.randint(max(f.low, 100), f.high or 500_000)
    if k == "currency":
        return r.choice(_CURRENCIES)
    if k == "enum":
        return r.choice(f.choices)
    if k == "date":
        return (_EPOCH + _dt.timedelta(days=r.randint(0, 365))).isoformat()
    if k == "datetime":
        moment = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(seconds=r.randint(0, 365 * 86400))
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if k == "int":
        return r.randint(f.low, f.high or 100)
    if k == "text":
        return " ".join(r.choice(_WORDS) for _ in range(r.randint(2, 5))).capitalize()
    if k == "bool":
        return r.random() < 0.5
    if k == "sku":
        return f"{r.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{r.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}-{r.randint(1000, 9999)}"
    if k == "city":
        return r.choice(_CITIES)
    if k == "phone":
        return f"+{r.randint(30, 49)} {r.randint(100, 999)} {r.randint(1000, 9999)}"
    if k == "url":
        return f"https://{r.choice(_COMPANY_A).lower()}.example.net/{r.choice(_WORDS)}"
    raise AssertionError(k)  # Field.__post_init__ rejects unknown kinds


def fake_record(resource: Resource, r: random.Random) -> dict[str, Any]:
    return {f.name: fake_value(f, r) for f in resource.fields}


def check_value(f: Field, value: Any) -> str | None:
    """Why ``value`` is not acceptable for ``f``, or ``None`` when it is."""
    k = f.kind
    if k in ("money_cents", "int"):
        return None if type(value) is int else "must be an integer"
    if k == "bool":
        return None if type(value) is bool else "must be true or false"
    if not isinstance(value, str):
        return "must be a string"
    if k == "enum" and value not in f.choices:
        return f"must be one of {', '.join(f.choices)}"
    if k == "currency" and (len(value) != 3 or not value.isupper()):
        return "must be a 3-letter ISO 4217 code"
    if k == "date":
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            return "must be a date (YYYY-MM-DD)"
    if k == "email" and "@" not in value:
        return "must be an email address"
    if not value:
        return "must not be empty"
    return None


class Store:
    """The records of one instance. Thread-safe: the server answers from several threads."""

    def __init__(self, resources: tuple[Resource, ...], r: random.Random) -> None:
        self._lock = threading.RLock()
        self._rng = r
        self._rows: dict[str, dict[str, dict[str, Any]]] = {res.plural: {} for res in resources}

    def new_id(self, resource: Resource) -> str:
        with self._lock:
            while True:
                rid = f"{resource.id_prefix}_{token_hex(self._rng, 6)}"
                if rid not in self._rows[resource.plural]:
                    return rid

    def insert(self, resource: Resource, values: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            record = {"id": self.new_id(resource), **values}
            self._rows[resource.plural][record["id"]] = record
            return dict(record)

    def seed_records(self, resource: Resource, count: int) -> None:
        for _ in range(count):
            self.insert(resource, fake_record(resource, self._rng))

    def all(self, plural: str) -> list[dict[str, Any]]:
        """Records in creation order, as copies."""
        with self._lock:
            return [dict(v) for v in self._rows[plural].values()]

    def get(self, plural: str, rid: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._rows[plural].get(rid)
            return dict(row) if row is not None else None

    def update(self, plural: str, rid: str, changes: dict[str, Any]) -> dict[str, Any] | None:
        with self._lock:
            row = self._rows[plural].get(rid)
            if row is None:
                return None
            row.update(changes)
            return dict(row)

    def delete(self, plural: str, rid: str) -> bool:
        with self._lock:
            return self._rows[plural].pop(rid, None) is not None

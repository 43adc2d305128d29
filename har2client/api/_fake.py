"""Records generated from a JSON schema with a seed: formats, enums, patterns, nested objects, and ids
shaped like the provider's own (``cus_`` + 14 characters for Stripe, ``SM`` + 32 hex digits for Twilio).

A property may name the kind of value it holds with ``x-kind`` (person, company, money_cents, ...): the
invented APIs of Tier B say so for every field, so their records read like a real business's.
"""

from __future__ import annotations

import datetime as _dt
import functools
import random
import re
import string
from typing import TYPE_CHECKING, Any

from .._seeding import token_hex, uuid4_from

if TYPE_CHECKING:
    from ._model import ApiModel

_EPOCH = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)
_ALNUM = string.ascii_letters + string.digits
_CLASSES = {"[0-9a-fA-F]": "0123456789abcdef", "[0-9a-f]": "0123456789abcdef",
            "[a-f0-9]": "0123456789abcdef", "[0-9]": string.digits, "[1-9]": "123456789",
            "[A-Z]": string.ascii_uppercase, "[a-z]": string.ascii_lowercase, "[A-Za-z0-9]": _ALNUM}

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



KINDS = ("person", "company", "email", "money_cents", "currency", "enum", "date", "datetime", "int", "text",
         "bool", "sku", "city", "phone", "url")
ABOUT_KIND = {
    "person": "a person's name", "company": "a company name", "email": "an email address",
    "money_cents": "an amount in cents", "currency": "an ISO 4217 currency code", "date": "a date, YYYY-MM-DD",
    "datetime": "a UTC timestamp, YYYY-MM-DDTHH:MM:SSZ", "int": "a whole number", "text": "free text",
    "bool": "true or false", "sku": "a stock-keeping code", "city": "a city", "phone": "a phone number",
    "url": "a URL",
}


def fake_value(kind: str, r: random.Random, choices: tuple[Any, ...] = (), low: int = 0, high: int = 0) -> Any:
    """A realistic value of ``kind`` (one of :data:`KINDS`)."""
    k = kind
    if k == "person":
        return f"{r.choice(_FIRST)} {r.choice(_LAST)}"
    if k == "company":
        return f"{r.choice(_COMPANY_A)} {r.choice(_COMPANY_B)}"
    if k == "email":
        return f"{r.choice(_FIRST).lower()}.{r.choice(_LAST).lower()}{r.randint(1, 99)}@example.org"
    if k == "money_cents":
        return r.randint(max(low, 100), high or 500_000)
    if k == "currency":
        return r.choice(_CURRENCIES)
    if k == "enum":
        return r.choice(choices)
    if k == "date":
        return (_EPOCH.date() + _dt.timedelta(days=r.randint(0, 365))).isoformat()
    if k == "datetime":
        return (_EPOCH + _dt.timedelta(seconds=r.randint(0, 365 * 86400))).strftime("%Y-%m-%dT%H:%M:%SZ")
    if k == "int":
        return r.randint(low, high or 100)
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
    raise ValueError(f"unknown kind of value {kind!r} (one of {', '.join(KINDS)})")


def check_value(schema: dict[str, Any], value: Any) -> str | None:
    """Why ``value`` does not fit ``schema`` (type, enum, format, pattern, bounds), or None when it does."""
    kind = schema.get("type", "string")
    if kind == "integer":
        if type(value) is not int:
            return "must be an integer"
        if "minimum" in schema and value < schema["minimum"]:
            return f"must be at least {schema['minimum']}"
        return None
    if kind == "number":
        return None if type(value) in (int, float) else "must be a number"
    if kind == "boolean":
        return None if type(value) is bool else "must be true or false"
    if kind in ("object", "array"):
        return None if isinstance(value, dict if kind == "object" else list) else f"must be an {kind}"
    if not isinstance(value, str):
        return "must be a string"
    if "enum" in schema and value not in schema["enum"]:
        return f"must be one of {', '.join(map(str, schema['enum']))}"
    if schema.get("pattern") and not re.search(schema["pattern"], value):
        return f"must match {schema['pattern']}"
    fmt = schema.get("format")
    if fmt == "date":
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            return "must be a date (YYYY-MM-DD)"
    if fmt == "email" and "@" not in value:
        return "must be an email address"
    if not value:
        return "must not be empty"
    return None


_TOKEN = re.compile(r"\((?P<alt>[^()]+)\)|(?P<cls>\[[^\]]+\])(?:\{(?P<n>\d+)\})?|(?P<lit>[A-Za-z0-9_\-])")


@functools.lru_cache(maxsize=512)
def _pattern_parts(pattern: str) -> tuple[tuple[str, Any, int], ...] | None:
    """A simple anchored pattern as parts to fill (read once: every id of an API has the same pattern)."""
    body = pattern.strip("^$")
    parts: list[tuple[str, Any, int]] = []
    pos = 0
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if not m:
            return None
        if m.group("alt"):
            parts.append(("alt", tuple(m.group("alt").split("|")), 1))
        elif m.group("cls"):
            chars = _CLASSES.get(m.group("cls"))
            if chars is None:
                return None
            parts.append(("cls", chars, int(m.group("n") or 1)))
        else:
            parts.append(("lit", m.group("lit"), 1))
        pos = m.end()
    return tuple(parts)


def from_pattern(pattern: str, r: random.Random) -> str | None:
    """A string matching simple anchored patterns (literals, (A|B), [class]{n}); None when too complex."""
    parts = _pattern_parts(pattern)
    if parts is None:
        return None
    out = []
    for kind, value, n in parts:
        if kind == "lit":
            out.append(value)
        elif kind == "alt":
            out.append(r.choice(value))
        elif value == "0123456789abcdef":  # hex runs (most ids) in one draw
            out.append(format(r.getrandbits(4 * n), f"0{n}x"))
        else:
            out.append("".join(r.choice(value) for _ in range(n)))
    return "".join(out)


def _string(schema: dict[str, Any], name: str, r: random.Random) -> str:
    fmt, lname = schema.get("format"), name.lower()
    if "pattern" in schema:
        value = from_pattern(schema["pattern"], r)
        if value is not None:
            return value
    if fmt == "email" or "email" in lname:
        return fake_value("email", r)
    if fmt == "date":
        return (_EPOCH.date() + _dt.timedelta(days=r.randint(0, 365))).isoformat()
    if fmt == "date-time" or lname.endswith(("_at", "_on", "time", "created", "signup")):
        return (_EPOCH + _dt.timedelta(seconds=r.randint(0, 365 * 86400))).strftime("%Y-%m-%dT%H:%M:%SZ")
    if fmt == "uuid":
        return uuid4_from(r)
    if fmt in ("uri", "url") or lname in ("url", "uri", "href", "html_url", "self", "link"):
        return f"https://example.net/{token_hex(r, 4)}"
    if "phone" in lname:
        return fake_value("phone", r)
    example = schema.get("example")
    if isinstance(example, str) and re.fullmatch(r"[A-Z]{2,10}-\d+", example):  # Jira-style issue keys
        return f"{example.split('-')[0]}-{r.randint(1, 9999)}"
    if isinstance(example, str) and re.fullmatch(r"[a-z]{2,5}_[A-Za-z0-9]{8,}", example):
        prefix, rest = example.split("_", 1)
        return prefix + "_" + "".join(r.choice(_ALNUM) for _ in range(len(rest)))
    if lname in ("name", "displayname", "given_name", "firstname", "first_name", "family_name", "lastname",
                 "last_name", "surname", "requester", "guest"):
        person = fake_value("person", r)
        return person.split()[1] if lname in ("family_name", "lastname", "last_name", "surname") else (
            person.split()[0] if lname in ("given_name", "firstname", "first_name") else person)
    if lname in ("company", "company_name", "org_name", "vendor"):
        return fake_value("company", r)
    if lname in ("region", "city", "country"):
        return fake_value("city", r)
    return fake_value("text", r)


def fake_from_schema(schema: dict[str, Any], r: random.Random, name: str = "", depth: int = 0) -> Any:
    """A value valid for ``schema`` (already resolved: no $ref, no allOf)."""
    if "x-kind" in schema:
        return fake_value(schema["x-kind"], r, tuple(schema.get("enum", ())), int(schema.get("minimum", 0)),
                          int(schema.get("maximum", 0)))
    if "enum" in schema:
        choices = [c for c in schema["enum"] if c is not None]
        return r.choice(choices)
    kind = schema.get("type") or ("object" if "properties" in schema else "string")
    if kind == "object":
        if depth > 4:
            return {}
        return {k: fake_from_schema(v, r, k, depth + 1) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        low, high = schema.get("minItems", 1), schema.get("maxItems", 3)
        return [fake_from_schema(schema.get("items", {"type": "string"}), r, name, depth + 1)
                for _ in range(r.randint(low, max(low, high)))]
    if kind == "integer":
        low = int(schema.get("minimum", 0))
        description = str(schema.get("description", "")).lower()
        if name.lower() in ("created", "created_at", "updated", "timestamp") or "unix" in description:
            return int(_EPOCH.timestamp()) + r.randint(0, 365 * 86400)
        return r.randint(low, int(schema.get("maximum", low + 5000)))
    if kind == "number":
        low = float(schema.get("minimum", 0))
        return round(r.uniform(low, float(schema.get("maximum", low + 100))), 2)
    if kind == "boolean":
        return r.random() < 0.5
    return _string(schema, name, r)


class IdMaker:
    """Unique ids in the provider's shape: a counting integer, or strings shaped by the schema."""

    def __init__(self, schema: dict[str, Any], field: str, r: random.Random) -> None:
        self.schema, self.field, self.r = schema, field, r
        self.seen: set[Any] = set()
        self.counter = r.randint(1000, 90000)

    def __call__(self) -> Any:
        if self.schema.get("type") == "integer":
            self.counter += self.r.randint(1, 7)
            return self.counter
        while True:
            value = fake_from_schema(self.schema, self.r, self.field)
            if value in self.seen or not value:
                continue
            if not self.schema.get("pattern") and not self.schema.get("format") and " " in value:
                value = token_hex(self.r, 10)  # free text makes a poor id: use an opaque one
            self.seen.add(value)
            return value


def fake_records(model: ApiModel, count: int, r: random.Random) -> list[dict[str, Any]]:
    """``count`` records of ``model``'s resource, with unique ids in the provider's shape."""
    make_id = IdMaker(model.id_schema, model.id_field, r)
    out = []
    for _ in range(count):
        record = fake_from_schema(model.record_schema, r)
        record[model.id_field] = make_id()
        out.append(record)
    return out

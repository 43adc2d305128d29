"""Records generated from a JSON schema with a seed: formats, enums, patterns, nested objects, and ids
shaped like the provider's own (``cus_`` + 14 characters for Stripe, ``SM`` + 32 hex digits for Twilio)."""

from __future__ import annotations

import datetime as _dt
import random
import re
import string
from typing import TYPE_CHECKING, Any

from .._seeding import token_hex, uuid4_from
from ..api._data import fake_value
from ..api._spec import Field

if TYPE_CHECKING:
    from ._openapi import TierAModel

_EPOCH = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)
_ALNUM = string.ascii_letters + string.digits
_CLASSES = {"[0-9a-fA-F]": "0123456789abcdef", "[0-9a-f]": "0123456789abcdef", "[0-9]": string.digits,
            "[A-Z]": string.ascii_uppercase, "[a-z]": string.ascii_lowercase, "[A-Za-z0-9]": _ALNUM}


def from_pattern(pattern: str, r: random.Random) -> str | None:
    """A string matching simple anchored patterns (literals, (A|B), [class]{n}); None when too complex."""
    body = pattern.strip("^$")
    out = []
    pos = 0
    token = re.compile(r"\((?P<alt>[^()]+)\)|(?P<cls>\[[^\]]+\])(?:\{(?P<n>\d+)\})?|(?P<lit>[A-Za-z0-9_\-])")
    while pos < len(body):
        m = token.match(body, pos)
        if not m:
            return None
        if m.group("alt"):
            out.append(r.choice(m.group("alt").split("|")))
        elif m.group("cls"):
            chars = _CLASSES.get(m.group("cls"))
            if chars is None:
                return None
            out.append("".join(r.choice(chars) for _ in range(int(m.group("n") or 1))))
        else:
            out.append(m.group("lit"))
        pos = m.end()
    return "".join(out)


def _string(schema: dict[str, Any], name: str, r: random.Random) -> str:
    fmt, lname = schema.get("format"), name.lower()
    if "pattern" in schema:
        value = from_pattern(schema["pattern"], r)
        if value is not None:
            return value
    if fmt == "email" or "email" in lname:
        return fake_value(Field("e", "email"), r)
    if fmt == "date":
        return (_EPOCH.date() + _dt.timedelta(days=r.randint(0, 365))).isoformat()
    if fmt == "date-time" or lname.endswith(("_at", "_on", "time", "created", "signup")):
        return (_EPOCH + _dt.timedelta(seconds=r.randint(0, 365 * 86400))).strftime("%Y-%m-%dT%H:%M:%SZ")
    if fmt == "uuid":
        return uuid4_from(r)
    if fmt in ("uri", "url") or lname in ("url", "uri", "href", "html_url", "self", "link"):
        return f"https://example.net/{token_hex(r, 4)}"
    if "phone" in lname:
        return fake_value(Field("p", "phone"), r)
    example = schema.get("example")
    if isinstance(example, str) and re.fullmatch(r"[A-Z]{2,10}-\d+", example):  # Jira-style issue keys
        return f"{example.split('-')[0]}-{r.randint(1, 9999)}"
    if isinstance(example, str) and re.fullmatch(r"[a-z]{2,5}_[A-Za-z0-9]{8,}", example):
        prefix, rest = example.split("_", 1)
        return prefix + "_" + "".join(r.choice(_ALNUM) for _ in range(len(rest)))
    if lname in ("name", "displayname", "given_name", "firstname", "first_name", "family_name", "lastname",
                 "last_name", "surname", "requester", "guest"):
        person = fake_value(Field("n", "person"), r)
        return person.split()[1] if lname in ("family_name", "lastname", "last_name", "surname") else (
            person.split()[0] if lname in ("given_name", "firstname", "first_name") else person)
    if lname in ("company", "company_name", "org_name", "vendor"):
        return fake_value(Field("c", "company"), r)
    if lname in ("region", "city", "country"):
        return fake_value(Field("c", "city"), r)
    return fake_value(Field("t", "text"), r)


def fake_from_schema(schema: dict[str, Any], r: random.Random, name: str = "", depth: int = 0) -> Any:
    """A value valid for ``schema`` (already resolved: no $ref, no allOf)."""
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
        if name.lower() in ("created", "created_at", "updated", "timestamp") or "unix" in str(schema.get("description", "")).lower():
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


def fake_records(model: "TierAModel", count: int, r: random.Random) -> list[dict[str, Any]]:
    """``count`` records of ``model``'s resource, with unique ids in the provider's shape."""
    make_id = IdMaker(model.id_schema, model.id_field, r)
    out = []
    for _ in range(count):
        record = fake_from_schema(model.record_schema, r)
        record[model.id_field] = make_id()
        out.append(record)
    return out

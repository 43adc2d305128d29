"""The declarative description of a fake API.

An :class:`ApiSpec` is plain, frozen data: resources with typed fields, plus the
six switches that decide how the API authenticates, pages, expires tokens,
checks versions, demands a hidden header and wraps its responses. It round-trips
through JSON (``to_dict``/``from_dict``) and changes through :meth:`ApiSpec.evolve`,
so that a later release of the same API is a new value, not an edited one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .._errors import SpecError

# The variants of each switch. "off" is always allowed and means "absent".
LOGIN_VARIANTS = (
    "header_key",          # API key in a header
    "query_key",           # API key in the query string
    "password_bearer",     # username/password login returning a bearer token
    "oauth2_client_credentials",  # form-encoded token endpoint
    "session_cookie",      # login sets a session cookie
    "basic",               # HTTP basic on every request
)
PAGING_VARIANTS = ("page", "offset", "cursor", "link", "next_url")
EXPIRY_VARIANTS = ("requests_relogin", "requests_refresh", "seconds_relogin", "seconds_refresh")
VERSION_VARIANTS = ("header_date", "path", "accept", "query")
HIDDEN_HEADER_VARIANTS = ("account_id", "csrf", "idempotency_key", "content_digest")
ENVELOPE_VARIANTS = ("data", "result_meta", "items_next", "named", "payload")

SWITCH_VARIANTS: dict[str, tuple[str, ...]] = {
    "login": LOGIN_VARIANTS,
    "paging": PAGING_VARIANTS,
    "expiry": EXPIRY_VARIANTS,
    "version": VERSION_VARIANTS,
    "hidden_header": HIDDEN_HEADER_VARIANTS,
    "envelope": ENVELOPE_VARIANTS,
}
SWITCH_NAMES = tuple(SWITCH_VARIANTS)

# Logins that hand out something that can expire.
TOKEN_LOGINS = ("password_bearer", "oauth2_client_credentials", "session_cookie")
# Paging styles that put their state in the body, which a bare JSON array cannot carry.
BODY_PAGING = ("cursor", "next_url")

FIELD_KINDS = (
    "person", "company", "email", "money_cents", "currency", "enum", "date",
    "datetime", "int", "text", "bool", "sku", "city", "phone", "url",
)


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    choices: tuple[str, ...] = ()
    writable: bool = True
    low: int = 0
    high: int = 0

    def __post_init__(self) -> None:
        if self.kind not in FIELD_KINDS:
            raise SpecError(f"field {self.name!r}: unknown kind {self.kind!r}")
        if self.kind == "enum" and not self.choices:
            raise SpecError(f"field {self.name!r}: an enum needs choices")


@dataclass(frozen=True)
class Resource:
    """One collection of the API, served at ``/<plural>`` and ``/<plural>/<id>``."""

    name: str
    plural: str
    id_prefix: str
    fields: tuple[Field, ...]
    filter_field: str = ""

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise SpecError(f"resource {self.name!r} has no field {name!r}")

    @property
    def writable_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.writable)


@dataclass(frozen=True)
class Switches:
    login: str = "off"
    paging: str = "off"
    expiry: str = "off"
    version: str = "off"
    hidden_header: str = "off"
    envelope: str = "off"

    def __post_init__(self) -> None:
        for name, allowed in SWITCH_VARIANTS.items():
            value = getattr(self, name)
            if value != "off" and value not in allowed:
                raise SpecError(f"switch {name}: unknown variant {value!r} (one of off, {', '.join(allowed)})")
        if self.expiry != "off" and self.login not in TOKEN_LOGINS:
            raise SpecError(f"switch expiry={self.expiry} needs a token login, not login={self.login}")
        if self.expiry.endswith("_refresh") and self.login != "password_bearer":
            raise SpecError("refresh-token renewal needs login=password_bearer")
        if self.envelope == "off" and self.paging in BODY_PAGING:
            raise SpecError(f"paging={self.paging} needs an envelope: a bare array has nowhere to put it")

    @property
    def on(self) -> tuple[str, ...]:
        return tuple(n for n in SWITCH_NAMES if getattr(self, n) != "off")

    @property
    def level(self) -> int:
        return len(self.on)

    def without(self, name: str) -> "Switches":
        return dataclasses.replace(self, **{name: "off"})


@dataclass(frozen=True)
class Details:
    """The concrete names and numbers a switch variant uses in one API."""

    key_header: str = "X-API-Key"
    key_param: str = "api_key"
    version_header: str = "X-API-Version"
    version_value: str = "2024-06-01"
    path_version: str = "v2"
    page_size: int = 10
    max_page_size: int = 25
    token_lifetime_requests: int = 6
    token_lifetime_seconds: int = 900
    rate_limit: int = 5000


@dataclass(frozen=True)
class ApiSpec:
    """A whole API: what it serves and how it behaves. ``release`` names this version of it."""

    name: str
    slug: str
    host: str
    resources: tuple[Resource, ...]
    switches: Switches = field(default_factory=Switches)
    details: Details = field(default_factory=Details)
    release: str = "1"

    @property
    def resource(self) -> Resource:
        """The primary resource (Tier B APIs have exactly one)."""
        return self.resources[0]

    @property
    def credential_names(self) -> tuple[str, ...]:
        """The constructor arguments, after ``base_url``, that a client of this API takes."""
        login = self.switches.login
        if login in ("header_key", "query_key"):
            return ("api_key",)
        if login == "oauth2_client_credentials":
            return ("client_id", "client_secret")
        if login in ("password_bearer", "session_cookie", "basic"):
            return ("username", "password")
        return ()

    def evolve(self, **changes: Any) -> "ApiSpec":
        """A new release of this API with ``changes`` applied."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ApiSpec":
        try:
            resources = tuple(
                Resource(
                    **{**r, "fields": tuple(Field(**{**f, "choices": tuple(f.get("choices", ()))}) for f in r["fields"])}
                )
                for r in data["resources"]
            )
            return cls(
                name=data["name"],
                slug=data["slug"],
                host=data["host"],
                resources=resources,
                switches=Switches(**data.get("switches", {})),
                details=Details(**data.get("details", {})),
                release=str(data.get("release", "1")),
            )
        except (KeyError, TypeError) as exc:
            raise SpecError(f"API description is incomplete or malformed: {exc}") from None

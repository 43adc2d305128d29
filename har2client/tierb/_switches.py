"""The six switches of a Tier B API and the concrete names and numbers a task gives them.

The switches are presets of the engine's conventions: ``tierb_document`` turns a choice of variants into
the ``x-har2client`` annotation of an OpenAPI document, and nothing else of the engine knows them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

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
# The engine's name for the convention each switch sets (what a reference client can be built without).
CONVENTION_OF = {"login": "auth", "paging": "paging", "expiry": "expiry", "version": "version",
                 "hidden_header": "required_headers", "envelope": "envelope"}

# Logins that hand out something that can expire.
TOKEN_LOGINS = ("password_bearer", "oauth2_client_credentials", "session_cookie")
# Paging styles that put their state in the body, which a bare JSON array cannot carry.
BODY_PAGING = ("cursor", "next_url")


@dataclass(frozen=True)
class Switches:
    """The six switches of a Tier B API; ``off`` or a variant each."""
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
        """The names of the switches that are not off."""
        return tuple(n for n in SWITCH_NAMES if getattr(self, n) != "off")

    @property
    def level(self) -> int:
        """How many switches are on: a Tier B task's level (0 to 6)."""
        return len(self.on)

    def without(self, name: str) -> Switches:
        """The same switches with ``name`` off."""
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

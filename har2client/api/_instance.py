"""An *instance* of an API: the description plus a seed.

Each instance has its own data, its own credentials, its own secrets and its own
base URL, so a client that copied values from one instance (the recording) fails
on another (grading). Instances are cheap: building one is a few milliseconds
and touches no disk, so a grader can start a fresh one for every grade.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .._seeding import derive_seed, rng, token_hex, token_urlsafe
from ._data import Store, fake_value
from ._spec import ApiSpec, Field


@dataclass
class Token:
    """Something a login handed out: a bearer token, or a session id."""

    value: str
    issued_at: float
    uses: int = 0
    refresh_token: str = ""
    revoked: bool = False


class Clock:
    """Wall time plus an offset the judge can advance (to expire tokens without sleeping)."""

    def __init__(self, start: float | None = None) -> None:
        self._start = start
        self._offset = 0.0
        self._lock = threading.Lock()

    def now(self) -> float:
        base = self._start if self._start is not None else time.time()
        return base + self._offset

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._offset += seconds


@dataclass
class Instance:
    """A running world for one :class:`ApiSpec`: data, credentials, tokens, clock."""

    spec: ApiSpec
    seed: int
    role: str = "grading"
    record_count: int | None = None
    clock: Clock = field(default_factory=Clock)

    def __post_init__(self) -> None:
        s = self.spec
        self._rng = rng(self.seed, "instance", s.slug, self.role)
        r = self._rng
        self._lock = threading.RLock()
        self.secret = token_hex(r, 16)
        self.credentials = _make_credentials(s, r)
        self.account = {
            "id": f"acct_{token_hex(r, 5)}",
            "name": fake_value(Field("name", "company"), r),
            "email": fake_value(Field("email", "email"), r),
            "plan": r.choice(("starter", "team", "business")),
            "created_at": fake_value(Field("created_at", "datetime"), r),
        }
        self.csrf_token = token_urlsafe(r, 32)
        self.store = Store(s.resources, rng(self.seed, "data", s.slug, self.role))
        count = self.record_count
        if count is None:
            # At least three pages at the default page size, and two for a client that asks for the largest.
            d = s.details
            count = max(d.max_page_size, 2 * d.page_size) + d.page_size + r.randint(1, d.page_size)
        for res in s.resources:
            self.store.seed_records(res, count)
        self.tokens: dict[str, Token] = {}
        self.refresh_tokens: dict[str, str] = {}
        self.idempotency: dict[str, tuple[str, Any]] = {}
        self.request_count = 0

    # -- things the app asks -------------------------------------------------

    def next_token(self, prefix: str, n: int = 24) -> str:
        with self._lock:
            return prefix + token_urlsafe(self._rng, n)

    def next_request_id(self) -> str:
        with self._lock:
            return "req_" + token_hex(self._rng, 8)

    def count_request(self) -> int:
        with self._lock:
            self.request_count += 1
            return self.request_count

    def issue_token(self, *, with_refresh: bool = False, prefix: str = "at_") -> Token:
        tok = Token(self.next_token(prefix), self.clock.now())
        if with_refresh:
            tok.refresh_token = self.next_token("rt_")
            self.refresh_tokens[tok.refresh_token] = tok.value
        with self._lock:
            self.tokens[tok.value] = tok
        return tok

    def token_state(self, value: str) -> str:
        """``"ok"``, ``"expired"`` or ``"invalid"``; counts one use of a live token."""
        with self._lock:
            tok = self.tokens.get(value)
            if tok is None or tok.revoked:
                return "invalid"
            d, expiry = self.spec.details, self.spec.switches.expiry
            if expiry.startswith("requests_") and tok.uses >= d.token_lifetime_requests:
                return "expired"
            if expiry.startswith("seconds_") and self.clock.now() - tok.issued_at >= d.token_lifetime_seconds:
                return "expired"
            tok.uses += 1
            return "ok"

    def redeem_refresh_token(self, refresh: str) -> Token | None:
        with self._lock:
            old = self.refresh_tokens.pop(refresh, None)
            if old is None:
                return None
            self.tokens[old].revoked = True
        return self.issue_token(with_refresh=True)

    def cursor_for(self, position: int) -> str:
        """An opaque cursor bound to this instance, so a recorded cursor is useless elsewhere."""
        mac = hmac.new(self.secret.encode(), str(position).encode(), hashlib.sha256).hexdigest()[:10]
        return base64.urlsafe_b64encode(f"{position}:{mac}".encode()).decode().rstrip("=")

    def position_of(self, cursor: str) -> int | None:
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
            pos_text, mac = raw.split(":", 1)
            pos = int(pos_text)
        except (ValueError, UnicodeDecodeError):
            return None
        return pos if hmac.compare_digest(self.cursor_for(pos), cursor) else None

    # -- things the judge does ----------------------------------------------

    def expire_tokens(self) -> None:
        """Make every live token expire by the API's own rule (time or use count)."""
        d = self.spec.details
        if self.spec.switches.expiry.startswith("seconds_"):
            self.clock.advance(d.token_lifetime_seconds + 1)
        else:
            with self._lock:
                for tok in self.tokens.values():
                    tok.uses = max(tok.uses, d.token_lifetime_requests)


def _make_credentials(spec: ApiSpec, r: Any) -> dict[str, str]:
    login = spec.switches.login
    if login in ("header_key", "query_key"):
        return {"api_key": f"{spec.slug[:3]}_live_{token_urlsafe(r, 28)}"}
    if login == "oauth2_client_credentials":
        return {"client_id": f"cli_{token_hex(r, 8)}", "client_secret": token_urlsafe(r, 36)}
    if login in ("password_bearer", "session_cookie", "basic"):
        user = fake_value(Field("u", "email"), r)
        return {"username": user, "password": token_urlsafe(r, 14) + "!7"}
    return {}


def instance_seed(task_seed: int, role: str, nonce: int | str = 0) -> int:
    """Seed of the ``role`` instance of a task (recording, practice, grading)."""
    return derive_seed(task_seed, "role", role, nonce)



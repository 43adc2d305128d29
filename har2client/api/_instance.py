"""An instance of an API: its records, credentials, client parameters, tokens and clock, from a seed.

Each instance has its own data, credentials, secrets and base URL, so a client
that copied values from one instance (the recording) fails on another (grading).
Instances are cheap, a few milliseconds and no disk, so a grader can start a
fresh one for every grade and a practice server one per episode.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

from .._seeding import derive_seed, rng, token_hex, token_urlsafe, uuid4_from
from ._fake import IdMaker, fake_from_schema
from ._model import ApiModel

DEFAULT_PAGE = 10   # a page when the API states no default
PAGE_CAP = 20       # the most a page holds unless the API says otherwise: paging is always exercised
# Logins that hand out a token or session the server keeps (and may expire).
TOKEN_STYLES = ("password_bearer", "oauth2_client_credentials", "session_cookie")


def instance_seed(task_seed: int, role: str, nonce: int | str = 0) -> int:
    """Seed of the ``role`` instance of a task (recording, practice, grading)."""
    return derive_seed(task_seed, "role", role, nonce)


def page_sizes(model: ApiModel) -> tuple[int, int]:
    """The API's default page size and the most one page holds here."""
    p = model.conventions["paging"]
    if p.get("fixed_page_size"):
        size = int(p["fixed_page_size"])
        return size, size
    default = int(p.get("default_limit", max(DEFAULT_PAGE, p.get("min_limit", 0))))
    return default, int(p.get("page_cap", max(PAGE_CAP, p.get("min_limit", 0))))


def credential_names(model: ApiModel) -> tuple[str, ...]:
    """What the account holder is given to sign in with, in the constructor's order."""
    auth = model.auth
    style = auth["style"]
    if style == "basic" and auth.get("key_as"):
        return ("api_key",)  # the key is the user name (Lob), the password empty
    if style in ("basic", "password_bearer", "session_cookie"):
        return ("username", "password")
    if style == "oauth2_client_credentials":
        return ("client_id", "client_secret")
    if style == "none":
        return ()
    return ("api_key", *auth.get("extra_params", []))


def _credentials(model: ApiModel, r: random.Random) -> dict[str, str]:
    style = model.auth["style"]
    if style in ("bearer", "header_key", "vendor") or (style == "basic" and model.auth.get("key_as")):
        return {"api_key": token_urlsafe(r, 40)}
    if style == "query_key":
        extra = model.auth.get("extra_params", [])
        return {"api_key": token_hex(r, 16), **{p: token_hex(r, 32) for p in extra}}
    if style in ("basic", "password_bearer", "session_cookie"):
        return {"username": f"user{r.randint(100, 999)}@example.org", "password": token_urlsafe(r, 24)}
    if style == "oauth2_client_credentials":
        return {"client_id": token_hex(r, 12), "client_secret": token_urlsafe(r, 32)}
    if style == "none":
        return {}
    raise ValueError(f"unknown auth style {style!r}")


def _copy(row: dict[str, Any]) -> dict[str, Any]:
    """A copy the caller may change: nested values copied too, flat ones (most records) cheaply."""
    return {k: copy.deepcopy(v) if isinstance(v, (dict, list)) else v for k, v in row.items()}


def _merge(row: dict[str, Any], changes: dict[str, Any]) -> None:
    """Apply ``changes``; a nested bag of fields (Okta's profile) is merged, not replaced."""
    for k, v in changes.items():
        if isinstance(v, dict) and isinstance(row.get(k), dict):
            row[k] = {**row[k], **v}
        else:
            row[k] = v


class Clock:
    """Wall time, or a fixed start, plus an offset the judge can advance (to expire tokens without sleeping)."""

    def __init__(self, start: float | None = None) -> None:
        self._start = start
        self._offset = 0.0
        self._lock = threading.Lock()

    def now(self) -> float:
        """The instance's time: the real clock, or a fixed start, plus every advance."""
        base = self._start if self._start is not None else time.time()
        return base + self._offset

    def advance(self, seconds: float) -> None:
        """Move the instance's time on by ``seconds`` (how a test lets a token expire)."""
        with self._lock:
            self._offset += seconds


@dataclass
class Token:
    """Something a login handed out: a bearer token or a session id."""

    value: str
    issued_at: float
    uses: int = 0
    refresh_token: str = ""
    revoked: bool = False
    expired: bool = False


class Instance:
    """One world of an API. Thread-safe: the server answers from several threads."""

    def __init__(self, model: ApiModel, seed: int, records: int | None = None, clock: Clock | None = None) -> None:
        self.model, self.seed = model, seed
        r = rng(seed, "instance", model.key)
        self._rng = r
        self._lock = threading.RLock()
        self.clock = clock or Clock()
        self.secret = token_hex(r, 16)
        self.credentials = _credentials(model, r)
        self.client_params = {p: self._param_value(p, r) for p in model.client_params}
        login_as = model.auth.get("username")
        if login_as in self.client_params:  # Twilio signs in as its account SID
            self.credentials["username"] = self.client_params[login_as]
        self.account = fake_from_schema(model.account_schema, r) if model.account_schema else {}
        self.csrf_token = token_urlsafe(r, 32)
        if records is None:
            default, cap = page_sizes(model)
            # At least three pages at the default size, and two for a client that asks for the largest.
            records = int(model.conventions.get("records") or
                          max(cap, 2 * default) + default + r.randint(1, default))
        self.make_id = IdMaker(model.id_schema, model.id_field, rng(seed, "ids", model.key))
        self._serial = r.randint(10, 400)
        self.rows: dict[str, dict[str, Any]] = {}
        self.deleted: dict[str, dict[str, Any]] = {}
        for _ in range(records):
            row = fake_from_schema(model.record_schema, r)
            row[model.id_field] = self._id_for(row)
            self.rows[str(row[model.id_field])] = row
        self.tokens: dict[str, Token] = {}
        self.refresh_tokens: dict[str, str] = {}
        self.idempotency: dict[str, tuple[str, int, Any]] = {}
        self.request_count = 0
        self._countdown: int | None = None   # token checks left before every live token expires

    def _param_value(self, name: str, r: random.Random) -> str:
        if name.lower().endswith("sid"):
            return "AC" + token_hex(r, 16)
        if name in ("owner", "workspace"):
            return f"team-{token_hex(r, 3)}"
        if name in ("repo", "repo_slug"):
            return f"service-{token_hex(r, 3)}"
        if name == "project_key":
            return "".join(r.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(r.randint(3, 4)))
        if name == "tenant":
            return uuid4_from(r)
        if "email" in name:
            return f"oncall{r.randint(10, 99)}@example.org"
        if name == "channel_id":  # a Discord snowflake
            return str(r.randint(10**18, 10**19 - 1))
        if name == "enterprise_id":
            return str(r.randint(10_000_000, 999_999_999))
        return token_hex(r, 8)

    # -- records ----------------------------------------------------------------------

    def _id_for(self, row: dict[str, Any]) -> Any:
        """A new record's id: assigned, or numbered in a pattern (Jira)."""
        pattern = self.model.conventions.get("id_pattern")
        if pattern:
            self._serial += 1
            return pattern.format(n=self._serial, **self.client_params)
        return self.make_id()

    def list_query(self) -> dict[str, str]:
        """Query arguments every listing must carry, from ``list_query``: a client parameter or a template."""
        out = {}
        for param, value in self.model.conventions.get("list_query", {}).items():
            out[param] = value.format(**self.client_params) if "{" in value else self.client_params[value]
        return out

    def all(self) -> list[dict[str, Any]]:
        """Copies of every record, in the order they were stored."""
        with self._lock:
            return [_copy(v) for v in self.rows.values()]

    def get(self, rid: Any) -> dict[str, Any] | None:
        """A copy of the record with id ``rid``, or None."""
        with self._lock:
            row = self.rows.get(str(rid))
            return _copy(row) if row is not None else None

    def insert(self, values: dict[str, Any]) -> dict[str, Any]:
        """Add a record from ``values`` (the rest faked from the schema) and return a copy of it."""
        with self._lock:
            row = fake_from_schema(self.model.record_schema, self._rng)
            _merge(row, values)
            row[self.model.id_field] = self._id_for(row)
            self.rows[str(row[self.model.id_field])] = row
            return _copy(row)

    def update(self, rid: Any, changes: dict[str, Any]) -> dict[str, Any] | None:
        """Apply ``changes`` to record ``rid``; the updated copy, or None when there is no such record."""
        with self._lock:
            row = self.rows.get(str(rid))
            if row is None:
                return None
            _merge(row, changes)
            return _copy(row)

    def delete(self, rid: Any) -> bool:
        """Remove record ``rid``; whether it existed. Its last state is kept apart (``deleted_copy``),
        for an API whose deleted records still answer a read (Stripe's ``deleted: true``)."""
        with self._lock:
            row = self.rows.pop(str(rid), None)
            if row is not None:
                self.deleted[str(rid)] = row
            return row is not None

    def deleted_copy(self, rid: Any) -> dict[str, Any] | None:
        """A copy of record ``rid`` as it was when it was deleted, or None."""
        with self._lock:
            row = self.deleted.get(str(rid))
            return _copy(row) if row is not None else None

    # -- what the server keeps besides ----------------------------------------------------

    def count_request(self) -> int:
        """Count one request to the API; the count so far (what token expiry by requests reads)."""
        with self._lock:
            self.request_count += 1
            return self.request_count

    def next_id(self, prefix: str) -> str:
        """A new id with ``prefix``, from this instance's seeded stream."""
        with self._lock:
            return prefix + token_hex(self._rng, 8)

    def issue_token(self, *, with_refresh: bool = False, prefix: str = "eyJ0eXAiOiJKV1Qi.") -> Token:
        """A new access token (and a refresh token when asked), remembered as valid."""
        with self._lock:
            tok = Token(prefix + token_urlsafe(self._rng, 48), self.clock.now())
            if with_refresh:
                tok.refresh_token = "rt_" + token_urlsafe(self._rng, 32)
                self.refresh_tokens[tok.refresh_token] = tok.value
            self.tokens[tok.value] = tok
            return tok

    def token_state(self, value: str) -> str:
        """``"ok"``, ``"expired"`` or ``"invalid"``; counts one use of a live token."""
        with self._lock:
            tok = self.tokens.get(value)
            if tok is None or tok.revoked:
                return "invalid"
            if self._countdown is not None:
                if self._countdown == 0:
                    for live in self.tokens.values():
                        live.expired = True
                    self._countdown = None
                else:
                    self._countdown -= 1
            if tok.expired:
                return "expired"
            expiry = self.model.expiry
            if "requests" in expiry and tok.uses >= int(expiry["requests"]):
                return "expired"
            if "seconds" in expiry and self.clock.now() - tok.issued_at >= int(expiry["seconds"]):
                return "expired"
            tok.uses += 1
            return "ok"

    def redeem_refresh_token(self, refresh: str) -> Token | None:
        """Exchange a refresh token, once, for a new token pair; None when it is unknown or used."""
        with self._lock:
            old = self.refresh_tokens.pop(refresh, None)
            if old is None:
                return None
            self.tokens[old].revoked = True
        return self.issue_token(with_refresh=True)

    def expire_tokens(self) -> None:
        """Make every live token expire by the API's own rule (time or use count)."""
        expiry = self.model.expiry
        if "seconds" in expiry:
            self.clock.advance(int(expiry["seconds"]) + 1)
        if "requests" in expiry:
            with self._lock:
                for tok in self.tokens.values():
                    tok.uses = max(tok.uses, int(expiry["requests"]))

    def expire_after(self, requests: int) -> None:
        """Every token live then expires after ``requests`` more authenticated requests (new ones live on)."""
        with self._lock:
            self._countdown = requests

    def cursor_for(self, position: int) -> str:
        """An opaque cursor bound to this instance, so a recorded cursor is useless elsewhere."""
        mac = hmac.new(self.secret.encode(), str(position).encode(), hashlib.sha256).hexdigest()[:12]
        return f"{position:x}{mac}"

    def position_of(self, cursor: str) -> int | None:
        """The list position a paging cursor of this instance stands for; None if it is forged or foreign."""
        head, mac = cursor[:-12], cursor[-12:]
        try:
            pos = int(head, 16)
        except ValueError:
            return None
        return pos if hmac.compare_digest(self.cursor_for(pos)[-12:], mac) else None

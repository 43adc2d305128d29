"""An instance of a Tier A API: its records, credentials, client parameters and tokens, from a seed."""

from __future__ import annotations

import copy
import hashlib
import hmac
import threading
from typing import Any

from .._seeding import rng, token_hex, token_urlsafe, uuid4_from
from ._fake import IdMaker, fake_from_schema
from ._openapi import TierAModel


def _credentials(model: TierAModel, r: Any) -> dict[str, str]:
    style = model.conventions["auth"]["style"]
    if style in ("bearer", "header_key", "vendor"):
        return {"api_key": token_urlsafe(r, 40)}
    if style == "query_key":
        extra = model.conventions["auth"].get("extra_params", [])
        return {"api_key": token_hex(r, 16), **{p: token_hex(r, 32) for p in extra}}
    if style == "basic":
        return {"username": f"user{r.randint(100, 999)}@example.org", "password": token_urlsafe(r, 24)}
    if style == "oauth2_client_credentials":
        return {"client_id": token_hex(r, 12), "client_secret": token_urlsafe(r, 32)}
    raise AssertionError(style)  # the loader only accepts the styles above


def _merge(row: dict[str, Any], changes: dict[str, Any]) -> None:
    """Apply ``changes``; a nested bag of fields (HubSpot's properties) is merged, not replaced."""
    for k, v in changes.items():
        if isinstance(v, dict) and isinstance(row.get(k), dict):
            row[k] = {**row[k], **v}
        else:
            row[k] = v


class TierAInstance:
    """One world of a Tier A API. Thread-safe: the server answers from several threads."""

    def __init__(self, model: TierAModel, seed: int, records: int | None = None) -> None:
        self.model, self.seed = model, seed
        r = rng(seed, "tiera-instance", model.key)
        self._rng = r
        self._lock = threading.RLock()
        self.secret = token_hex(r, 16)
        self.credentials = _credentials(model, r)
        self.client_params = {p: self._param_value(p, r) for p in model.client_params}
        login_as = model.conventions["auth"].get("username")
        if login_as in self.client_params:  # Twilio signs in as its account SID
            self.credentials["username"] = self.client_params[login_as]
        count = records if records is not None else int(model.conventions.get("records", 40))
        self.make_id = IdMaker(model.id_schema, model.id_field, rng(seed, "tiera-ids", model.key))
        self._serial = r.randint(10, 400)
        rows: list[dict[str, Any]] = []
        for _ in range(count):
            row = fake_from_schema(model.record_schema, r)
            row[model.id_field] = self._id_for(row)
            rows.append(row)
        self.rows: dict[str, dict[str, Any]] = {str(row[model.id_field]): row for row in rows}
        self.tokens: set[str] = set()
        self.request_count = 0

    def _param_value(self, name: str, r: Any) -> str:
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
        return token_hex(r, 8)

    # -- records ----------------------------------------------------------------------

    def _id_for(self, row: dict[str, Any]) -> Any:
        """A new record's id: assigned, derived from a field (Mailchimp), or numbered in a pattern (Jira)."""
        rule = self.model.conventions.get("id_from")
        if rule and rule.get("hash") == "md5_lowercase":
            return hashlib.md5(str(row[rule["field"]]).lower().encode()).hexdigest()
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
        with self._lock:
            return [copy.deepcopy(v) for v in self.rows.values()]

    def get(self, rid: str) -> dict[str, Any] | None:
        with self._lock:
            row = self.rows.get(str(rid))
            return copy.deepcopy(row) if row is not None else None

    def insert(self, values: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            row = fake_from_schema(self.model.record_schema, self._rng)
            _merge(row, values)
            row[self.model.id_field] = self._id_for(row)
            self.rows[str(row[self.model.id_field])] = row
            return copy.deepcopy(row)

    def update(self, rid: str, changes: dict[str, Any]) -> dict[str, Any] | None:
        with self._lock:
            row = self.rows.get(str(rid))
            if row is None:
                return None
            _merge(row, changes)
            return copy.deepcopy(row)

    def delete(self, rid: str) -> bool:
        with self._lock:
            return self.rows.pop(str(rid), None) is not None

    # -- the rest a server needs ------------------------------------------------------

    def count_request(self) -> int:
        with self._lock:
            self.request_count += 1
            return self.request_count

    def issue_token(self) -> str:
        with self._lock:
            token = "eyJ0eXAiOiJKV1Qi." + token_urlsafe(self._rng, 48)
            self.tokens.add(token)
            return token

    def cursor_for(self, position: int) -> str:
        mac = hmac.new(self.secret.encode(), str(position).encode(), hashlib.sha256).hexdigest()[:12]
        return f"{position:x}{mac}"

    def position_of(self, cursor: str) -> int | None:
        head, mac = cursor[:-12], cursor[-12:]
        try:
            pos = int(head, 16)
        except ValueError:
            return None
        return pos if hmac.compare_digest(self.cursor_for(pos)[-12:], mac) else None

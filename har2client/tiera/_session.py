"""Recording a Tier A API: a scripted integration's traffic, as a proxy (mitmproxy) would export it.

The script lists every record page by page, opens one, follows a stale id,
then creates, edits and deletes a record, as the description's ``session``
says. Requests reach the real fake server in-process on a simulated clock, and
every header is fixed, so the same seed gives the same bytes.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import httpx

from .._seeding import rng
from ..har._model import Recording
from ..har._session import exchange_entry
from ._app import create_tiera_app
from ._paging import DEFAULT_PAGE
from ._client import ConventionsClient
from ._fake import fake_from_schema
from ._grading import TierAWorld, create_values
from ._instance import TierAInstance
from ._openapi import TierAModel

T0 = _dt.datetime(2026, 9, 14, 13, 30, 0, tzinfo=_dt.timezone.utc).timestamp()


def recording_instance(model: TierAModel, seed: int) -> TierAInstance:
    r = rng(seed, "tiera-recording-size")
    count = 2 * DEFAULT_PAGE + r.randint(3, 8)
    if model.conventions["paging"]["style"] in ("none",):
        count = min(count, int(model.conventions.get("records", count)))
    return TierAInstance(model, seed, records=count)


def record_tiera_session(model: TierAModel, instance: TierAInstance, seed: int) -> Recording:
    r = rng(seed, "tiera-session", model.key)
    entries = []
    clock = [T0]

    def capture(resp: httpx.Response) -> None:
        resp.read()
        timings = {"blocked": round(r.uniform(0.2, 2), 3), "dns": -1, "connect": -1, "ssl": -1,
                   "send": round(r.uniform(0.05, 0.3), 3), "wait": round(r.uniform(40, 260), 3),
                   "receive": round(r.uniform(0.2, 4), 3)}
        if not entries:
            timings.update(dns=round(r.uniform(5, 25), 3), connect=round(r.uniform(10, 40), 3),
                           ssl=round(r.uniform(15, 40), 3))
        entries.append(exchange_entry(resp.request, resp, clock[0], timings, server_ip=f"198.51.100.{r.randint(2, 250)}"))
        clock[0] += sum(v for v in timings.values() if v > 0) / 1000 + r.uniform(0.01, 0.4)

    http = httpx.Client(transport=httpx.WSGITransport(app=create_tiera_app(model, instance)),
                        headers={"User-Agent": f"{model.key}-sync/2.4.1", "Accept": "application/json",
                                 "Accept-Encoding": "gzip, deflate"},
                        event_hooks={"response": [capture]})
    client = ConventionsClient(model, model.server, instance.credentials, instance.client_params, http=http)
    session = model.conventions["session"]
    world = TierAWorld(model, instance)
    rows = client.list_all()
    if "get" in session:
        client.get(rows[r.randrange(len(rows))][model.id_field])
        client.get(world.missing_id(r))
    created: Any = None
    if "create" in session:
        created = client.create(create_values(model, r))
    target = created[model.id_field] if isinstance(created, dict) else rows[0][model.id_field]
    if "update" in session:
        props = model.request_fields("update")[0]
        not_fields = {model.id_field, model.conventions.get("item_param")}
        field = next((k for k, v in props.items() if v.get("type") == "string" and "enum" not in v
                      and k not in not_fields), None)
        if field:
            client.update(target, {field: fake_from_schema(props[field], r, field)})
    if "delete" in session and created is not None:
        client.delete(target)
    return Recording(entries=entries, pages=[], creator=("mitmproxy", "10.4.2"))

"""The ten kinds of change (Case 3): each edits a document into a valid new release that an old client
notices loudly (an error status) or not at all (only 2xx answers, data that means something else)."""

import random

import pytest
from openapi_spec_validator import validate

from har2client.api import Instance, create_values, model_from_document, plain_fields, release_diff
from har2client.api._app import create_app
from har2client.api._fake import fake_from_schema
from har2client.api._http import HTTPServer
from har2client.api._reference import reference_source
from har2client.api._server import listen_socket
from har2client.repair import CHANGES, KINDS, LOUD, SILENT, NotApplicable, apply_change
from har2client.tierb import tierb_configs

CONFIGS = tierb_configs(1)


def _first_applicable(kind):
    for c in CONFIGS:
        doc = c.document()
        try:
            return doc, apply_change(doc, kind, random.Random(c.seed))
        except NotApplicable:
            continue
    raise AssertionError(f"no Tier B API of seed 1 takes {kind}")


class _Statuses:
    """WSGI middleware that keeps every status the server answered."""

    def __init__(self, app):
        self.app, self.seen = app, []

    def __call__(self, environ, start_response):
        def start(status, headers, *exc):
            self.seen.append(int(status.split()[0]))
            return start_response(status, headers, *exc)
        return self.app(environ, start)


def _session(source, base, creds, model, v1):
    """A user's code with a client: list, filter, get, create, update, delete; what it saw, or what it raised."""
    ns = {}
    exec(compile(source, "client.py", "exec"), ns)
    client = ns["Client"](base, **creds)
    names = {"list": f"list_{v1.plural}", "get": f"get_{v1.resource}", "create": f"create_{v1.resource}",
             "update": f"update_{v1.resource}", "delete": f"delete_{v1.resource}"}
    seen = {}
    try:
        seen["list"] = getattr(client, names["list"])()
        if v1.filters:
            f = v1.filters[0]
            value = v1.field_properties[f]["enum"][0]
            seen["filtered"] = (value, getattr(client, names["list"])(**{f: value}))
        first = seen["list"][0]
        seen["get"] = getattr(client, names["get"])(first["id"] if isinstance(first, dict) else "x")
        created = getattr(client, names["create"])(**create_values(v1, random.Random(5)))
        seen["create"] = created
        rid = created.get("id") if isinstance(created, dict) else None
        field = plain_fields(v1, "update")[0][0]
        value = fake_from_schema(v1.field_properties[field], random.Random(6), field)
        seen["update"] = getattr(client, names["update"])(rid, **{field: value})
        getattr(client, names["delete"])(rid)
    except Exception as exc:  # noqa: BLE001 - what the old client raised is the observation
        seen["raised"] = f"{type(exc).__name__}: {exc}"
    return seen


def test_there_are_ten_kinds_five_loud_five_silent():
    assert len(KINDS) == 10 and len(LOUD) == len(SILENT) == 5 and set(CHANGES) == set(KINDS)
    with pytest.raises(ValueError, match="unknown change kind"):
        apply_change({}, "vanish", random.Random(1))


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_gives_a_valid_release_the_old_client_notices_as_its_kind_says(kind):
    v1_doc, v2_doc = _first_applicable(kind)
    assert v1_doc == _first_applicable(kind)[0] and v2_doc == _first_applicable(kind)[1]  # seeded, and v1 untouched
    validate(v2_doc)
    v1, v2 = model_from_document(v1_doc), model_from_document(v2_doc)
    assert release_diff(v1, v2), kind  # the difference can be said
    instance = Instance(v2, 3)
    app = _Statuses(create_app(v2, instance))
    server = HTTPServer(listen_socket("127.0.0.1"), app)
    base = f"http://127.0.0.1:{server.port}"
    try:
        old = _session(reference_source(v1), base, instance.credentials, v2, v1)
        old_statuses = list(app.seen)
        app.seen.clear()
        new = _session(reference_source(v2), base, instance.credentials, v2, v1)
        assert "raised" not in new, (kind, new.get("raised"))
        assert all(s < 400 for s in app.seen), (kind, app.seen)  # the new release's own client works
    finally:
        server.close()
    if kind in LOUD:
        assert "raised" in old and ("HTTP 4" in old["raised"] or "NotFoundError" in old["raised"]), (kind, old)
        assert any(s >= 400 for s in old_statuses), kind
    else:
        assert all(s < 400 for s in old_statuses), (kind, old_statuses)  # silent: the old client saw only 2xx
        if "raised" in old:  # ... and its user's code broke downstream (a KeyError, an empty list)
            assert "HTTP" not in old["raised"] and "NotFoundError" not in old["raised"], (kind, old["raised"])
            return
        truth = instance.all()
        listed = old["list"]
        contract = set(v1.record_schema["properties"])
        differs = (
            not isinstance(listed, list) or len(listed) != len(truth)
            or any(not isinstance(r, dict) or set(r) != contract for r in listed)
            or [r.get("id") for r in listed] != [t["id"] for t in truth]
            or ("filtered" in old and any(r.get(v1.filters[0]) != old["filtered"][0] for r in old["filtered"][1]
                                          if isinstance(r, dict)))
            or any(r != t for r, t in zip(listed, truth, strict=False))
        )
        assert differs, kind  # ... and what it got means something else

"""The fake-API engine over real HTTP on loopback: each Tier B switch variant (a preset of the engine's
conventions), errors, state, instances."""

import base64
import hashlib

import httpx
import pytest

from har2client import SpecError
from har2client.api import Instance, model_from_document, serve
from har2client.tierb import DOMAINS, SWITCH_VARIANTS, Details, Switches, tierb_document

RES = DOMAINS[0].resource  # invoices


def make_spec(details=None, **switches):
    doc = tierb_document("Ledgerly API", "ledgerly", "api.ledgerly.example", RES, Switches(**switches),
                         details or Details(page_size=5, max_page_size=10))
    return model_from_document(doc, "ledgerly", "ledgerly")


@pytest.fixture
def served():
    servers = []

    def start(spec, seed=7):
        srv = serve(Instance(spec, seed))
        servers.append(srv)
        return srv, httpx.Client(base_url=srv.base_url, timeout=10)

    yield start
    for s in servers:
        s.close()


@pytest.mark.parametrize("bad, why", [
    (dict(expiry="requests_relogin"), "needs a token login"),
    (dict(login="header_key", expiry="seconds_relogin"), "needs a token login"),
    (dict(login="session_cookie", expiry="requests_refresh"), "refresh-token renewal"),
    (dict(paging="cursor"), "needs an envelope"),
    (dict(paging="sideways"), "unknown variant"),
])
def test_inconsistent_switches_are_rejected(bad, why):
    with pytest.raises(SpecError, match=why):
        Switches(**bad)


def test_every_switch_has_at_least_three_variants():
    assert all(len(v) >= 3 for v in SWITCH_VARIANTS.values())
    assert len(SWITCH_VARIANTS["login"]) == 6 and len(SWITCH_VARIANTS["paging"]) == 5


def test_instances_differ_in_host_credentials_and_data():
    spec = make_spec(login="header_key")
    a, b = Instance(spec, 1), Instance(spec, 2)
    assert a.credentials != b.credentials
    assert [r["id"] for r in a.all()] != [r["id"] for r in b.all()]
    with serve(a) as sa, serve(b) as sb:
        assert httpx.URL(sa.base_url).host != httpx.URL(sb.base_url).host


def _auth_for(login, inst, c: httpx.Client) -> dict:
    creds = inst.credentials
    if login == "header_key":
        return {"headers": {"X-API-Key": creds["api_key"]}}
    if login == "query_key":
        return {"params": {"api_key": creds["api_key"]}}
    if login == "basic":
        return {"auth": (creds["username"], creds["password"])}
    if login == "password_bearer":
        tok = c.post("/auth/login", json=creds).json()["access_token"]
        return {"headers": {"Authorization": f"Bearer {tok}"}}
    if login == "oauth2_client_credentials":
        r = c.post("/oauth/token", data={"grant_type": "client_credentials", **creds})
        assert r.headers["content-type"].startswith("application/json")
        return {"headers": {"Authorization": f"Bearer {r.json()['access_token']}"}}
    if login == "session_cookie":
        r = c.post("/session", json=creds)
        assert "session=" in r.headers["set-cookie"] and "HttpOnly" in r.headers["set-cookie"]
        return {}
    raise AssertionError(login)


@pytest.mark.parametrize("login", SWITCH_VARIANTS["login"])
def test_each_login_refuses_without_credentials_and_accepts_with_them(served, login):
    srv, c = served(make_spec(login=login))
    refused = c.get("/invoices")
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] in ("unauthorized",)
    assert "WWW-Authenticate" in refused.headers
    kw = _auth_for(login, srv.instance, c)
    ok = c.get("/invoices", **kw)
    assert ok.status_code == 200, ok.text
    assert len(ok.json()) == len(srv.instance.all())


def test_wrong_credentials_get_401_and_oauth_errors_follow_rfc6749(served):
    srv, c = served(make_spec(login="oauth2_client_credentials"))
    bad = c.post("/oauth/token", data={"grant_type": "client_credentials", "client_id": "x", "client_secret": "y"})
    assert bad.status_code == 401 and bad.json() == {"error": "invalid_client"}
    grant = c.post("/oauth/token", data={"grant_type": "password"})
    assert grant.status_code == 400 and grant.json() == {"error": "unsupported_grant_type"}


def _walk(paging, c: httpx.Client, envelope):
    ids, params, url, pages = [], {}, "/invoices", 0
    while url and pages < 50:
        pages += 1
        r = c.get(url, params=params or None)
        assert r.status_code == 200, r.text
        body = r.json()
        items = body if envelope == "off" else body["data"]
        ids += [i["id"] for i in items]
        url, params = "/invoices", dict(params)
        if paging == "page":
            if body["page"] >= body["total_pages"]:
                break
            params["page"] = body["page"] + 1
        elif paging == "offset":
            params["offset"] = body["offset"] + len(items)
            if params["offset"] >= body["total"]:
                break
        elif paging == "cursor":
            if not body["next_cursor"]:
                break
            params["cursor"] = body["next_cursor"]
        elif paging == "link":
            url, params = r.links.get("next", {}).get("url"), {}
        elif paging == "next_url":
            url, params = body["next"], {}
    return ids, pages


@pytest.mark.parametrize("paging", SWITCH_VARIANTS["paging"])
def test_each_paging_style_returns_every_record_over_several_pages(served, paging):
    srv, c = served(make_spec(paging=paging, envelope="data"))
    ids, pages = _walk(paging, c, "data")
    truth = [r["id"] for r in srv.instance.all()]
    assert ids == truth
    assert pages >= 3  # grading data is always several pages long, even at the largest page size
    capped = c.get("/invoices", params={"per_page": 1000, "limit": 1000})
    assert len(capped.json()["data"]) <= 10


def test_a_cursor_from_another_instance_is_refused(served):
    spec = make_spec(paging="cursor", envelope="data")
    _, c1 = served(spec, seed=1)
    _, c2 = served(spec, seed=2)
    cursor = c1.get("/invoices").json()["next_cursor"]
    r = c2.get("/invoices", params={"cursor": cursor})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_cursor"


@pytest.mark.parametrize("variant, good", [
    ("header_date", {"headers": {"X-API-Version": "2024-06-01"}}),
    ("query", {"params": {"api-version": "2024-06-01"}}),
    ("accept", {"headers": {"Accept": "application/vnd.ledgerly.v2+json"}}),
    ("path", {"url": "/v2/invoices"}),
])
def test_each_version_check_says_what_is_wrong(served, variant, good):
    _, c = served(make_spec(version=variant))
    missing = c.get("/invoices")
    assert missing.status_code in (400, 404, 406)
    assert missing.json()["error"]["code"] == "version_required"
    if variant in ("header_date", "query"):
        wrong = c.get("/invoices", headers={"X-API-Version": "1999-01-01"}, params={"api-version": "1999-01-01"})
        assert wrong.status_code == 400 and "2024-06-01" in wrong.json()["error"]["message"]
    if variant == "path":
        assert c.get("/v1/invoices").status_code == 410
    url = good.pop("url", "/invoices")
    assert c.get(url, **good).status_code == 200


def test_token_expires_after_its_requests_and_refresh_renews_it(served):
    srv, c = served(make_spec(login="password_bearer", expiry="requests_refresh"))
    body = c.post("/auth/login", json=srv.instance.credentials).json()
    h = {"Authorization": f"Bearer {body['access_token']}"}
    n = srv.instance.model.expiry["requests"]
    assert all(c.get("/account", headers=h).status_code == 200 for _ in range(n))
    dead = c.get("/account", headers=h)
    assert dead.status_code == 401 and dead.json()["error"]["code"] == "token_expired"
    assert 'error="invalid_token"' in dead.headers["WWW-Authenticate"]
    new = c.post("/auth/refresh", json={"refresh_token": body["refresh_token"]}).json()
    assert c.get("/account", headers={"Authorization": f"Bearer {new['access_token']}"}).status_code == 200
    # Refresh tokens rotate: the old one is spent.
    assert c.post("/auth/refresh", json={"refresh_token": body["refresh_token"]}).status_code == 401


def test_time_based_expiry_follows_the_instance_clock(served):
    srv, c = served(make_spec(login="session_cookie", expiry="seconds_relogin"))
    c.post("/session", json=srv.instance.credentials)
    assert c.get("/account").status_code == 200
    srv.instance.clock.advance(srv.instance.model.expiry["seconds"] + 1)
    r = c.get("/account")
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired"


def test_hidden_headers_are_enforced_with_the_derived_value(served):
    srv, c = served(make_spec(hidden_header="account_id"))
    acct = c.get("/account").json()["id"]
    one = f"/invoices/{srv.instance.all()[0]['id']}"
    assert c.get("/invoices").status_code == 200  # listings are not checked against the account; records are
    assert c.get(one).status_code == 403
    assert c.get(one, headers={"X-Account-Id": "acct_wrong"}).json()["error"]["code"] == "account_mismatch"
    assert c.get(one, headers={"X-Account-Id": acct}).status_code == 200

    srv, c = served(make_spec(hidden_header="csrf"))
    row = {"customer": "A", "amount_cents": 100, "currency": "EUR", "status": "open", "due_date": "2026-01-02"}
    c.get("/invoices")  # sets the csrftoken cookie
    assert c.post("/invoices", json=row).status_code == 403
    assert c.post("/invoices", json=row, headers={"X-CSRF-Token": c.cookies["csrftoken"]}).status_code == 201

    srv, c = served(make_spec(hidden_header="content_digest"))
    raw = httpx.Request("POST", "http://x", json=row).content
    digest = "sha-256=:" + base64.b64encode(hashlib.sha256(raw).digest()).decode() + ":"
    assert c.post("/invoices", content=raw, headers={"Content-Type": "application/json"}).status_code == 400
    ok = c.post("/invoices", content=raw, headers={"Content-Type": "application/json", "Content-Digest": digest})
    assert ok.status_code == 201

    srv, c = served(make_spec(hidden_header="idempotency_key"))
    assert c.post("/invoices", json=row).status_code == 400
    first = c.post("/invoices", json=row, headers={"Idempotency-Key": "k1"})
    again = c.post("/invoices", json=row, headers={"Idempotency-Key": "k1"})
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert c.post("/invoices", json={**row, "amount_cents": 5}, headers={"Idempotency-Key": "k1"}).status_code == 409


@pytest.mark.parametrize("envelope, single, many", [
    ("data", lambda b: b["data"], lambda b: b["data"]),
    ("result_meta", lambda b: b["result"], lambda b: b["result"]),
    ("items_next", lambda b: b, lambda b: b["items"]),
    ("named", lambda b: b["invoice"], lambda b: b["invoices"]),
    ("payload", lambda b: b["payload"], lambda b: b["payload"]),
])
def test_each_envelope_wraps_single_records_and_lists(served, envelope, single, many):
    srv, c = served(make_spec(envelope=envelope))
    rows = srv.instance.all()
    assert many(c.get("/invoices").json()) == rows
    assert single(c.get(f"/invoices/{rows[0]['id']}").json()) == rows[0]


def test_writes_persist_and_errors_have_real_statuses(served):
    srv, c = served(make_spec())
    row = {"customer": "Acme", "amount_cents": 1234, "currency": "EUR", "status": "open", "due_date": "2026-03-01"}
    created = c.post("/invoices", json=row)
    assert created.status_code == 201 and created.headers["Location"].endswith(created.json()["id"])
    rid = created.json()["id"]
    assert srv.instance.get(rid) == {"id": rid, **row}
    assert c.patch(f"/invoices/{rid}", json={"status": "paid"}).json()["status"] == "paid"
    assert srv.instance.get(rid)["status"] == "paid"
    bad = c.post("/invoices", json={**row, "status": "lost", "colour": "red"})
    assert bad.status_code == 422 and "status" in bad.json()["error"]["message"] and "colour" in bad.text
    assert c.post("/invoices", content=b"{not json", headers={"Content-Type": "application/json"}).status_code == 400
    deleted = c.delete(f"/invoices/{rid}")
    assert deleted.status_code == 204 and not deleted.content
    missing = c.get(f"/invoices/{rid}")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert c.put(f"/invoices/{rid}", json=row).status_code == 405
    assert c.get("/nowhere").status_code == 404


def test_runaway_clients_are_rate_limited(served):
    spec = make_spec(Details(page_size=5, max_page_size=10, rate_limit=5))
    _, c = served(spec)
    codes = [c.get("/account").status_code for _ in range(7)]
    assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]
    assert c.get("/account").headers["Retry-After"] == "1"

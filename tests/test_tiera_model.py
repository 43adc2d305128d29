"""The Tier A descriptions as the engine will read them, and records generated from their schemas."""

import random

import httpx
import pytest
from openapi_schema_validator import OAS30Validator, oas30_format_checker

from har2client import SpecError
from har2client.api import Instance, conventions_on, serve
from har2client.api._fake import fake_records
from har2client.tiera import load_tiera_spec, load_tiera_specs, tiera_specs

MODELS = load_tiera_specs()
BY_KEY = {m.key: m for m in MODELS}


def test_every_description_loads_with_the_roles_its_session_uses():
    assert len(MODELS) == 27
    for m in MODELS:
        assert set(m.conventions["session"]) <= set(m.operations), m.key
        assert m.operations["list"].method in ("GET", "POST") and m.operations["get"].method == "GET"
        if "update" in m.operations:
            assert m.operations["update"].method == m.conventions["update_method"].upper(), m.key
        assert m.id_field in m.record_schema.get("properties", {}), (m.key, m.id_field)
        if "create" in m.operations:
            assert m.writable, m.key
        assert m.server.startswith("https://")


@pytest.mark.parametrize("model", MODELS, ids=[m.key for m in MODELS])
def test_generated_records_are_valid_for_the_providers_own_schema(model):
    validator = OAS30Validator(model.record_schema, format_checker=oas30_format_checker)
    records = fake_records(model, 25, random.Random(7))
    for record in records:
        errors = sorted(validator.iter_errors(record), key=str)
        assert not errors, (model.key, str(errors[0])[:300])
    ids = [r[model.id_field] for r in records]
    assert len(set(map(str, ids))) == 25
    id_validator = OAS30Validator(model.id_schema, format_checker=oas30_format_checker)
    assert all(id_validator.is_valid(i) for i in ids), (model.key, ids[:3])


def test_ids_take_the_providers_shape():
    r = random.Random(1)
    stripe = fake_records(BY_KEY["stripe"], 3, r)
    assert all(c["id"].startswith("cus_") and len(c["id"]) == len("cus_NffrFeUfNV2Hib") for c in stripe)
    twilio = fake_records(BY_KEY["twilio"], 3, r)
    assert all(m["sid"][:2] in ("SM", "MM") and len(m["sid"]) == 34 for m in twilio)
    jira = fake_records(BY_KEY["jira"], 3, r)
    assert all(i["key"].split("-")[0] == "DEMO" for i in jira)
    assert all(isinstance(i["number"], int) for i in fake_records(BY_KEY["github"], 3, r))


def test_generation_is_deterministic():
    m = MODELS[0]
    assert fake_records(m, 10, random.Random(3)) == fake_records(m, 10, random.Random(3))
    assert fake_records(m, 10, random.Random(3)) != fake_records(m, 10, random.Random(4))


def test_a_broken_annotation_is_a_clear_error(tmp_path):
    src = open(tiera_specs()[0].path).read().replace('get: "GetCustomersCustomer"', 'get: "NoSuchOperation"')
    path = tmp_path / "01_broken.yaml"
    path.write_text(src)
    with pytest.raises(SpecError, match="names 'NoSuchOperation', which no operation has"):
        load_tiera_spec(str(path))
    (tmp_path / "02_bad.yaml").write_text("openapi: [3\n")
    with pytest.raises(SpecError, match="not valid YAML"):
        load_tiera_spec(str(tmp_path / "02_bad.yaml"))


@pytest.mark.parametrize("key", ["stripe", "github"])
def test_a_request_without_an_optional_version_header_gets_the_default_version(key):
    """Stripe and GitHub answer a request without their version header with their default version
    (a wrong version is still refused), so no hidden test asks a client for the header."""
    model = BY_KEY[key]
    assert "version" not in conventions_on(model)
    instance = Instance(model, 5)
    auth = {"Authorization": f"Bearer {instance.credentials['api_key']}"}
    with serve(instance, host="127.0.0.1") as server:
        url = server.base_url + model.operations["list"].path.format(**instance.client_params)
        version = model.conventions["version"]["name"]
        assert httpx.get(url, headers=auth).status_code == 200
        assert httpx.get(url, headers={**auth, version: model.conventions["version"]["value"]}).status_code == 200
        wrong = httpx.get(url, headers={**auth, version: "1999-01-01"})
        assert wrong.status_code == 400 and "1999-01-01" in wrong.text


@pytest.mark.parametrize("key,field,expected", [
    ("okta", "errorCode", {401: "E0000011", 404: "E0000007"}),
    ("notion", "code", {401: "unauthorized", 404: "object_not_found", "no version": "missing_version"}),
])
def test_errors_carry_the_providers_code_for_each_refusal(key, field, expected):
    model = BY_KEY[key]
    instance = Instance(model, 6)
    auth = model.auth
    good = {auth.get("header", "Authorization"): auth.get("prefix", "Bearer ") + instance.credentials["api_key"]}
    version = model.conventions["version"]
    if version["style"] == "header":
        good[version["name"]] = version["value"]
    with serve(instance, host="127.0.0.1") as server:
        get_path = model.operations["get"].path
        missing = server.base_url + get_path[:get_path.rindex("{")] + "no-such-id"
        answers = {401: httpx.get(missing, headers={k: v for k, v in good.items() if k != next(iter(good))}),
                   404: httpx.get(missing, headers=good)}
        if "no version" in expected:
            answers["no version"] = httpx.get(missing, headers={k: v for k, v in good.items() if k != version["name"]})
        for what, code in expected.items():
            assert answers[what].json()[field] == code, (what, answers[what].text)


def test_slack_ends_paging_with_an_empty_cursor_and_takes_json_bodies_too():
    model = BY_KEY["slack"]
    instance = Instance(model, 7)
    auth = {"Authorization": f"Bearer {instance.credentials['api_key']}"}
    with serve(instance, host="127.0.0.1") as server:
        url, cursor, pages = server.base_url + model.operations["list"].path, None, 0
        while True:
            body = httpx.get(url, headers=auth, params={"cursor": cursor} if cursor else {}).json()
            pages += 1
            cursor = body["response_metadata"]["next_cursor"]
            if not cursor:
                break
        assert pages > 1 and cursor == ""  # the real API's end marker, not null
        made = httpx.post(server.base_url + model.operations["create"].path, headers=auth, json={"name": "plans"})
        assert made.json()["ok"] is True and made.json()["channel"]["name"] == "plans"


def test_twilio_pages_from_zero_with_page_size_and_a_page_token():
    model = BY_KEY["twilio"]
    instance = Instance(model, 8)
    auth = httpx.BasicAuth(instance.credentials["username"], instance.credentials["password"])
    with serve(instance, host="127.0.0.1") as server:
        path = model.operations["list"].path.format(**instance.client_params)
        first = httpx.get(server.base_url + path, auth=auth, params={"PageSize": 5})
        assert first.status_code == 200, first.text
        nxt = first.json()["next_page_uri"]
        assert "Page=1" in nxt and "PageSize=5" in nxt and "PageToken=" in nxt and "page=" not in nxt
        again = httpx.get(server.base_url + path, auth=auth, params={"PageSize": 5, "Page": 0}).json()
        assert again["messages"] == first.json()["messages"]  # Page 0 is the first page
        second = httpx.get(server.base_url + nxt, auth=auth).json()
        assert not {m["sid"] for m in second["messages"]} & {m["sid"] for m in first.json()["messages"]}


def test_jira_searches_by_jql_with_next_page_tokens_and_the_old_search_is_gone():
    model = BY_KEY["jira"]
    instance = Instance(model, 9)
    auth = httpx.BasicAuth(instance.credentials["username"], instance.credentials["password"])
    jql = {"jql": f"project = {instance.client_params['project_key']}", "maxResults": 10}
    with serve(instance, host="127.0.0.1") as server:
        gone = httpx.get(server.base_url + "/rest/api/3/search", auth=auth, params=jql)
        assert gone.status_code == 410 and "search/jql" in gone.text
        seen, token = [], None
        while True:
            body = httpx.get(server.base_url + "/rest/api/3/search/jql", auth=auth,
                             params={**jql, "fields": "*all", **({"nextPageToken": token} if token else {})}).json()
            assert "total" not in body and isinstance(body["isLast"], bool)
            seen += [i["key"] for i in body["issues"]]
            token = body.get("nextPageToken")
            if body["isLast"]:
                assert not token
                break
        assert len(seen) == len(set(seen)) == len(instance.all()) > 10
        bare = httpx.get(server.base_url + "/rest/api/3/search/jql", auth=auth, params=jql).json()
        assert bare["issues"] and all(set(i) == {"id"} for i in bare["issues"])  # only ids unless fields are named
        issue = {"summary": "Printer on fire"}
        create = server.base_url + "/rest/api/3/issue"
        assert httpx.post(create, auth=auth, json={"fields": issue}).status_code == 400  # no project, no type
        made = httpx.post(create, auth=auth, json={"fields": {**issue, "issuetype": {"name": "Bug"}, "project": {
            "key": instance.client_params["project_key"]}}})
        assert made.status_code == 201 and made.json()["key"].startswith(instance.client_params["project_key"])


def test_box_tokens_say_whom_they_act_for():
    model = BY_KEY["box"]
    instance = Instance(model, 10)
    grant = {"grant_type": "client_credentials", **instance.credentials}
    with serve(instance, host="127.0.0.1") as server:
        url = server.base_url + "/oauth2/token"
        bare = httpx.post(url, data=grant)
        assert bare.status_code == 400 and bare.json()["error"] == "invalid_grant"
        acting = {"box_subject_type": "enterprise", "box_subject_id": instance.client_params["enterprise_id"]}
        assert httpx.post(url, data={**grant, **acting}).json()["token_type"] == "Bearer"
        wrong = httpx.post(url, data={**grant, **acting, "box_subject_id": "1"})
        assert wrong.status_code == 400


def test_stripe_answers_a_deleted_customer_as_a_stub_marked_deleted():
    """Real Stripe: DELETE answers {id, object, deleted: true}, and so does a later GET (not a 404)."""
    model = BY_KEY["stripe"]
    instance = Instance(model, 8)
    auth = {"Authorization": f"Bearer {instance.credentials['api_key']}"}
    rid = next(iter(instance.rows))
    with serve(instance, host="127.0.0.1") as server:
        url = f"{server.base_url}/v1/customers/{rid}"
        stub = {"id": rid, "object": "customer", "deleted": True}
        assert httpx.delete(url, headers=auth).json() == stub
        assert httpx.get(url, headers=auth).json() == stub and instance.get(rid) is None
        assert httpx.delete(url, headers=auth).status_code == 404
        assert httpx.get(f"{server.base_url}/v1/customers/cus_nosuch", headers=auth).status_code == 404


def test_okta_deactivates_a_user_on_the_first_delete_and_deletes_on_the_second():
    model = BY_KEY["okta"]
    instance = Instance(model, 8)
    auth = {"Authorization": f"SSWS {instance.credentials['api_key']}"}
    rid = next(k for k, v in instance.rows.items() if v["status"] == "ACTIVE")
    with serve(instance, host="127.0.0.1") as server:
        url = f"{server.base_url}/api/v1/users/{rid}"
        assert httpx.delete(url, headers=auth).status_code == 204
        assert httpx.get(url, headers=auth).json()["status"] == "DEPROVISIONED"
        assert httpx.delete(url, headers=auth).status_code == 204
        assert httpx.get(url, headers=auth).status_code == 404 and instance.get(rid) is None
        other = next(k for k, v in instance.rows.items() if v["status"] == "ACTIVE")  # or deactivate, then delete
        assert httpx.post(f"{server.base_url}/api/v1/users/{other}/lifecycle/deactivate", headers=auth).json() == {}
        assert httpx.get(f"{server.base_url}/api/v1/users/{other}", headers=auth).json()["status"] == "DEPROVISIONED"
        assert httpx.delete(f"{server.base_url}/api/v1/users/{other}", headers=auth).status_code == 204
        assert instance.get(other) is None
        missing = httpx.post(f"{server.base_url}/api/v1/users/nosuch/lifecycle/deactivate", headers=auth)
        assert missing.status_code == 404


def test_notion_lists_a_data_source_and_a_new_page_must_name_its_parent():
    """Notion-Version 2025-09-03: databases hold data sources; pages are queried and created under one."""
    model = BY_KEY["notion"]
    instance = Instance(model, 9)
    source = instance.client_params["data_source_id"]
    auth = {"Authorization": f"Bearer {instance.credentials['api_key']}", "Notion-Version": "2025-09-03"}
    with serve(instance, host="127.0.0.1") as server:
        listed = httpx.post(f"{server.base_url}/v1/data_sources/{source}/query", headers=auth, json={})
        assert listed.status_code == 200 and listed.json()["object"] == "list"
        old = httpx.post(f"{server.base_url}/v1/data_sources/{source}/query",
                         headers={**auth, "Notion-Version": "2022-06-28"}, json={})
        assert old.status_code == 400
        pages = f"{server.base_url}/v1/pages"
        orphan = httpx.post(pages, headers=auth, json={"properties": {}})
        assert orphan.status_code == 400 and orphan.json()["code"] == "validation_error"
        elsewhere = httpx.post(pages, headers=auth, json={"parent": {"data_source_id": "other"}, "properties": {}})
        assert elsewhere.status_code == 400
        made = httpx.post(pages, headers=auth, json={"parent": {"type": "data_source_id", "data_source_id": source},
                                                       "properties": {}})
        assert made.status_code == 200 and made.json()["object"] == "page"


def test_reads_by_post_take_their_arguments_from_the_body():
    """Slack's methods take GET or POST (form or JSON); Jira's search/jql takes a JSON body by POST."""
    slack = BY_KEY["slack"]
    instance = Instance(slack, 10)
    auth = {"Authorization": f"Bearer {instance.credentials['api_key']}"}
    with serve(instance, host="127.0.0.1") as server:
        seen, cursor = [], ""
        while True:
            body = httpx.post(server.base_url + "/api/conversations.list", headers=auth,
                              data={"limit": "7", **({"cursor": cursor} if cursor else {})}).json()
            seen += [c["id"] for c in body["channels"]]
            cursor = body["response_metadata"]["next_cursor"]
            if not cursor:
                break
        assert sorted(seen) == sorted(instance.rows) and len(seen) > 7
        info = httpx.post(server.base_url + "/api/conversations.info", headers=auth, json={"channel": seen[0]})
        assert info.json()["channel"]["id"] == seen[0]
    jira = BY_KEY["jira"]
    instance = Instance(jira, 10)
    basic = httpx.BasicAuth(instance.credentials["username"], instance.credentials["password"])
    with serve(instance, host="127.0.0.1") as server:
        keys, token = [], None
        while True:
            body = httpx.post(server.base_url + "/rest/api/3/search/jql", auth=basic, json={
                "jql": f"project = {instance.client_params['project_key']}", "fields": ["*all"], "maxResults": 10,
                **({"nextPageToken": token} if token else {})}).json()
            keys += [i["key"] for i in body["issues"]]
            token = body.get("nextPageToken")
            if body["isLast"]:
                break
        assert sorted(keys) == sorted(instance.rows)


def test_zendesk_pages_by_offset_or_by_cursor_as_the_client_asks():
    """Zendesk recommends cursor paging (page[size], page[after], meta.has_more, links.next) beside offsets."""
    model = BY_KEY["zendesk"]
    instance = Instance(model, 11)
    auth = httpx.BasicAuth(instance.credentials["username"] + "/token", instance.credentials["password"])
    with serve(instance, host="127.0.0.1") as server:
        seen, url, params = [], server.base_url + "/api/v2/tickets.json", {"page[size]": 100}
        while True:
            body = httpx.get(url, auth=auth, params=params).json()
            seen += [t["id"] for t in body["tickets"]]
            if not body["meta"]["has_more"]:
                break
            url, params = body["links"]["next"], None
        assert sorted(seen) == sorted(r["id"] for r in instance.all()) and len(body["tickets"]) <= 20
        offset = httpx.get(server.base_url + "/api/v2/tickets", auth=auth).json()
        assert "next_page" in offset and "meta" not in offset
        assert httpx.get(server.base_url + "/api/v2/tickets", auth=auth,
                         params={"page[size]": 5, "page[after]": "forged"}).status_code == 400

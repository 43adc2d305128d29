"""Reading HAR as real exporters write it, rejecting broken files in one line, writing HAR 1.2."""

import base64
import json

import pytest

from har2client import HarError
from har2client.api import instance_seed, model_from_document
from har2client.api._session import record_session, recording_instance
from har2client.har import parse_har, read_har, recording_to_har, render_compact, write_har
from har2client.tierb import tierb_configs


def _entry(**over):
    e = {
        "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 12.5,
        "request": {"method": "GET", "url": "https://api.x.example/v1/items?page=2", "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Accept", "value": "application/json"}], "queryString": [],
                    "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [],
                     "cookies": [], "content": {"size": 2, "mimeType": "application/json", "text": "[]"},
                     "redirectURL": "", "headersSize": -1, "bodySize": 2},
        "cache": {}, "timings": {"send": 0, "wait": 10, "receive": 2.5},
    }
    e.update(over)
    return e


def test_chrome_style_file_with_underscore_fields():
    e = _entry(_resourceType="xhr", _initiator={"type": "script"}, pageref="page_1")
    rec = parse_har(json.dumps({"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                                        "pages": [{"id": "page_1", "title": "x", "startedDateTime": ""}],
                                        "entries": [e]}}))
    assert rec.entries[0].resource_type == "xhr" and rec.entries[0].request.query == [("page", "2")]
    assert rec.pages[0].id == "page_1"


def test_playwright_style_file_without_pages_and_with_a_bom():
    raw = "\ufeff" + json.dumps({"log": {"version": "1.2", "creator": {"name": "Playwright", "version": "1.49"},
                                         "entries": [_entry()]}})
    rec = parse_har(raw.encode("utf-8"))
    assert rec.pages == [] and rec.creator == ("Playwright", "1.49")


def test_mitmproxy_style_base64_bodies_are_decoded():
    body = base64.b64encode(b'{"id": 1}').decode()
    e = _entry()
    e["response"]["content"] = {"size": 9, "mimeType": "application/json", "text": body, "encoding": "base64"}
    binary = _entry()
    binary["response"]["content"] = {"size": 4, "mimeType": "image/png",
                                     "text": base64.b64encode(b"\x89PNG\xff\xfe").decode(), "encoding": "base64"}
    rec = parse_har(json.dumps({"log": {"entries": [e, binary]}}))
    assert rec.entries[0].response.body == '{"id": 1}'
    assert rec.entries[1].response.body_base64


def test_firefox_style_post_data_with_params_and_text():
    e = _entry()
    e["request"].update(method="POST", postData={"mimeType": "application/x-www-form-urlencoded",
                                                 "params": [{"name": "grant_type", "value": "client_credentials"}],
                                                 "text": "grant_type=client_credentials"})
    only_params = _entry()
    only_params["request"].update(method="POST", postData={"mimeType": "application/x-www-form-urlencoded",
                                                           "params": [{"name": "a", "value": "b c"}]})
    rec = parse_har(json.dumps({"log": {"entries": [e, only_params]}}))
    assert rec.entries[0].request.body == "grant_type=client_credentials"
    assert rec.entries[0].request.form_params == [("grant_type", "client_credentials")]
    assert rec.entries[1].request.body == "a=b+c"


def test_aborted_requests_with_status_zero_are_kept():
    e = _entry()
    e["response"] = {"status": 0, "statusText": "", "headers": [], "content": {"size": 0, "mimeType": "x-unknown"}}
    assert parse_har(json.dumps({"log": {"entries": [e]}})).entries[0].response.status == 0


@pytest.mark.parametrize("content, message", [
    ("", "the file is empty"),
    ("{\"log\": ", "not valid JSON (line 1"),
    ("[1, 2]", "no 'log' object"),
    ('{"log": {"version": "1.2"}}', "log.entries is missing"),
    ('{"log": {"entries": [{"response": {}}]}}', "entry 0 has no request object"),
    ('{"log": {"entries": [{"request": {"method": "GET"}}]}}', "entry 0 has no request.url"),
    ('{"log": {"entries": [{"request": {"method": "GET", "url": "http://a"}}]}}', "entry 0 has no response object"),
    ('{"log": {"entries": [{"request": {"method": "GET", "url": "http://a"}, "response": {"status": "ok"}}]}}',
     "response.status that is not a number"),
], ids=["empty", "truncated", "not-har", "no-entries", "no-request", "no-url", "no-response", "bad-status"])
def test_broken_files_get_one_line_naming_file_and_fault(tmp_path, content, message):
    path = tmp_path / "broken.har"
    path.write_text(content)
    with pytest.raises(HarError) as info:
        read_har(path)
    text = str(info.value)
    assert "\n" not in text and text.startswith(str(path)) and message in text


def test_missing_file_is_a_one_line_error(tmp_path):
    with pytest.raises(HarError, match="no such file"):
        read_har(tmp_path / "nope.har")


def _recording(index=0):
    c = tierb_configs(1, index + 1)[index]
    model = model_from_document(c.document(), c.task_id, c.slug)
    seed = instance_seed(c.seed, "recording")
    return c, record_session(model, recording_instance(model, seed), seed)


HAR12_ENTRY = {"startedDateTime", "time", "request", "response", "cache", "timings"}
HAR12_REQUEST = {"method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"}
HAR12_RESPONSE = {"status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL",
                  "headersSize", "bodySize"}


def test_written_recordings_are_har_1_2_shaped_like_a_browser_export(tmp_path):
    config, rec = _recording()
    host = f"api.{config.slug}.example"
    doc = recording_to_har(rec)
    log = doc["log"]
    assert log["version"] == "1.2" and log["creator"]["name"] == "WebInspector" and log["browser"]["name"] == "Chrome"
    assert log["pages"] and all(p["id"].startswith("page_") for p in log["pages"])
    for e in log["entries"]:
        assert HAR12_ENTRY <= set(e) and HAR12_REQUEST <= set(e["request"]) and HAR12_RESPONSE <= set(e["response"])
        assert {"send", "wait", "receive"} <= set(e["timings"])
        assert "size" in e["response"]["content"] and "mimeType" in e["response"]["content"]
    hosts = {e["request"]["url"].split("/")[2] for e in log["entries"]}
    assert host in hosts and len(hosts) > 1  # unrelated browser requests are part of a browser HAR
    api = [e for e in log["entries"] if host in e["request"]["url"]]
    assert any(h["name"] == "User-Agent" and "Chrome" in h["value"] for h in api[0]["request"]["headers"])
    assert any(e["request"]["cookies"] for e in api) or config.switches.login != "session_cookie"
    path = tmp_path / "r.har"
    write_har(rec, str(path))
    again = read_har(path)
    assert len(again.entries) == len(rec.entries)
    assert [e.request.url for e in again.entries] == [e.request.url for e in rec.entries]
    assert again.entries[3].response.body == rec.entries[3].response.body


def test_compact_rendering_keeps_the_api_and_drops_boilerplate():
    config, rec = _recording()
    text = render_compact(rec)
    assert text.startswith("# Recording: ") and f"api.{config.slug}.example" in text.splitlines()[0]
    assert "omitted" in text.splitlines()[0]
    assert "sec-ch-ua" not in text and "User-Agent" not in text
    assert "Authorization: Bearer" in text or config.switches.login != "password_bearer"
    assert "more\"" in text  # long lists are shortened
    assert len(text) < len(json.dumps(recording_to_har(rec))) / 3

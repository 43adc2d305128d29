"""HAR files as real exporters and careless tools write them: every one reads, or fails in one line.

Each test here is one defect found by reading such files: bodies kept beside the HAR or not kept at
all, text no terminal should print, form fields decoded twice, URLs that do not parse, and output
that never ends.
"""

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from har2client import HarError
from har2client.har import parse_har, read_har, render_compact
from test_har import _entry


def _har(*entries, **log):
    return {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": list(entries), **log}}


def _write(tmp_path, doc, name="rec.har"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _render(path):
    r = subprocess.run([sys.executable, "-m", "har2client", "render", str(path)], capture_output=True, cwd=ROOT)
    return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")


def _with_content(content, **request):
    e = _entry()
    e["response"]["content"] = content
    e["request"].update(request)
    return e


def test_attached_bodies_are_read_from_beside_the_har_and_never_from_outside(tmp_path):
    (tmp_path / "body.json").write_text('{"id": "inv_1"}')
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    outside = tmp_path.parent / "secret.txt"
    outside.write_text("not yours")
    doc = _har(_with_content({"size": 15, "mimeType": "application/json", "_file": "body.json"}),
               _with_content({"size": 256, "mimeType": "application/octet-stream", "_file": "blob.bin"}),
               _with_content({"size": 9, "mimeType": "text/plain", "_file": "../secret.txt"}),
               _with_content({"size": 9, "mimeType": "text/plain", "_file": "gone.txt"}))
    rec = read_har(_write(tmp_path, doc))
    first, blob, escape, gone = (e.response for e in rec.entries)
    assert first.body == '{"id": "inv_1"}' and blob.body_base64
    assert escape.body == "" and "outside" in escape.body_note and "missing" in gone.body_note
    text = render_compact(rec)
    assert '{"id": "inv_1"}' in text and "[binary body, 256 bytes, application/octet-stream]" in text
    assert "not yours" not in text and "[body in an attached file (gone.txt) that is missing, 9 bytes]" in text


def test_bodies_that_were_not_recorded_say_so():
    rec = parse_har(json.dumps(_har(_with_content({"size": 812, "mimeType": "application/json"}))))
    assert rec.entries[0].response.body_note == "not recorded"
    assert "< [body not recorded, 812 bytes]" in render_compact(rec)


@pytest.mark.parametrize("body", ['"\\ud800 lone surrogate"', "[" * 5000 + "]" * 5000,
                                  '"NUL \\u0000 ESC \\u001b[31m red BEL \\u0007"'],
                         ids=["lone_surrogate", "deep_json", "control_characters"])
@pytest.mark.slow
def test_any_body_renders_as_printable_text(tmp_path, body):
    text = json.loads(body) if body.startswith('"') else body
    doc = _har(_with_content({"size": 10, "mimeType": "application/json", "text": text}))
    code, out, err = _render(_write(tmp_path, doc))
    assert code == 0 and err == "", err
    assert not any(ord(c) < 32 and c not in "\n\t" for c in out) and "\x7f" not in out


def test_binary_text_bodies_are_shown_as_binary():
    text = "".join(chr(i) for i in range(32)) * 10
    rec = parse_har(json.dumps(_har(_with_content({"size": 320, "mimeType": "image/png", "text": text}))))
    assert "< [binary body, 320 bytes, image/png]" in render_compact(rec)


def test_form_fields_are_decoded_once_and_a_null_value_is_empty():
    params = [{"name": "user", "value": "p+ss%41"}, {"name": 5, "value": None}]
    e = _entry(request={"method": "POST", "url": "https://api.x.example/login", "headers": [],
                        "postData": {"mimeType": "application/x-www-form-urlencoded", "params": params}})
    req = parse_har(json.dumps(_har(e))).entries[0].request
    assert req.form_params == [("user", "p+ss%41"), ("5", "")]
    raw = _entry(request={"method": "POST", "url": "https://api.x.example/login", "headers": [],
                          "postData": {"mimeType": "application/x-www-form-urlencoded", "text": "user=p%2Bss%41&n=",
                                       "params": params}})
    assert parse_har(json.dumps(_har(raw))).entries[0].request.form_params == [("user", "p+ssA"), ("n", "")]


@pytest.mark.slow
def test_an_unparsable_url_and_a_null_status_render_plainly(tmp_path):
    bad = _entry()
    bad["request"]["url"] = "http://[::1"
    null = _entry()
    null["response"].update(status=None, statusText="UNAUTHORIZED")
    code, out, err = _render(_write(tmp_path, _har(null, null, bad)))
    assert code == 0, err
    assert "(no host)" in out and "omitted: ," not in out
    assert "< [no status recorded] UNAUTHORIZED" in out and "0 UNAUTHORIZED" not in out


def test_the_rendering_stops_at_a_stated_cap():
    rec = parse_har(json.dumps(_har(*[_entry() for _ in range(5000)])))
    text = render_compact(rec)
    assert len(text) <= 100_000 and "more requests not shown: the rendering is capped at 100,000 characters" in text


@pytest.mark.parametrize("doc, message", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    (json.dumps(_har(_entry(response={"status": 10**400, "content": {}}))), "status"),
    (json.dumps(_har(_entry(response={"status": "abc"}))), "not a number"),
])
@pytest.mark.slow
def test_hostile_structure_is_one_line(tmp_path, doc, message):
    path = tmp_path / "x.har"
    path.write_text(doc)
    code, out, err = _render(path)
    assert code == 2 and err.count("\n") == 1 and message in err and str(path) in err, err
    with pytest.raises(HarError):
        read_har(path)

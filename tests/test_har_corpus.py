"""HAR files written by real exporters (made by scripts/make_har_corpus.py): each reads and renders.

Chromium through Playwright in its content modes (embed, attach with bodies in files beside the HAR,
omit, and the minimal mode), and mitmproxy's HAR dump. All record one session against a fake API.
"""

import os
import shutil

import pytest

from har2client.har import read_har, render_compact

CORPUS = os.path.join(os.path.dirname(__file__), "har_corpus")
FILES = {
    "playwright_embed": "playwright_embed.har",
    "playwright_attach": os.path.join("playwright_attach", "playwright_attach.har"),
    "playwright_omit": "playwright_omit.har",
    "playwright_minimal": "playwright_minimal.har",
    "mitmproxy": "mitmproxy.har",
}


def _rendered(name):
    rec = read_har(os.path.join(CORPUS, FILES[name]))
    return rec, render_compact(rec)


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_exporters_file_reads_and_shows_the_api(name):
    rec, text = _rendered(name)
    assert rec.entries and text.startswith("# Recording: ")
    assert "GET http://127.0.0.1:" in text and "/products" in text


@pytest.mark.parametrize("name", ["playwright_embed", "playwright_attach", "playwright_minimal", "mitmproxy"])
def test_bodies_are_shown_and_binary_ones_named(name):
    rec, text = _rendered(name)
    assert '"sku": ' in text  # a product record from a response body
    assert "[binary body, 70 bytes, image/png]" in text


def test_attach_mode_bodies_come_from_the_files_beside_the_har_and_are_missing_without_them(tmp_path):
    rec, text = _rendered("playwright_attach")
    posted = next(e for e in rec.entries if e.request.method == "POST")
    assert posted.request.body.startswith('{"sku":"SKU-1"') and posted.response.body
    alone = tmp_path / "alone.har"
    shutil.copyfile(os.path.join(CORPUS, FILES["playwright_attach"]), alone)
    text = render_compact(read_har(alone))
    assert "that is missing" in text and '"sku": ' not in text


def test_omit_mode_says_the_bodies_were_not_recorded():
    rec, text = _rendered("playwright_omit")
    assert "[body not recorded, 5434 bytes]" in text
    assert all(not e.response.body for e in rec.entries)


def test_a_form_value_that_looks_encoded_is_shown_as_it_was_sent():
    rec, _ = _rendered("mitmproxy")
    posted = next(e for e in rec.entries if e.request.method == "POST")
    assert ("sku", "p+ss%41") in posted.request.form_params

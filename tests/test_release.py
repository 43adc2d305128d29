"""Releases: an edit of an API's document gives a new document; the difference is computed and said."""

import pytest

from har2client.api import Instance, describe_release, evolve, model_from_document, release_diff, serve
from har2client.api._reference import reference_source
from har2client.tiera import tiera_specs
from har2client.tierb import tierb_configs


@pytest.fixture(scope="module")
def doc():
    return tierb_configs(1)[31].document()  # products, every switch off


def test_the_same_document_has_no_differences(doc):
    assert release_diff(doc, doc) == []
    assert "Nothing a client can notice" in describe_release([])


def test_evolve_leaves_the_old_release_as_it_was(doc):
    new = evolve(doc, lambda d: d["x-har2client"].update(version={"style": "header", "name": "X-V", "value": "2"}),
                 release="2")
    assert doc["x-har2client"]["version"] == {"style": "none"} and doc["info"]["version"] == "1"
    assert new["info"]["version"] == "2"


def test_each_kind_of_edit_is_found_and_said_in_words(doc):
    def edit(d):
        x = d["x-har2client"]
        x["version"] = {"style": "header", "name": "X-Api-Version", "value": "2026-01-01"}
        x["required_headers"] = [{"name": "Idempotency-Key", "on": ["post"], "check": "unique"}]
        schema = d["components"]["schemas"]["Product"]["properties"]
        schema["price"] = schema.pop("price_cents")
        d["components"]["schemas"]["Product"]["required"] = ["id", *schema]
        d["paths"]["/v1/products"] = d["paths"].pop("/products")

    changes = release_diff(doc, evolve(doc, edit))
    by_aspect = {c.aspect: c for c in changes}
    assert {"version", "required_header", "operation", "field"} <= set(by_aspect)
    assert by_aspect["required_header"].text == "Requests (POST) now need the Idempotency-Key header."
    assert by_aspect["field"].text == "A product record calls price_cents price now."
    moved = [c for c in changes if c.aspect == "operation"]
    assert {c.where for c in moved} == {"list", "create"}
    assert "moved from GET /products to GET /v1/products" in " ".join(c.text for c in moved)
    text = describe_release(changes, "Release 2")
    assert text.startswith("## Release 2\n\n- ") and text.count("\n- ") == len(changes)


def test_a_new_release_is_served_and_the_old_client_notices(doc):
    new = evolve(doc, lambda d: d["x-har2client"].update(
        auth={"style": "header_key", "header": "X-Key"}))
    old_model, new_model = model_from_document(doc), model_from_document(new)
    assert [c.aspect for c in release_diff(old_model, new_model)] == ["auth", "auth"]
    with serve(Instance(new_model, 3), host="127.0.0.1") as srv:
        ns: dict = {}
        exec(compile(reference_source(old_model), "old_client.py", "exec"), ns)
        with pytest.raises(ns["ApiError"], match="HTTP 401"):
            ns["Client"](srv.base_url).list_products()
        key = srv.instance.credentials["api_key"]
        exec(compile(reference_source(new_model), "new_client.py", "exec"), ns)
        assert len(ns["Client"](srv.base_url, key).list_products()) == len(srv.instance.all())


def test_a_tier_a_document_diffs_the_same_way():
    from har2client.api import read_document

    stripe = read_document(tiera_specs()[0].path)
    new = evolve(stripe, lambda d: d["x-har2client"]["paging"].update(cursor_param="after"))
    [change] = release_diff(stripe, new)
    assert (change.aspect, change.where, change.old, change.new) == ("paging", "cursor_param", "starting_after",
                                                                     "after")


def test_the_readme_release_example_prints_what_it_says():
    import contextlib
    import io
    import os
    import re

    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8").read()
    block = re.search(r"```python\n(from har2client.api import describe_release.*?)```", readme, re.S).group(1)
    code = "\n".join(line for line in block.splitlines() if not line.startswith("#"))
    shown = "\n".join(line[2:] for line in block.splitlines() if line.startswith("# ") or line == "#")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().strip() == shown.strip()

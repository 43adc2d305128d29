"""Tier A specs: valid OpenAPI 3, each a 3-8 operation subset of one real API, annotated for the engine."""

import glob
import os
import re
from collections import Counter

import pytest
import yaml
from openapi_spec_validator import validate

SPECS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "har2client", "tiera", "specs", "*.yaml")))
AUTH = {"header_key", "query_key", "bearer", "basic", "oauth2_client_credentials", "vendor"}
PAGING = {"page", "offset", "cursor", "link", "next_url", "none"}
METHODS = {"get", "post", "put", "patch", "delete"}
# Licences of the providers' published descriptions: open ones, or the truth where none is given. A licence
# that forbids building on the description (HubSpot's, Mailchimp's) is not here, so such an API cannot return.
LICENCES = {"MIT", "Apache-2.0", "BSD-3-Clause", "none stated", "none published"}


def _non_string_keys(node, where=""):
    """Keys YAML 1.1 turned into booleans or numbers (on, off, yes, no): always a mistake here."""
    found = []
    if isinstance(node, dict):
        for k, v in node.items():
            if not isinstance(k, str) and not (isinstance(k, int) and where.endswith("responses")):
                found.append(f"{where}.{k!r}")
            found += _non_string_keys(v, f"{where}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            found += _non_string_keys(v, f"{where}[{i}]")
    return found


def load(path):
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@pytest.mark.parametrize("path", SPECS, ids=[os.path.basename(p) for p in SPECS])
def test_spec_is_valid_openapi_with_a_complete_annotation(path):
    doc = load(path)
    validate(doc)
    odd = _non_string_keys(doc)
    assert not odd, f"{path}: YAML read these keys as non-strings (quote them): {odd}"
    x = doc["x-har2client"]
    for key in ("api", "docs", "spec_licence", "checked_against", "resource", "collection", "item", "id_field", "auth",
                "paging", "envelope", "version", "body", "session"):
        assert key in x, f"{path}: x-har2client.{key} missing"
    # Every licence is known: the provider's own words, or "none stated"/"none published" where that is the truth.
    licence = x["spec_licence"]
    assert "unknown" not in licence.lower() and licence.split(" (")[0] in LICENCES, licence
    checked = x["checked_against"]
    assert set(checked) == {"source", "version", "on"} and all(str(v).strip() for v in checked.values()), checked
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(checked["on"])), checked
    assert x["docs"].startswith("https://")
    assert x["auth"]["style"] in AUTH and x["paging"]["style"] in PAGING
    ops = [(p, m) for p, item in doc["paths"].items() for m in item if m in METHODS]
    assert 3 <= len(ops) <= 8, f"{path}: {len(ops)} operations"
    assert x["collection"] in doc["paths"] and x["item"] in doc["paths"]
    assert all("operationId" in doc["paths"][p][m] for p, m in ops)
    schemes = doc["components"]["securitySchemes"]
    assert x["auth"]["scheme"] in schemes and doc["security"] == [{x["auth"]["scheme"]: []}]
    assert set(x["session"]) <= {"list", "get", "create", "update", "delete"} and "list" in x["session"]


def test_there_are_27_specs_of_27_different_apis():
    assert len(SPECS) == 27
    assert len({load(p)["x-har2client"]["api"] for p in SPECS}) == 27


def test_the_set_covers_five_auth_and_four_paging_styles_envelopes_and_versions():
    docs = [load(p)["x-har2client"] for p in SPECS]
    auth = Counter(d["auth"]["style"] for d in docs)
    paging = Counter(d["paging"]["style"] for d in docs)
    assert len(set(auth)) >= 5, auth
    assert len(set(paging) - {"none"}) >= 4, paging
    assert sum(d["envelope"]["list"] not in (None, "") for d in docs) >= 10
    assert sum(d["version"]["style"] != "none" for d in docs) >= 8


def test_the_readme_table_matches_the_specs():
    import importlib.util

    here = os.path.dirname(__file__)
    spec = importlib.util.spec_from_file_location("table", os.path.join(here, "..", "scripts", "tiera_spec_table.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(os.path.join(here, "..", "har2client", "tiera", "specs", "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    embedded = readme.split("<!-- table:begin -->\n", 1)[1].split("<!-- table:end -->", 1)[0]
    assert embedded.strip() == module.table().strip()

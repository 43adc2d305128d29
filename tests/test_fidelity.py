"""Tier A fidelity: a client written from each provider's documentation passes every hidden test of its task.

The clients in ``tests/fidelity/`` were written from the providers' documented conventions (reference pages
and published descriptions), not from our recordings or our API documents; each is named by its API's key.
If a fake drifts from what the provider documents, its client fails here.
"""

import os

import pytest

from har2client.grading import grade
from har2client.tiera import build_tiera, tiera_specs

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fidelity")
KEYS = [s.key for s in tiera_specs()]


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    out = tmp_path_factory.mktemp("tierA-fidelity")
    return {os.path.basename(p).split("_", 2)[2]: p for p in build_tiera(str(out), 1)}


def test_every_api_has_a_documentation_written_client():
    assert sorted(f[:-3] for f in os.listdir(HERE) if f.endswith(".py")) == sorted(KEYS)


@pytest.mark.parametrize("key", KEYS)
def test_the_documentation_written_client_scores_one(tasks, key):
    for seed in (11, 12):  # two fresh grading instances: new data, credentials and host each
        result = grade(tasks[key], os.path.join(HERE, f"{key}.py"), seed=seed)
        failed = [(t.name, t.error) for t in result.tests if not t.passed]
        assert result.pass_rate == 1.0, failed


@pytest.mark.parametrize("key,old,new", [
    ("github", '{"state": "all", "per_page": 100}', '{"per_page": 100}'),        # the list shows open issues only
    ("stripe", 'if customer.get("deleted"):', "if False:"),                     # a deleted customer still reads
    ("okta", "if self._still_there(user_id):", "if False:"),                    # the first delete only deactivates
    ("jira", '"fields": "*all", ', ""),                                          # search/jql answers ids only
    ("notion", '"parent": parent, ', ""),                                        # a page must name its data source
    ("discord", 'before = min((m["id"] for m in page), key=int)', 'before = page[0]["id"]'),  # newest first
])
def test_a_client_that_ignores_a_documented_rule_fails(tasks, key, old, new, tmp_path):
    """The fakes hold clients to what the providers document: break one rule and a hidden test fails."""
    with open(os.path.join(HERE, f"{key}.py"), encoding="utf-8") as fh:
        source = fh.read()
    assert old in source
    broken = tmp_path / f"{key}.py"
    broken.write_text(source.replace(old, new), encoding="utf-8")
    assert grade(tasks[key], str(broken), seed=11).pass_rate < 1.0

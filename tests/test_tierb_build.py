"""Tier B tasks: 50 from one seed, byte-identical rebuilds, every switch variant, nothing hidden leaks."""

import hashlib
import json
import os
from collections import Counter

import pytest

from har2client.har import read_har
from har2client.tasks import load_task
from har2client.tierb import SWITCH_NAMES, SWITCH_VARIANTS, build_tierb, tierb_configs


def tree_digest(root) -> dict:
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


@pytest.mark.slow
def test_fifty_tasks_build_byte_identically_twice(tierb_dir, tmp_path):
    build_tierb(str(tmp_path), 1, configs_path=str(tmp_path / "configs.jsonl"))
    first, second = tree_digest(tierb_dir), tree_digest(tmp_path)
    assert len([k for k in first if k.endswith("task.json")]) == 50
    assert first == second


def test_another_seed_gives_other_tasks(tmp_path):
    build_tierb(str(tmp_path / "a"), 1, limit=2)
    build_tierb(str(tmp_path / "b"), 2, limit=2)
    a, b = tree_digest(tmp_path / "a"), tree_digest(tmp_path / "b")
    shared = [k for k in a.keys() & b.keys() if k.endswith("recording.har") and k.count(os.sep) == 1]
    assert len(shared) == 2 and all(a[k] != b[k] for k in shared)


def test_configs_file_matches_the_tasks(tierb_dir, tierb_tasks):
    lines = [json.loads(x) for x in (tierb_dir / "configs.jsonl").read_text().splitlines()]
    assert [x["task_id"] for x in lines] == [os.path.basename(t) for t in tierb_tasks]
    assert lines[0]["task_id"] == "tierb_00_invoices"
    for x in lines:
        assert set(x["switches"]) == set(SWITCH_NAMES) and x["level"] == sum(v != "off" for v in x["switches"].values())


def test_the_fifty_cover_domains_levels_and_every_variant():
    configs = tierb_configs(1)
    assert len(configs) == 50 and len({c.task_id for c in configs}) == 50
    assert len({c.domain for c in configs}) >= 10
    assert set(Counter(c.level for c in configs)) == set(range(7))
    for name, variants in SWITCH_VARIANTS.items():
        used = {getattr(c.switches, name) for c in configs}
        assert used == {"off", *variants}, name
    assert sum(c.switches.hidden_header != "off" for c in configs) == 25
    assert tierb_configs(1, 3) == configs[:3]  # --limit builds a prefix of the same 50


def test_visible_files_hold_nothing_hidden(tierb_tasks):
    words = ("paging", "pagination", "envelope", "token", "expire", "version", "header", "cursor", "csrf",
             "idempot", "digest", "switch")
    for t in tierb_tasks:
        goal = open(os.path.join(t, "goal.md")).read().lower()
        assert not [w for w in words if w in goal], t
        meta = json.load(open(os.path.join(t, "task.json")))
        assert {"task_id", "tier", "case", "source", "observation_format", "arms"} <= set(meta)
        assert "switches" not in meta and "seed" not in json.dumps(meta)
        assert "level" not in meta  # how many switches are on is not the model's to know
        reference = open(os.path.join(t, "hidden", "reference_client.py")).read()
        tests = [x["name"] for x in json.load(open(os.path.join(t, "hidden", "tests.json")))]
        visible = [os.path.join(d, n) for d, _, names in os.walk(t) if "hidden" not in d.split(os.sep) for n in names]
        assert len(visible) in (5, 6)  # goal, recording, task.json, and each other arm's one file
        for path in visible:
            text = open(path).read()
            assert reference[:200] not in text
            assert not [n for n in tests if n in text], (t, path)


def test_a_hidden_header_is_really_hidden_with_at_most_one_clue_and_the_evidence_arm_shows_it(tierb_tasks):
    clues = Counter()
    for t in tierb_tasks:
        grading = json.load(open(os.path.join(t, "hidden", "grading.json")))
        arms = json.load(open(os.path.join(t, "task.json")))["arms"]
        if grading["switches"]["hidden_header"] == "off":
            assert "evidence" not in arms and grading["hidden_header"] is None
            continue
        name, clue = grading["hidden_header"]["name"], grading["hidden_header"]["clue"]
        clues[clue] += 1
        plain = read_har(os.path.join(t, "recording.har"))
        evidence = read_har(os.path.join(t, arms["evidence"]["recording"]))
        host = load_task(t).model.server.split("://")[1]
        for rec in (plain, evidence):  # the session sent it; the export kept it on no API request
            assert not [e for e in rec.entries if e.request.host == host
                        and name.lower() in (k.lower() for k, _ in e.request.headers)], t
        # At most one indirect trace, the one the task drew.
        traces = [e for e in plain.entries if name.lower() in json.dumps(
            [e.request.headers, e.request.body, e.response.headers, e.response.body]).lower()]
        assert len(traces) == (0 if clue == "none" else 1), (t, clue, [e.request.url for e in traces])
        if clue == "preflight":
            assert traces[0].request.method == "OPTIONS" and traces[0].request.host == host
        elif clue in ("other_host", "app_config"):
            assert traces[0].request.host != host
        refused = [e for e in evidence.entries if e.request.host == host and e.response.status in (400, 403)]
        assert len(refused) == 1 and name in refused[0].response.body, t
        assert not [e for e in plain.entries if e.request.host == host and e.response.status in (400, 403)], t
        api_requests = [len([e for e in rec.entries if e.request.host == host]) for rec in (evidence, plain)]
        assert api_requests[0] == api_requests[1] + 1  # the same session plus the one refused request
    assert sum(clues.values()) == 25 and len(clues) >= 3, clues


@pytest.mark.slow
def test_each_task_describes_its_api_as_a_valid_openapi_document(tierb_tasks):
    """The switches are written as the engine's conventions in hidden/openapi.yaml, a valid OpenAPI 3.0."""
    import yaml
    from openapi_spec_validator import validate

    for t in tierb_tasks:
        with open(os.path.join(t, "hidden", "openapi.yaml"), encoding="utf-8") as fh:
            doc = yaml.safe_load(fh)
        validate(doc)
        x = doc["x-har2client"]
        switches = json.load(open(os.path.join(t, "hidden", "grading.json")))["switches"]
        assert (x["auth"]["style"] == "none") == (switches["login"] == "off"), t
        assert (x["paging"]["style"] == "none") == (switches["paging"] == "off"), t
        assert bool(x["required_headers"]) == (switches["hidden_header"] != "off"), t
        assert ("expiry" in x["auth"]) == (switches["expiry"] != "off"), t

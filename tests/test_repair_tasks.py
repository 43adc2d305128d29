"""Case 3, Repair: 64 tasks in 7 families, each a real repair, graded with regression_rate."""

import json
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import run_cli
from har2client.grading import grade
from har2client.har import read_har
from har2client.repair import KINDS, build_repair, plan_repair, repair_scores
from test_tierb_build import tree_digest

pytestmark = pytest.mark.slow  # see pyproject.toml's markers


@pytest.fixture(scope="module")
def repair_tasks(tmp_path_factory):
    return build_repair(str(tmp_path_factory.mktemp("repair")), 1)


def _g(task):
    return json.load(open(os.path.join(task, "hidden", "grading.json")))


def test_the_composition_is_the_pages():
    plan = plan_repair(1)
    assert len(plan) == 64 and len({fam.domain for fam, _, _ in plan}) == 7
    plain = [(fam, kinds) for fam, kinds, variant in plan if not variant]
    sizes = Counter(len(kinds) for _, kinds in plain)
    assert sizes == {1: 14, 3: 10, 4: 8}
    assert {kinds[0] for _, kinds in plain if len(kinds) == 1} == set(KINDS)  # every kind alone at least once
    variants = Counter(variant for _, _, variant in plan if variant)
    assert variants == {"partial": 8, "misleading": 8, "terse": 8, "sdk": 8}
    assert all(len(kinds) == 3 for _, kinds, variant in plan if variant)
    assert len({fam.domain for fam, _, variant in plan if variant}) == 3


def test_every_task_is_a_repair_and_the_new_reference_scores_one_over_five_seeds(repair_tasks):
    assert len(repair_tasks) == 64
    jobs = [(t, s, which) for t in repair_tasks for s in (11, 22, 33, 44, 55) for which in ("reference", "v1")]

    def one(job):
        task, seed, which = job
        client = os.path.join(task, "hidden", "reference_client.py") if which == "reference" else os.path.join(task,
                                                                                                               "client_v1.py")
        return job, grade(task, client, seed=seed).pass_rate

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, jobs))
    bad = [(os.path.basename(t), s, w, rate) for (t, s, w), rate in results
           if (w == "reference" and rate != 1.0) or (w == "v1" and not 0 < rate < 1)]
    assert not bad


def test_client_v1_submitted_unchanged_keeps_its_score_and_regresses_nothing(repair_tasks):
    for task in repair_tasks[:14]:
        scores = repair_scores(task, os.path.join(task, "client_v1.py"), seed=7)
        assert scores["regression_rate"] == 0.0 and scores["regressed"] == []
        assert scores["pass_rate"] == scores["client_v1_pass_rate"] and not scores["full_repair"]
    task = repair_tasks[0]
    fixed = repair_scores(task, os.path.join(task, "hidden", "reference_client.py"), seed=7)
    assert fixed["full_repair"] and fixed["regression_rate"] == 0.0


def test_a_client_that_breaks_what_worked_has_a_regression_rate(repair_tasks, tmp_path):
    task = repair_tasks[0]
    model = json.load(open(os.path.join(task, "task.json")))
    broken = tmp_path / "broken.py"
    listing = model["methods"][0]
    broken.write_text(open(os.path.join(task, "client_v1.py")).read()
                      + f"\n\ndef _gone(self, *a, **k):\n    raise RuntimeError('gone')\n\nClient.{listing} = _gone\n")
    scores = repair_scores(task, str(broken), seed=7)
    assert 0 < scores["regression_rate"] <= 1 and scores["regressed"]


def test_builds_are_byte_identical(repair_tasks, tmp_path):
    again = build_repair(str(tmp_path), 1, limit=6)
    first = os.path.dirname(repair_tasks[0])
    for task in again:
        assert tree_digest(task) == tree_digest(os.path.join(first, os.path.basename(task)))


def test_each_task_shows_the_old_client_its_failure_a_short_recording_and_four_arms(repair_tasks):
    for task in repair_tasks:
        meta, g = json.load(open(os.path.join(task, "task.json"))), _g(task)
        assert meta["case"] == "repair" and set(meta["arms"]) == {"base", "hint", "placebo", "notice"}
        failure = open(os.path.join(task, "failure.txt")).read()
        assert "$ python sync_" in failure and "Error" in failure
        client_v1 = open(os.path.join(task, "client_v1.py")).read()
        assert ("class _Transport" in client_v1) == (g["variant"] == "sdk")
        if g["variant"] == "terse":
            assert len(failure.splitlines()) == 2
        if g["variant"] == "misleading":
            assert "did not change" in failure
        api = [e for e in read_har(os.path.join(task, "recording.har")).entries if "api." in e.request.host]
        assert 1 <= len(api) <= 8, (task, len(api))  # a few: sign-in, the account, a page, a record, a write
        if g["variant"] in ("partial", "terse"):
            assert all(e.request.method in ("GET", "OPTIONS") or "/auth" in e.request.url or "/session" in e.request.url
                       or "/oauth" in e.request.url for e in api)
        notice = open(os.path.join(task, "arms", "notice", "goal.md")).read()
        assert "The API has changed since this client was written." in notice
        hint = open(os.path.join(task, "arms", "hint", "goal.md")).read().split("## Note\n\n")[1].split("\n")[0]
        placebo = open(os.path.join(task, "arms", "placebo", "goal.md")).read().split("## Note\n\n")[1].split("\n")[0]
        assert abs(len(hint) - len(placebo)) <= max(10, len(hint) // 8), (hint, placebo)
        assert "regression" not in open(os.path.join(task, "goal.md")).read()


def test_the_repair_commands(tmp_path):
    r = run_cli("build", "repair", "--out", str(tmp_path / "r"), "--limit", "2")
    assert r.returncode == 0 and "built 2 repair tasks" in r.stdout
    [task] = [p for p in (tmp_path / "r").iterdir() if p.name.startswith("repair_00_")]
    g = run_cli("grade", str(task), str(task / "client_v1.py"), "--json")
    out = json.loads(g.stdout)
    assert g.returncode == 0 and out["regression_rate"] == 0.0 and 0 < out["pass_rate"] < 1
    text = run_cli("grade", str(task), str(task / "hidden" / "reference_client.py"))
    assert "regression_rate=0.000" in text.stdout and "pass_rate=1.000" in text.stdout
    shown = run_cli("render", str(task), "--arm", "notice")
    assert shown.returncode == 0 and "## client_v1.py" in shown.stdout and "## failure.txt" in shown.stdout


def test_scores_break_down_by_kind_loud_against_silent_and_side_information(repair_tasks):
    from har2client.repair import repair_breakdown

    rows = [repair_scores(t, os.path.join(t, "client_v1.py"), seed=3) for t in repair_tasks[:14]]
    b = repair_breakdown(rows)
    assert b["all"]["tasks"] == 14 and b["all"]["regression_rate"] == 0.0 and b["all"]["full_repair"] == 0.0
    assert set(b["by_kind"]) == set(KINDS)  # the 14 single-change tasks hold every kind
    assert b["loud_only"]["tasks"] + b["silent_only"]["tasks"] == 14 and b["mixed"]["tasks"] == 0
    assert 0 < b["silent_only"]["pass_rate"] < 1 and b["by_variant"]["plain"]["tasks"] == 14

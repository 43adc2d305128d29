"""The heuristic baseline: a client written by rules from the visible files only, graded for real."""

import builtins
import json
import os
import shutil

import pytest
import yaml

from conftest import run_cli
from har2client.agents import baseline_source
from har2client.agents._heuristic import heuristic_source
from har2client.grading import grade


def _without_hidden(task, tmp_path):
    copy = tmp_path / os.path.basename(task)
    shutil.copytree(task, copy, ignore=shutil.ignore_patterns("hidden"))
    return str(copy)


def test_it_reads_only_the_visible_files(tierb_tasks, tmp_path, monkeypatch):
    opened = []
    real_open = builtins.open

    def spy(path, *args, **kwargs):  # records every file the rules open, then opens it
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    for task in tierb_tasks[:6]:
        heuristic_source(task)
    monkeypatch.undo()
    assert opened and not [p for p in opened if f"{os.sep}hidden{os.sep}" in p]
    for task in tierb_tasks[:6]:  # and the client is the same without hidden/ at all
        assert heuristic_source(_without_hidden(task, tmp_path)) == heuristic_source(task)


@pytest.mark.slow
def test_it_scores_far_above_replay_and_fails_where_a_header_was_never_recorded(tierb_tasks, tmp_path):
    heuristic, replay, unrecorded = [], [], []
    for task in tierb_tasks[:10]:
        scores = {}
        for kind in ("heuristic", "replay"):
            path = tmp_path / f"{os.path.basename(task)}.{kind}.py"
            path.write_text(baseline_source(kind, task))
            scores[kind] = grade(task, str(path), seed=5).pass_rate
        heuristic.append(scores["heuristic"])
        replay.append(scores["replay"])
        with open(os.path.join(task, "hidden", "openapi.yaml"), encoding="utf-8") as fh:
            rules = yaml.safe_load(fh)["x-har2client"].get("required_headers", [])
        if any(r.get("recorded") is False for r in rules):
            unrecorded.append(scores["heuristic"])
    assert sum(heuristic) / 10 >= sum(replay) / 10 + 0.3, (heuristic, replay)
    assert max(heuristic) == 1.0  # a task whose every convention shows in the traffic is solved
    assert unrecorded and all(s < 1.0 for s in unrecorded)  # what the traffic does not show, rules cannot know


def test_a_recording_without_the_api_gives_a_client_that_says_why(tierb_tasks, tmp_path):
    task = _without_hidden(tierb_tasks[0], tmp_path)
    har = os.path.join(task, "recording.har")
    with open(har, encoding="utf-8") as fh:
        doc = json.load(fh)
    doc["log"]["entries"] = [e for e in doc["log"]["entries"] if "api." not in e["request"]["url"]]
    with open(har, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    source = heuristic_source(task)
    assert "the rules found no client to write" in source and "no request to" in source
    namespace: dict = {}
    exec(compile(source, "client.py", "exec"), namespace)
    client = namespace["Client"]("http://127.0.0.1:1", username="u", password="p")
    with pytest.raises(NotImplementedError, match="no request to"):
        client.list_invoices()


@pytest.mark.slow
def test_the_cli_writes_it(tierb_tasks, tmp_path):
    out = tmp_path / "client.py"
    result = run_cli("baseline", "heuristic", tierb_tasks[2], "-o", str(out), "--arm", "hint")
    assert result.returncode == 0, result.stderr
    assert out.read_text().startswith('"""Heuristic client for')


@pytest.mark.slow
def test_grade_all_gives_a_row_per_arm_and_the_variants_of_each_switch(tierb_dir, tmp_path):
    out = tmp_path / "h.jsonl"
    r = run_cli("grade-all", str(tierb_dir), "--baseline", "heuristic", "--arm", "placebo", "--workers", "2",
                "--out", str(out))
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "h.jsonl.summary.json").read_text())
    [(model, s)] = summary.items()
    assert model == "heuristic (placebo)" and s["tasks"] == 50
    login = s["per_switch"]["login"]
    assert sum(v["tasks"] for v in login["variants"].values()) == login["tasks"]
    assert "heuristic (placebo): mean pass rate" in r.stdout and "password_bearer" in r.stdout


@pytest.mark.slow
def test_a_baseline_runs_as_a_model_does_with_no_api(tierb_dir, tmp_path):
    from har2client.agents import RunSettings, run

    rows = run(RunSettings(model="heuristic", base_url="", baseline="heuristic", tasks=str(tierb_dir),
                           out=str(tmp_path / "run"), limit=4))
    assert len(rows) == 4 and all(r["status"] == "ok" and r["responses"] == [] for r in rows)
    assert all(r["code"].startswith('"""Heuristic client for') for r in rows)
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["label"] == "heuristic / as_built" and meta["settings"]["baseline"] == "heuristic"


def test_a_baseline_does_not_probe():
    from har2client import Har2ClientError
    from har2client.agents import RunSettings

    with pytest.raises(Har2ClientError, match="does not probe"):
        RunSettings(model="heuristic", base_url="", baseline="heuristic", tasks=".", out=".",
                    case="investigate").check()


@pytest.mark.slow
def test_its_runs_are_a_leaderboard_row_beside_a_models(tierb_dir, tmp_path):
    from har2client.agents import RunSettings, run
    from har2client.analysis import analyze
    from har2client.space import leaderboard_html, read_summaries

    for arm in ("as_built", "placebo"):
        run(RunSettings(model="heuristic", base_url="", baseline="heuristic", tasks=str(tierb_dir), arm=arm,
                        out=str(tmp_path / f"run-{arm}"), limit=5))
    analyze([str(tmp_path / "run-as_built"), str(tmp_path / "run-placebo")], str(tmp_path / "results"),
            resamples=200)
    page = leaderboard_html(read_summaries(str(tmp_path / "results")))
    assert "heuristic" in page and "Case 1 Tier B as_built" in page and "Case 1 Tier B placebo" in page

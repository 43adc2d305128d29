"""Tier A tasks: built byte-identically, reference 1.000 on fresh instances, replay fails, every convention needed."""

import json
import os
import statistics
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import run_cli
from har2client.agents import baseline_source, reference_source
from har2client.api._reference import conventions_on
from har2client.grading import grade
from har2client.tasks import load_task
from har2client.tiera import build_tiera
from test_tierb_build import tree_digest


@pytest.fixture(scope="module")
def tiera_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tierA")
    build_tiera(str(out), 1)
    return out


@pytest.fixture(scope="module")
def tiera_tasks(tiera_dir):
    return sorted(str(p) for p in tiera_dir.iterdir() if p.is_dir())


def _model(task):
    return load_task(task).model


def _parallel(fn, items):
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(fn, items))


def test_tasks_build_byte_identically_with_visible_files_apart_from_hidden(tiera_dir, tiera_tasks, tmp_path):
    assert len(tiera_tasks) >= 16
    build_tiera(str(tmp_path), 1)
    assert tree_digest(tiera_dir) == tree_digest(tmp_path)
    for t in tiera_tasks:
        assert sorted(os.listdir(t)) == ["arms", "goal.md", "hidden", "recording.har", "task.json"]
        meta = json.load(open(os.path.join(t, "task.json")))
        assert meta["tier"] == "A" and meta["source"] == "proxy_har" and meta["licence"]
        goal = open(os.path.join(t, "goal.md")).read().lower()
        assert not [w for w in ("paging", "pagination", "envelope", "cursor", "version header") if w in goal], t


@pytest.mark.slow
def test_reference_scores_one_on_fresh_instances(tiera_tasks):
    jobs = [(t, s) for t in tiera_tasks for s in (3, 4)]
    results = _parallel(lambda j: grade(j[0], os.path.join(j[0], "hidden", "reference_client.py"), seed=j[1]), jobs)
    failed = [(r.task_id, [t.error for t in r.tests if not t.passed]) for r in results if r.pass_rate != 1.0]
    assert not failed


@pytest.mark.slow
def test_replay_mean_is_at_most_a_tenth(tiera_tasks, tmp_path):
    def one(task):
        path = tmp_path / f"{os.path.basename(task)}.py"
        path.write_text(baseline_source("replay", task))
        return grade(task, str(path), seed=8).pass_rate

    assert statistics.mean(_parallel(one, tiera_tasks)) <= 0.10


@pytest.mark.slow
def test_removing_any_conventions_handling_fails_a_hidden_test(tiera_tasks, tmp_path):
    jobs = []
    for task in tiera_tasks:
        model = _model(task)
        for convention in conventions_on(model):
            path = tmp_path / f"{os.path.basename(task)}_without_{convention}.py"
            path.write_text(reference_source(model, drop=convention))
            jobs.append((task, convention, str(path)))
    assert len(jobs) >= 45

    def killed(job):
        r = grade(job[0], job[2], seed=6, stop_at_first_failure=True)
        return any(not t.passed and t.error != "not run" for t in r.tests)

    survivors = [(os.path.basename(j[0]), j[1]) for j, k in zip(jobs, _parallel(killed, jobs), strict=True) if not k]
    assert not survivors


@pytest.mark.slow
def test_the_build_command(tmp_path):
    from har2client.tiera import NOT_SERVED, tiera_specs

    expected = sum(s.key not in NOT_SERVED for s in tiera_specs())
    r = run_cli("build", "tiera", "--out", str(tmp_path / "a"))
    assert r.returncode == 0 and f"built {expected} tasks" in r.stdout
    task = tmp_path / "a" / "tiera_01_stripe"
    g = run_cli("grade", str(task), str(task / "hidden" / "reference_client.py"), "--json")
    assert g.returncode == 0 and json.loads(g.stdout)["pass_rate"] == 1.0

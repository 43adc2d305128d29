"""EvalPlus's lesson, kept: every semantic mutant of the reference fails a hidden test on every task
(both tiers) where what it breaks exists."""

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from har2client.grading import grade
from har2client.tasks import load_task
from har2client.tiera import build_tiera
from mutants import MUTANTS

pytestmark = pytest.mark.slow  # see pyproject.toml's markers


@pytest.fixture(scope="module")
def all_tasks(tierb_tasks, tmp_path_factory):
    out = tmp_path_factory.mktemp("tierA-mutants")
    return tierb_tasks + build_tiera(str(out), 1)


def test_there_are_at_least_ten_mutants():
    assert len(MUTANTS) >= 10


def test_every_semantic_mutant_fails_a_test_on_every_task_it_applies_to(all_tasks, tmp_path):
    jobs = []
    for task in all_tasks:
        model = load_task(task).model
        for name, (applies, make) in MUTANTS.items():
            if applies(model):
                path = tmp_path / f"{os.path.basename(task)}_{name}.py"
                path.write_text(make(model))
                jobs.append((task, name, str(path)))
    assert len(jobs) >= 10 * 60

    def survived(job):
        r = grade(job[0], job[2], seed=4, stop_at_first_failure=True)
        return not any(not t.passed and t.error != "not run" for t in r.tests)

    with ThreadPoolExecutor(max_workers=2) as pool:
        survivors = [(os.path.basename(j[0]), j[1]) for j, s in zip(jobs, pool.map(survived, jobs), strict=True) if s]
    assert not survivors

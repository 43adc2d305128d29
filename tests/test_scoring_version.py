"""Scores are comparable only under one scoring version: any change to what decides them must raise it."""

import os
import shutil

import pytest

from har2client.grading import SCORING_VERSION
from har2client.tasks._fingerprint import (
    PACKAGE,
    code_fingerprint,
    problems,
    recorded,
    scoring_fingerprints,
    tree_fingerprint,
)


@pytest.mark.slow
def test_tasks_and_rules_are_what_this_scoring_version_recorded():
    assert problems(scoring_fingerprints(), recorded(), SCORING_VERSION) == []


@pytest.mark.slow
def test_a_changed_task_under_the_same_version_is_caught(tierb_dir, tmp_path):
    copy = tmp_path / "tierB"
    shutil.copytree(tierb_dir, copy, ignore=shutil.ignore_patterns("configs.jsonl"))
    current = {**scoring_fingerprints(), "tierB/build": tree_fingerprint(str(copy))}
    assert problems(current, recorded(), SCORING_VERSION) == []  # the session's tasks are seed 1's
    goal = copy / "tierb_03_contacts" / "goal.md"
    goal.write_text(goal.read_text() + " ")
    current["tierB/build"] = tree_fingerprint(str(copy))
    [problem] = problems(current, recorded(), SCORING_VERSION)
    assert "tierB/build changed under scoring version" in problem and "raise SCORING_VERSION" in problem


def test_a_changed_rule_is_caught_but_not_a_changed_comment_or_docstring():
    with open(os.path.join(PACKAGE, "grading", "_tests.py"), encoding="utf-8") as fh:
        source = fh.read()
    same = code_fingerprint(source)
    assert code_fingerprint(source.replace('"""', '"""Reworded. ', 1) + "\n# a comment\n") == same
    assert code_fingerprint(source.replace("!=", "==", 1)) != same


@pytest.mark.slow
def test_an_unrecorded_version_says_how_to_record_it():
    [problem] = problems(scoring_fingerprints(), recorded(), "99.0.0")
    assert "has no recorded fingerprints" in problem and "--record" in problem

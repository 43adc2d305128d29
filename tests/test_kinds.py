"""Task kinds: the judge grades any registered kind and knows none of them by name."""

import ast
import glob
import json
import os
import shutil

import pytest

from har2client import TaskError
from har2client.grading import grade
from har2client.tasks import _kinds

GRADING = os.path.join(os.path.dirname(__file__), "..", "har2client", "grading")


def start_counted(task, grading_seed, sock):
    """A kind defined outside the package: the build world, counting how often the judge asked for it."""
    from har2client.api._world import start_grading_world

    start_counted.calls += 1
    return start_grading_world(task, grading_seed, sock)


start_counted.calls = 0


def _copy_as(task, tmp_path, kind):
    copy = tmp_path / os.path.basename(task)
    shutil.copytree(task, copy)
    g = json.loads((copy / "hidden" / "grading.json").read_text())
    (copy / "hidden" / "grading.json").write_text(json.dumps({**g, "kind": kind}))
    return copy


def test_a_kind_registered_elsewhere_is_graded_without_changing_the_judge(tierb_tasks, tmp_path):
    _kinds.register("counted", "test_kinds:start_counted")
    task = _copy_as(tierb_tasks[4], tmp_path, "counted")
    result = grade(str(task), str(task / "hidden" / "reference_client.py"))
    assert result.pass_rate == 1.0 and start_counted.calls == 1


def test_a_kind_nobody_registered_is_a_one_line_task_error(tierb_tasks, tmp_path):
    task = _copy_as(tierb_tasks[4], tmp_path, "nobody-knows")
    with pytest.raises(TaskError, match="kind 'nobody-knows', which no installed code grades") as info:
        grade(str(task), str(task / "hidden" / "reference_client.py"))
    assert "\n" not in str(info.value) and "build" in str(info.value)


def test_grading_imports_no_tier_case_or_baseline_module():
    found = []
    for path in glob.glob(os.path.join(GRADING, "*.py")):
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{os.path.basename(path)}: {n}" for n in names
                      if any(part in ("tiera", "tierb", "agents", "investigate", "repair") for part in n.split("."))]
    assert found == []

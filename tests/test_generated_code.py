"""Code the project writes for people to read and models to learn from (reference clients, Case 3's
client_v1.py, the replay and heuristic baselines) passes the project's own lint, and has no dead branches."""

import ast
import os
import subprocess
import sys

import pytest

from har2client.agents import baseline_source
from har2client.repair import build_repair
from har2client.tiera import build_tiera

pytestmark = pytest.mark.slow  # see pyproject.toml's markers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def generated(tierb_tasks, tmp_path_factory):
    """Every generated client of Tier B, Tier A and Case 3 (seed 1), each task's heuristic baseline and
    each Case 1 task's replay baseline."""
    out = tmp_path_factory.mktemp("generated")
    tasks = tierb_tasks + build_tiera(str(out / "tierA"), 1) + build_repair(str(out / "repair"), 1)
    files = []
    for task in tasks:
        for name in ("hidden/reference_client.py", "client_v1.py"):
            if os.path.exists(os.path.join(task, name)):
                files.append(os.path.join(task, name))
        kinds = ("heuristic",) if "repair" in os.path.basename(task) else ("replay", "heuristic")
        for kind in kinds:  # a repair's heuristic rebuilds the client from the new recording
            client = out / kind / f"{os.path.basename(task)}.py"
            client.parent.mkdir(exist_ok=True)
            client.write_text(baseline_source(kind, task))
            files.append(str(client))
    return files


def test_every_kind_of_generated_client_is_covered(generated):
    kinds = {(("tierb" in f) or ("tiera" in f) or ("repair" in f), os.path.basename(f)) for f in generated}
    assert {name for _, name in kinds} >= {"reference_client.py", "client_v1.py"}
    assert len(generated) >= 50 + 27 + 64 * 2 + 77 * 2 + 64


def test_generated_clients_pass_the_projects_lint(generated):
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config",
                          os.path.join(ROOT, "pyproject.toml"), "--output-format", "concise", *generated],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def _constant_tests(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)) and isinstance(node.test, ast.Constant) \
                and not (isinstance(node, ast.While) and node.test.value is True):
            yield node.lineno
        if isinstance(node, ast.BoolOp) and any(isinstance(v, ast.Constant) and isinstance(v.value, bool)
                                                for v in node.values):  # `x or None` is an idiom; `x or False` dead
            yield node.lineno


def _unused_private_methods(tree):
    source_names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for fn in cls.body:
            if isinstance(fn, ast.FunctionDef) and fn.name.startswith("_") and not fn.name.startswith("__") \
                    and fn.name not in source_names:
                yield fn.name


def test_generated_clients_have_no_dead_branches_or_unused_helpers(generated):
    problems = []
    for path in generated:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        problems += [f"{path}:{line}: a condition that is a constant" for line in _constant_tests(tree)]
        problems += [f"{path}: {name} is never called" for name in _unused_private_methods(tree)]
    assert not problems, "\n".join(problems[:20])


def test_the_dead_code_checks_can_fail():
    tree = ast.parse("class Client:\n    def _x(self):\n        if False:\n            pass\n"
                     "        return 1 if not [] or False else 2\n")
    assert len(list(_constant_tests(tree))) == 2
    assert list(_unused_private_methods(tree)) == ["_x"]

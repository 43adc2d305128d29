"""The commands of the contract, run as a user runs them, and their answers to bad input."""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli


@pytest.mark.slow
def test_the_quickstart_commands_work_as_written(tmp_path):
    out = tmp_path / "runs" / "quickstart"
    build = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "build_tierb.py"), "--out",
                            str(out / "tierB"), "--seed", "1", "--limit", "1", "--configs",
                            str(out / "tierb_configs.jsonl")], capture_output=True, text=True, cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    task = out / "tierB" / "tierb_00_invoices"
    assert sorted(os.listdir(task)) == ["arms", "goal.md", "hidden", "recording.har", "task.json"]
    assert len((out / "tierb_configs.jsonl").read_text().splitlines()) == 1

    ref, replay = tmp_path / "ref.py", tmp_path / "replay.py"
    assert run_cli("baseline", "reference", str(task), "-o", str(ref)).returncode == 0
    assert run_cli("baseline", "replay", str(task), "-o", str(replay)).returncode == 0

    text = run_cli("grade", str(task), str(ref))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[-1] == "pass_rate=1.000"
    assert sum(line.startswith("PASS  ") for line in lines) >= 7

    as_json = run_cli("grade", str(task), str(replay), "--json")
    assert as_json.returncode == 0
    result = json.loads(as_json.stdout)
    assert {"task_id", "pass_rate", "passed", "total", "tests", "seconds", "grader_version",
            "scoring_version"} <= set(result)
    assert result["task_id"] == "tierb_00_invoices" and result["pass_rate"] == 0.0
    assert all({"name", "passed", "error"} <= set(t) for t in result["tests"])


@pytest.mark.slow
def test_build_subcommand_equals_the_script(tmp_path):
    a = run_cli("build", "tierb", "--out", str(tmp_path / "a"), "--seed", "3", "--limit", "2")
    assert a.returncode == 0 and "built 2 tasks" in a.stdout and "[2/2]" in a.stderr
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "build_tierb.py"), "--out", str(tmp_path / "b"),
                    "--seed", "3", "--limit", "2"], check=True, capture_output=True)
    for name in ("tierb_00_invoices", "tierb_01_orders"):
        a, b = (tmp_path / side / name / "recording.har" for side in ("a", "b"))
        assert a.read_bytes() == b.read_bytes()


@pytest.mark.slow
def test_quickstart_needs_no_arguments(tmp_path):
    r = run_cli("quickstart", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "reference:  pass_rate=1.000" in r.stdout and "replay:     pass_rate=0.000" in r.stdout
    assert (tmp_path / "runs" / "quickstart" / "tierB" / "tierb_00_invoices" / "goal.md").exists()


def _one_line_error(r, *needles):
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    errors = [line for line in r.stderr.splitlines() if line.startswith("har2client: error:")]
    assert len(errors) == 1, r.stderr
    assert all(n in errors[0] for n in needles), errors[0]


@pytest.mark.slow
def test_bad_input_gets_one_line(tierb_tasks, tmp_path):
    task = tierb_tasks[0]
    broken = tmp_path / "broken.har"
    broken.write_text('{"log": {"entries": [{"request": {"method": "GET"}}]}}')
    _one_line_error(run_cli("render", str(broken)), str(broken), "no request.url")
    _one_line_error(run_cli("render", str(tmp_path / "missing.har")), "no such file")

    r = run_cli("grade", task, str(tmp_path / "nope.py"))
    _one_line_error(r, "nope.py", "no such client file")
    assert r.returncode == 1 and r.stdout.splitlines()[-1] == "pass_rate=0.000"

    bad = tmp_path / "mine.py"
    bad.write_text("def broken(:\n")
    r = run_cli("grade", task, str(bad))
    _one_line_error(r, "SyntaxError", "mine.py line 1: def broken(:")
    assert r.stderr.count("line 1") == 1 and "client.py" not in r.stderr  # the real name, and the place once
    assert r.stdout.splitlines()[-1] == "pass_rate=0.000"
    assert "could not be loaded" not in r.stdout  # said once, on stderr; the tests say only "not run"

    for text, says in (("", "the file is empty"), ("class Other:\n    pass\nclass Helper:\n    pass\n",
                                                    "it defines Helper, Other"), ("x = 1\n", "no class at all")):
        bad.write_text(text)
        _one_line_error(run_cli("grade", task, str(bad)), "mine.py defines no class Client", says)

    _one_line_error(run_cli("grade", str(tmp_path / "no-task"), str(bad)), "no such task directory")
    (tmp_path / "empty-task").mkdir()
    _one_line_error(run_cli("grade", str(tmp_path / "empty-task"), str(bad)), "not a task directory")


def test_help_explains_each_command():
    top = run_cli("--help")
    assert top.returncode == 0 and all(c in top.stdout for c in ("quickstart", "build", "grade", "baseline", "render"))
    g = run_cli("grade", "--help")
    assert "--json" in g.stdout and "Exit status" in g.stdout


@pytest.mark.slow
def test_render_prints_the_compact_recording(tierb_tasks):
    r = run_cli("render", os.path.join(tierb_tasks[0], "recording.har"))
    assert r.returncode == 0 and r.stdout.startswith("# Recording: ")


@pytest.mark.slow
def test_render_of_a_task_shows_what_each_arm_shows_a_model(tierb_tasks):
    with_evidence = next(t for t in tierb_tasks if os.path.exists(os.path.join(t, "arms", "evidence")))
    shown = {}
    for arm in ("as_built", "hint", "evidence", "placebo"):
        r = run_cli("render", with_evidence, "--arm", arm)
        assert r.returncode == 0 and r.stdout.startswith(f"# Task {os.path.basename(with_evidence)}, arm {arm}: ")
        shown[arm] = r.stdout
    assert "## goal.md" in shown["as_built"] and "## recording.har" in shown["as_built"]
    assert "## Note" not in shown["as_built"] and "## Note" in shown["hint"] and "## Note" in shown["placebo"]
    assert "## arms/evidence/recording.har" in shown["evidence"]
    hint = shown["hint"].split("## Note\n\n")[1].split("\n")[0]
    placebo = shown["placebo"].split("## Note\n\n")[1].split("\n")[0]
    assert "`" in hint and "`" not in placebo and abs(len(hint) - len(placebo)) <= 8
    assert run_cli("render", with_evidence).stdout == shown["as_built"]  # as_built is the default
    without = next(t for t in tierb_tasks if not os.path.exists(os.path.join(t, "arms", "evidence")))
    bad = run_cli("render", without, "--arm", "evidence")
    assert bad.returncode == 2 and "no arm 'evidence'" in bad.stderr and "Traceback" not in bad.stderr

"""grade-all: every task once per model, JSONL that survives a kill, resume, summary."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import ROOT, run_cli
from har2client.grading._batch import failure_reason, read_results


def _lines(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh]


@pytest.mark.slow
def test_reference_baseline_with_two_workers(tierb_dir, tmp_path):
    out = tmp_path / "ref.jsonl"
    r = run_cli("grade-all", str(tierb_dir), "--baseline", "reference", "--workers", "2", "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = _lines(out)
    assert len(rows) == 50 and len({x["task_id"] for x in rows}) == 50
    assert all(x["pass_rate"] == 1.0 and x["model"] == "reference" and "switches" in x for x in rows)
    assert "reference: mean pass rate 1.000 over 50 tasks" in r.stdout
    assert "] 50/50 " in r.stderr
    summary = json.loads((tmp_path / "ref.jsonl.summary.json").read_text())["reference"]
    assert summary["tasks"] == 50 and summary["mean_pass_rate"] == 1.0
    assert set(summary["per_switch"]) == {"login", "paging", "expiry", "version", "hidden_header", "envelope"}


@pytest.mark.slow
def test_a_killed_run_resumes_without_losing_or_repeating(tierb_dir, tmp_path):
    out = tmp_path / "killed.jsonl"
    cmd = [sys.executable, "-m", "har2client", "grade-all", str(tierb_dir), "--baseline", "reference",
           "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 5):
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _lines(out)
    assert 5 <= len(before) < 50
    with open(out, "a") as fh:  # what a machine crash mid-write could leave: a torn last line
        fh.write('{"task_id": "tierb_4')
    r = run_cli("grade-all", str(tierb_dir), "--baseline", "reference", "--out", str(out), "--resume")
    assert r.returncode == 0, r.stderr
    rows = _lines(out)  # every line parses: the torn one was cut
    assert len(rows) == 50 and len({x["task_id"] for x in rows}) == 50
    assert rows[:len(before)] == before
    again = run_cli("grade-all", str(tierb_dir), "--baseline", "reference", "--out", str(out), "--resume")
    assert again.returncode == 0 and len(_lines(out)) == 50  # nothing left to do, nothing repeated
    # The killed run's scratch (its sandbox, its generated clients) was removed by the runs after it.
    assert not [n for n in os.listdir(tempfile.gettempdir()) if n.startswith(f"h2c-sandbox-{proc.pid}-")
                or n.startswith(f"h2c-batch-{proc.pid}-")]


@pytest.mark.slow
def test_predictions_for_two_models_and_a_missing_submission(tierb_dir, tierb_tasks, tmp_path):
    preds = tmp_path / "preds.jsonl"
    ref = open(os.path.join(tierb_tasks[1], "hidden", "reference_client.py")).read()
    with open(preds, "w") as fh:
        for t in tierb_tasks:
            tid = os.path.basename(t)
            code = open(os.path.join(t, "hidden", "reference_client.py")).read()
            fh.write(json.dumps({"task_id": tid, "model": "good", "code": code}) + "\n")
        fh.write(json.dumps({"task_id": os.path.basename(tierb_tasks[1]), "model": "sparse", "code": ref}) + "\n")
    out = tmp_path / "p.jsonl"
    r = run_cli("grade-all", str(tierb_dir), "--predictions", str(preds), "--workers", "2", "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = _lines(out)
    assert len(rows) == 100
    sparse = {x["task_id"]: x for x in rows if x["model"] == "sparse"}
    assert sparse[os.path.basename(tierb_tasks[1])]["pass_rate"] == 1.0
    missing = sparse[os.path.basename(tierb_tasks[2])]
    assert missing["pass_rate"] == 0.0 and "no such client file" in missing["error"]
    assert "good: mean pass rate 1.000" in r.stdout and "sparse: mean pass rate 0.020" in r.stdout
    assert "missing_client" in r.stdout


@pytest.mark.slow
def test_clients_directory(tierb_dir, tierb_tasks, tmp_path):
    clients = tmp_path / "clients"
    clients.mkdir()
    first = os.path.basename(tierb_tasks[0])
    (clients / f"{first}.py").write_text(open(os.path.join(tierb_tasks[0], "hidden", "reference_client.py")).read())
    out = tmp_path / "c.jsonl"
    assert run_cli("grade-all", str(tierb_dir), "--clients", str(clients), "--out", str(out)).returncode == 0
    rows = {x["task_id"]: x for x in _lines(out)}
    assert rows[first]["pass_rate"] == 1.0 and sum(x["pass_rate"] for x in rows.values()) == 1.0


@pytest.mark.slow
def test_bad_batch_input_gets_one_line(tierb_dir, tmp_path):
    out = tmp_path / "x.jsonl"
    out.write_text("")
    r = run_cli("grade-all", str(tierb_dir), "--baseline", "replay", "--out", str(out))
    assert r.returncode == 2 and "exists; pass --resume" in r.stderr and "Traceback" not in r.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task_id": "a", "model": "m", "code": "x"}\nnot json\n')
    r = run_cli("grade-all", str(tierb_dir), "--predictions", str(bad), "--out", str(tmp_path / "y.jsonl"))
    assert r.returncode == 2 and f"{bad}: line 2 is not JSON" in r.stderr
    r = run_cli("grade-all", str(tmp_path), "--baseline", "replay", "--out", str(tmp_path / "z.jsonl"))
    assert r.returncode == 2 and "holds no task directories" in r.stderr


def test_results_reader_cuts_only_a_torn_tail(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"task_id": "a"}\n{"task_id": "b"}\n{"task_')
    assert [r["task_id"] for r in read_results(str(path), repair=True)] == ["a", "b"]
    assert path.read_text() == '{"task_id": "a"}\n{"task_id": "b"}\n'


def test_failure_reasons():
    assert failure_reason("timed out after 10 s (during list_x)") == "timeout"
    assert failure_reason("client.py could not be loaded: SyntaxError: x") == "load_error"
    assert failure_reason("get_x raised KeyError: 'data'") == "client_raised"
    assert failure_reason("list_x() returned 5 records, expected 9") == "wrong_answer"
    assert failure_reason("/x/client.py: no such client file") == "missing_client"


@pytest.mark.slow
def test_tier_a_summaries_count_per_convention(tmp_path):
    from har2client.tiera._build import build_tiera

    tasks = tmp_path / "tierA"
    build_tiera(str(tasks), 1, limit=3)
    out = tmp_path / "a.jsonl"
    r = run_cli("grade-all", str(tasks), "--baseline", "reference", "--out", str(out))
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "a.jsonl.summary.json").read_text())["reference"]
    assert summary["tasks"] == 3 and summary["mean_pass_rate"] == 1.0
    assert {"auth", "paging", "version"} <= set(summary["per_switch"])

"""Hostile clients: each scores only what it honestly earns, the grader keeps working, nothing is left behind.

Every attack is graded with ``isolation="full"``: where namespaces cannot be had
that raises rather than running a fork bomb or a kill-everything client with
the privileges of this process.
"""

import glob
import hashlib
import os
import socket

import pytest

from har2client.agents import baseline_source
from har2client.grading import GradingPool, Limits, Sandbox, grade
from har2client.grading._sandbox import HERE, bwrap_available

ATTACKS = os.path.join(os.path.dirname(__file__), "attacks")
WHY_NOT_FULL = bwrap_available()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(WHY_NOT_FULL is not None, reason=f"full isolation unavailable: {WHY_NOT_FULL}")]
LIMITS = Limits(call_seconds=2, task_seconds=40, memory_mb=512)


@pytest.fixture(scope="module")
def sandbox():
    box = Sandbox("full")
    box.ensure()
    yield box
    box.close()


@pytest.fixture(scope="module")
def task(tierb_tasks):
    return tierb_tasks[0]  # tierb_00_invoices: every switch on


@pytest.fixture(scope="module")
def host_listener():
    """A port on the host's own loopback that no sandboxed client may reach."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    yield s.getsockname()[1]
    s.close()


def _digest(paths):
    out = {}
    for p in paths:
        with open(p, "rb") as fh:
            out[p] = hashlib.sha256(fh.read()).hexdigest()
    return out


def _stray_processes():
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if b"h2c-attack" in fh.read():
                        found.append(pid)
            except OSError:
                pass
    return found


def _attack(name, tmp_path, **subs):
    with open(os.path.join(ATTACKS, name)) as fh:
        source = fh.read()
    for k, v in subs.items():
        source = source.replace(f"{k} = 0", f"{k} = {v}")
    path = tmp_path / "client.py"
    path.write_text(source)
    return str(path)


def _errors(result):
    return " | ".join(t.error or "" for t in result.tests) + " | " + (result.error or "")


ALL = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ATTACKS, "*.py")))


def test_the_suite_has_at_least_fifteen_attacks():
    assert len(ALL) + 2 >= 15  # plus the replay and hard-coded clients built from the task below


@pytest.mark.parametrize("name", ALL)
def test_attack_scores_zero_and_leaves_nothing(name, task, sandbox, tmp_path, host_listener):
    watched = glob.glob(os.path.join(task, "**", "*"), recursive=True) + glob.glob(os.path.join(HERE, "*.py"))
    before = _digest([p for p in watched if os.path.isfile(p)])
    result = grade(task, _attack(name, tmp_path, HOST_PORT=host_listener), sandbox=sandbox, limits=LIMITS,
                   isolation="full")
    assert result.isolation == "full"
    assert result.pass_rate == 0.0, [(t.name, t.passed) for t in result.tests]
    errors = _errors(result)

    if name == "stack_and_gc_walk.py":
        assert "judge objects found: []" in errors
    if name == "read_hidden_files.py":
        assert "hidden material found: []" in errors
    if name == "read_environment.py":
        env = errors.split("environment: ", 1)[1].split("]", 1)[0]
        assert not [k for k in ("HF_TOKEN", "PYTHONPATH", "VIRTUAL_ENV", "PWD", "USER") if k in env], env
    if name == "connect_elsewhere.py":
        assert "reached=[]" in errors and "interfaces=['lo']" in errors and "routes=0" in errors
    if name == "tamper_files.py":
        assert "tampered: []" in errors
    if name == "write_to_channel.py":
        assert "channel" in errors or "NotPlainData" in errors or "raised" in errors
    if name == "infinite_loop.py":
        assert "timed out after 2 s" in errors
    if name == "kill_the_zygote.py":
        # The only other process it can see is the zygote, the namespace's init, which ignores it.
        assert "signalled: [1, 1]" in errors and sandbox._proc is not None and sandbox._proc.poll() is None
    if name == "memory_bomb.py":
        assert "MemoryError" in errors or "killed" in errors
    if name == "malformed_reply.py":
        assert all("malformed reply from the client process" in t.error for t in result.tests), errors
    if name == "leave_a_note.py":
        assert "notes found: []" in errors
    if name == "count_forks.py":
        counts = [int(x.split("]")[0].split(" ")[0]) for x in errors.split("children started: ")[1:]]
        assert counts and max(counts) < LIMITS.max_processes, counts
    if name == "report_identity.py":  # nobody, no groups, no capability; never host root behind it
        assert "uid=65534 groups=[]" in errors and "host_uid=0" not in errors, errors
        assert errors.count("0000000000000000") >= 5 * len(result.tests), errors
    if name == "huge_bodies.py":
        assert "statuses: ['413']" in errors

    # Nothing left behind: no process, no scratch, no changed file; and the grader still grades.
    sandbox.settle()  # the grade's sweep finishes before the sandbox is used again; wait for it here
    assert _stray_processes() == []
    if sandbox._box:  # a client that kills the zygote ends the sandbox; the next grade starts a new one
        assert os.listdir(sandbox._box) == []  # the sandbox's /sandbox: emptied after every grade
    after = _digest([p for p in before])
    assert after == before
    reference = grade(task, os.path.join(task, "hidden", "reference_client.py"), sandbox=sandbox, isolation="full")
    assert reference.pass_rate == 1.0, [t.error for t in reference.tests if not t.passed]


def test_replaying_the_recording_earns_nothing_here(task, sandbox, tmp_path):
    path = tmp_path / "replay.py"
    path.write_text(baseline_source("replay", task))
    assert grade(task, str(path), sandbox=sandbox, isolation="full").pass_rate == 0.0


def test_hard_coded_answers_from_the_recording_earn_nothing(task, sandbox, tmp_path):
    """Return, for every method, the records the recording showed: right shape, wrong world."""
    from har2client.har import read_har

    rec = read_har(os.path.join(task, "recording.har"))
    rows = []
    for e in rec.entries:
        if e.response.mime_type == "application/json" and '"items"' in e.response.body:
            import json

            rows += json.loads(e.response.body)["items"]
    assert rows
    path = tmp_path / "hard_coded.py"
    path.write_text(
        "ROWS = " + repr(rows) + "\n"
        "class NotFoundError(Exception):\n    pass\n"
        "class Client:\n"
        "    def __init__(self, base_url, *a, **k):\n        pass\n"
        "    def list_invoices(self, status=None):\n"
        "        return [r for r in ROWS if status is None or r['status'] == status]\n"
        "    def get_invoice(self, invoice_id):\n"
        "        for r in ROWS:\n            if r['id'] == invoice_id:\n                return r\n"
        "        raise NotFoundError(invoice_id)\n"
        "    def create_invoice(self, **f):\n        return dict(f, id='inv_000000000000')\n"
        "    def update_invoice(self, invoice_id, **c):\n        return dict(self.get_invoice(invoice_id), **c)\n"
        "    def delete_invoice(self, invoice_id):\n        return None\n")
    assert grade(task, str(path), sandbox=sandbox, isolation="full").pass_rate == 0.0


@pytest.mark.parametrize("mode", range(9), ids=["deep", "error_is_text", "ok_is_text", "id_is_text", "mro_is_text",
                                                "error_fields_wrong", "not_an_object", "value_too_deep", "null"])
def test_a_malformed_reply_fails_its_test_and_the_grade_goes_on(mode, task, sandbox, tmp_path):
    result = grade(task, _attack("malformed_reply.py", tmp_path, MODE=mode), sandbox=sandbox, limits=LIMITS,
                   isolation="full")
    assert result.error is None and result.total >= 7
    assert all(not t.passed and "malformed reply from the client process" in t.error for t in result.tests), \
        [t.error for t in result.tests]
    sandbox.settle()
    assert _stray_processes() == []


def test_a_malformed_reply_stops_neither_the_command_nor_a_batch(task, tierb_tasks, tmp_path):
    import json

    from conftest import run_cli

    client = _attack("malformed_reply.py", tmp_path, MODE=1)
    out = run_cli("grade", task, client, "--json", "--isolation", "full")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    row = json.loads(out.stdout)
    assert row["pass_rate"] == 0.0 and "malformed reply" in row["tests"][0]["error"]

    with open(client) as fh:
        bad = fh.read()
    preds = tmp_path / "preds.jsonl"
    second = tierb_tasks[1]
    preds.write_text(json.dumps({"task_id": os.path.basename(task), "model": "m", "code": bad}) + "\n" +
                     json.dumps({"task_id": os.path.basename(second), "model": "m",
                                 "code": baseline_source("reference", second)}) + "\n")
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    for t in (task, second):
        os.symlink(t, tasks_dir / os.path.basename(t))
    out = run_cli("grade-all", str(tasks_dir), "--predictions", str(preds), "--out", str(tmp_path / "r.jsonl"),
                  "--isolation", "full")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    rows = {r["task_id"]: r for r in map(json.loads, (tmp_path / "r.jsonl").read_text().splitlines())}
    assert rows[os.path.basename(task)]["pass_rate"] == 0.0 and rows[os.path.basename(second)]["pass_rate"] == 1.0


def test_nothing_one_grade_leaves_reaches_the_next(task, sandbox, tmp_path):
    """Files in every writable place, SysV IPC, the user keyring, the client's source in memory, descriptors."""
    secret = "H2C" + "-NOTE-" + os.urandom(6).hex()
    first = tmp_path / "first"
    first.mkdir()
    grade(task, _attack("leave_a_note.py", first, SECRET=repr(secret)), sandbox=sandbox, limits=LIMITS,
          isolation="full")
    result = grade(task, _attack("leave_a_note.py", tmp_path), sandbox=sandbox, limits=LIMITS, isolation="full")
    errors = _errors(result)
    assert "notes found: []" in errors, errors
    fds = errors.split("open fds: ", 1)[1].split("]", 1)[0]
    assert len(fds.split(",")) == 5, fds  # stdin, stdout, stderr, the call socket, and the one listing them


def test_the_process_limit_binds_and_a_fork_bomb_ends_quickly(task, sandbox, tmp_path):
    result = grade(task, _attack("count_forks.py", tmp_path), sandbox=sandbox, limits=LIMITS, isolation="full")
    counts = [int(x.split(";")[0].split()[0]) for x in _errors(result).split("children started: ")[1:]]
    assert counts and max(counts) < LIMITS.max_processes, counts
    bomb = grade(task, _attack("fork_bomb.py", tmp_path), sandbox=sandbox, limits=LIMITS, isolation="full")
    sandbox.settle()
    assert bomb.pass_rate == 0.0 and _stray_processes() == []
    assert all("timed out" not in (t.error or "") for t in bomb.tests), [t.error for t in bomb.tests]


JUDGE_MEMORY = """
import resource, sys
from har2client.grading import Limits, grade
grade(sys.argv[1], sys.argv[2], limits=Limits(call_seconds=5, task_seconds=60), isolation="full",
      stop_at_first_failure=True)  # one flood (3 s of 16 MB bodies) is enough
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_huge_requests_leave_the_judges_memory_bounded(task, tmp_path):
    import subprocess
    import sys

    def peak_kb(client):
        out = subprocess.run([sys.executable, "-c", JUDGE_MEMORY, task, client], capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        return int(out.stdout.split()[-1])

    honest = peak_kb(os.path.join(task, "hidden", "reference_client.py"))
    flooding = peak_kb(_attack("huge_bodies.py", tmp_path, FLOOD=3))  # the judge gives each call 5 s here
    assert flooding - honest < 100 * 1024, (honest, flooding)


def test_nothing_one_grade_leaves_reaches_the_next_in_a_grading_pool(task, tmp_path):
    """The same, through the pool a trainer keeps: one worker process, its warm sandbox, two grades in a row."""
    from har2client.grading._batch import Job

    secret = "H2C" + "-NOTE-" + os.urandom(6).hex()
    (tmp_path / "a").mkdir()
    plant = _attack("leave_a_note.py", tmp_path / "a", SECRET=repr(secret))
    look = _attack("leave_a_note.py", tmp_path)
    task_id = os.path.basename(task)
    jobs = [Job(task, task_id, "plants", plant), Job(task, task_id, "looks", look)]
    with GradingPool(1, isolation="full") as pool:
        rows = {r["model"]: r for r in pool.run(jobs)}
    errors = " | ".join(t["error"] or "" for t in rows["looks"]["tests"])
    assert "notes found: []" in errors and secret not in errors, errors

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
from har2client.grading import Limits, Sandbox, grade
from har2client.grading._sandbox import HERE, bwrap_available

ATTACKS = os.path.join(os.path.dirname(__file__), "attacks")
WHY_NOT_FULL = bwrap_available()
pytestmark = pytest.mark.skipif(WHY_NOT_FULL is not None, reason=f"full isolation unavailable: {WHY_NOT_FULL}")
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

    # Nothing left behind: no process, no scratch, no changed file; and the grader still grades.
    assert _stray_processes() == []
    if sandbox._scratch:  # a client that kills the zygote ends the sandbox; the next grade starts a new one
        assert [n for n in os.listdir(sandbox._scratch) if n.startswith("g")] == []
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

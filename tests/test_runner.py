"""``har2client run`` against a local stand-in for an OpenAI-compatible API (no model API is reachable here):
real HTTP, the openai SDK as the client, a scripted "model" that writes correct clients, broken ones,
none, tool calls with reasoning, and answers with 429, 500 or too slowly."""

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from har2client import Har2ClientError
from har2client.agents._runner import RunSettings, run
from har2client.investigate import validate_episode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_standin import OpenAIStandIn

pytestmark = pytest.mark.slow  # see pyproject.toml's markers

KEY = "H2C_TEST_KEY"


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY, "not-a-real-key")


@pytest.fixture(scope="module")
def task_sets(tmp_path_factory, tierb_dir):
    from har2client.repair import build_repair
    from har2client.tierb import build_investigate

    root = tmp_path_factory.mktemp("runner")
    b = root / "B"
    b.mkdir()
    for name in sorted(n for n in os.listdir(tierb_dir) if os.path.isdir(tierb_dir / n))[:4]:
        os.symlink(tierb_dir / name, b / name)
    build_investigate(str(root / "I"), 1, limit=3)
    build_repair(str(root / "R"), 1, limit=2)
    return {"build": str(b), "investigate": str(root / "I"), "repair": str(root / "R")}


def task_of(messages):
    user = next(m for m in messages if m["role"] == "user")["content"]
    return re.search(r"# Task (\S+),", user).group(1), user


def hidden(tasks, task_id, name="reference_client.py"):
    with open(os.path.join(tasks, task_id, "hidden", name), encoding="utf-8") as fh:
        return fh.read()


def settings(api, tasks, out, **kw):
    return RunSettings(model="standin", base_url=api.base_url, tasks=tasks, out=str(out), api_key_env=KEY,
                       concurrency=2, max_retries=2, **kw)


def test_a_run_of_all_three_cases(task_sets, tmp_path):
    seen_reasoning = []

    def answer(messages, body):
        task_id, user = task_of(messages)
        if task_id.startswith("investigate"):
            turns = [m for m in messages if m["role"] == "assistant"]
            if not turns:
                base = re.search(r"base URL: `([^`]+)`", user).group(1)
                # providers name the reasoning differently: each must come back as it was sent
                field = ({"reasoning_details": [{"type": "reasoning.text", "text": f"probe {task_id}"}]}
                         if task_id.endswith("01_orders") else {"reasoning_content": f"probe {task_id}"})
                return {"content": None, **field,
                        "tool_calls": [{"name": "http_request", "arguments": json.dumps({"method": "GET",
                                                                                         "url": base + "/"})}]}
            last = turns[-1]  # the last turn came back with its reasoning
            seen_reasoning.append(last.get("reasoning_content") or last["reasoning_details"][0]["text"])
            if task_id.endswith("02_tickets"):
                return "I give up."
            return {"content": None, "tool_calls": [{"name": "submit_client", "arguments": json.dumps(
                {"code": hidden(task_sets["investigate"], task_id)})}]}
        if task_id.startswith("repair"):
            with open(os.path.join(task_sets["repair"], task_id, "client_v1.py"), encoding="utf-8") as fh:
                return "The client is fine:\n```python\n" + fh.read() + "```"
        assert body["reasoning_effort"] == "low" and body["max_tokens"] == 32768
        if task_id.endswith("01_orders"):
            return "```python\nclass Client(:\n```"
        if task_id.endswith("02_tickets"):
            return "I cannot write this."
        return {"content": "```python\n" + hidden(task_sets["build"], task_id) + "```", "reasoning_content": "thought",
                "reasoning_tokens": 7}

    with OpenAIStandIn(answer) as api:
        build = run(settings(api, task_sets["build"], tmp_path / "b", effort="low"))
        repair = run(settings(api, task_sets["repair"], tmp_path / "r", case="repair"))
        inv = run(settings(api, task_sets["investigate"], tmp_path / "i", case="investigate", probes=1, effort="high"))
        assert "reasoning_effort" not in api.requests[len(build)]  # effort none sends none
    by = {r["task_id"]: r for r in build}
    assert by["tierb_00_invoices"]["status"] == "ok" and by["tierb_00_invoices"]["pass_rate"] == 1.0
    assert by["tierb_00_invoices"]["tokens"]["reasoning"] == 7 and by["tierb_00_invoices"]["responses"][0]["choices"]
    assert by["tierb_01_orders"]["status"] == "ok" and by["tierb_01_orders"]["pass_rate"] == 0.0
    assert "could not be loaded" in by["tierb_01_orders"]["grade"]["error"]
    assert by["tierb_02_tickets"]["status"] == "missing" and by["tierb_02_tickets"]["code"] is None
    assert all(r["repair"]["regression_rate"] == 0.0 and 0 < r["pass_rate"] < 1 for r in repair)
    ib = {r["task_id"]: r for r in inv}
    assert ib["investigate_00_invoices"]["pass_rate"] == 1.0 and ib["investigate_00_invoices"]["probes_used"] == 1
    assert ib["investigate_02_tickets"]["status"] == "missing"
    assert sorted(seen_reasoning) == sorted(f"probe {t}" for t in ib)
    for r in inv:  # each episode's record is on disk and valid
        lines = [json.loads(x) for x in open(tmp_path / "i" / "episodes" / f"{r['task_id']}.1.jsonl", encoding="utf-8")]
        validate_episode(lines)
        assert any(f"probe {r['task_id']}" in (line.get("reasoning") or "") for line in lines)
    raw = [json.loads(x) for x in open(tmp_path / "b" / "run-1.jsonl", encoding="utf-8")]
    assert {"request", "responses", "code", "grade", "tokens", "seconds", "status"} <= set(raw[0])
    meta = json.load(open(tmp_path / "b" / "run.json", encoding="utf-8"))
    assert meta["label"] == "standin / low / as_built" and meta["scoring_version"]


def test_429_is_retried_500_and_slowness_become_api_errors(task_sets, tmp_path):
    calls = {}

    def answer(messages):
        task_id, _ = task_of(messages)
        calls[task_id] = calls.get(task_id, 0) + 1
        if task_id.endswith("00_invoices"):
            return {"status": 429} if calls[task_id] == 1 else "```python\n" + hidden(task_sets["build"],
                                                                                      task_id) + "```"
        if task_id.endswith("01_orders"):
            return {"status": 500}
        if task_id.endswith("02_tickets"):
            return {"delay": 3, "content": "late"}
        return "no code"

    with OpenAIStandIn(answer) as api:
        s = settings(api, task_sets["build"], tmp_path / "e")
        s.timeout, s.max_retries = 1.0, 1
        rows = run(s)
    assert {r["task_id"]: r["status"] for r in rows} == {"tierb_00_invoices": "ok", "tierb_03_contacts": "missing"}
    raw = {r["task_id"]: r for r in map(json.loads, open(tmp_path / "e" / "run-1.jsonl", encoding="utf-8"))}
    assert raw["tierb_01_orders"]["status"] == "api_error" and "500" in raw["tierb_01_orders"]["error"]
    assert raw["tierb_02_tickets"]["status"] == "api_error" and "Timeout" in raw["tierb_02_tickets"]["error"]
    assert calls["tierb_00_invoices"] == 2 and calls["tierb_01_orders"] == 2  # one retry each


def test_a_killed_run_resumes_without_asking_again(task_sets, tmp_path):
    asked = []

    def answer(messages):
        task_id, _ = task_of(messages)
        asked.append(task_id)
        return {"delay": 0.4, "content": "```python\n" + hidden(task_sets["build"], task_id) + "```"}

    out = tmp_path / "k"
    cmd = [sys.executable, "-m", "har2client", "run", "--model", "standin", "--api-key-env", KEY,
           "--tasks", task_sets["build"], "--concurrency", "1", "--runs", "2", "--out", str(out)]
    env = {**os.environ, KEY: "not-a-real-key"}
    with OpenAIStandIn(answer) as api:
        proc = subprocess.Popen(cmd + ["--base-url", api.base_url], env=env, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            done = sum(1 for name in ("run-1.jsonl", "run-2.jsonl") if (out / name).exists()
                       for _ in open(out / name, encoding="utf-8"))
            if done >= 3:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        first = list(asked)
        before = sum(1 for name in ("run-1.jsonl", "run-2.jsonl") if (out / name).exists()
                     for line in open(out / name, encoding="utf-8") if line.endswith("\n"))
        assert 0 < before < 8
        again = subprocess.run(cmd + ["--base-url", api.base_url], env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 2 and "--resume" in again.stderr
        resumed = subprocess.run(cmd + ["--base-url", api.base_url, "--resume"], env=env, capture_output=True,
                                 text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr
    rows = [json.loads(x) for name in ("run-1.jsonl", "run-2.jsonl") for x in open(out / name, encoding="utf-8")]
    finished = [(r["task_id"], r["run"]) for r in rows if r["status"] == "ok"]
    assert len(finished) == len(set(finished)) == 8  # 4 tasks x 2 runs, each once
    assert len(asked) - len(first) == 8 - before  # only what had no line was asked again
    assert "mean pass rate 1.000" in resumed.stdout


def test_clear_errors_before_any_call(task_sets, tmp_path, monkeypatch):
    monkeypatch.delenv(KEY)
    with pytest.raises(Har2ClientError, match=f"\\${KEY} is not set"):
        run(RunSettings(model="m", base_url="http://127.0.0.1:9/v1", tasks=task_sets["build"], out=str(tmp_path / "x"),
                        api_key_env=KEY))
    with pytest.raises(Har2ClientError, match="no repair tasks"):
        run(RunSettings(model="m", base_url="http://127.0.0.1:9/v1", tasks=task_sets["build"], out=str(tmp_path / "y"),
                        case="repair", api_key_env=KEY))
    out = subprocess.run([sys.executable, "-m", "har2client", "run", "--model", "m", "--base-url", "http://x/v1",
                          "--out", str(tmp_path / "z")], capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "HAR2CLIENT_TASKS"})
    assert out.returncode == 2 and "--tasks" in out.stderr and "Traceback" not in out.stderr

"""The trainer adapters, each against its real library: Gymnasium's checker, an OpenEnv server over real
HTTP and WebSocket with 64 sessions at once, TRL's documented call shapes (its trainer needs torch, which
CI does not install: examples/trl_grpo.py runs the real one), and verifiers against a local stand-in
for an OpenAI-compatible API (no model API is reachable here)."""

import asyncio
import inspect
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from har2client.agents import extract_client

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_standin import OpenAIStandIn

pytestmark = pytest.mark.slow  # see pyproject.toml's markers

BROKEN = "class Client(:\n"


def reference(tasks, task_id):
    with open(os.path.join(tasks, task_id, "hidden", "reference_client.py"), encoding="utf-8") as fh:
        return fh.read()


# -- Gymnasium -----------------------------------------------------------------------------------

@pytest.mark.parametrize("env_id,kwargs", [("har2client/TrafficToClient-v0", {"curriculum": "L2"}),
                                           ("har2client/TrafficToClient-v0", {"case": "investigate",
                                                                              "probe_budget": 1}),
                                           ("har2client/Repair-v0", {"curriculum": "R0"})])
def test_gymnasium_make_and_check_env(env_id, kwargs):
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import har2client.env.gymnasium_env as adapter

    env = gym.make(env_id, **kwargs)
    try:
        check_env(env.unwrapped)
        prompt, info = env.reset(seed=5)
        assert env.observation_space.contains(prompt) and info["task_id"] in prompt
        if info["probe_budget"]:
            probe = json.dumps({"type": "probe", "request": {"method": "GET",
                                                             "url": info["practice"]["base_url"] + "/"}})
            text, reward, terminated, truncated, step_info = env.step(probe)
            assert json.loads(text)["status"] and reward == 0.0 and not terminated and step_info["probes_left"] == 0
        _, reward, terminated, truncated, step_info = env.step(env.unwrapped.reference_code())
        assert (reward, terminated, truncated) == (1.0, True, False) and step_info["error"] is None
    finally:
        env.close()
    assert adapter.in_charset("caf\u00e9 \u2019 \U0001F600 \x00") == "caf\\xe9 \\u2019 \\U0001f600 \\x00"


def test_gymnasium_loads_the_adapter_from_the_id_alone():
    code = ("import gymnasium as gym\n"
            "env = gym.make('har2client.env.gymnasium_env:har2client/Repair-v0', curriculum='R0')\n"
            "p, info = env.reset(seed=0)\nprint(info['task_id'])\nenv.close()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("repair_"), out.stderr[-2000:]


# -- OpenEnv -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def env_server(tmp_path_factory):
    """``har2client serve-env`` in its own process, as a remote trainer reaches it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("serve-env") / "server.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "har2client", "serve-env", "--port", str(port),
                                 "--max-sessions", "80"], stdout=subprocess.DEVNULL, stderr=fh)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=1).read()
            break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
    yield url
    pool = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert pool  # the grading pool's processes
    proc.terminate()
    # uvicorn shuts down, then ends itself with the signal it caught (-15); the pool goes with it
    assert proc.wait(timeout=60) in (0, -15), log.read_text()[-3000:]
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{pid}") for pid in pool) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pool if os.path.exists(f"/proc/{pid}")]


def test_openenv_serves_64_concurrent_episodes_with_every_reward_right(env_server, tierb_dir):
    from har2client.env.openenv_env import Har2ClientAction, Har2ClientEnvClient

    tasks = str(tierb_dir)
    bad = [({"type": "fly"}, "unknown action type"), ({"type": "submit", "code": 5}, "must be a string"),
           ({"type": "submit", "code": "#" * (5 * 1024 * 1024)}, "at most 1,048,576 bytes"),
           ({"type": "probe", "request": {"method": "GET"}}, "no probe budget")]

    async def episode(i):
        async with Har2ClientEnvClient(base_url=env_server, message_timeout_s=300) as client:
            r = await client.reset(split="test", tasks=tasks, seed=i)
            if i % 8 == 7:
                action, says = bad[(i // 8) % len(bad)]
                out = await client.step(Har2ClientAction(**action))
                assert says in out.observation.info["error"] and out.reward == 0.0, out
                if out.done:
                    r = await client.reset()
            task_id = r.observation.observation["task_id"]
            broken = i % 4 == 3
            out = await client.step(Har2ClientAction(type="submit", code=BROKEN if broken else reference(tasks,
                                                                                                         task_id)))
            state = await client.state()
            assert state.task_id == task_id and state.done
            return broken, out.reward, out.observation.info

    async def run_all():
        return await asyncio.gather(*(episode(i) for i in range(64)))

    results = asyncio.run(run_all())
    for broken, reward, info in results:
        if broken:
            assert reward == 0.0 and "could not be loaded" in info["error"]
        else:
            assert reward == 1.0 and info["error"] is None and info["passed"] == info["total"]


def test_openenv_sessions_choose_their_case_and_errors_stay_in_info(env_server):
    from openenv.core.generic_client import GenericEnvClient

    with GenericEnvClient(base_url=env_server).sync() as env:
        r = env.reset(case="repair", curriculum="R0", seed=3)
        obs = r.observation["observation"]
        assert obs["case"] == "repair" and "client_v1" in obs
        out = env.step({"type": "submit", "code": obs["client_v1"]})
        assert out.done and 0.0 < out.reward < 1.0 and out.observation["info"]["regression_rate"] == 0.0
        out = env.step({"type": "submit", "code": obs["client_v1"]})
        assert "has ended" in out.observation["info"]["error"]
        r = env.reset(case="investigate", probe_budget=1, curriculum="L2", seed=1)
        base = r.observation["observation"]["practice"]["base_url"]
        out = env.step({"type": "probe", "request": {"method": "GET", "url": base + "/"}})
        assert out.observation["observation"]["probes_left"] == 0 and not out.done
        assert "case must be" in env.reset(case="sing").observation["info"]["error"]
        assert "unknown reset settings" in env.reset(colour="red").observation["info"]["error"]


# -- TRL -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def trl_tasks(tmp_path_factory):
    from har2client.env.trl_env import build_train_tasks

    root = tmp_path_factory.mktemp("trl")
    return {"investigate": build_train_tasks(str(root / "investigate"), 2, case="investigate", curriculum="L3", seed=2),
            "repair": build_train_tasks(str(root / "repair"), 2, case="repair", curriculum="R0", seed=2)}


def test_trl_reward_function_takes_grpo_trainers_call_shape(tierb_dir, trl_tasks):
    from har2client.env.trl_env import make_reward_function, task_rows

    rows = task_rows(str(tierb_dir))[:3]
    assert rows[0]["prompt"][0]["role"] == "system" and rows[0]["prompt"][1]["content"].startswith("# Task tierb_00")
    reward = make_reward_function(str(tierb_dir))
    fenced = ["Here it is:\n```python\n" + reference(str(tierb_dir), r["task_id"]) + "```" for r in rows]
    # as GRPOTrainer._calculate_rewards calls it: prompts, completions, completion_ids, then every other column
    # repeated per generation, trainer_state, log_extra, log_metric
    common = dict(completion_ids=[[1, 2]] * 3, task_id=[r["task_id"] for r in rows], case=[r["case"] for r in rows],
                  trainer_state=None, log_extra=lambda *a: None, log_metric=lambda *a: None)
    conversational = [[{"role": "assistant", "content": f}] for f in fenced]
    assert reward(prompts=[r["prompt"] for r in rows], completions=conversational, **common) == [1.0, 1.0, 1.0]
    standard = [fenced[0], "I would need more information.", "```python\n" + BROKEN + "```"]
    assert reward(prompts=["p"] * 3, completions=standard, **common) == [1.0, 0.0, 0.0]
    repair_rows = task_rows(trl_tasks["repair"])
    rr = make_reward_function(trl_tasks["repair"])
    v1 = []
    for r in repair_rows:
        with open(os.path.join(trl_tasks["repair"], r["task_id"], "client_v1.py"), encoding="utf-8") as fh:
            assert fh.read().strip() in r["prompt"][1]["content"]  # the old client is in the prompt
            fh.seek(0)
            v1.append([{"role": "assistant", "content": "```python\n" + fh.read() + "```"}])
    scores = rr(prompts=[r["prompt"] for r in repair_rows], completions=v1, task_id=[r["task_id"] for r in repair_rows])
    assert all(0.0 < s < 1.0 for s in scores)  # client_v1 as shown: a repair that repairs nothing


def test_trl_environment_factory_shape_tools_and_reward(trl_tasks):
    from transformers.utils import get_json_schema

    from har2client.env.trl_env import environment_reward, make_investigate_environment, task_rows

    tasks = trl_tasks["investigate"]
    factory = make_investigate_environment(tasks, budget=1)
    env = factory()  # the trainer calls the factory with no arguments
    # as GRPOTrainer discovers tools: public methods but reset and get_reward, with schemas from their docstrings
    tools = [m for n, m in inspect.getmembers(env, predicate=inspect.ismethod)
             if n not in ("reset", "get_reward") and not n.startswith("_")]
    schemas = {s["function"]["name"]: s["function"] for s in map(get_json_schema, tools)}
    assert set(schemas) == {"http_request", "submit_client"}
    assert schemas["http_request"]["parameters"]["required"] == ["method", "url"]
    assert schemas["submit_client"]["parameters"]["properties"]["code"]["type"] == "string"
    row = task_rows(tasks)[0]
    first = env.reset(**row)  # every dataset column as a keyword
    assert first.startswith("## Practice server") and env.episode.base_url in first
    answer = json.loads(env.http_request("GET", env.episode.base_url + "/"))
    assert answer["probes_left"] == 0
    with pytest.raises(ValueError, match="budget is used up"):
        env.http_request("GET", env.episode.base_url + "/")
    assert "passed" in env.submit_client(reference(tasks, row["task_id"])) and env.get_reward() == 1.0
    with pytest.raises(ValueError, match="has ended"):
        env.submit_client("x")
    assert environment_reward([env]) == [1.0]
    env.reset(**row)
    assert env.get_reward() == 0.0  # a new episode starts at nothing
    with pytest.raises(ValueError, match="code must be"):
        env.submit_client("")


def test_the_trl_example_script_parses(tmp_path):
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "examples", "trl_grpo.py"),
                          "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "GRPO" in out.stdout, out.stderr


# -- verifiers -----------------------------------------------------------------------------------

def test_verifiers_environment_scores_completions_with_the_grade(tierb_dir, monkeypatch):
    import verifiers as vf

    from har2client.env.verifiers_env import load_environment

    tasks = str(tierb_dir)
    answered = {}

    def answer(messages):
        task_id = re.search(r"# Task (\S+),", messages[-1]["content"]).group(1)
        answered[task_id] = True
        if task_id == "tierb_02_tickets":
            return "I cannot write this client."
        return "```python\n" + reference(tasks, task_id) + "```"

    env = load_environment(tasks=tasks)
    monkeypatch.setenv("STANDIN_KEY", "not-a-real-key")
    with OpenAIStandIn(answer) as api:
        results = env.evaluate_sync(client=vf.ClientConfig(api_base_url=api.base_url, api_key_var="STANDIN_KEY"),
                                    model="standin", num_examples=3, rollouts_per_example=1)
        assert api.requests[0]["messages"][0]["role"] == "system"
    rewards = {o["info"]["task_id"]: o["reward"] for o in results["outputs"]}
    assert rewards == {"tierb_00_invoices": 1.0, "tierb_01_orders": 1.0, "tierb_02_tickets": 0.0}
    assert extract_client("```python\nclass Client: pass\n```") == "class Client: pass\n"


def test_verifiers_builds_train_tasks_when_given_none():
    from har2client import EnvError
    from har2client.env.verifiers_env import load_environment

    env = load_environment(n=2, case="repair", curriculum="R0", seed=1)
    assert len(env.dataset) == 2 and all(i["task_id"].startswith("repair_") for i in env.dataset["info"])
    with pytest.raises(EnvError, match="single-turn"):
        load_environment(case="investigate")

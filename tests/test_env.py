"""The environments: the page's snippet, one conformance test over every environment and configuration,
curricula, Case 2 probes, Case 3 regression, test splits from folders and datasets, a shared pool."""

import json
import os
import re
import subprocess
import sys
import threading

import pytest

from har2client import EnvError
from har2client.env import Grader, Har2ClientEnv, RepairEnv, TrafficToClientEnv, parse_curriculum
from har2client.env._sources import stage_of
from har2client.grading._batch import GradingPool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SNIPPET = '''\
from har2client.env.env import TrafficToClientEnv
from har2client.env.repair_env import RepairEnv


def main() -> None:
    # Case 1: observed traffic -> client
    env = TrafficToClientEnv(source="browser_har", split="train", curriculum="L0", compact=True, seed=0)
    obs = env.reset()  # task_id, goal, observation (the recording), observation_format, probe_budget, source
    out = env.step({"type": "submit", "code": env.reference_code()})  # replace with your model's code
    print("case 1 reward:", out["reward"], "done:", out["done"])  # 1.0 for the reference client
    env.close()

    # Case 3: repair a client after the API changed
    repair = RepairEnv(split="train", curriculum="R0", seed=0)
    obs = repair.reset()  # task_id, goal, client_v1, failure, observation, observation_format
    out = repair.step({"type": "submit", "code": obs["client_v1"]})  # a no-op patch: fails some tests
    print("case 3 reward:", out["reward"], "regression:", out["info"]["regression_rate"])
    repair.close()


if __name__ == "__main__":  # the grader uses spawned worker processes: keep this guard
    main()
'''

BROKEN = "class Client(:\n"
OBS_KEYS = {"task_id", "case", "arm", "goal", "observation", "observation_format", "source", "probe_budget",
            "probes_left", "tools", "prompt"}
INFO_KEYS = {"task_id", "episode", "probes_used", "probes_left", "error"}
GRADE_KEYS = {"pass_rate", "passed", "total", "tests", "isolation", "grading_seed", "scoring_version"}


@pytest.mark.slow
def test_the_pages_snippet_prints_what_the_page_says(tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(SNIPPET)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "case 1 reward: 1.0 done: True"
    m = re.fullmatch(r"case 3 reward: (0\.\d+) regression: (\d\.\d+)", lines[1])
    assert m and 0.0 < float(m.group(1)) < 1.0 and float(m.group(2)) == 0.0, lines


# -- the task folders the test splits read -------------------------------------------------------

@pytest.fixture(scope="module")
def splits(tmp_path_factory, tierb_dir):
    from har2client.repair import build_repair
    from har2client.tiera import build_tiera
    from har2client.tierb import build_investigate

    root = tmp_path_factory.mktemp("env-splits")
    build_tiera(str(root / "tierA"), 1, limit=3)
    build_investigate(str(root / "investigate"), 1, limit=6)
    build_repair(str(root / "repair"), 1, limit=3)
    return {"tierB": str(tierb_dir), "tierA": str(root / "tierA"), "investigate": str(root / "investigate"),
            "repair": str(root / "repair")}


CONFIGS = [
    ("build B train", lambda s, seed: TrafficToClientEnv(source="browser_har", split="train", curriculum="all",
                                                         seed=seed)),
    ("build B train raw L3 hint", lambda s, seed: TrafficToClientEnv(split="train", curriculum="L3", compact=False,
                                                                     arm="hint", seed=seed)),
    ("build B train evidence", lambda s, seed: TrafficToClientEnv(split="train", curriculum="L2", arm="evidence",
                                                                  seed=seed)),
    ("build A train", lambda s, seed: TrafficToClientEnv(source="proxy_har", split="train", seed=seed)),
    ("build B test", lambda s, seed: TrafficToClientEnv(split="test", tasks=s["tierB"], seed=seed)),
    ("build A test", lambda s, seed: TrafficToClientEnv(source="proxy_har", split="test", tasks=s["tierA"], seed=seed)),
    ("investigate train budget 0", lambda s, seed: TrafficToClientEnv(case="investigate", probe_budget=0, seed=seed)),
    ("investigate train budget 1", lambda s, seed: TrafficToClientEnv(case="investigate", probe_budget=1, seed=seed)),
    ("investigate test budget 5", lambda s, seed: TrafficToClientEnv(case="investigate", split="test",
                                                                     tasks=s["investigate"], seed=seed)),
    ("repair train", lambda s, seed: RepairEnv(split="train", curriculum="R0-R3", seed=seed)),
    ("repair train notice", lambda s, seed: RepairEnv(split="train", curriculum="R2", arm="notice", seed=seed)),
    ("repair test hint", lambda s, seed: RepairEnv(split="test", tasks=s["repair"], arm="hint", seed=seed)),
]


def _hidden_texts(env: Har2ClientEnv) -> list[str]:
    task = env.task
    names = [t.name for t in task.tests]
    reference = env.reference_code()
    if isinstance(env, RepairEnv):  # the repaired client starts as client_v1 does: the whole of it is the secret
        return names + [reference]
    return names + [reference.split("class Client", 1)[1][:400]]


@pytest.mark.slow
@pytest.mark.parametrize("name,make", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_every_environment_keeps_the_contract(splits, name, make):
    env = make(splits, 7)
    assert isinstance(env, Har2ClientEnv)
    with pytest.raises(EnvError, match="before reset"):
        env.step({"type": "submit", "code": "x"})
    obs = env.reset()
    assert OBS_KEYS <= set(obs) and json.loads(json.dumps(obs)) == obs
    if isinstance(env, RepairEnv):
        assert {"client_v1", "failure"} <= set(obs) and obs["client_v1"] in obs["prompt"]
    assert obs["observation_format"] == ("har" if "raw" in name else "compact")
    if obs["observation_format"] == "har":
        assert json.loads(obs["observation"])["log"]["entries"]
    for secret in _hidden_texts(env):  # nothing hidden reaches the model
        assert secret not in obs["prompt"] and secret not in json.dumps(obs)
    # malformed actions: an error in info, the episode goes on
    for action, says in [("submit", "an action is a dict"), ({"type": "fly"}, "unknown action type"),
                         ({"type": "submit", "code": 3}, "code must be a string"),
                         ({"type": "submit"}, "code must be a string"), ({"type": "submit", "code": " "}, "empty")]:
        out = env.step(action)
        assert out["done"] is False and out["reward"] == 0.0 and says in out["info"]["error"], (action, out)
        assert INFO_KEYS <= set(out["info"])
    if obs["probe_budget"] == 0:
        assert "no probe budget" in env.step({"type": "probe", "request": {}})["info"]["error"]
    out = env.step({"type": "submit", "code": env.reference_code()})
    assert out["reward"] == 1.0 and out["done"] is True, out["info"]
    assert (INFO_KEYS | GRADE_KEYS) <= set(out["info"]) and out["info"]["error"] is None
    assert len(out["info"]["tests"]) == out["info"]["total"] == len(env.task.tests)
    if isinstance(env, RepairEnv):
        assert out["info"]["regression_rate"] == 0.0 and out["info"]["full_repair"] is True
    with pytest.raises(EnvError, match="has ended"):
        env.step({"type": "submit", "code": env.reference_code()})
    first_task = obs["task_id"]
    # a broken client and an oversized one end their episodes with reward 0 and say why
    env.reset()
    out = env.step({"type": "submit", "code": BROKEN})
    assert out["done"] and out["reward"] == 0.0 and "could not be loaded" in out["info"]["error"]
    env.reset()
    out = env.step({"type": "submit", "code": "#" * (5 * 1024 * 1024)})
    assert out["done"] and out["reward"] == 0.0 and "at most 1,048,576 bytes" in out["info"]["error"]
    state = env.state()
    assert state["episode"] == 2 and state["done"] and json.loads(json.dumps(state)) == state
    env.close()
    with pytest.raises(EnvError, match="closed"):
        env.reset()
    # the same seed gives the same episode: task, observation and grading instance
    again = make(splits, 7)
    try:
        obs2 = again.reset()
        assert obs2["task_id"] == first_task and obs2["observation"] == obs["observation"]
        if "train" not in name or isinstance(again, RepairEnv):
            return
        assert again.reset(seed=7)["task_id"] == first_task  # reset(seed=) restarts the stream
    finally:
        again.close()


def test_a_train_environment_deletes_what_it_built(tmp_path):
    env = TrafficToClientEnv(seed=1)
    env.reset()
    first = env.task.path
    env.reset()
    assert not os.path.exists(first) and os.path.isdir(env.task.path)
    scratch = env._tasks.scratch
    env.close()
    assert not os.path.exists(scratch)


# -- curricula ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name,says", [("L7", "out of range"), ("R0", "no curriculum"), ("L3-L1", "out of range"),
                                       ("level0", "no curriculum"), (3, "must be a string")])
def test_a_curriculum_that_does_not_exist_is_a_clear_error(name, says):
    with pytest.raises(EnvError, match=says):
        parse_curriculum(name, "L")


def test_a_rising_curriculum_moves_up_when_the_recent_mean_passes_the_threshold():
    c = parse_curriculum("L0-L2", "L", window=3, threshold=0.8)
    for r in (1.0, 1.0, 0.2, 1.0, 1.0):
        c.record(r)
    assert c.stage == 0  # the last three are 0.2, 1.0, 1.0: mean 0.73
    c.record(0.9)
    assert c.stage == 1  # 0.2 left the window: 1.0, 1.0, 0.9
    c.record(1.0)
    c.record(1.0)
    assert c.stage == 1  # the window starts afresh at each stage: two rewards are not three
    c.record(1.0)
    assert c.stage == 2 and c.stages() == [2]
    for r in (1.0, 1.0, 1.0):
        c.record(r)
    assert c.stage == 2  # the top stays the top
    assert parse_curriculum("all", "R").stages() == [0, 1, 2, 3]


@pytest.mark.slow
def test_environment_levels_follow_the_curriculum():
    env = TrafficToClientEnv(curriculum="L1-L2", window=2, threshold=0.9, seed=4)
    levels = []
    for _ in range(4):
        env.reset()
        levels.append(stage_of(env.task.path))
        env.step({"type": "submit", "code": env.reference_code()})
    env.close()
    assert levels == [1, 1, 2, 2]
    with pytest.raises(EnvError, match="proxy_har train has levels"):
        TrafficToClientEnv(source="proxy_har", curriculum="L0")


@pytest.mark.parametrize("kwargs,says", [({"source": "har"}, "source must be"), ({"split": "dev"}, "split must be"),
                                         ({"case": "repair"}, "case must be"), ({"arm": "notice"}, "arm must be"),
                                         ({"probe_budget": 2}, "no practice server"),
                                         ({"case": "investigate", "probe_budget": -1}, "probe_budget must be"),
                                         ({"case": "investigate", "source": "proxy_har"}, "Tier B"),
                                         ({"seed": -1}, "seed must be"), ({"split": "test"}, "HAR2CLIENT_SOURCE")])
def test_bad_settings_are_clear_errors(kwargs, says, monkeypatch):
    monkeypatch.delenv("HAR2CLIENT_SOURCE", raising=False)
    with pytest.raises(EnvError, match=says):
        TrafficToClientEnv(**kwargs)


# -- Case 2 and Case 3 -----------------------------------------------------------------------

def test_investigate_probes_the_practice_server_and_keeps_the_episode_record():
    env = TrafficToClientEnv(case="investigate", probe_budget=2, curriculum="L4", seed=2)
    obs = env.reset()
    base = obs["practice"]["base_url"]
    assert base in obs["prompt"] and [t["function"]["name"] for t in obs["tools"]] == ["http_request", "submit_client"]
    out = env.step({"type": "probe", "request": {"method": "GET", "url": base + "/"}})
    assert out["done"] is False and isinstance(out["observation"]["status"], int) and out["info"]["probes_left"] == 1
    out = env.step({"type": "probe", "request": {"method": "GET", "url": "https://example.org/"}})
    assert "only the practice server" in out["info"]["error"] and out["info"]["probes_left"] == 1
    assert "must be a dict" in env.step({"type": "probe", "request": "GET /"})["info"]["error"]
    env.step({"type": "probe", "request": {"method": "GET", "url": base + "/"}})
    out = env.step({"type": "probe", "request": {"method": "GET", "url": base + "/"}})
    assert "budget is used up" in out["info"]["error"]
    out = env.step({"type": "submit", "code": env.reference_code()})
    assert out["reward"] == 1.0 and out["info"]["probes_used"] == 2 and "tested_hidden_header" in out["info"]
    record = env.episode_record()
    assert record[0]["kind"] == "start" and record[-1]["kind"] == "end" and record[-1]["pass_rate"] == 1.0
    assert sum(1 for line in record if line.get("name") == "http_request") == 4
    env.close()


def test_a_repair_that_breaks_what_worked_has_a_regression_rate_of_one():
    env = RepairEnv(curriculum="R0", seed=3)
    obs = env.reset()
    out = env.step({"type": "submit", "code": "class Client:\n    def __init__(self, *a, **k):\n        pass\n"})
    assert out["reward"] == 0.0 and out["info"]["regression_rate"] == 1.0 and out["info"]["regressed"]
    assert 0.0 < out["info"]["client_v1_pass_rate"] < 1.0
    obs = env.reset()
    out = env.step({"type": "submit", "code": obs["client_v1"]})
    assert out["info"]["regression_rate"] == 0.0 and out["reward"] == out["info"]["client_v1_pass_rate"] < 1.0
    env.close()


# -- the test split from a dataset folder; many environments on one pool -------------------------

@pytest.mark.slow
def test_the_test_split_reads_a_dataset_folder(tmp_path, splits, monkeypatch):
    from har2client.hub import build_dataset

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    build_dataset(str(tmp_path / "ds"), task_dirs=[splits["repair"], splits["investigate"]])
    env = RepairEnv(split="test", tasks=str(tmp_path / "ds"), seed=0)
    ids = set()
    for _ in range(3):
        obs = env.reset()
        ids.add(obs["task_id"])
        assert env.step({"type": "submit", "code": env.reference_code()})["reward"] == 1.0
    env.close()
    assert ids == set(os.listdir(splits["repair"]))
    with pytest.raises(EnvError, match="no build Tier B tasks"):
        TrafficToClientEnv(split="test", tasks=str(tmp_path / "ds"))


@pytest.mark.slow
def test_many_environments_in_threads_share_one_grading_pool(tierb_dir):
    pool = GradingPool(2)
    try:
        grader = Grader(pool)
        rewards: list[float] = []

        def play(seed: int) -> None:
            env = TrafficToClientEnv(split="test", tasks=str(tierb_dir), seed=seed, grader=grader)
            for _ in range(3):
                env.reset()
                rewards.append(env.step({"type": "submit", "code": env.reference_code()})["reward"])
                env.reset()
                rewards.append(env.step({"type": "submit", "code": BROKEN})["reward"] + 2)
            env.close()

        threads = [threading.Thread(target=play, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(rewards) == [1.0] * 18 + [2.0] * 18
    finally:
        pool.close()

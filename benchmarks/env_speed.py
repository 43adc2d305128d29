"""What an environment episode costs, against a grade of the same client through the Python API.

    uv run python benchmarks/env_speed.py [--episodes N] [--json]

1. Test split (the dataset's tasks, here the 50 Tier B tasks of seed 1): reset + submit of the
   reference client, against ``grade(task, reference, seed=the episode's grading seed)`` of the
   same task, interleaved episode by episode. Each side grades the task as for the first time
   (the cached model and app of the task are forgotten before the API's grade). Target: total
   ratio at most 1.1.
2. Repair, test split (the first 14 repair tasks of seed 1): reset + submit against
   ``repair_scores`` (which grades the submission and client_v1 on one instance, as the
   environment does). Target: at most 1.1.
3. Train split (a new API built for every episode, curriculum ``all``): reset + submit against a
   grade of the same client on the same task, measured before the next reset deletes it. The
   build of the task is in the episode's cost; reported, with its share, not held to the target.
   Then the same with 0.5 s between reset and submit (a model writing), not counted: the next
   task is built meanwhile, as in training.
4. Many environments in one process: 8 environments in 8 threads on one shared pool of one
   worker per core, against the same episodes one after another on one inline environment.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from har2client.api._app import _APPS
from har2client.api._model import _load_cached
from har2client.env import Grader, RepairEnv, TrafficToClientEnv, shared_pool
from har2client.grading import grade
from har2client.repair import build_repair
from har2client.repair._score import repair_scores
from har2client.tierb import build_tierb


def first_grade_of_a_task() -> None:
    """Forget the model and app of every task read so far: the grade it is held against then pays, as the
    environment's did, for reading the task's API and building its app (a task is graded for the first time)."""
    _load_cached.cache_clear()
    _APPS.clear()


def _ratio(env_times: list[float], api_times: list[float]) -> dict[str, float]:
    return {"episodes": len(env_times), "env_total_s": round(sum(env_times), 3), "grade_total_s": round(sum(api_times),
                                                                                                        3),
            "ratio_total": round(sum(env_times) / sum(api_times), 3),
            "ratio_median": round(statistics.median(env_times) / statistics.median(api_times), 3)}


def test_split(tasks: str, episodes: int) -> dict[str, float]:
    env = TrafficToClientEnv(split="test", tasks=tasks, seed=0)
    env_t, api_t = [], []
    for _ in range(episodes):
        t = time.perf_counter()
        env.reset()
        out = env.step({"type": "submit", "code": env.reference_code()})
        env_t.append(time.perf_counter() - t)
        assert out["reward"] == 1.0, out["info"]
        first_grade_of_a_task()
        t = time.perf_counter()
        grade(env.task.path, env.task.reference_path, seed=out["info"]["grading_seed"])
        api_t.append(time.perf_counter() - t)
    env.close()
    return _ratio(env_t, api_t)


def repair_split(tasks: str, episodes: int) -> dict[str, float]:
    env = RepairEnv(split="test", tasks=tasks, seed=0)
    env_t, api_t = [], []
    for _ in range(episodes):
        t = time.perf_counter()
        obs = env.reset()
        out = env.step({"type": "submit", "code": obs["client_v1"]})
        env_t.append(time.perf_counter() - t)
        first_grade_of_a_task()
        t = time.perf_counter()
        scores = repair_scores(env.task, os.path.join(env.task.path, "client_v1.py"), seed=out["info"]["grading_seed"])
        api_t.append(time.perf_counter() - t)
        assert scores["pass_rate"] == out["reward"], (scores["pass_rate"], out["reward"])
    env.close()
    return _ratio(env_t, api_t)


def train_split(episodes: int) -> dict[str, float]:
    env = TrafficToClientEnv(split="train", seed=0)
    env_t, api_t, reset_t = [], [], []
    for _ in range(episodes):
        t = time.perf_counter()
        env.reset()
        reset_t.append(time.perf_counter() - t)
        out = env.step({"type": "submit", "code": env.reference_code()})
        env_t.append(time.perf_counter() - t)
        first_grade_of_a_task()
        t = time.perf_counter()
        grade(env.task.path, env.task.reference_path, seed=out["info"]["grading_seed"])
        api_t.append(time.perf_counter() - t)
    env.close()
    return {**_ratio(env_t, api_t), "reset_share": round(sum(reset_t) / sum(env_t), 3)}


def train_split_thinking(episodes: int, think: float = 0.5) -> dict[str, float]:
    """As ``train_split``, with ``think`` seconds between reset and submit (a model writing its client), which
    are not counted: the next task is built meanwhile."""
    env = TrafficToClientEnv(split="train", seed=1)
    env_t, api_t = [], []
    for _ in range(episodes):
        t = time.perf_counter()
        env.reset()
        spent = time.perf_counter() - t
        time.sleep(think)
        t = time.perf_counter()
        out = env.step({"type": "submit", "code": env.reference_code()})
        env_t.append(spent + time.perf_counter() - t)
        time.sleep(think)  # the grade it is held against waits as long, so neither finds the sandbox warmer
        first_grade_of_a_task()
        t = time.perf_counter()
        grade(env.task.path, env.task.reference_path, seed=out["info"]["grading_seed"])
        api_t.append(time.perf_counter() - t)
    env.close()
    return {**_ratio(env_t, api_t), "think_s": think}


def many_envs(tasks: str, episodes: int, envs: int = 8) -> dict[str, float]:
    def play(env: TrafficToClientEnv, n: int) -> None:
        for _ in range(n):
            env.reset()
            assert env.step({"type": "submit", "code": env.reference_code()})["reward"] == 1.0

    one = TrafficToClientEnv(split="test", tasks=tasks, seed=0)
    t = time.perf_counter()
    play(one, episodes)
    inline = time.perf_counter() - t
    one.close()
    grader = Grader(shared_pool())
    pool_envs = [TrafficToClientEnv(split="test", tasks=tasks, seed=i, grader=grader) for i in range(envs)]
    t = time.perf_counter()
    with ThreadPoolExecutor(envs) as ex:
        list(ex.map(play, pool_envs, [episodes // envs] * envs))
    shared = time.perf_counter() - t
    for e in pool_envs:
        e.close()
    return {"episodes": episodes // envs * envs, "envs": envs, "workers": grader.pool.workers,
            "inline_s": round(inline, 3), "shared_pool_s": round(shared, 3), "ratio": round(shared / inline, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=50, help="episodes per measure (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    grader_pool = shared_pool()  # forks its workers: before any thread of this process starts
    with tempfile.TemporaryDirectory() as work:
        build_tierb(os.path.join(work, "tierB"), 1)
        build_repair(os.path.join(work, "repair"), 1, limit=14)
        grade(os.path.join(work, "tierB", "tierb_00_invoices"),
              os.path.join(work, "tierB", "tierb_00_invoices", "hidden", "reference_client.py"))  # warm
        figures = {"test_split": test_split(os.path.join(work, "tierB"), args.episodes),
                   "repair_test_split": repair_split(os.path.join(work, "repair"), min(args.episodes, 28)),
                   "train_split": train_split(args.episodes),
                   "train_split_with_think_time": train_split_thinking(min(args.episodes, 20)),
                   "many_envs": many_envs(os.path.join(work, "tierB"), args.episodes)}
    grader_pool.close()
    figures["targets"] = {"test_split": figures["test_split"]["ratio_total"] <= 1.1,
                          "repair_test_split": figures["repair_test_split"]["ratio_total"] <= 1.1}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, f in figures.items():
            print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in f.items()))
    return 0 if all(figures["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())

"""``har2client quickstart``: the whole loop on one task, with no model and no network."""

from __future__ import annotations

import os
import sys

from .agents import baseline_source
from .grading import NOT_RUN, grade
from .tasks import arms_of, visible_files
from .tierb import build_tierb


def how_to_run() -> str:
    """The command as this process was started, for the lines that tell a user what to type next."""
    if os.environ.get("UV_RUN_RECURSION_DEPTH"):  # set by `uv run`
        return "uv run har2client"
    if os.path.basename(sys.argv[0]).split(".")[0] == "har2client":  # the installed console script
        return "har2client"
    return f"{os.path.basename(sys.executable)} -m har2client"


def quickstart(base_dir: str = "runs/quickstart", seed: int = 1) -> int:
    """Build one Tier B task, grade its reference and replay clients, and report. Returns an exit status."""
    tasks_dir = os.path.join(base_dir, "tierB")
    configs = os.path.join(base_dir, "tierb_configs.jsonl")
    print(f"1. building one Tier B task (seed {seed}) into {tasks_dir}", flush=True)
    [task] = build_tierb(tasks_dir, seed, limit=1, configs_path=configs)
    scores = {}
    for step, kind in ((2, "reference"), (3, "replay")):
        client = os.path.join(base_dir, f"{'ref' if kind == 'reference' else 'replay'}.py")
        with open(client, "w", encoding="utf-8") as fh:
            fh.write(baseline_source(kind, task))
        print(f"{step}. grading the {kind} client {client} on a fresh server", flush=True)
        result = grade(task, client)
        unrun = [t.name for t in result.tests if t.error == NOT_RUN]
        for t in result.tests:
            if t.error != NOT_RUN:
                print(f"   {'PASS' if t.passed else 'FAIL'}  {t.name}" + ("" if t.passed else f": {t.error}"))
        if unrun:
            print(f"   NOT RUN  {len(unrun)} tests: {result.error}")
        for w in result.warnings:
            print(f"   warning: {w}")
        print(f"   pass_rate={result.pass_rate:.3f}", flush=True)
        scores[kind] = result.pass_rate
    print()
    print(f"task:       {task}")
    print(f"  visible:  {', '.join(visible_files(task))}   hidden: {os.path.join(task, 'hidden')}")
    arms = arms_of(task)
    print(f"  arms:     {', '.join(arms)} (one task, graded alike; see one: {how_to_run()} render {task} --arm hint)")
    print(f"configs:    {configs}")
    print(f"reference:  pass_rate={scores['reference']:.3f}  (expected 1.000)")
    print(f"replay:     pass_rate={scores['replay']:.3f}  (copying the recording; expected far below 1)")
    print(f"next:       {how_to_run()} grade {task} client.py")
    ok = scores["reference"] == 1.0 and scores["replay"] < 1.0
    if not ok:
        print("har2client: error: quickstart did not give the expected scores", file=sys.stderr)
    return 0 if ok else 1

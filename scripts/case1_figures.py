"""Case 1's figures: how much a hidden header matters, and how the baselines and mutants score.

    uv run python scripts/case1_figures.py [--seed 1] [--grading-seeds 11,22,33,44,55] [--json]

Builds Tier B and Tier A (the seed's tasks) into a temporary folder and grades, on every grading seed:
the reference client; for each hidden-header task, the reference without its hidden-header handling
(the share of tests it passes is the share that do not need the header); the replay baseline; and every
semantic mutant of tests/mutants.py where it applies. Prints a table per figure, or one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from har2client.agents import baseline_source  # noqa: E402
from har2client.api._reference import reference_source  # noqa: E402
from har2client.grading import grade  # noqa: E402
from har2client.tasks import load_task  # noqa: E402
from har2client.tiera import build_tiera  # noqa: E402
from har2client.tierb import build_tierb  # noqa: E402
from mutants import MUTANTS  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1, help="the task seed (default: %(default)s)")
    ap.add_argument("--grading-seeds", default="11,22,33,44,55", help="comma-separated (default: %(default)s)")
    ap.add_argument("--workers", type=int, default=2, help="grades at once (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args()
    seeds = [int(s) for s in args.grading_seeds.split(",")]
    work = tempfile.mkdtemp(prefix="h2c-case1-")
    tasks = build_tierb(os.path.join(work, "B"), args.seed) + build_tiera(os.path.join(work, "A"), args.seed)
    jobs = []  # (label, task, client path)
    for task in tasks:
        model = load_task(task).model
        tier = "tierB" if os.path.basename(task).startswith("tierb") else "tierA"
        ref = os.path.join(task, "hidden", "reference_client.py")
        jobs.append(("reference", tier, task, ref))
        replay = os.path.join(work, os.path.basename(task) + "_replay.py")
        with open(replay, "w", encoding="utf-8") as fh:
            fh.write(baseline_source("replay", task))
        jobs.append(("replay", tier, task, replay))
        g = json.load(open(os.path.join(task, "hidden", "grading.json"), encoding="utf-8"))
        if g.get("hidden_header"):
            path = os.path.join(work, os.path.basename(task) + "_no_header.py")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(reference_source(model, drop="required_headers"))
            jobs.append((f"no_header:{g['switches']['hidden_header']}", tier, task, path))
        for name, (applies, make) in MUTANTS.items():
            if applies(model):
                path = os.path.join(work, f"{os.path.basename(task)}_{name}.py")
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(make(model))
                jobs.append((f"mutant:{name}", tier, task, path))
    runs = [(j, s) for j in jobs for s in seeds]
    print(f"{len(tasks)} tasks, {len(runs)} grades ...", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        rates = list(pool.map(lambda run: grade(run[0][2], run[0][3], seed=run[1]).pass_rate, runs))
    by: dict[tuple[str, str], list[float]] = {}
    for (job, _), rate in zip(runs, rates, strict=True):
        by.setdefault((job[0], job[1]), []).append(rate)
    figures = {f"{label} {tier}": {"mean": round(statistics.mean(v), 3), "min": round(min(v), 3),
                                   "max": round(max(v), 3), "grades": len(v)}
               for (label, tier), v in sorted(by.items())}
    tests = [len(load_task(t).tests) for t in tasks]
    figures["tests per task"] = {"min": min(tests), "max": max(tests), "mean": round(statistics.mean(tests), 1)}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{'what':46s} {'mean':>6s} {'min':>6s} {'max':>6s} grades")
        for key, f in figures.items():
            if "grades" in f:
                print(f"{key:46s} {f['mean']:6.3f} {f['min']:6.3f} {f['max']:6.3f} {f['grades']}")
        t = figures["tests per task"]
        print(f"hidden tests per task: {t['min']} to {t['max']} (mean {t['mean']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

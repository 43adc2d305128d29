"""Fill the Space's data folder with what needs no model: the tasks, and the heuristic baseline's runs
and their analysis, so the leaderboard has a row before any model is run.

    uv run python scripts/space_data.py [--out space_app/data] [--seed 1]

Writes OUT/tasks (Tier B, Tier A and Case 3 task directories), OUT/runs/heuristic-* (run folders, as
`har2client run --baseline heuristic` writes them) and OUT/results/heuristic (`har2client analyze`).
A model's results go beside it: `har2client analyze RUNS --out OUT/results/MODEL`.
"""

from __future__ import annotations

import argparse
import os
import sys

from har2client.agents import RunSettings, run
from har2client.analysis import analyze
from har2client.repair import build_repair
from har2client.tiera import build_tiera
from har2client.tierb import build_tierb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "space_app", "data"))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    tasks = os.path.join(args.out, "tasks")
    folders = {"B": os.path.join(tasks, "tierB"), "A": os.path.join(tasks, "tierA"), "R": os.path.join(tasks, "repair")}
    build_tierb(folders["B"], args.seed)
    build_tiera(folders["A"], args.seed)
    build_repair(folders["R"], args.seed)
    runs = []
    plan = (("B-as_built", "B", "B", "build", "as_built"), ("B-hint", "B", "B", "build", "hint"),
            ("B-placebo", "B", "B", "build", "placebo"), ("A", "A", "A", "build", None),
            ("R", "R", "B", "repair", None))
    for name, folder, tier, case, arm in plan:
        out = os.path.join(args.out, "runs", f"heuristic-{name}")
        rows = run(RunSettings(model="heuristic", base_url="", baseline="heuristic", tasks=folders[folder],
                               tier=tier, case=case, arm=arm, out=out, concurrency=2), resume=True)
        print(f"heuristic {name}: {len(rows)} tasks, mean {sum(r['pass_rate'] for r in rows) / len(rows):.3f}")
        runs.append(out)
    analyze(runs, os.path.join(args.out, "results", "heuristic"), prereg=os.path.join(ROOT, "PREREG.md"))
    print(f"wrote {os.path.join(args.out, 'results', 'heuristic')}; serve with: uv run har2client space "
          f"--results {os.path.join(args.out, 'results')} --tasks {folders['B']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

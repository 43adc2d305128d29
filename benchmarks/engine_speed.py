"""Building and grading with this checkout's API engine against another revision's, in the same run.

    uv run python benchmarks/engine_speed.py --against REV [--rounds N] [--json]

REV (a commit, tag or branch of this repository) is checked out into a temporary
git worktree; each round times, in a fresh interpreter for each side and in turn
(so a busy machine slows both alike): building the 50 Tier B tasks, building the
27 Tier A tasks, and grading every built task's reference client once (seed 1,
the shared sandbox warm). The figures are medians over the rounds and ratios
this/REV; below 1 is faster. Target for a refactor: every ratio at most 1.05.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = r"""
import json, os, statistics, sys, tempfile, time
from har2client.tierb import build_tierb
from har2client.tiera._build import build_tiera
from har2client.grading import grade
from har2client.grading._sandbox import shared_sandbox

out = tempfile.mkdtemp(prefix="h2c-engine-speed-")
t = time.perf_counter(); b = build_tierb(os.path.join(out, "b"), 1); tierb = time.perf_counter() - t
t = time.perf_counter(); a = build_tiera(os.path.join(out, "a"), 1); tiera = time.perf_counter() - t
shared_sandbox("auto").ensure()
times, rates = [], []
for task in b + a:
    t = time.perf_counter()
    r = grade(task, os.path.join(task, "hidden", "reference_client.py"), seed=1)
    times.append(time.perf_counter() - t)
    rates.append(r.pass_rate)
print(json.dumps({"build_tierb": tierb, "build_tiera": tiera, "grade_median": statistics.median(times),
                  "grade_total": sum(times), "mean_pass_rate": sum(rates) / len(rates)}))
"""


def run_side(src: str) -> dict:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, cwd=src, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"engine_speed: the probe failed in {src}:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", required=True, help="the revision to compare with (a commit, tag or branch)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per side (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="h2c-baseline-") as tmp:
        base = os.path.join(tmp, "tree")
        made = subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", base, args.against],
                              capture_output=True, text=True)
        if made.returncode != 0:
            raise SystemExit(f"engine_speed: cannot check out {args.against}: {made.stderr.strip()}")
        try:
            sides: dict[str, list[dict]] = {"this": [], "baseline": []}
            for i in range(args.rounds):
                for name, src in (("this", ROOT), ("baseline", base)):
                    sides[name].append(run_side(src))
                    print(f"round {i + 1}/{args.rounds}: {name} done", file=sys.stderr)
        finally:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base], capture_output=True)
    keys = ("build_tierb", "build_tiera", "grade_median", "grade_total")
    med = {name: {k: statistics.median(r[k] for r in runs) for k in keys} for name, runs in sides.items()}
    figures = {"against": args.against, "rounds": args.rounds,
               "this": med["this"], "baseline": med["baseline"],
               "ratio": {k: round(med["this"][k] / med["baseline"][k], 3) for k in keys},
               "pass_rate": {name: runs[0]["mean_pass_rate"] for name, runs in sides.items()}}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for k in keys:
            print(f"{k:13s} this {med['this'][k]:8.3f} s   {args.against[:12]} {med['baseline'][k]:8.3f} s   "
                  f"ratio {figures['ratio'][k]:.3f}")
        print(f"mean reference pass rate: this {figures['pass_rate']['this']:.3f}, "
              f"baseline {figures['pass_rate']['baseline']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

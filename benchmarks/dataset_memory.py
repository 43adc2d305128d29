"""Peak memory of ``har2client dataset build`` as the train split grows, against a small build.

    uv run python benchmarks/dataset_memory.py [--small 100] [--large 5000] [--json]

Each build runs as its own process (so nothing is shared between them) and its peak resident set
size is read from the kernel when it exits. Rows stream to Parquet a batch at a time, so the large
build should need little more than the small one. Target: large / small at most 1.5.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def peak_mb(train: int, work: str) -> tuple[float, float]:
    """(peak RSS in MB, seconds) of one dataset build with ``train`` tasks per config."""
    out = os.path.join(work, f"ds-{train}")
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "har2client", "dataset", "build", "--out", out,
                             "--secret-seed", "11", "--train", str(train)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"dataset build --train {train} failed: {proc.stderr.read().decode()[-500:]}")
    return usage.ru_maxrss / 1024, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", type=int, default=100)
    ap.add_argument("--large", type=int, default=5000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="h2c-bench-") as work:
        small, small_s = peak_mb(args.small, work)
        large, large_s = peak_mb(args.large, work)
    figures = {"small_train": args.small, "large_train": args.large, "small_peak_mb": round(small, 1),
               "large_peak_mb": round(large, 1), "large_over_small": round(large / small, 3),
               "small_seconds": round(small_s, 1), "large_seconds": round(large_s, 1)}
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"dataset build --train {args.small}: peak {small:.1f} MB in {small_s:.1f} s")
        print(f"dataset build --train {args.large}: peak {large:.1f} MB in {large_s:.1f} s")
        print(f"  ratio: {large / small:.3f}  (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

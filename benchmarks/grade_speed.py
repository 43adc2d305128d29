"""How fast grading is, against baselines measured in the same run.

    uv run python benchmarks/grade_speed.py [--repeats N] [--json]

1. Floor: the median wall time of ``python -c "import httpx"``, what any grader
   that starts a fresh interpreter per client pays before it grades anything.
2. A grade: the median wall time to grade the reference client of a Tier B task
   with the isolation this machine gives (full where bubblewrap works), over all
   50 tasks, sandbox warm. Target: at most 0.25 of the floor.
3. Throughput: grading all 50 reference clients with ``grade_all`` on a warm pool
   of 2 workers, against a warm pool of 1. Target: at most 0.60.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from har2client.grading import grade
from har2client.grading._batch import GradingPool, grade_all, plan_jobs
from har2client.grading._sandbox import shared_sandbox
from har2client.tierb import build_tierb


def interpreter_floor(repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import httpx"], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=15, help="interpreter starts to time (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="h2c-bench-") as work:
        figures = measure(work, args.repeats)
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"isolation: {figures['isolation']}, cores: {figures['cores']}")
        print(f"python -c 'import httpx' (median of {args.repeats}): {figures['interpreter_start_s'] * 1000:.1f} ms")
        print(f"grade a reference client (median over 50 Tier B tasks): {figures['grade_median_s'] * 1000:.1f} ms "
              f"(min {figures['grade_min_s'] * 1000:.1f}, max {figures['grade_max_s'] * 1000:.1f})")
        print(f"  ratio grade / interpreter start: {figures['grade_over_interpreter']:.3f}  (target <= 0.25)")
        print(f"grade a client that sends no requests (the grader's own cost): "
              f"{figures['grader_overhead_s'] * 1000:.1f} ms, ratio {figures['overhead_over_interpreter']:.3f}")
        print(f"grade-all 50 tasks, 1 worker: {figures['batch_1_worker_s']:.2f} s; "
              f"2 workers: {figures['batch_2_workers_s']:.2f} s")
        print(f"  ratio 2 workers / 1 worker: {figures['batch_2_over_1']:.3f}  (target <= 0.60)")
    return 0


NO_REQUESTS = """
class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *a, **k: []
"""


def measure(work: str, repeats: int) -> dict:
    tasks = build_tierb(os.path.join(work, "tierB"), 1)
    # Pools fork, so they start before this process runs any server thread. Both are warm before timing:
    # a trainer keeps its pool for the whole run, so start-up is not part of throughput.
    pools = {n: GradingPool(n) for n in (1, 2)}
    box = shared_sandbox()
    grade(tasks[0], os.path.join(tasks[0], "hidden", "reference_client.py"))  # warm: sandbox and caches

    floor = interpreter_floor(repeats)
    per_task = []
    for t in tasks:
        start = time.perf_counter()
        r = grade(t, os.path.join(t, "hidden", "reference_client.py"))
        per_task.append(time.perf_counter() - start)
        assert r.pass_rate == 1.0, (r.task_id, [x.error for x in r.tests if not x.passed])
    grade_median = statistics.median(per_task)

    jobs = plan_jobs(os.path.join(work, "tierB"), baseline="reference", scratch=os.path.join(work, "clients"))
    batch = {}
    for workers in (1, 2):
        grade_all(jobs, os.path.join(work, f"warm-{workers}.jsonl"), pool=pools[workers])  # first use of each spec
        out = os.path.join(work, f"results-{workers}.jsonl")
        start = time.perf_counter()
        rows = grade_all(jobs, out, pool=pools[workers])
        batch[workers] = time.perf_counter() - start
        assert len(rows) == 50 and all(r["pass_rate"] == 1.0 for r in rows)
        pools[workers].close()

    idle = os.path.join(work, "idle_client.py")
    with open(idle, "w", encoding="utf-8") as fh:
        fh.write(NO_REQUESTS)
    overhead = statistics.median(_timed(lambda: grade(tasks[0], idle)) for _ in range(30))
    return {
        "isolation": box.isolation,
        "cores": os.cpu_count(),
        "interpreter_start_s": round(floor, 4),
        "grade_median_s": round(grade_median, 4),
        "grade_min_s": round(min(per_task), 4),
        "grade_max_s": round(max(per_task), 4),
        "grade_over_interpreter": round(grade_median / floor, 3),
        "grader_overhead_s": round(overhead, 4),
        "overhead_over_interpreter": round(overhead / floor, 3),
        "batch_1_worker_s": round(batch[1], 3),
        "batch_2_workers_s": round(batch[2], 3),
        "batch_2_over_1": round(batch[2] / batch[1], 3),
    }


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())

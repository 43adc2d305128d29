"""How fast grading is, against baselines measured in the same run.

    uv run python benchmarks/grade_speed.py [--repeats N] [--json]

1. Floor: the median wall time of ``python -c "import httpx"``, what any grader
   that starts a fresh interpreter per client pays before it grades anything.
2. A grade: the median wall time to grade the reference client of a Tier B task
   with the isolation this machine gives (full where bubblewrap works), over all
   50 tasks, sandbox warm. Target: at most 0.25 of the floor.
3. Throughput: grading all 50 reference clients with ``grade_all`` on a warm pool
   of 2 workers, against a warm pool of 1. Target: at most 0.60.
4. One-shot command: ``har2client grade TASK client.py`` as a whole process,
   against the floor. Target: at most 3.
5. Isolation overhead: for 5 Tier B tasks, a grade in a warm sandbox against the
   same hidden tests run with the client called in this process, on a server of
   the same grading seed. Target: median at most 1.5.
6. ``grade-all`` as a whole command on the 50 tasks, 2 workers against 1
   (sandbox start-up included). Target: at most 0.60.
7. Hostile clients with the tasks' own limits (10 s a call): one that always
   hangs (target 25 s), a fork bomb (15 s), a memory bomb (10 s).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

from har2client.agents import baseline_source
from har2client.api import listen_socket
from har2client.grading import grade
from har2client.grading._batch import GradingPool, grade_all, plan_jobs
from har2client.grading._judge import _run_one, _start_world
from har2client.grading._sandbox import Limits, shared_sandbox
from har2client.tasks import load_task
from har2client.tierb import build_tierb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ATTACKS = os.path.join(ROOT, "tests", "attacks")


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

    # Measure what a user's machine does: Python caches bytecode (some machines, this one included, set
    # PYTHONDONTWRITEBYTECODE, and then every process would compile every module it imports from source).
    # The sandbox mounts site-packages read-only, so its zygote depends on bytecode being there already.
    for d in (os.path.join(ROOT, "har2client"), sysconfig.get_paths()["purelib"]):
        compileall.compile_dir(d, quiet=1)
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
        print(f"one-shot 'har2client grade' (median of 5): {figures['one_shot_cli_s'] * 1000:.0f} ms, "
              f"ratio {figures['one_shot_over_interpreter']:.2f}  (target <= 3)")
        print(f"isolation overhead, sandboxed / in-process, 5 tasks: {figures['isolation_ratios']} "
              f"median {figures['isolation_median']:.2f}  (target <= 1.5)")
        print(f"grade-all as a command, 1 worker: {figures['command_1_worker_s']:.2f} s; "
              f"2 workers: {figures['command_2_workers_s']:.2f} s; ratio {figures['command_2_over_1']:.3f}  "
              f"(target <= 0.60)")
        print(f"hostile clients: always hangs {figures['hang_s']:.1f} s (target 25), fork bomb "
              f"{figures['fork_bomb_s']:.1f} s (target 15), memory bomb {figures['memory_bomb_s']:.1f} s (target 10)")
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

    jobs = plan_jobs(os.path.join(work, "tierB"), baseline="reference", scratch=os.path.join(work, "clients"),
                     baseline_source=baseline_source)
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
    one_shot = one_shot_command(tasks[0], 5)
    worker_environment()
    ratios = [isolation_ratio(t, box) for t in tasks[:5]]
    commands = {n: _timed(lambda n=n: _command(["grade-all", os.path.join(work, "tierB"), "--baseline", "reference",
                                                 "--workers", str(n), "--out", os.path.join(work, f"cmd-{n}.jsonl")]))
                for n in (1, 2)}
    hostile = {name: _timed(lambda name=name: grade(tasks[0], os.path.join(ATTACKS, name)))
               for name in ("infinite_loop.py", "fork_bomb.py", "memory_bomb.py")}
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
        "one_shot_cli_s": round(one_shot, 4),
        "one_shot_over_interpreter": round(one_shot / floor, 2),
        "isolation_ratios": [round(r, 2) for r in ratios],
        "isolation_median": round(statistics.median(ratios), 2),
        "command_1_worker_s": round(commands[1], 3),
        "command_2_workers_s": round(commands[2], 3),
        "command_2_over_1": round(commands[2] / commands[1], 3),
        "hang_s": round(hostile["infinite_loop.py"], 2),
        "fork_bomb_s": round(hostile["fork_bomb.py"], 2),
        "memory_bomb_s": round(hostile["memory_bomb.py"], 2),
    }


def _command(args: list[str]) -> None:
    subprocess.run([sys.executable, "-m", "har2client", *args], check=True, capture_output=True)


def one_shot_command(task: str, repeats: int) -> float:
    """The whole ``har2client grade`` process: interpreter, imports, sandbox start, grade, clean-up."""
    ref = os.path.join(task, "hidden", "reference_client.py")
    return statistics.median(_timed(lambda: _command(["grade", task, ref])) for _ in range(repeats))


class InProcessClient:
    """The worker's side of the judge's calls, answered in this process: grading with no isolation at all."""

    def __init__(self, source: str) -> None:
        self.namespace: dict = {"__name__": "client"}
        exec(compile(source, "client.py", "exec"), self.namespace)

    def request(self, msg: dict, timeout: float) -> dict:
        try:
            if msg["op"] == "new":
                self.client = self.namespace[msg["class"]](**msg["kwargs"])
                return {"ok": True, "value": None}
            return {"ok": True, "value": getattr(self.client, msg["method"])(*msg["args"], **msg["kwargs"])}
        except Exception as exc:  # noqa: BLE001 - a client's error is its answer, as in the real worker
            return {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc),
                                           "mro": [c.__name__ for c in type(exc).__mro__]}}


class Loopback:
    def listen(self, host: str):
        return listen_socket(host)


def worker_environment() -> None:
    """This process's TLS settings as a worker's: certificates from a directory, read only when needed.

    (A bundle file in SSL_CERT_FILE costs every new httpx.Client ~15 ms, which the worker never pays.)
    """
    for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        os.environ.pop(name, None)
    os.environ["SSL_CERT_DIR"] = "/etc/ssl/certs"


def in_process_grade(task, source: str, seed: int) -> float:
    """The same hidden tests, the same server and seed, the client called directly."""
    start = time.perf_counter()
    world, server, kwargs, instance = _start_world(task, seed, Loopback())
    client = InProcessClient(source)
    limits = Limits()
    try:
        for test in task.tests:
            result, _ = _run_one(test, client, world, instance, kwargs, "Client", limits, start, seed)
            assert result.passed, (task.task_id, result)
    finally:
        server.close()
    return time.perf_counter() - start


def isolation_ratio(path: str, box, repeats: int = 15) -> float:
    """Median sandboxed grade over median in-process run, both on grading seed 7 (same data, same host)."""
    task = load_task(path)
    ref = os.path.join(path, "hidden", "reference_client.py")
    with open(ref, encoding="utf-8") as fh:
        source = fh.read()
    in_process = statistics.median(in_process_grade(task, source, 7) for _ in range(repeats))
    sandboxed = statistics.median(_timed(lambda: grade(task, ref, seed=7, sandbox=box)) for _ in range(repeats))
    return sandboxed / in_process


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())

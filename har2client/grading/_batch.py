"""Grading many clients: ``har2client grade-all``.

Results go to a JSONL file, one line per (task, model) as each grade finishes.
Each line is written with a single ``write`` on an append-only descriptor and
synced, and ``resume`` first cuts any torn last line, so a crash or a kill
loses at most the grades that were running and never leaves a broken line.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.util import Finalize
from typing import Any

from .._errors import Har2ClientError
from .._jsonl import json_lines
from ..tasks import Task, load_task
from ._result import NOT_RUN
from ._sandbox import scratch_prefix


@dataclass(frozen=True)
class Job:
    task_path: str
    task_id: str
    model: str
    client_path: str


def _task_dirs(tasks_dir: str) -> list[str]:
    if not os.path.isdir(tasks_dir):
        raise Har2ClientError(f"{tasks_dir}: no such directory of tasks")
    dirs = sorted(os.path.join(tasks_dir, d) for d in os.listdir(tasks_dir)
                  if os.path.isfile(os.path.join(tasks_dir, d, "task.json")))
    if not dirs:
        raise Har2ClientError(f"{tasks_dir}: holds no task directories (no */task.json)")
    return dirs


def plan_jobs(tasks_dir: str, *, clients: str | None = None, predictions: str | None = None,
              baseline: str | None = None, scratch: str | None = None,
              baseline_source: Callable[[str, Task], str] | None = None) -> list[Job]:
    """The grades to run: every task, once per model. A task with no client is graded as missing.

    ``baseline`` names a client written for each task by ``baseline_source(baseline, task)``
    (the caller's: grading knows no baseline).
    """
    if sum(x is not None for x in (clients, predictions, baseline)) != 1:
        raise Har2ClientError("give exactly one of --clients, --predictions, --baseline")
    tasks = [load_task(d) for d in _task_dirs(tasks_dir)]
    scratch = scratch or tempfile.mkdtemp(prefix=scratch_prefix("batch"))
    os.makedirs(scratch, exist_ok=True)
    jobs: list[Job] = []
    if clients is not None:
        if not os.path.isdir(clients):
            raise Har2ClientError(f"{clients}: no such directory of clients")
        for t in tasks:
            flat, nested = os.path.join(clients, f"{t.task_id}.py"), os.path.join(clients, t.task_id, "client.py")
            path = nested if os.path.isfile(nested) else flat
            jobs.append(Job(t.path, t.task_id, os.path.basename(os.path.normpath(clients)), path))
    elif baseline is not None:
        if baseline_source is None:
            raise Har2ClientError(f"a {baseline} baseline needs the function that writes it (baseline_source)")
        for t in tasks:
            path = os.path.join(scratch, f"{t.task_id}.{baseline}.py")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(baseline_source(baseline, t))
            jobs.append(Job(t.path, t.task_id, baseline, path))
    else:
        assert predictions is not None
        by_model = _read_predictions(predictions)
        for model, codes in sorted(by_model.items()):
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)
            for t in tasks:
                path = os.path.join(scratch, safe, f"{t.task_id}.py")
                if t.task_id in codes:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "w", encoding="utf-8") as fh:
                        fh.write(codes[t.task_id])
                jobs.append(Job(t.path, t.task_id, model, path))
    return jobs


def _read_predictions(path: str) -> dict[str, dict[str, str]]:
    by_model: dict[str, dict[str, str]] = defaultdict(dict)
    try:
        fh = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise Har2ClientError(f"{path}: no such predictions file") from None
    with fh:
        for n, row in json_lines(fh, path):
            if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("task_id", "model", "code")):
                raise Har2ClientError(f"{path}: line {n} needs string fields task_id, model and code")
            by_model[row["model"]][row["task_id"]] = row["code"]
    if not by_model:
        raise Har2ClientError(f"{path}: no predictions in it")
    return by_model


# -- the results file ------------------------------------------------------------------

def read_results(path: str, repair: bool = False) -> list[dict[str, Any]]:
    """The complete lines of a results file; with ``repair``, cut a torn last line off the file."""
    if not os.path.exists(path):
        return []
    with open(path, "rb") as fh:
        data = fh.read()
    end = data.rfind(b"\n") + 1
    if repair and end != len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    rows = []
    for line in data[:end].splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue  # a line from a foreign writer; resume simply grades that task again
    return rows


def append_line(fd: int, row: dict[str, Any]) -> None:
    """Append ``row`` as one JSON line to the open results file ``fd``, and sync it to disk."""
    os.write(fd, (json.dumps(row, sort_keys=True) + "\n").encode())
    os.fsync(fd)


# -- running -------------------------------------------------------------------------

def _grade_job(job: Job, isolation: str) -> dict[str, Any]:
    from ._judge import grade

    task = load_task(job.task_path)
    result = grade(task, job.client_path, isolation=isolation).to_dict()
    g = task.grading
    # Tier B names its switch settings; Tier A the conventions its API uses: both summarise per name.
    switches = g.get("switches") or {name: "on" for name in g.get("conventions", [])}
    result.update(model=job.model, level=g.get("level"), switches=switches)
    return result


def _start_worker(isolation: str, counter: Any, pin: bool, barrier: Any) -> None:
    """Set up one pool process: its own core when there are enough, and a running sandbox."""
    import signal

    from ._sandbox import _libc, shared_sandbox

    # A pool process ends with the process that made it, even one killed outright (a server stopped with
    # SIGKILL): it would otherwise live on, holding its sandbox and its parent's output pipes.
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != _parent:
        os._exit(1)  # the parent died before the line above took effect

    with counter.get_lock():
        index = counter.value
        counter.value += 1
    if pin:
        # A grade is one sequential pipeline (judge, client, server thread handing off to each other):
        # kept on one core, with its sandbox, it stays cache-hot and never migrates.
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[index % len(cores)]})
    global _barrier
    _barrier = barrier
    box = shared_sandbox(isolation)
    # Pool processes leave through os._exit, which skips atexit; multiprocessing's finalizers still run.
    Finalize(None, box.close, exitpriority=10)


_barrier: Any = None  # the pool's start barrier, inherited by each worker (it cannot be pickled into a call)


def _ready() -> int:
    _barrier.wait(timeout=60)  # held until every worker holds one: each call lands on its own process
    return os.getpid()


PR_SET_PDEATHSIG = 1
_parent = os.getpid()  # refreshed by each pool before it forks


class GradingPool:
    """Worker processes that each keep a warm sandbox: start once, grade many clients.

    Processes are forked (create the pool before this process starts threads), and
    each one's sandbox is running before ``__init__`` returns.
    """

    def __init__(self, workers: int, isolation: str = "auto") -> None:
        self.workers = workers
        self.isolation = isolation
        global _parent
        _parent = os.getpid()
        ctx = get_context("fork")
        pin = workers <= len(os.sched_getaffinity(0))
        barrier = ctx.Barrier(workers)
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_start_worker,
                                         initargs=(isolation, ctx.Value("i", 0), pin, barrier))
        pids = {f.result() for f in [self._pool.submit(_ready) for _ in range(workers)]}
        if len(pids) != workers:
            raise Har2ClientError(f"the grading pool started {len(pids)} of {workers} workers")

    def run(self, jobs: list[Job]) -> Iterable[dict[str, Any]]:
        """Grade ``jobs``, yielding each result as it finishes, at most two queued per worker."""
        pending: set[Future[dict[str, Any]]] = set()
        queue = list(reversed(jobs))
        while queue or pending:
            while queue and len(pending) < self.workers * 2:
                pending.add(self._pool.submit(_grade_job, queue.pop(), self.isolation))
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                yield f.result()

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        """Run ``fn(*args)`` (a module-level function) on a worker, with its warm sandbox; thread-safe."""
        return self._pool.submit(fn, *args)

    def close(self) -> None:
        """Stop the pool's worker processes once the grades in flight are done."""
        self._pool.shutdown(wait=True)

    def __enter__(self) -> GradingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Progress = Callable[[int, int, dict[str, Any]], None]


def grade_all(jobs: list[Job], out: str, *, workers: int = 1, resume: bool = False, isolation: str = "auto",
              progress: Progress | None = None, pool: GradingPool | None = None) -> list[dict[str, Any]]:
    """Grade ``jobs`` into ``out`` (JSONL) and return every result in it, old and new.

    With ``pool`` the grades run there; otherwise ``workers`` 1 grades in this
    process and more start a pool for this call.
    """
    if os.path.exists(out) and not resume:
        raise Har2ClientError(f"{out}: exists; pass --resume to continue it, or choose another file")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    done = read_results(out, repair=True)
    seen = {(r.get("task_id"), r.get("model")) for r in done}
    todo = [j for j in jobs if (j.task_id, j.model) not in seen]
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    results = list(done)
    own = False
    try:
        if pool is None and workers <= 1:
            rows: Iterable[dict[str, Any]] = (_grade_job(job, isolation) for job in todo)
        else:
            own = pool is None
            pool = pool or GradingPool(workers, isolation)
            rows = pool.run(todo)
        try:
            for row in rows:
                append_line(fd, row)
                results.append(row)
                if progress:
                    progress(len(results), len(jobs), row)
        finally:
            if own and pool is not None:
                pool.close()
    finally:
        os.close(fd)
    return results


# -- summary -------------------------------------------------------------------------

REASONS = (
    ("missing_client", ("no such client file",)),
    ("load_error", ("could not be loaded",)),
    ("timeout", ("timed out", "time limit")),
    ("malformed_reply", ("malformed reply",)),
    ("crash", ("the client process",)),
    ("sandbox", ("sandbox",)),
    ("not_plain_data", ("not plain data",)),
    ("client_raised", (" raised ",)),
)


def failure_reason(error: str | None) -> str:
    text = error or ""
    for reason, needles in REASONS:
        if any(n in text for n in needles):
            return reason
    return "wrong_answer"


def summarize(results: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Per model: mean pass rate, full passes, tasks, isolation and scoring versions of ``results``."""
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        by_model[r.get("model", "")].append(r)
    out = {}
    for model, rows in sorted(by_model.items()):
        switch_rates: dict[str, list[float]] = defaultdict(list)
        variant_rates: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        reasons: dict[str, int] = defaultdict(int)
        for r in rows:
            for name, variant in (r.get("switches") or {}).items():
                if variant != "off":
                    switch_rates[name].append(r["pass_rate"])
                    if variant != "on":  # Tier B names the variant; Tier A only that the convention is used
                        variant_rates[name][variant].append(r["pass_rate"])
            for t in r.get("tests", []):
                if not t["passed"]:  # a test that never ran failed for the grade's reason
                    reasons[failure_reason(r.get("error") if t.get("error") == NOT_RUN else t.get("error"))] += 1
        out[model] = {
            "tasks": len(rows),
            "mean_pass_rate": round(sum(r["pass_rate"] for r in rows) / len(rows), 4) if rows else 0.0,
            "full_passes": sum(r["pass_rate"] == 1.0 for r in rows),
            "per_switch": {k: {"tasks": len(v), "mean_pass_rate": round(sum(v) / len(v), 4),
                               **({"variants": {name: {"tasks": len(x), "mean_pass_rate": round(sum(x) / len(x), 4)}
                                                for name, x in sorted(variant_rates[k].items())}}
                                  if variant_rates.get(k) else {})}
                           for k, v in sorted(switch_rates.items())},
            "failed_tests_by_reason": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
            "isolation": sorted({r.get("isolation", "") for r in rows}),
            # scores are comparable only under one scoring version; a mixed file says so here
            "scoring_versions": sorted({str(r.get("scoring_version", "before 0.2.0")) for r in rows}),
        }
    return out


def render_summary(summary: dict[str, Any]) -> str:
    """The summary of a batch as lines a person reads."""
    lines = []
    for model, s in summary.items():
        lines.append(f"{model}: mean pass rate {s['mean_pass_rate']:.3f} over {s['tasks']} tasks "
                     f"({s['full_passes']} fully passed; isolation {', '.join(s['isolation'])}; "
                     f"scoring version {', '.join(s['scoring_versions'])})")
        for name, v in s["per_switch"].items():
            lines.append(f"  {name:<14} {v['mean_pass_rate']:.3f}  ({v['tasks']} tasks with it on)")
            if v.get("variants"):
                lines.append("      " + ", ".join(f"{k} {x['mean_pass_rate']:.3f} ({x['tasks']})"
                                                  for k, x in v["variants"].items()))
        if s["failed_tests_by_reason"]:
            lines.append("  failed tests by reason: " + ", ".join(f"{k} {v}" for k,
                                                                  v in s["failed_tests_by_reason"].items()))
    return "\n".join(lines)


def progress_printer(stream: Any = None) -> Progress:
    """A progress bar on a terminal, one line per grade elsewhere."""
    stream = stream or sys.stderr
    started = time.monotonic()
    tty = stream.isatty()
    rates: list[float] = []

    def show(done: int, total: int, row: dict[str, Any]) -> None:
        rates.append(row["pass_rate"])
        width = 24
        filled = int(width * done / max(total, 1))
        bar = "#" * filled + "." * (width - filled)
        line = (f"[{bar}] {done}/{total} {row['task_id']} {row.get('model', '')} {row['pass_rate']:.3f} "
                f"| mean {sum(rates) / len(rates):.3f} | {time.monotonic() - started:.1f} s")
        stream.write(("\r" + line + ("\n" if done == total else "")) if tty else line + "\n")
        stream.flush()

    return show

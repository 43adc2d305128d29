"""The Space's grading worker: its own process, a bounded pool of sandboxed graders, the queue in SQLite.

    python -m har2client.space._worker --db space.sqlite --tasks TASKS [--workers N]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from concurrent.futures import FIRST_COMPLETED, wait
from typing import Any

from ..grading import GradingPool, grade_code
from ._hubsink import HubSink
from ._submissions import connect


def _grade(task_path: str, code: str, seed: int, isolation: str) -> dict[str, Any]:
    if not code.strip():
        return {"pass_rate": 0.0, "error": "no client for this task (a missing submission scores 0)", "tests": []}
    return grade_code(task_path, code, seed, isolation)


def next_submission(conn: Any) -> int | None:
    """A running submission first (one a restart interrupted), then the oldest pending one."""
    row = conn.execute("SELECT id FROM submissions WHERE status IN ('running', 'pending') "
                       "ORDER BY status = 'running' DESC, id LIMIT 1").fetchone()
    return None if row is None else int(row[0])


def work_one(conn: Any, pool: GradingPool, tasks: str, sid: int) -> None:
    conn.execute("UPDATE submissions SET status = 'running', started = COALESCE(started, ?) WHERE id = ?",
                 (time.time(), sid))
    todo = conn.execute("SELECT p.task_id, p.code FROM predictions p LEFT JOIN results r "
                        "ON r.submission_id = p.submission_id AND r.task_id = p.task_id "
                        "WHERE p.submission_id = ? AND r.task_id IS NULL ORDER BY p.task_id", (sid,)).fetchall()
    pending = {pool.submit(_grade, os.path.join(tasks, t), code, secrets.randbits(62), pool.isolation): t
               for t, code in todo}
    while pending:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for f in done:
            task_id = pending.pop(f)
            grade = f.result()
            # the key (submission, task) makes a second grade of one task impossible, even across restarts
            conn.execute("INSERT OR IGNORE INTO results (submission_id, task_id, pass_rate, grade) VALUES (?, ?, ?, ?)",
                         (sid, task_id, float(grade["pass_rate"]), json.dumps(grade)))
    mean = conn.execute("SELECT AVG(pass_rate) FROM results WHERE submission_id = ?", (sid,)).fetchone()[0]
    conn.execute("UPDATE submissions SET status = 'finished', finished = ?, mean_pass_rate = ? WHERE id = ?",
                 (time.time(), mean, sid))


def sync_hub(conn: Any, sink: Any) -> None:
    """Push every submission whose status the Hub has not seen yet; a failed push is tried next pass."""
    rows = conn.execute("SELECT * FROM submissions WHERE hub_synced IS NOT status OR hub_synced IS NULL").fetchall()
    for row in rows:
        sub = dict(row)
        results = None
        if sub["status"] == "finished":
            results = [dict(r) for r in conn.execute("SELECT task_id, pass_rate FROM results WHERE submission_id = ? "
                                                     "ORDER BY task_id", (sub["id"],))]
        try:
            sink.push(sub, results)
        except Exception as exc:  # noqa: BLE001 - the Hub may be down; the database keeps the truth
            print(f"har2client space worker: Hub push of submission {sub['id']} failed ({exc}); will retry",
                  file=sys.stderr)
            return
        conn.execute("UPDATE submissions SET hub_synced = ? WHERE id = ?", (sub["status"], sub["id"]))


def _yield_cpu_to_the_page() -> None:
    # Grading is batch work and the page is interactive: on a small Space (2 cores) twenty queued
    # submissions slowed a page load by half. SCHED_IDLE runs the graders only on CPU time no one else
    # wants (nice 10 still took a tenth); the pool forks after this, so its processes inherit it.
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux, or refused: a lower priority is the next best
        try:
            os.nice(10)
        except OSError:
            pass


def work(db: str, tasks: str, workers: int = 1, isolation: str = "auto", once: bool = False, poll: float = 0.3) -> None:
    _yield_cpu_to_the_page()
    pool = GradingPool(workers, isolation)  # forks before this process starts any thread
    conn = connect(db)
    sink = HubSink.from_env()
    try:
        while True:
            if sink is not None:
                sync_hub(conn, sink)
            sid = next_submission(conn)
            if sid is None:
                if once:
                    if sink is not None:
                        sync_hub(conn, sink)
                    return
                time.sleep(poll)
                continue
            try:
                work_one(conn, pool, tasks, sid)
            except Exception as exc:  # noqa: BLE001 - the submission fails with its reason; the worker goes on
                conn.execute("UPDATE submissions SET status = 'failed', error = ?, finished = ? WHERE id = ?",
                             (f"{type(exc).__name__}: {exc}"[:500], time.time(), sid))
    finally:
        conn.close()
        pool.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Grade the Space's queued submissions.")
    ap.add_argument("--db", required=True)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--isolation", default="auto")
    ap.add_argument("--once", action="store_true", help="grade what is queued, then stop")
    args = ap.parse_args(argv)
    work(args.db, args.tasks, args.workers, args.isolation, args.once)
    return 0


if __name__ == "__main__":
    sys.exit(main())

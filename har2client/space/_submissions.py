"""Submissions: a queue in SQLite (WAL), graded by a worker process outside the web process.

    submissions(id, user, model, filename, created, status, error, started, finished, tasks, mean_pass_rate)
    predictions(submission_id, task_id, code)          what was uploaded, one row per task
    results(submission_id, task_id, pass_rate, grade)  one row per graded task; the key makes a second grade
                                                       of the same task impossible

Status runs pending -> running -> finished (or failed, with the reason). The worker grades on a
bounded ``GradingPool``; killed mid-grade, it starts again from the database: a running submission
is resumed and only its ungraded tasks are graded. The web process only reads and inserts.
"""

from __future__ import annotations

import io
import os
import sqlite3
import time
import zipfile
from typing import Any

from .._errors import Har2ClientError
from .._jsonl import json_lines

MAX_UPLOAD_BYTES = 5 * 1024 * 1024
MAX_PER_USER_PER_DAY = int(os.environ.get("H2C_MAX_PER_DAY", "10"))
STATUSES = ("pending", "running", "finished", "failed")

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user TEXT NOT NULL, model TEXT NOT NULL, filename TEXT NOT NULL,
    created REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'finished', 'failed')),
    error TEXT, started REAL, finished REAL, tasks INTEGER NOT NULL, mean_pass_rate REAL);
CREATE TABLE IF NOT EXISTS predictions (
    submission_id INTEGER NOT NULL REFERENCES submissions(id), task_id TEXT NOT NULL, code TEXT NOT NULL,
    PRIMARY KEY (submission_id, task_id));
CREATE TABLE IF NOT EXISTS results (
    submission_id INTEGER NOT NULL REFERENCES submissions(id), task_id TEXT NOT NULL, pass_rate REAL NOT NULL,
    grade TEXT NOT NULL, PRIMARY KEY (submission_id, task_id));
"""


def connect(db: str) -> sqlite3.Connection:
    conn = sqlite3.connect(db, timeout=30, isolation_level=None)  # autocommit; explicit BEGIN where it matters
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=30000")
    conn.executescript(SCHEMA)
    columns = {r[1] for r in conn.execute("PRAGMA table_info(submissions)")}
    if "hub_synced" not in columns:  # the Hub mirror's bookkeeping (a database from before it gains the column)
        conn.execute("ALTER TABLE submissions ADD COLUMN hub_synced TEXT")
    conn.row_factory = sqlite3.Row
    return conn


def parse_upload(filename: str, data: bytes, task_ids: set[str]) -> tuple[str | None, dict[str, str]]:
    """(model named in the file, {task_id: code}) from a predictions JSONL or a zip of clients."""
    name = os.path.basename(filename)
    if len(data) > MAX_UPLOAD_BYTES:
        raise Har2ClientError(f"{name}: larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB")
    codes: dict[str, str] = {}
    model = None
    if name.endswith(".zip"):
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise Har2ClientError(f"{name}: not a zip file") from None
        total = 0
        for info in archive.infolist():
            if info.is_dir() or not info.filename.endswith(".py"):
                continue
            total += info.file_size
            if total > 4 * MAX_UPLOAD_BYTES:
                raise Har2ClientError(f"{name}: unpacks to more than {4 * MAX_UPLOAD_BYTES // (1024 * 1024)} MB")
            parts = info.filename.split("/")
            task_id = parts[-2] if parts[-1] == "client.py" and len(parts) > 1 else parts[-1][:-3]
            codes[task_id] = archive.read(info).decode("utf-8", "replace")
    else:
        for n, row in json_lines(data.decode("utf-8", "replace").splitlines(), name):
            if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("task_id", "code")):
                raise Har2ClientError(f"{name}: line {n} needs string fields task_id and code")
            codes[row["task_id"]] = row["code"]
            model = model or (row.get("model") if isinstance(row.get("model"), str) else None)
    unknown = sorted(set(codes) - task_ids)
    if unknown:
        raise Har2ClientError(f"{name}: no such tasks here: "
                              f"{', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''}")
    if not codes:
        raise Har2ClientError(f"{name}: holds no clients (a JSONL of task_id, model, code; or a zip of TASK_ID.py)")
    return model, codes


def submit(db: str, user: str, model: str, filename: str, codes: dict[str, str], task_ids: list[str],
           now: float | None = None) -> int:
    """Queue a submission; every task without a client is graded as missing. Returns its id."""
    now = time.time() if now is None else now
    conn = connect(db)
    try:
        conn.execute("BEGIN IMMEDIATE")
        recent = conn.execute("SELECT COUNT(*) FROM submissions WHERE user = ? AND created > ?",
                              (user, now - 86400)).fetchone()[0]
        if recent >= MAX_PER_USER_PER_DAY:
            conn.execute("ROLLBACK")
            raise Har2ClientError(f"{user} has made {recent} submissions in the last 24 hours; the limit is "
                                  f"{MAX_PER_USER_PER_DAY}")
        cur = conn.execute("INSERT INTO submissions (user, model, filename, created, status, tasks) "
                           "VALUES (?, ?, ?, ?, 'pending', ?)", (user, model, filename, now, len(task_ids)))
        sid = cur.lastrowid
        assert sid is not None  # an INSERT always sets it
        conn.executemany("INSERT INTO predictions (submission_id, task_id, code) VALUES (?, ?, ?)",
                         [(sid, t, codes.get(t, "")) for t in task_ids])
        conn.execute("COMMIT")
        return sid
    finally:
        conn.close()


def status_rows(db: str, limit: int = 50) -> list[list[Any]]:
    conn = connect(db)
    try:
        rows = conn.execute("SELECT s.id, s.user, s.model, s.status, "
                            "(SELECT COUNT(*) FROM results r WHERE r.submission_id = s.id) AS graded, s.tasks, "
                            "s.mean_pass_rate, s.error FROM submissions s ORDER BY s.id DESC LIMIT ?", (limit,
                                                                                                        )).fetchall()
    finally:
        conn.close()
    # every cell a string: a table whose column changes type between refreshes does not render
    return [[str(r["id"]), r["user"], r["model"], r["status"], f"{r['graded']}/{r['tasks']}",
             "" if r["mean_pass_rate"] is None else f"{r['mean_pass_rate']:.4f}", r["error"] or ""] for r in rows]

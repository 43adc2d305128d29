"""The OpenEnv server under concurrent episodes: every reward right, no error, and how long it takes.

    uv run python benchmarks/env_server.py [--sessions 64] [--workers N] [--json]

Starts ``har2client serve-env`` as its own process (as a trainer's machine would reach it), then
runs ``--sessions`` WebSocket sessions at once, each one episode on the Tier B test split of seed 1:
three in four submit the task's reference client (reward 1.0), one in four a client that does not
load (reward 0.0, with the error in info), and one session in eight first sends a malformed action
(an unknown type, code that is not a string, a 5 MB submission) that must come back as an error in
info. Against it: the same episodes graded one after another in this process through the Python
API (``grade``), which says what the concurrency buys. Exit status 1 when any reward is wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter

from har2client.env.openenv_env import Har2ClientAction, Har2ClientEnvClient
from har2client.grading import grade
from har2client.tierb import build_tierb

BROKEN = "class Client(:\n"
BAD = [({"type": "fly"}, "unknown action type"), ({"type": "submit", "code": 5}, "must be a string"),
       ({"type": "submit", "code": "#" * (5 * 1024 * 1024)}, "at most 1,048,576 bytes")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, workers: int | None, sessions: int, log: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "har2client", "serve-env", "--port", str(port), "--max-sessions", str(sessions)]
    if workers:
        cmd += ["--workers", str(workers)]
    # The server's log goes to a file: a pipe no one reads would fill and stop the server mid-write.
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(log, "wb"))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            with open(log, encoding="utf-8", errors="replace") as fh:
                raise RuntimeError(f"serve-env exited: {fh.read()[-2000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("serve-env did not answer /health in 60 s")


async def episode(url: str, tasks: str, i: int) -> dict[str, object]:
    """One session: reset, perhaps a bad action, then a submit; what came back."""
    client = Har2ClientEnvClient(base_url=url, message_timeout_s=600)
    async with client:
        r = await client.reset(split="test", tasks=tasks, seed=i)
        obs = r.observation.observation
        bad_ok = None
        if i % 8 == 7:
            action, says = BAD[(i // 8) % len(BAD)]
            out = await client.step(Har2ClientAction(**action))
            bad_ok = says in str(out.observation.info.get("error")) and out.reward == 0.0
            if out.done:  # the oversized submission ends the episode: start another
                r = await client.reset()
                obs = r.observation.observation
        broken = i % 4 == 3
        with open(os.path.join(tasks, obs["task_id"], "hidden", "reference_client.py"), encoding="utf-8") as fh:
            code = BROKEN if broken else fh.read()
        out = await client.step(Har2ClientAction(type="submit", code=code))
        info = out.observation.info
        right = (out.reward == 0.0 and "could not be loaded" in str(info.get("error"))) if broken else \
            (out.reward == 1.0 and info.get("error") is None)
        return {"task_id": obs["task_id"], "right": right and bad_ok is not False, "reward": out.reward,
                "grading_seed": info.get("grading_seed"), "broken": broken, "error": info.get("error")}


async def run_all(url: str, tasks: str, sessions: int) -> list[dict[str, object]]:
    return list(await asyncio.gather(*(episode(url, tasks, i) for i in range(sessions))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=64, help="concurrent sessions (default: %(default)s)")
    ap.add_argument("--workers", type=int, default=None, help="the server's grading processes (default: one per core)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        tasks = os.path.join(work, "tierB")
        build_tierb(tasks, 1)
        port = free_port()
        log = os.path.join(work, "server.log")
        proc = start_server(port, args.workers, args.sessions, log)
        try:
            t = time.perf_counter()
            rows = asyncio.run(run_all(f"http://127.0.0.1:{port}", tasks, args.sessions))
            served = time.perf_counter() - t
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            with open(log, encoding="utf-8", errors="replace") as fh:
                server_log = fh.read()
        t = time.perf_counter()
        for row in rows:  # the same grades, one after another, through the Python API
            task = os.path.join(tasks, str(row["task_id"]))
            path = os.path.join(work, "broken.py")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(BROKEN)
            grade(task, path if row["broken"] else os.path.join(task, "hidden", "reference_client.py"),
                  seed=row["grading_seed"])
        sequential = time.perf_counter() - t
    wrong = [r for r in rows if not r["right"]]
    figures = {"sessions": args.sessions, "wrong": len(wrong), "served_s": round(served, 3),
               "sequential_grades_s": round(sequential, 3), "ratio": round(served / sequential, 3),
               "examples_of_wrong": wrong[:3],
               # what the server logged: exceptions by their last line (openenv logs a WebSocketDisconnect when
               # it closes a socket its client already closed)
               "server_exceptions": dict(Counter(line for line in server_log.splitlines()
                                                 if re.match(r"^[\w.]+(Error|Exception|Disconnect)\b", line)))}
    print(json.dumps(figures, indent=2) if args.json else
          f"{figures['sessions']} concurrent sessions: {figures['wrong']} wrong, {figures['served_s']} s served, "
          f"{figures['sequential_grades_s']} s as sequential grades in-process (ratio {figures['ratio']})")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

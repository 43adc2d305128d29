"""The judge's handle on one untrusted worker process."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_worker.py")
MAX_FRAME = 16 * 1024 * 1024


@dataclass(frozen=True)
class Limits:
    call_seconds: float = 10.0
    task_seconds: float = 120.0
    memory_mb: int = 1024
    file_mb: int = 8
    cpu_seconds: int = 120
    output_bytes: int = 64 * 1024


class WorkerFailure(Exception):
    """The worker did not answer: it timed out, exited, or sent garbage."""


class WorkerProcess:
    """A separate Python process that imported ``client.py`` and runs what it is told."""

    def __init__(self, client_path: str, limits: Limits) -> None:
        self.limits = limits
        self.dir = tempfile.mkdtemp(prefix="h2c-worker-")
        self.client_path = os.path.join(self.dir, "client.py")
        shutil.copyfile(client_path, self.client_path)
        self.log_path = os.path.join(self.dir, "output.log")
        to_worker_r, self._to_worker = os.pipe()
        self._from_worker, from_worker_w = os.pipe()
        env = {"PATH": "/usr/bin:/bin", "HOME": self.dir, "TMPDIR": self.dir, "PYTHONDONTWRITEBYTECODE": "1",
               "LANG": "C.UTF-8"}
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", WORKER_SCRIPT, str(to_worker_r), str(from_worker_w), self.client_path,
                 str(limits.memory_mb), str(limits.file_mb), str(limits.cpu_seconds)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=self.dir, env=env,
                pass_fds=(to_worker_r, from_worker_w), start_new_session=True, close_fds=True,
            )
        os.close(to_worker_r)
        os.close(from_worker_w)
        self._next_id = 0
        self._buffer = b""

    # -- calls -------------------------------------------------------------------

    def request(self, msg: dict[str, Any], timeout: float) -> dict[str, Any]:
        self._next_id += 1
        msg = {**msg, "id": self._next_id}
        data = json.dumps(msg).encode()
        try:
            os.write(self._to_worker, struct.pack(">I", len(data)) + data)
        except (BrokenPipeError, OSError):
            raise WorkerFailure(self._death_reason()) from None
        deadline = time.monotonic() + timeout
        while True:
            reply = self._take_frame()
            if reply is not None:
                if reply.get("id") != self._next_id:
                    # Something other than the worker loop wrote to the channel.
                    self.kill()
                    raise WorkerFailure("the client wrote to the grader's channel")
                return reply
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise WorkerFailure(f"timed out after {timeout:g} s")
            ready, _, _ = select.select([self._from_worker], [], [], left)
            if ready:
                chunk = os.read(self._from_worker, 1 << 16)
                if not chunk:
                    raise WorkerFailure(self._death_reason())
                self._buffer += chunk
                if len(self._buffer) > MAX_FRAME + 4:
                    self.kill()
                    raise WorkerFailure("the client sent more than 16 MB back")

    def _take_frame(self) -> dict[str, Any] | None:
        if len(self._buffer) < 4:
            return None
        (size,) = struct.unpack(">I", self._buffer[:4])
        if size > MAX_FRAME:
            self.kill()
            raise WorkerFailure("the client sent an oversized frame")
        if len(self._buffer) < 4 + size:
            return None
        body, self._buffer = self._buffer[4:4 + size], self._buffer[4 + size:]
        try:
            value = json.loads(body)
        except ValueError:
            self.kill()
            raise WorkerFailure("the client corrupted the grader's channel") from None
        if not isinstance(value, dict):
            self.kill()
            raise WorkerFailure("the client corrupted the grader's channel")
        return value

    def _death_reason(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
            return "the client process stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            detail = {"SIGKILL": " (likely out of memory or CPU time)", "SIGXCPU": " (CPU time limit)"}.get(name, "")
            return f"the client process was killed by {name}{detail}"
        tail = self.output_tail().strip().splitlines()
        hint = f": {tail[-1][:200]}" if tail else ""
        return f"the client process exited with status {code}{hint}"

    def output_tail(self) -> str:
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                size = fh.tell()
                fh.seek(max(0, size - self.limits.output_bytes))
                return fh.read().decode("utf-8", "replace")
        except OSError:
            return ""

    # -- ending ------------------------------------------------------------------

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        self.kill()
        for fd in (self._to_worker, self._from_worker):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)

"""The judge's end of one worker's call socket: framed requests with deadlines, and how a worker died."""

from __future__ import annotations

import json
import os
import socket
import struct
import time
from typing import TYPE_CHECKING, Any

from ._frames import recv_frame, send_frame

if TYPE_CHECKING:
    from ._sandbox import Sandbox


class WorkerFailure(Exception):
    """The worker did not answer: it timed out, exited, or sent garbage."""


class WorkerChannel:
    """The judge's end of one worker's call socket."""

    MAX_FRAME = 16 * 1024 * 1024

    def __init__(self, sandbox: Sandbox, sock: socket.socket, host_dir: str, pid: int, limits: Any) -> None:
        self.sandbox, self.sock, self.host_dir, self.pid, self.limits = sandbox, sock, host_dir, pid, limits
        self._next_id = 0
        self._buffer = b""

    def request(self, msg: dict[str, Any], timeout: float) -> dict[str, Any]:
        self._next_id += 1
        data = json.dumps({**msg, "id": self._next_id}).encode()
        try:
            self.sock.sendall(struct.pack(">I", len(data)) + data)
        except OSError:
            raise WorkerFailure(self._death_reason()) from None
        deadline = time.monotonic() + timeout
        while True:
            reply = self._take_frame()
            if reply is not None:
                if reply.get("id") != self._next_id:
                    self.kill()
                    raise WorkerFailure("the client wrote to the grader's channel")
                return reply
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise WorkerFailure(f"timed out after {timeout:g} s")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                raise WorkerFailure(self._death_reason())
            self._buffer += chunk
            if len(self._buffer) > self.MAX_FRAME + 4:
                self.kill()
                raise WorkerFailure("the client sent more than 16 MB back")

    def _take_frame(self) -> dict[str, Any] | None:
        if len(self._buffer) < 4:
            return None
        (size,) = struct.unpack(">I", self._buffer[:4])
        if size > self.MAX_FRAME:
            self.kill()
            raise WorkerFailure("the client sent an oversized frame")
        if len(self._buffer) < 4 + size:
            return None
        body, self._buffer = self._buffer[4:4 + size], self._buffer[4 + size:]
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            self.kill()
            raise WorkerFailure("the client corrupted the grader's channel")
        return value

    def _death_reason(self) -> str:
        status = self._exit_status()
        tail = self.output_tail().strip().splitlines()
        hint = f": {tail[-1][:200]}" if tail else ""
        return f"the client process {status}{hint}"

    def _exit_status(self) -> str:
        # The zygote is the worker's parent; it tells us how it ended when it reaps it.
        try:
            assert self.sandbox._ctrl is not None
            send_frame(self.sandbox._ctrl, {"op": "wait", "pid": self.pid})
            reply = recv_frame(self.sandbox._ctrl, 3)
        except (AssertionError, ConnectionError, OSError, ValueError):
            self.sandbox.close()
            return "ended, and took the sandbox with it"
        return str(reply.get("status", "ended"))

    def output_tail(self) -> str:
        try:
            with open(os.path.join(self.host_dir, "output.log"), "rb") as fh:
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - self.limits.output_bytes))
                return fh.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def kill(self) -> None:
        self.sandbox.sweep()

    def close(self) -> None:
        self.sock.close()

"""The judge's end of one worker's call socket: framed requests with deadlines, and how a worker died.

Every byte from the worker is untrusted: client code runs there and can write anything to the socket.
A reply is used only after :func:`check_reply` has bounded its size and depth and checked its shape and
types; anything else fails the test in progress and the worker is replaced.
"""

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


class WorkerTimeout(WorkerFailure):
    """The worker did not answer within the call's time limit."""


MALFORMED = "malformed reply from the client process"
_INCOMPLETE = object()
MAX_VALUE_DEPTH = 64  # what the worker's plain() lets through
MAX_TEXT = 2000


def _depth_within(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests at most ``limit`` containers deep; iterative, so any input is safe."""
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            if d >= limit:
                return False
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return True


def check_reply(reply: Any, expected_id: int) -> dict[str, Any]:
    """The reply in the one shape the judge uses, or :class:`WorkerFailure` saying what was wrong.

    ``{"id": int, "ok": True, "value": plain data}`` or
    ``{"id": int, "ok": False, "error": {"type": str, "mro": [str, ...], "message": str}}``.
    """
    def bad(why: str) -> WorkerFailure:
        return WorkerFailure(f"{MALFORMED}: {why}")

    if not isinstance(reply, dict):
        raise bad(f"a {type(reply).__name__}, not an object")
    if type(reply.get("id")) is not int:
        raise bad("no numeric id")
    if reply["id"] != expected_id:
        raise WorkerFailure("the client wrote to the grader's channel")
    ok = reply.get("ok")
    if type(ok) is not bool:
        raise bad("ok is not true or false")
    if ok:
        value = reply.get("value")
        if not _depth_within(value, MAX_VALUE_DEPTH + 1):
            raise bad("the value is nested too deeply")
        return {"id": expected_id, "ok": True, "value": value}
    err = reply.get("error")
    if not isinstance(err, dict):
        raise bad("error is not an object")
    kind, mro, message = err.get("type"), err.get("mro", []), err.get("message", "")
    if type(kind) is not str or type(message) is not str:
        raise bad("error type or message is not text")
    if type(mro) is not list or len(mro) > 64 or not all(type(m) is str for m in mro):
        raise bad("error mro is not a short list of names")
    return {"id": expected_id, "ok": False,
            "error": {"type": kind[:200], "mro": [m[:200] for m in mro], "message": message[:MAX_TEXT]}}


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
            if reply is not _INCOMPLETE:
                try:
                    return check_reply(reply, self._next_id)
                except WorkerFailure:
                    self.kill()
                    raise
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise WorkerTimeout(f"timed out after {timeout:g} s")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                raise WorkerFailure(self._death_reason())
            self._buffer += chunk
            if len(self._buffer) > self.MAX_FRAME + 4:
                self.kill()
                raise WorkerFailure("the client sent more than 16 MB back")

    def _take_frame(self) -> Any:
        """The next whole frame, parsed (``_INCOMPLETE``: not all here yet; a frame may hold ``null``)."""
        if len(self._buffer) < 4:
            return _INCOMPLETE
        (size,) = struct.unpack(">I", self._buffer[:4])
        if size > self.MAX_FRAME:
            self.kill()
            raise WorkerFailure("the client sent an oversized frame")
        if len(self._buffer) < 4 + size:
            return _INCOMPLETE
        body, self._buffer = self._buffer[4:4 + size], self._buffer[4 + size:]
        try:
            return json.loads(body)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
            self.kill()
            raise WorkerFailure(f"{MALFORMED}: not JSON that the grader can read") from None

    def _death_reason(self) -> str:
        status = self._exit_status()
        tail = self.output_tail().strip().splitlines()
        hint = f": {tail[-1][:200]}" if tail else ""
        return f"the client process {status}{hint}"

    def _exit_status(self) -> str:
        # The zygote is the worker's parent; it tells us how it ended when it reaps it.
        try:
            self.sandbox.settle()
            assert self.sandbox._ctrl is not None
            send_frame(self.sandbox._ctrl, {"op": "wait", "pid": self.pid})
            reply = recv_frame(self.sandbox._ctrl, 3)
        except (AssertionError, ConnectionError, OSError, ValueError):
            self.sandbox.close()
            return "ended, and took the sandbox with it"
        status = reply.get("status") if isinstance(reply, dict) else None
        return status[:200] if isinstance(status, str) else "ended"

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

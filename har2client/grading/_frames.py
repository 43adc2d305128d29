"""Length-prefixed JSON frames between the judge and the zygote (the worker side is in _worker.py)."""

from __future__ import annotations

import json
import socket
import struct
from typing import Any


def send_frame(sock: socket.socket, obj: Any, fd: int | None = None) -> None:
    data = json.dumps(obj).encode()
    payload = struct.pack(">I", len(data)) + data
    if fd is None:
        sock.sendall(payload)
    else:
        head = payload[:4]
        sock.sendmsg([head], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))])
        sock.sendall(payload[4:])


def recv_frame(sock: socket.socket, timeout: float) -> Any:
    sock.settimeout(timeout)
    try:
        head = _recv_exact(sock, 4)
        (size,) = struct.unpack(">I", head)
        return json.loads(_recv_exact(sock, size))
    finally:
        sock.settimeout(None)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return buf

"""Serving an instance over real HTTP.

Each instance gets its own loopback address (the whole of 127.0.0.0/8 is
loopback on Linux), derived from its seed, so "a new host" is literal: a client
that kept the recording's host, or an earlier grading host, reaches nothing.
The caller may hand in the listening socket (the grader creates it inside the
sandbox's network namespace). Starting and closing take about a millisecond,
because graders start and stop thousands of servers.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

from .._seeding import rng
from ._app import create_app
from ._http import HTTPServer
from ._instance import Instance


def loopback_host(seed: int) -> str:
    """A loopback address drawn from ``seed`` (127.x.y.z), so each grade's server has a new host."""
    r = rng(seed, "loopback-host")
    return f"127.{r.randint(1, 254)}.{r.randint(0, 255)}.{r.randint(1, 254)}"


def listen_socket(host: str, port: int = 0) -> socket.socket:
    """A TCP socket listening on ``host`` (``port`` 0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


@dataclass
class RunningServer:
    """An API instance served on a loopback address; close it when done."""
    instance: Instance
    base_url: str
    _server: HTTPServer

    def close(self) -> None:
        """Stop serving."""
        self._server.close()

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(instance: Instance, host: str | None = None, port: int = 0,
          sock: socket.socket | None = None) -> RunningServer:
    """Serve ``instance`` from a background thread, on ``sock`` or on its own loopback address."""
    if sock is None:
        sock = listen_socket(host or loopback_host(instance.seed), port)
    server = HTTPServer(sock, create_app(instance.model, instance))
    return RunningServer(instance, f"http://{server.host}:{server.port}", server)

"""Serving an instance over real HTTP.

Each instance gets its own loopback address (the whole of 127.0.0.0/8 is
loopback on Linux), derived from its seed, so "a new host" is literal: a client
that kept the recording's host, or an earlier grading host, reaches nothing.
The caller may hand in the listening socket (the grader creates it inside the
sandbox's network namespace). Closing is immediate: the accept loop waits on a
wake-up pipe, not on a polling interval, because graders start and stop
thousands of servers.
"""

from __future__ import annotations

import os
import selectors
import socket
import threading
from dataclasses import dataclass, field

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from .._seeding import rng
from ._app import create_app
from ._instance import Instance


class _QuietHandler(WSGIRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a client's requests share one connection

    def log_request(self, *args: object, **kwargs: object) -> None:  # the judge reports, not the server
        pass

    def log_error(self, *args: object) -> None:
        pass


def loopback_host(seed: int) -> str:
    r = rng(seed, "loopback-host")
    return f"127.{r.randint(1, 254)}.{r.randint(0, 255)}.{r.randint(1, 254)}"


def listen_socket(host: str, port: int = 0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


@dataclass
class RunningServer:
    instance: Instance
    base_url: str
    _server: BaseWSGIServer
    _thread: threading.Thread
    _wake: tuple[int, int]
    _closed: bool = field(default=False)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        os.write(self._wake[1], b"x")
        self._thread.join(timeout=5)
        self._server.server_close()
        for fd in self._wake:
            os.close(fd)

    def __enter__(self) -> "RunningServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _accept_loop(server: BaseWSGIServer, wake_fd: int) -> None:
    with selectors.DefaultSelector() as sel:
        sel.register(server.socket, selectors.EVENT_READ)
        sel.register(wake_fd, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select():
                if key.fileobj == wake_fd:
                    return
                server._handle_request_noblock()  # accept and hand to a connection thread


def serve(instance: Instance, host: str | None = None, port: int = 0,
          sock: socket.socket | None = None) -> RunningServer:
    """Start ``instance`` in a background thread, on ``sock`` or on its own loopback address."""
    if sock is None:
        sock = listen_socket(host or loopback_host(instance.seed), port)
    app = create_app(instance.spec, instance)
    try:
        bound_host, bound_port = sock.getsockname()[:2]
        server = make_server(bound_host, bound_port, app, threaded=True, request_handler=_QuietHandler,
                             fd=sock.fileno())
    finally:
        sock.close()  # the server holds its own duplicate
    server.daemon_threads = True
    server.block_on_close = False  # type: ignore[attr-defined]
    wake = os.pipe()
    thread = threading.Thread(target=_accept_loop, args=(server, wake[0]), daemon=True,
                              name=f"fake-api-{instance.spec.slug}")
    thread.start()
    return RunningServer(instance, f"http://{bound_host}:{bound_port}", server, thread, wake)

"""Serving an instance over real HTTP on loopback.

Each instance gets its own loopback address (the whole of 127.0.0.0/8 is
loopback on Linux), derived from its seed, so "a new host" is literal: a client
that kept the recording's host, or an earlier grading host, reaches nothing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from .._seeding import rng
from ._app import create_app
from ._instance import Instance


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: object, **kwargs: object) -> None:  # the judge reports, not the server
        pass


def loopback_host(seed: int) -> str:
    r = rng(seed, "loopback-host")
    return f"127.{r.randint(1, 254)}.{r.randint(0, 255)}.{r.randint(1, 254)}"


@dataclass
class RunningServer:
    instance: Instance
    base_url: str
    _server: BaseWSGIServer
    _thread: threading.Thread

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "RunningServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(instance: Instance, host: str | None = None, port: int = 0) -> RunningServer:
    """Start ``instance`` on ``host`` (its own loopback address by default) in a background thread."""
    host = host or loopback_host(instance.seed)
    app = create_app(instance.spec, instance)
    server = make_server(host, port, app, threaded=True, request_handler=_QuietHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                              name=f"fake-api-{instance.spec.slug}")
    thread.start()
    return RunningServer(instance, f"http://{host}:{server.server_port}", server, thread)

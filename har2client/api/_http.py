"""A small HTTP/1.1 server for WSGI apps, built for many short-lived fake APIs.

Werkzeug's development server spends about 0.45 ms of every request in its
``http.server`` machinery, against 0.05 ms in the Flask app itself; a grader
sends tens of thousands of requests. This server speaks enough HTTP/1.1 for any
client library (keep-alive, Content-Length and chunked bodies,
``Expect: 100-continue``, HEAD, HTTP/1.0) and refuses what is malformed or too
large with the right status. Each connection has its own thread; closing the
server stops accepting at once and ends every open connection.

A grading server runs inside the judge and serves untrusted clients, so all it
accepts is bounded (:class:`ServerLimits`) and past a bound it answers as a real
API would: 413 for a body, 431 for headers, 429 for too many connections or
requests. The judge's memory per grade is bounded with it.
"""

from __future__ import annotations

import io
import os
import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote_to_bytes

MAX_LINE = 8192
MAX_HEADERS = 100
IDLE_SECONDS = 60.0
REASONS = {100: "Continue", 200: "OK", 201: "Created", 204: "No Content", 304: "Not Modified",
           400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           405: "Method Not Allowed", 406: "Not Acceptable", 409: "Conflict", 410: "Gone",
           411: "Length Required", 413: "Content Too Large", 414: "URI Too Long", 422: "Unprocessable Content",
           429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
           501: "Not Implemented", 505: "HTTP Version Not Supported"}

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@dataclass(frozen=True)
class ServerLimits:
    """What one server accepts over its life (for a grading server: one grade)."""

    body_bytes: int = 1 << 20            # one request body (413 past it)
    header_bytes: int = 64 << 10         # one request's header section (431)
    connections: int = 32                # open at once (429)
    requests: int = 5000                 # in all (429)
    body_bytes_total: int = 64 << 20     # all request bodies together (429)


class _Refuse(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class HTTPServer:
    """A small HTTP/1.1 server for a WSGI app, with budgets a hostile client cannot run past."""
    def __init__(self, sock: socket.socket, app: WSGIApp, limits: ServerLimits | None = None) -> None:
        self.sock, self.app = sock, app
        self.limits = limits or ServerLimits()
        self.requests = 0
        self.body_bytes = 0
        self.host, self.port = sock.getsockname()[:2]
        self._wake_r, self._wake_w = os.pipe()
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._accept_loop, daemon=True, name=f"http-{self.port}")
        self._thread.start()

    # -- life ------------------------------------------------------------------------

    def _accept_loop(self) -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(self.sock, selectors.EVENT_READ)
            sel.register(self._wake_r, selectors.EVENT_READ)
            while True:
                for key, _ in sel.select():
                    if key.fileobj == self._wake_r:
                        return
                    try:
                        conn, addr = self.sock.accept()
                    except OSError:
                        continue
                    with self._lock:
                        if self._closed:
                            conn.close()
                            return
                        crowded = len(self._conns) >= self.limits.connections
                        if not crowded:
                            self._conns.add(conn)
                    if crowded:
                        _refuse_now(conn, 429, "too many open connections")
                        continue
                    threading.Thread(target=self._serve_connection, args=(conn, addr), daemon=True).start()

    @property
    def open_connections(self) -> int:
        """Connections accepted and not yet closed (what the connection budget counts)."""
        with self._lock:
            return len(self._conns)

    def close(self) -> None:
        """Stop accepting, and close every open connection."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            conns = list(self._conns)
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=5)
        self.sock.close()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    # -- one connection ------------------------------------------------------------------

    def _serve_connection(self, conn: socket.socket, addr: Any) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.settimeout(IDLE_SECONDS)
        rfile = conn.makefile("rb", buffering=65536)
        try:
            while True:
                try:
                    request = self._read_request(rfile, conn)
                except _Refuse as exc:
                    conn.sendall(_simple(exc.status, str(exc)))
                    _linger(conn)
                    return
                if request is None:
                    return
                refusal = self._count(request)
                if refusal:
                    conn.sendall(_simple(429, refusal))
                    return
                if not self._respond(conn, request, addr):
                    return
        except (OSError, ValueError):
            pass  # the client went away or timed out
        finally:
            with self._lock:
                self._conns.discard(conn)
            try:
                rfile.close()
                conn.close()
            except OSError:
                pass

    def _count(self, request: dict[str, Any]) -> str:
        """Count a request against the server's budget; the reason it is over, or ""."""
        with self._lock:
            self.requests += 1
            self.body_bytes += len(request["body"])
            if self.requests > self.limits.requests:
                return f"more than {self.limits.requests} requests"
            if self.body_bytes > self.limits.body_bytes_total:
                return f"more than {self.limits.body_bytes_total} bytes of request bodies"
        return ""

    def _read_request(self, rfile: Any, conn: socket.socket) -> dict[str, Any] | None:
        line = rfile.readline(MAX_LINE + 1)
        while line in (b"\r\n", b"\n"):  # stray CRLF between requests is allowed (RFC 9112 2.2)
            line = rfile.readline(MAX_LINE + 1)
        if not line:
            return None
        if len(line) > MAX_LINE:
            raise _Refuse(414, "request line too long")
        parts = line.decode("latin-1").rstrip("\r\n").split(" ")
        if len(parts) != 3 or not parts[0].isalpha():
            raise _Refuse(400, "malformed request line")
        method, target, version = parts
        if version not in ("HTTP/1.1", "HTTP/1.0"):
            raise _Refuse(505, f"unsupported {version}")
        headers: list[tuple[str, str]] = []
        header_bytes = 0
        while True:
            h = rfile.readline(MAX_LINE + 1)
            header_bytes += len(h)
            if len(h) > MAX_LINE or len(headers) > MAX_HEADERS or header_bytes > self.limits.header_bytes:
                raise _Refuse(431, "header fields too large")
            if h in (b"\r\n", b"\n", b""):
                break
            name, sep, value = h.decode("latin-1").partition(":")
            if not sep or not name or name != name.strip():
                raise _Refuse(400, "malformed header field")
            headers.append((name, value.strip()))
        lower: dict[str, list[str]] = {}
        for k, v in headers:
            lower.setdefault(k.lower(), []).append(v)
        if lower.get("expect", [""])[0].lower() == "100-continue":
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if "chunked" in ",".join(lower.get("transfer-encoding", [])).lower():
            body = _read_chunked(rfile, self.limits.body_bytes)
        elif "content-length" in lower:
            try:
                size = int(lower["content-length"][0])
            except ValueError:
                raise _Refuse(400, "Content-Length is not a number") from None
            if size < 0:
                raise _Refuse(400, "negative Content-Length")
            if size > self.limits.body_bytes:
                raise _Refuse(413, "request body too large")
            body = rfile.read(size)
            if len(body) != size:
                return None
        else:
            body = b""
        return {"method": method, "target": target, "version": version, "headers": headers, "lower": lower,
                "body": body}

    def _environ(self, req: dict[str, Any], addr: Any) -> dict[str, Any]:
        target = req["target"]
        if target.startswith(("http://", "https://")):  # absolute form
            target = "/" + target.split("/", 3)[3] if target.count("/") >= 3 else "/"
        path, _, query = target.partition("?")
        env: dict[str, Any] = {
            "REQUEST_METHOD": req["method"], "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"), "QUERY_STRING": query,
            "REQUEST_URI": req["target"], "RAW_URI": req["target"],
            "SERVER_NAME": self.host, "SERVER_PORT": str(self.port), "SERVER_PROTOCOL": req["version"],
            "REMOTE_ADDR": addr[0] if addr else "", "REMOTE_PORT": str(addr[1]) if addr else "",
            "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(req["body"]),
            "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False,
            "wsgi.run_once": False, "CONTENT_LENGTH": str(len(req["body"])) if req["body"] else "",
        }
        for name, values in req["lower"].items():
            key = name.upper().replace("-", "_")
            if key == "CONTENT_TYPE":
                env["CONTENT_TYPE"] = values[0]
            elif key not in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):  # the body is already de-chunked
                env["HTTP_" + key] = ("; " if key == "COOKIE" else ", ").join(values)
        return env

    def _respond(self, conn: socket.socket, req: dict[str, Any], addr: Any) -> bool:
        env = self._environ(req, addr)
        state: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes],
                                                                                                          None]:
            state["status"], state["headers"] = status, headers
            return lambda data: state.setdefault("early", []).append(data)

        try:
            result = self.app(env, start_response)
            try:
                body = b"".join(state.get("early", [])) + b"".join(result)
            finally:
                if hasattr(result, "close"):
                    result.close()
        except Exception:  # noqa: BLE001 - the app failed: answer like a server, keep serving
            conn.sendall(_simple(500, "internal error"))
            return False
        code = int(state["status"].split(" ", 1)[0])
        connection = ",".join(req["lower"].get("connection", [])).lower()
        keep = ("close" not in connection) if req["version"] == "HTTP/1.1" else ("keep-alive" in connection)
        head = [f"HTTP/1.1 {state['status']}"]
        names = set()
        for k, v in state["headers"]:
            head.append(f"{k}: {v}")
            names.add(k.lower())
        no_body = code in (204, 304) or 100 <= code < 200
        if "content-length" not in names and not no_body:
            head.append(f"Content-Length: {len(body)}")
        if "date" not in names:
            head.append("Date: " + formatdate(usegmt=True))
        head.append("Connection: keep-alive" if keep else "Connection: close")
        payload = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
        if not no_body and req["method"] != "HEAD":
            payload += body
        conn.sendall(payload)
        return keep


def _read_chunked(rfile: Any, limit: int) -> bytes:
    out = bytearray()
    while True:
        line = rfile.readline(MAX_LINE + 1)
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise _Refuse(400, "malformed chunk size") from None
        if size == 0:
            while rfile.readline(MAX_LINE + 1) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return bytes(out)
        if len(out) + size > limit:
            raise _Refuse(413, "request body too large")
        out += rfile.read(size)
        rfile.readline(3)


def _linger(conn: socket.socket, seconds: float = 1.0, most: int = 4 << 20) -> None:
    """Read and drop what the client is still sending, briefly, so that it reads the refusal.

    Closing with unread input makes the kernel reset the connection, and the client would
    see a broken connection instead of the status (servers call this a lingering close).
    """
    deadline = time.monotonic() + seconds  # one deadline in all: a trickling client cannot hold the thread
    try:
        conn.shutdown(socket.SHUT_WR)
        got = 0
        while got < most and (left := deadline - time.monotonic()) > 0:
            conn.settimeout(left)
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += len(chunk)
    except OSError:
        pass


def _refuse_now(conn: socket.socket, status: int, message: str) -> None:
    """Answer a connection without reading from it, and close it."""
    try:
        conn.settimeout(1.0)
        conn.sendall(_simple(status, message))
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        conn.close()


def _simple(status: int, message: str) -> bytes:
    body = f'{{"error": {{"code": "http_{status}", "message": "{message}"}}}}'.encode()
    return (f"HTTP/1.1 {status} {REASONS.get(status, '')}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body

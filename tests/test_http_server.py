"""The HTTP/1.1 server the fake APIs run on, spoken to over raw sockets and real client libraries."""

import socket
import time

import httpx
import pytest
import requests

from har2client.api import Instance, _http, serve
from test_api_engine import make_spec


@pytest.fixture
def server():
    srv = serve(Instance(make_spec(), 3))
    yield srv
    srv.close()


def _raw(srv, data: bytes, read_until_close=True) -> bytes:
    host, port = srv.base_url[7:].split(":")
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(data)
    out = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
        if not read_until_close and b"\r\n\r\n" in out:
            break
    s.close()
    return out


def test_keep_alive_serves_many_requests_on_one_connection(server):
    first = "GET /account HTTP/1.1\r\nHost: x\r\n\r\n"
    last = "GET /account HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    out = _raw(server, (first * 3 + last).encode())
    assert out.count(b"HTTP/1.1 200 OK") == 4 and out.count(b"Connection: keep-alive") == 3


def test_http_1_0_closes_and_head_has_no_body(server):
    out = _raw(server, b"GET /account HTTP/1.0\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 200") and b"Connection: close" in out and out.endswith(b"}")
    head = _raw(server, b"HEAD /account HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert b"Content-Length:" in head and head.endswith(b"\r\n\r\n")


def test_chunked_bodies_and_expect_continue(server):
    body = b'{"customer": "A", "amount_cents": 5, "currency": "EUR", "status": "open", "due_date": "2026-01-02"}'
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    out = _raw(server, b"POST /invoices HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                       b"Content-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n" + chunked)
    assert out.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 ")
    assert any(r["customer"] == "A" for r in server.instance.all()) and b'"customer": "A"' in out


@pytest.mark.parametrize("data, status", [
    (b"NONSENSE\r\n\r\n", b"400"),
    (b"GET /account HTTP/2.0\r\n\r\n", b"505"),
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n", b"414"),
    (b"GET /account HTTP/1.1\r\n" + b"X-A: b\r\n" * 200 + b"\r\n", b"431"),
    (b"GET /account HTTP/1.1\r\nBad header\r\n\r\n", b"400"),
    (b"POST /invoices HTTP/1.1\r\nContent-Length: nine\r\n\r\n", b"400"),
])
def test_malformed_requests_get_the_right_status(server, data, status):
    assert _raw(server, data).split(b" ")[1] == status


def test_oversized_bodies_are_refused(server):
    size = _http.ServerLimits().body_bytes + 1
    out = _raw(server, b"POST /invoices HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % size)
    assert out.split(b" ")[1] == b"413"
    chunked = b"%x\r\n" % size + b"x" * size + b"\r\n0\r\n\r\n"
    out = _raw(server, b"POST /invoices HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked)
    assert out.split(b" ")[1] == b"413"


def test_a_header_section_over_its_budget_is_refused(server):
    headers = b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 8000) for i in range(9))  # each line fine, 72 KB in all
    assert _raw(server, b"GET /account HTTP/1.1\r\n" + headers + b"\r\n").split(b" ")[1] == b"431"


def _wait_for(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the server did not get there in time"
        time.sleep(0.01)


def test_a_server_answers_429_past_its_request_and_connection_budgets():
    from har2client.api import create_app, listen_socket

    spec = make_spec()
    limits = _http.ServerLimits(requests=3, connections=2)
    server = _http.HTTPServer(listen_socket("127.0.0.1"), create_app(spec, Instance(spec, 7)), limits)
    url = f"http://127.0.0.1:{server.port}"
    try:
        codes = [httpx.get(url + "/openapi-nothing").status_code for _ in range(4)]
        assert codes[:3] != [429] * 3 and codes[3] == 429
        _wait_for(lambda: server.open_connections == 0)  # the GETs' connections are closed on both sides
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(2)]
        _wait_for(lambda: server.open_connections == 2)  # both accepted and counted
        third = socket.create_connection(("127.0.0.1", server.port))
        third.settimeout(5)
        assert third.recv(100).split(b" ")[1] == b"429"
        for s in held + [third]:
            s.close()
    finally:
        server.close()


def test_real_client_libraries_and_fast_close(server):
    assert httpx.get(server.base_url + "/account").status_code == 200
    assert requests.get(server.base_url + "/account", timeout=5).json()["id"].startswith("acct_")
    with httpx.Client(base_url=server.base_url) as c:
        c.get("/account")
        server.close()  # open keep-alive connections are ended too
        with pytest.raises(httpx.TransportError):
            c.get("/account")

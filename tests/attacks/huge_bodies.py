"""Send the grading server request bodies and headers far over any API's limits, and many connections.

First one request announcing a 16 MB body (its status is reported); then, until FLOOD seconds have
passed (half a second unless the test sets it), 16 MB bodies on new connections, a few at a time;
then twice as many open connections as the server will hold.
"""
import socket
import threading
import time
from urllib.parse import urlsplit

FLOOD = 0
BODY = 16 * 1024 * 1024
HEAD = b"POST /invoices HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % BODY
PAYLOAD = HEAD + b'{"customer": "' + b"x" * (BODY - 16) + b'"}'


def send_bodies(address, deadline, counter):
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(address, timeout=0.5) as s:
                s.sendall(PAYLOAD)
                s.recv(64)
        except OSError:
            pass
        counter.append(1)


def flood(base_url):
    u = urlsplit(base_url)
    address = (u.hostname, u.port)
    statuses = []
    try:
        with socket.create_connection(address, timeout=1) as s:
            s.sendall(HEAD)
            statuses.append(s.recv(64).split(b" ")[1].decode())
    except (OSError, IndexError):
        statuses.append("error")
    deadline = time.monotonic() + (FLOOD or 0.5)  # by default well inside the suite's 2 s per call
    sent = []
    senders = [threading.Thread(target=send_bodies, args=(address, deadline, sent)) for _ in range(4)]
    for t in senders:
        t.start()
    for t in senders:
        t.join()
    held = []
    for _ in range(64):  # twice what the server holds open
        try:
            held.append(socket.create_connection(address, timeout=0.2))
        except OSError:
            break
    for s in held:
        s.close()
    return statuses, len(sent)


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        self.base_url = base_url

    def __getattr__(self, name):
        def call(*a, **k):
            statuses, sent = flood(self.base_url)
            raise RuntimeError(f"statuses: {statuses}; bodies sent: {sent}")
        return call

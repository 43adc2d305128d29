"""Reach anything but the grading server: a host loopback port, other loopback ports, other interfaces.

Only loopback is ever dialled; for the rest it reads the interface and route tables.
"""
import socket

HOST_PORT = 0  # replaced by the test with a port listening on the host's own loopback


def probe(base_url):
    reached = []
    for host, port in [("127.0.0.1", HOST_PORT), ("127.0.0.1", 22), ("127.0.0.1", 2024), ("::1", HOST_PORT)]:
        try:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            s = socket.socket(family, socket.SOCK_STREAM)
            s.settimeout(0.3)
            s.connect((host, port))
            reached.append(f"{host}:{port}")
            s.close()
        except OSError:
            pass
    with open("/proc/net/dev") as fh:
        interfaces = sorted(line.split(":")[0].strip() for line in fh.readlines()[2:])
    with open("/proc/net/route") as fh:
        routes = len(fh.readlines()) - 1
    return f"reached={reached} interfaces={interfaces} routes={routes}"


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        self.base_url = base_url

    def __getattr__(self, name):
        def call(*a, **k):
            raise RuntimeError(probe(self.base_url))
        return call

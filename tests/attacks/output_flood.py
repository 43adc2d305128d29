"""Print gigabytes to stdout and stderr."""
import sys

CHUNK = "x" * (1024 * 1024)


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        pass

    def __getattr__(self, name):
        def call(*a, **k):
            for _ in range(4096):
                sys.stdout.write(CHUNK)
                sys.stderr.write(CHUNK)
            return []
        return call

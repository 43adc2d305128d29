"""Spin forever inside a call, with the clock patched so the process believes no time passes."""
import time

time.monotonic = lambda: 0.0


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        pass

    def __getattr__(self, name):
        def call(*a, **k):
            while True:
                pass
        return call

"""Raise SystemExit and KeyboardInterrupt from calls, hoping to stop the test runner."""


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        self.n = 0

    def __getattr__(self, name):
        def call(*a, **k):
            self.n += 1
            raise SystemExit(0) if self.n % 2 else KeyboardInterrupt()
        return call

"""Kill the process with status 0 in the middle of a call."""
import os


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        pass

    def __getattr__(self, name):
        def call(*a, **k):
            os._exit(0)
        return call

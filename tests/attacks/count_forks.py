"""Start as many child processes as the kernel allows (each waits a little), and say how many that was."""
import os
import time


def fork_many(n=300):
    started = 0
    for _ in range(n):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(5)
            os._exit(0)
        started += 1
    return started


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        pass

    def __getattr__(self, name):
        def call(*a, **k):
            raise RuntimeError(f"children started: {fork_many()}")
        return call

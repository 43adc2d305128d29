"""Start processes that outlive the call: a plain child and a double-forked, re-sessioned daemon."""
import os
import subprocess
import sys

MARKER = "h2c-attack-lingering-child"


def spawn():
    subprocess.Popen([sys.executable, "-c", f"import time; time.sleep(600)  # {MARKER}"])
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", f"import time; time.sleep(600)  # {MARKER}"])
        os._exit(0)


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        spawn()

    def __getattr__(self, name):
        return lambda *a, **k: []

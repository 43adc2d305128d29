"""The untrusted side of grading: imports ``client.py`` and executes the calls the judge sends.

The zygote (``_zygote.py``) forks a process per grade that runs :func:`serve`.
This module deliberately imports nothing from HAR2Client: the judge's code,
tests and truth are never in this process. Limits are set before the client is
imported; results go back as plain JSON data only, so an object that claims
equality cannot cross.

Frames are a 4-byte big-endian length and UTF-8 JSON.
"""

import importlib.util
import json
import os
import resource
import signal
import struct
import sys
import traceback

MAX_FRAME = 16 * 1024 * 1024
PLAIN_SCALARS = (str, int, float, bool, type(None))


class NotPlainData(Exception):
    pass


def plain(value, depth=0):
    """``value`` as JSON-able data, accepting only the exact built-in types (no subclasses)."""
    if depth > 64:
        raise NotPlainData("nested too deeply")
    t = type(value)
    if t in PLAIN_SCALARS:
        if t is float and value != value:
            raise NotPlainData("NaN is not a result")
        return value
    if t is list or t is tuple:
        return [plain(v, depth + 1) for v in value]
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise NotPlainData(f"dict key of type {type(k).__name__}")
            out[k] = plain(v, depth + 1)
        return out
    raise NotPlainData(f"a {t.__module__}.{t.__qualname__} object")


def read_exact(fd, n):
    chunks = []
    while n:
        b = os.read(fd, n)
        if not b:
            return None
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def read_frame(fd):
    head = read_exact(fd, 4)
    if head is None:
        return None
    (size,) = struct.unpack(">I", head)
    if size > MAX_FRAME:
        return None
    body = read_exact(fd, size)
    return None if body is None else json.loads(body)


def write_frame(fd, obj):
    data = json.dumps(obj).encode()
    data = struct.pack(">I", len(data)) + data
    while data:
        n = os.write(fd, data)
        data = data[n:]


def describe(exc, display="client.py"):
    """The exception as the judge reports it, located in the client's file under its real name."""
    t = type(exc)
    where = ""
    message = str(exc)
    tb = traceback.extract_tb(exc.__traceback__)
    client_frames = [f for f in tb if os.path.basename(f.filename) == "client.py"]
    if client_frames:
        where = f" ({display} line {client_frames[-1].lineno})"
    if isinstance(exc, SyntaxError) and exc.filename and os.path.basename(exc.filename) == "client.py":
        text = (exc.text or "").strip()
        message = f"{exc.msg} at {display} line {exc.lineno}" + (f": {text[:80]}" if text else "")
        where = ""  # str(SyntaxError) names the place already; once is enough
    if len(message) > 500:
        message = message[:500] + "..."
    return {"type": t.__name__, "mro": [c.__name__ for c in t.__mro__], "message": message + where}


def missing_class(module, name, source, display):
    """Why ``name`` is not there, naming what the file does define."""
    found = sorted(k for k, v in vars(module).items()
                   if isinstance(v, type) and getattr(v, "__module__", "") == "client")
    if not source.strip():
        what = "the file is empty"
    elif found:
        what = "it defines " + ", ".join(found)
    else:
        what = "it defines no class at all"
    return AttributeError(f"{display} defines no class {name} ({what})")


def set_limits(memory_mb, file_mb, cpu_seconds, max_procs):
    def lim(kind, value):
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass  # a hard limit lower than ours already holds
    lim(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    lim(resource.RLIMIT_FSIZE, file_mb * 1024 * 1024)
    lim(resource.RLIMIT_CPU, cpu_seconds)
    lim(resource.RLIMIT_CORE, 0)
    lim(resource.RLIMIT_NOFILE, 256)
    lim(resource.RLIMIT_NPROC, max_procs)
    lim(resource.RLIMIT_MSGQUEUE, 0)  # POSIX queues outlive their maker; the sweep could not list them
    # A write past the file limit should fail in the client, not kill the worker silently.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def serve(fd, client_path):
    """Answer the judge's frames on ``fd`` (a socket) until it closes."""
    module = None
    client = None
    display = "client.py"  # the file's real name, which the load call brings
    while True:
        msg = read_frame(fd)
        if msg is None:
            return
        reply = {"id": msg.get("id")}
        try:
            op = msg.get("op")
            if op == "load":
                display = str(msg.get("name") or display)
                with open(client_path, "w", encoding="utf-8") as fh:
                    fh.write(msg["source"])
                spec = importlib.util.spec_from_file_location("client", client_path)
                assert spec is not None and spec.loader is not None  # a path ending in .py always has both
                module = importlib.util.module_from_spec(spec)
                sys.modules["client"] = module
                spec.loader.exec_module(module)
                if not isinstance(getattr(module, msg["class"], None), type):
                    raise missing_class(module, msg["class"], msg["source"], display)
                value = None
            elif op == "new":
                client = getattr(module, msg["class"])(*msg.get("args", []), **msg.get("kwargs", {}))
                value = None
            elif op == "call":
                fn = getattr(client, msg["method"], None)
                if fn is None or not callable(fn):
                    raise AttributeError(f"Client has no method {msg['method']}")
                value = plain(fn(*msg.get("args", []), **msg.get("kwargs", {})))
            else:
                raise ValueError(f"unknown op {op!r}")
            reply.update(ok=True, value=value)
        except NotPlainData as exc:
            reply.update(ok=False, error={"type": "NotPlainData", "mro": ["NotPlainData"],
                                          "message": f"the result is not plain data: {exc}"})
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt from the client are failures too
            reply.update(ok=False, error=describe(exc, display))
        try:
            write_frame(fd, reply)
        except (ValueError, TypeError) as exc:
            write_frame(fd, {"id": msg.get("id"), "ok": False,
                             "error": {"type": "NotPlainData", "mro": [], "message": str(exc)}})

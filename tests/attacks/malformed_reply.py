"""Answer the judge's pending call itself, with a well-framed reply of a shape the judge must not trust.

The pending call's id and the socket are taken from the worker's own stack, so the forged reply is
the one the judge reads. MODE picks the shape (the attack tests try each).
"""
import json
import os
import struct
import sys
import time

MODE = 0
DEPTH = 200_000


def body(call_id):
    if MODE == 0:  # nested far deeper than any parser's recursion
        return b'{"id": %d, "ok": true, "value": ' % call_id + b"[" * DEPTH + b"]" * DEPTH + b"}"
    shapes = {
        1: {"id": call_id, "ok": False, "error": "a string, not an object"},
        2: {"id": call_id, "ok": "yes", "value": {}},
        3: {"id": str(call_id), "ok": True, "value": {}},
        4: {"id": call_id, "ok": False, "error": {"type": "NotFoundError", "mro": "NotFoundError", "message": "x"}},
        5: {"id": call_id, "ok": False, "error": {"type": ["NotFoundError"], "message": 3}},
        6: [call_id, True],
        7: {"id": call_id, "ok": True, "value": json.loads("[" * 500 + "]" * 500)},
        8: None,  # the frame holds JSON null
    }
    return json.dumps(shapes[MODE]).encode()


def forge():
    frame = sys._getframe()
    while frame is not None and not ("msg" in frame.f_locals and "fd" in frame.f_locals):
        frame = frame.f_back
    msg, fd = frame.f_locals["msg"], frame.f_locals["fd"]
    data = body(msg["id"])
    os.write(fd, struct.pack(">I", len(data)) + data)
    time.sleep(30)  # let the forged reply be the only one


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        forge()

    def __getattr__(self, name):
        return lambda *a, **k: forge()

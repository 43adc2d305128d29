"""A seeded mutator over HAR structure and bodies: thousands of broken files, not one traceback.

Each file starts from a real recording (a Tier B session, the exporter corpus) and takes a few
mutations: a value replaced by one of another type or by hostile text, a key dropped or renamed, an
entry duplicated, the bytes truncated or flipped. Reading must give a recording or a HarError;
every recording must render to printable text; the command must exit 0 or 2 with one line.
"""

import glob
import json
import os
import random
import subprocess
import sys

import pytest

from conftest import ROOT
from har2client import HarError
from har2client.har import read_har, render_compact

pytestmark = pytest.mark.slow  # see pyproject.toml's markers

FILES = 2400
CORPUS = os.path.join(os.path.dirname(__file__), "har_corpus")
HOSTILE = [None, True, False, 0, -1, 2**70, 1e308, 3.5, "", "\ud800", "\x00\x1b[2J\x07", "x" * 20000,
           "http://[::1", "::::", "../../etc/passwd", "AAAA====", "%zz%", [], {}, [[[]]], {"a": {"b": {}}},
           "\u202e\u0000", "null", "0 UNAUTHORIZED"]
KEYS = ["text", "_file", "encoding", "params", "status", "url", "method", "headers", "name", "value", "content",
        "postData", "mimeType", "size", "entries", "log", "request", "response", "timings", "time"]


def _bases():
    from har2client.api import instance_seed, model_from_document
    from har2client.api._session import record_session, recording_instance
    from har2client.har import recording_to_har
    from har2client.tierb import tierb_configs

    docs = []
    for config in tierb_configs(3)[:3]:
        seed = instance_seed(config.seed, "recording")
        model = model_from_document(config.document())
        docs.append(json.dumps(recording_to_har(record_session(model, recording_instance(model, seed), seed))))
    for path in sorted(glob.glob(os.path.join(CORPUS, "*.har"))):
        with open(path, encoding="utf-8") as fh:
            docs.append(fh.read())
    return docs


def _pick(doc, r: random.Random):
    """(container, key) of a value found by a random walk down from the top, or None."""
    node, chosen = doc, None
    while isinstance(node, (dict, list)) and node:
        key = r.choice(list(node)) if isinstance(node, dict) else r.randrange(len(node))
        chosen = (node, key)
        if r.random() < 0.25:
            break
        node = node[key]
    return chosen


def mutate(doc, r: random.Random):
    """``doc`` (a recording as JSON text) with a few mutations, as bytes."""
    doc = json.loads(doc)
    for _ in range(r.randint(1, 4)):
        picked = _pick(doc, r)
        if picked is None:
            break
        parent, key = picked
        move = r.random()
        if move < 0.45:
            value = r.choice(HOSTILE)  # a fresh copy: the pool's lists and dicts are shared
            parent[key] = json.loads(json.dumps(value)) if isinstance(value, (list, dict)) else value
            if r.random() < 0.1:
                parent[key] = f"@@DEEP{r.choice((50, 900, 5000))}@@"
        elif move < 0.6 and isinstance(parent, dict):
            del parent[key]
        elif move < 0.7 and isinstance(parent, dict):
            parent[r.choice(KEYS)] = parent.pop(key)
        elif move < 0.8 and isinstance(parent, list):
            parent.append(json.loads(json.dumps(parent[key])))
        elif move < 0.9:
            parent[key] = "".join(chr(r.randrange(0, 0x3000)) for _ in range(r.randint(1, 40)))
        else:
            parent[key] = {"_file": r.choice(["body.bin", "../outside.txt", "/etc/hostname", "missing"]),
                           "size": r.randint(-5, 10**6), "mimeType": r.choice(["", "image/png", "application/json"])}
    raw = json.dumps(doc, allow_nan=True).encode("utf-8", "surrogatepass")
    for depth in (50, 900, 5000):  # spliced in as bytes: json.dumps itself cannot nest that deep
        raw = raw.replace(b'"@@DEEP%d@@"' % depth, b"[" * depth + b"]" * depth)
    if r.random() < 0.1:
        raw = raw[: r.randrange(len(raw) + 1)]
    if r.random() < 0.1 and raw:
        raw = bytearray(raw)
        for _ in range(r.randint(1, 8)):
            raw[r.randrange(len(raw))] = r.randrange(256)
        raw = bytes(raw)
    return raw


def _printable(text):
    text.encode("utf-8")  # no lone surrogates
    return not any((ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f for c in text)


def test_thousands_of_mutated_files_read_or_fail_in_one_line(tmp_path):
    (tmp_path / "body.bin").write_bytes(os.urandom(64))
    r = random.Random(20261130)
    bases = _bases()
    outcomes = {"read": 0, "refused": 0}
    for i in range(FILES):
        path = tmp_path / f"m{i % 50}.har"
        path.write_bytes(mutate(r.choice(bases), r))
        try:
            rec = read_har(path)
        except HarError as exc:
            assert "\n" not in str(exc) and str(exc).startswith(str(path)), str(exc)
            outcomes["refused"] += 1
            continue
        text = render_compact(rec)
        assert _printable(text), (i, text[:300])
        outcomes["read"] += 1
    assert outcomes["read"] > FILES // 4 and outcomes["refused"] > FILES // 20, outcomes


def test_mutated_files_through_the_command_exit_0_or_2_with_one_line(tmp_path):
    r = random.Random(7)
    bases = _bases()
    for i in range(12):
        path = tmp_path / f"c{i}.har"
        path.write_bytes(mutate(r.choice(bases), r))
        out = subprocess.run([sys.executable, "-m", "har2client", "render", str(path)], capture_output=True, cwd=ROOT,
                             timeout=60)
        assert out.returncode in (0, 2) and b"Traceback" not in out.stderr, out.stderr[-500:]
        if out.returncode == 2:
            assert out.stderr.decode().count("\n") == 1
        else:
            assert _printable(out.stdout.decode("utf-8"))

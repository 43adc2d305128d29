"""Fingerprints of what decides scores, kept per scoring version in ``scoring_golden.json``.

    python -m har2client.tasks._fingerprint            # print today's fingerprints
    python -m har2client.tasks._fingerprint --record   # record them for the current SCORING_VERSION

A fingerprint is a SHA-256: for each tier and case, over every file of its tasks built from seed 1;
for the rules, over the code (not comments or docstrings) of the modules that run hidden tests and
decide what passes. ``tests/test_scoring_version.py`` fails when one differs from what is recorded for
the current scoring version: then the version must change, so that old and new scores are never mixed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import tempfile
import tokenize
from importlib import resources

GOLDEN = str(resources.files("har2client.tasks").joinpath("scoring_golden.json"))
# The code that decides a score: the judge and its tests, and the grading server's behaviour (what it
# accepts and answers), which the seed-1 tasks' bytes show only in part.
RULES = ("grading/_judge.py", "grading/_tests.py", "grading/_worker.py", "grading/_channel.py",
         "api/_world.py", "api/_app.py", "api/_views.py", "api/_gate.py", "api/_login.py", "api/_paging.py",
         "api/_shapes.py", "api/_instance.py", "api/_fake.py", "api/_model.py")
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tree_fingerprint(root: str) -> str:
    digest = hashlib.sha256()
    for dirpath, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            digest.update(os.path.relpath(path, root).encode() + b"\0")
            with open(path, "rb") as fh:
                digest.update(hashlib.sha256(fh.read()).digest())
    return digest.hexdigest()


def code_fingerprint(source: str) -> str:
    """The code's tokens, without comments, docstrings or layout: editing prose changes nothing."""
    digest = hashlib.sha256()
    previous = tokenize.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        kind = tok.type
        if kind in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
            continue
        statement_start = previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        if kind == tokenize.STRING and statement_start:
            previous = kind  # a docstring (a statement that is only a string)
            continue
        previous = kind
        digest.update(tok.string.encode("utf-8") + b"\0")
    return digest.hexdigest()


def scoring_fingerprints() -> dict[str, str]:
    from ..tiera import build_tiera
    from ..tierb import build_tierb

    out = {}
    with tempfile.TemporaryDirectory(prefix="h2c-fingerprint-") as work:
        for key, build in (("tierB/build", build_tierb), ("tierA/build", build_tiera)):
            folder = os.path.join(work, key.replace("/", "-"))
            build(folder, 1)
            out[key] = tree_fingerprint(folder)
    rules = hashlib.sha256()
    for name in RULES:
        with open(os.path.join(PACKAGE, name), encoding="utf-8") as fh:
            rules.update(name.encode() + b"\0" + code_fingerprint(fh.read()).encode())
    out["rules"] = rules.hexdigest()
    return out


def recorded() -> dict[str, dict[str, str]]:
    with open(GOLDEN, encoding="utf-8") as fh:
        return dict(json.load(fh))


def problems(current: dict[str, str], golden: dict[str, dict[str, str]], version: str) -> list[str]:
    """Why ``current`` does not match what ``golden`` holds for scoring version ``version`` (empty: it does)."""
    if version not in golden:
        return [f"scoring version {version} has no recorded fingerprints: run "
                "python -m har2client.tasks._fingerprint --record"]
    changed = sorted(k for k in set(current) | set(golden[version]) if current.get(k) != golden[version].get(k))
    if changed:
        return [f"{', '.join(changed)} changed under scoring version {version}: scores would not be comparable; "
                "raise SCORING_VERSION (har2client/grading/_result.py), say why in CHANGELOG.md, then run "
                "python -m har2client.tasks._fingerprint --record"]
    return []


def main(argv: list[str]) -> int:
    from ..grading import SCORING_VERSION

    current = scoring_fingerprints()
    if "--record" not in argv:
        print(json.dumps({SCORING_VERSION: current}, indent=2))
        return 0
    golden = recorded() if os.path.exists(GOLDEN) else {}
    if SCORING_VERSION in golden and golden[SCORING_VERSION] != current:
        print(f"har2client: error: scoring version {SCORING_VERSION} is recorded with other fingerprints; "
              "raise SCORING_VERSION first", file=sys.stderr)
        return 2
    golden[SCORING_VERSION] = current
    with open(GOLDEN, "w", encoding="utf-8") as fh:
        json.dump(golden, fh, indent=2, sort_keys=True)
        fh.write("\n")
    print(f"recorded scoring version {SCORING_VERSION} in {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Deterministic randomness.

Every random choice in HAR2Client goes through a :class:`random.Random` made
here from an explicit seed and a label, so that the same seed gives the same
bytes and two uses of one seed (the recording and the grading instance of a
task, say) never share a stream by accident.
"""

from __future__ import annotations

import hashlib
import random


def derive_seed(seed: int | str, *labels: object) -> int:
    """A 64-bit seed for the stream named by ``labels`` under ``seed``."""
    text = "\x1f".join([str(seed), *map(str, labels)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def rng(seed: int | str, *labels: object) -> random.Random:
    return random.Random(derive_seed(seed, *labels))


def token_hex(r: random.Random, nbytes: int) -> str:
    return r.getrandbits(nbytes * 8).to_bytes(nbytes, "big").hex()


def token_urlsafe(r: random.Random, length: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(r.choice(alphabet) for _ in range(length))


def uuid4_from(r: random.Random) -> str:
    h = token_hex(r, 16)
    # Set the version and variant nibbles so the value reads as a real UUID4.
    h = h[:12] + "4" + h[13:16] + "89ab"[int(h[16], 16) % 4] + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

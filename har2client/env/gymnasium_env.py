"""Gymnasium adapter (``pip install 'har2client[gym]'``).

    import gymnasium as gym
    import har2client.env.gymnasium_env  # registers the ids
    # (or, without the import: gym.make("har2client.env.gymnasium_env:har2client/TrafficToClient-v0"))

    env = gym.make("har2client/TrafficToClient-v0", curriculum="L0")
    prompt, info = env.reset(seed=0)          # the prompt as text; info holds the observation dict
    _, reward, terminated, truncated, info = env.step(client_source)

Both spaces are ``Text`` over :data:`CHARSET`, printable ASCII and its whitespace. The observation is
the episode's prompt (what the model sees), with every character outside the charset written as a
Python escape (``\\u2019``), so it is always in the space. The action is the client's source, submitted
as it is; in Case 2 an action that is a JSON object ``{"type": "probe", "request": {...}}`` is a probe
instead, and its answer is the next observation (as JSON text). Keyword arguments go to
``TrafficToClientEnv`` or ``RepairEnv``; the contract is theirs.
"""

from __future__ import annotations

import json
import re
import string
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from ..grading import MAX_CLIENT_BYTES
from ._base import Har2ClientEnv
from .env import TrafficToClientEnv
from .repair_env import RepairEnv

CHARSET = string.printable  # digits, letters, punctuation, space, \t \n \r \x0b \x0c
MAX_OBSERVATION_CHARS = 1 << 24
_OUTSIDE = re.compile(r"[^\x20-\x7e\t\n\r\x0b\x0c]")


def in_charset(text: str) -> str:
    """``text`` with every character outside :data:`CHARSET` written as a Python escape."""
    def escape(m: re.Match[str]) -> str:
        c = ord(m.group())
        return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}"

    return _OUTSIDE.sub(escape, text)


class _Har2ClientGym(gym.Env[str, str]):
    metadata: dict[str, Any] = {"render_modes": []}
    make_env: Any = None

    def __init__(self, **kwargs: Any) -> None:
        self.inner: Har2ClientEnv = self.make_env(**kwargs)
        self.observation_space = spaces.Text(MAX_OBSERVATION_CHARS, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(MAX_CLIENT_BYTES, min_length=0, charset=CHARSET)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        obs = self.inner.reset(seed=seed)
        info = {k: v for k, v in obs.items() if k != "prompt"}
        return in_charset(obs["prompt"]), info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        out = self.inner.step(self._as_action(action))
        text = json.dumps(out["observation"], ensure_ascii=False) if out["observation"] else ""
        info = {**out["info"], "observation": out["observation"]}
        return in_charset(text), float(out["reward"]), bool(out["done"]), False, info

    @staticmethod
    def _as_action(action: Any) -> Any:
        if isinstance(action, str) and action.lstrip().startswith("{"):
            try:
                parsed = json.loads(action)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict) and parsed.get("type") == "probe":
                return parsed
        return {"type": "submit", "code": action} if isinstance(action, str) else action

    def reference_code(self) -> str:
        return self.inner.reference_code()

    def close(self) -> None:
        self.inner.close()
        super().close()


class TrafficToClientGym(_Har2ClientGym):
    """Case 1 and Case 2 as a Gymnasium environment (keyword arguments: ``TrafficToClientEnv``'s)."""

    make_env = TrafficToClientEnv


class RepairGym(_Har2ClientGym):
    """Case 3 as a Gymnasium environment (keyword arguments: ``RepairEnv``'s)."""

    make_env = RepairEnv


IDS = {"har2client/TrafficToClient-v0": TrafficToClientGym, "har2client/Repair-v0": RepairGym}

for _id, _cls in IDS.items():
    if _id not in gym.registry:
        gym.register(_id, entry_point=f"{__name__}:{_cls.__name__}", disable_env_checker=False)

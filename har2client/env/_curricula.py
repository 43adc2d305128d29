"""Curricula: which tasks an environment draws, and how that moves with the rewards it sees.

Build and investigate (``TrafficToClientEnv``), by the level of a task (how many of the API's
conventions are on: for Tier B the switches, for Tier A the conventions its API uses):

    L0 ... L6   every episode a task of exactly that level
    L0-L6       rising: start at L0, move up one level once the mean reward of the last
                ``window`` episodes at the current level reaches ``threshold`` (ends at L6);
                any range ``La-Lb`` works the same way
    all         any level, in the proportions of the Tier B test split

Repair (``RepairEnv``), by the number of changes in the release:

    R0 ... R3   a release of 1, 2, 3 or 4 changes (R0 = one change)
    R0-R3       rising, as for L0-L6
    all         any number of changes

A curriculum only says which tasks qualify; the task source (a fresh API per episode on the
train split, the dataset's tasks on the test split) draws among them.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from .._errors import EnvError

MAX_LEVEL = 6
MAX_REPAIR = 3
WINDOW = 8
THRESHOLD = 0.8


@dataclass
class Curriculum:
    """A named rule for which stage (level, or number of changes less one) the next episode has."""

    name: str
    prefix: str                 # "L" or "R"
    low: int
    high: int
    rising: bool
    window: int = WINDOW
    threshold: float = THRESHOLD
    stage: int = field(init=False)
    _recent: deque[float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.stage = self.low
        self._recent = deque(maxlen=self.window)

    @property
    def any_stage(self) -> bool:
        """Whether the curriculum draws from every stage (``all``)."""
        return self.name == "all"

    def stages(self) -> list[int]:
        """The stages a task may have now."""
        if self.any_stage:
            return list(range(self.low, self.high + 1))
        return [self.stage]

    def record(self, reward: float) -> None:
        """Note an episode's reward; a rising curriculum moves up when the recent mean is high enough."""
        if not self.rising or self.stage >= self.high:
            return
        self._recent.append(reward)
        if len(self._recent) == self.window and sum(self._recent) / self.window >= self.threshold:
            self.stage += 1
            self._recent.clear()

    def describe(self) -> dict[str, object]:
        """The curriculum as plain data, for an episode's state."""
        return {"name": self.name, "stage": f"{self.prefix}{self.stage}" if not self.any_stage else "all",
                "rising": self.rising, "window": self.window, "threshold": self.threshold}


def parse_curriculum(name: str, prefix: str, *, window: int = WINDOW, threshold: float = THRESHOLD) -> Curriculum:
    """``name`` as a curriculum of ``prefix`` ("L" for build and investigate, "R" for repair)."""
    top = MAX_LEVEL if prefix == "L" else MAX_REPAIR
    examples = f"{prefix}0 ... {prefix}{top}, {prefix}0-{prefix}{top} or all"
    if not isinstance(name, str):
        raise EnvError(f"curriculum must be a string such as {examples}, not {name!r}")
    if name == "all":
        return Curriculum(name, prefix, 0, top, rising=False, window=window, threshold=threshold)
    m = re.fullmatch(rf"{prefix}(\d)(?:-{prefix}(\d))?", name)
    if not m:
        raise EnvError(f"no curriculum {name!r} here: use {examples}")
    low = int(m.group(1))
    high = int(m.group(2)) if m.group(2) is not None else low
    if not 0 <= low <= high <= top:
        raise EnvError(f"curriculum {name!r} is out of range: stages run from {prefix}0 to {prefix}{top}")
    if not 0 < threshold <= 1 or window < 1:
        raise EnvError("a rising curriculum needs window >= 1 and 0 < threshold <= 1")
    return Curriculum(name, prefix, low, high, rising=high > low, window=window, threshold=threshold)

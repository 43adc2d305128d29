"""Percentile bootstrap intervals over tasks, seeded, in plain Python (no NumPy in the grader's install).

The percentile of a bootstrap distribution is taken as NumPy's default (linear interpolation between
order statistics), which is what ``scipy.stats.bootstrap(..., method="percentile")`` reports;
``tests/test_analysis.py`` checks the two agree.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

RESAMPLES = 10_000
LEVEL = 0.95


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of sorted values, interpolated linearly (NumPy's default)."""
    if not sorted_values:
        raise ValueError("no values")
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _means(values: Sequence[float], resamples: int, r: random.Random) -> list[float]:
    n = len(values)
    pick = r.choices
    return [sum(pick(values, k=n)) / n for _ in range(resamples)]


def bootstrap_ci(values: Sequence[float], resamples: int = RESAMPLES, seed: int = 0,
                 level: float = LEVEL) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``values`` (one value per task)."""
    if not values:
        raise ValueError("no values")
    dist = sorted(_means(list(values), resamples, random.Random(seed)))
    a = (1 - level) / 2
    return percentile(dist, a), percentile(dist, 1 - a)


def bootstrap_combination(groups: Sequence[Sequence[float]], weights: Sequence[float], resamples: int = RESAMPLES,
                          seed: int = 0, level: float = LEVEL) -> tuple[float, float]:
    """The interval of ``sum(w * mean(group))`` with each group resampled on its own (unpaired groups)."""
    r = random.Random(seed)
    per_group = [_means(list(g), resamples, r) for g in groups]
    dist = sorted(sum(w * m[i] for w, m in zip(weights, per_group, strict=True)) for i in range(resamples))
    a = (1 - level) / 2
    return percentile(dist, a), percentile(dist, 1 - a)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)

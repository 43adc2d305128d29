"""Verdicts of the pre-registered hypotheses, from the rules in PREREG.md's ``yaml`` block.

A hypothesis has contrasts. A contrast is a weighted sum of cells' means (``terms``: each a weight and
``where``: effort, arm, case, tier, probes, and a task ``subset``), on a ``metric``, ``paired`` over the
tasks the terms share (default) or with each term's tasks resampled on their own. Its ``direction`` is
``positive``, ``negative`` or ``null``; its ``role`` ``required`` (decides the verdict) or ``reported``.

- supported: every required contrast's 95% interval excludes 0 in its direction (a null one: includes 0)
- rejected: some required contrast's interval excludes 0 the other way (a null one: excludes 0)
- inconclusive: otherwise
- not tested: a required contrast has no data (``not_tested`` says why, when the rule knows)
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from .._errors import Har2ClientError
from ._runs import Cell
from ._stats import bootstrap_ci, bootstrap_combination, mean

DIRECTIONS = ("positive", "negative", "null")


def read_prereg(path: str) -> list[dict[str, Any]]:
    """The hypotheses of a PREREG.md: the list in its fenced ``yaml`` block."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise Har2ClientError(f"{path}: cannot be read ({exc.strerror})") from None
    m = re.search(r"```yaml\n(.*?)```", text, re.S)
    if not m:
        raise Har2ClientError(f"{path}: no ```yaml block of hypotheses")
    try:
        rules = yaml.safe_load(m.group(1))
    except yaml.YAMLError as exc:
        raise Har2ClientError(f"{path}: the yaml block does not parse ({str(exc).splitlines()[0]})") from None
    if not isinstance(rules, list) or not all(isinstance(h, dict) and "id" in h and "contrasts" in h for h in rules):
        raise Har2ClientError(f"{path}: the yaml block must be a list of hypotheses, each with id and contrasts")
    for h in rules:
        for c in h["contrasts"]:
            if c.get("kind") != "ratio" and c.get("direction", "positive") not in DIRECTIONS:
                raise Har2ClientError(f"{path}: {h['id']}: direction must be one of {', '.join(DIRECTIONS)}")
    return rules


def _cell_values(cells: list[Cell], model: str, where: dict[str, Any], metric: str) -> dict[str, float] | None:
    found = [c for c in cells if c.setting["model"] == model
             and all(c.setting.get(k) == where[k] for k in ("effort",) if k in where)
             and all(c.benchmark.get(k) == where.get(k, d) for k, d in (("case", "build"), ("tier", "B")))
             and all(c.benchmark.get(k) == where[k] for k in ("arm", "probes") if k in where)]
    if not found:
        return None
    values: dict[str, float] = {}
    for c in found:
        values.update(c.values(metric, where.get("subset")))
    return values or None


def evaluate_contrast(cells: list[Cell], model: str, c: dict[str, Any], resamples: int, seed: int) -> dict[str,
                                                                                                           Any] | None:
    metric = c.get("metric", "pass_rate")
    groups = []
    for term in c["terms"]:
        v = _cell_values(cells, model, term["where"], metric)
        if v is None:
            return None
        groups.append((float(term.get("weight", 1)), v))
    if c.get("kind") == "ratio":
        (_, a), (_, b) = groups
        return {"name": c["name"], "kind": "ratio",
                "estimate": round(mean(list(a.values())) / max(mean(list(b.values())), 1e-9), 2)}
    scale = 100.0
    if c.get("paired", True):
        shared = sorted(set.intersection(*(set(v) for _, v in groups)))
        if not shared:
            return None
        combo = [sum(w * v[t] for w, v in groups) * scale for t in shared]
        lo, hi = bootstrap_ci(combo, resamples, seed)
        est, n = mean(combo), str(len(shared))
    else:
        weights = [w for w, _ in groups]
        vals = [[x * scale for x in v.values()] for _, v in groups]
        lo, hi = bootstrap_combination(vals, weights, resamples, seed)
        est, n = sum(w * mean(v) for w, v in zip(weights, vals, strict=True)), " vs ".join(str(len(v)) for v in vals)
    return {"name": c["name"], "metric": metric, "estimate": round(est, 2), "ci": [round(lo, 2), round(hi, 2)], "n": n,
            "direction": c.get("direction", "positive"), "role": c.get("role", "required")}


def _outcome(r: dict[str, Any]) -> str:
    lo, hi = r["ci"]
    if r["direction"] == "null":
        return "against" if lo > 0 or hi < 0 else "for"
    sign = 1 if r["direction"] == "positive" else -1
    if (lo > 0 and sign > 0) or (hi < 0 and sign < 0):
        return "for"
    if (hi < 0 and sign > 0) or (lo > 0 and sign < 0):
        return "against"
    return "open"


def evidence(r: dict[str, Any]) -> str:
    if r.get("kind") == "ratio":
        return f"{r['name']} = {r['estimate']:.2f}x"
    prefix = "full-repair " if r["metric"] == "full_repair" else ""
    return (f"{prefix}{r['name']} {r['estimate']:+.1f} pts [95% CI {r['ci'][0]:+.1f}, {r['ci'][1]:+.1f}] (n={r['n']})")


def verdicts(cells: list[Cell], rules: list[dict[str, Any]], model: str, resamples: int = 10_000,
             seed: int = 0) -> list[dict[str, Any]]:
    """Each hypothesis's verdict for ``model``, with its evidence in the page's form."""
    out = []
    for i, h in enumerate(rules):
        results, missing = [], []
        for j, c in enumerate(h["contrasts"]):
            r = evaluate_contrast(cells, model, c, resamples, seed + 1000 * i + j)
            if r is None:
                if c.get("role", "required") == "required":
                    missing.append(c["name"])
                continue
            results.append(r)
        if missing:
            verdict = "not tested"
            text = f"not tested: {h.get('not_tested') or 'no data for ' + ', '.join(missing)}"
        else:
            outcomes = [_outcome(r) for r in results if r.get("kind") != "ratio" and r["role"] == "required"]
            verdict = ("supported" if outcomes and all(o == "for" for o in outcomes)
                       else "rejected" if "against" in outcomes else "inconclusive")
            text = "; ".join(evidence(r) for r in results)
        out.append({"id": h["id"], "claim": h.get("claim", ""), "model": model, "verdict": verdict, "evidence": text,
                    "contrasts": results})
    return out

"""``har2client analyze``: runs in, ``summary.json`` and ``report.md`` out."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any

from ..grading import SCORING_VERSION
from ._prereg import read_prereg, verdicts
from ._runs import Cell, benchmark_name, load_cells, matches_task, metric_of, setting_name
from ._stats import bootstrap_ci, mean


def _cell_summary(cell: Cell, resamples: int, seed: int) -> dict[str, Any]:
    values = cell.values()
    pts = [v * 100 for v in values.values()]
    lo, hi = bootstrap_ci(pts, resamples, seed)
    rows = [r for rs in cell.runs.values() for r in rs]
    out: dict[str, Any] = {
        "setting": setting_name(cell.setting), "benchmark": benchmark_name(cell.benchmark), **cell.setting,
        **cell.benchmark, "tasks": len(values), "runs_per_task": round(len(rows) / len(values), 2),
        "pass_rate": round(mean(pts), 2), "ci": [round(lo, 2), round(hi, 2)],
        "full_pass": round(mean(list(cell.values("full_repair").values())) * 100, 2),
        "missing": sum(r["status"] == "missing" for r in rows), "api_errors": cell.api_errors,
        "output_tokens_mean": round(mean([metric_of(r, "output_tokens") for r in rows]), 1),
    }
    if cell.benchmark["case"] == "investigate":
        out["probes_used_mean"] = round(mean([metric_of(r, "probes_used") for r in rows]), 2)
        hh = [r for r in rows if (r.get("grading") or {}).get("hidden_header")]
        if hh:
            out["tested_hidden_header_share"] = round(mean([metric_of(r, "tested_hidden_header") for r in hh]) * 100, 2)
    out["breakdown"] = _breakdown(cell)
    return out


def _breakdown(cell: Cell) -> dict[str, Any]:
    """Pass rate by switch (or convention), by change kind, loud against silent, by repair variant."""
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for rows in cell.runs.values():
        v = mean([metric_of(r, "pass_rate") for r in rows]) * 100
        g = rows[0].get("grading") or {}
        for name, variant in (g.get("switches") or {}).items():
            if variant != "off":
                per["switch"][name].append(v)
        for kind in g.get("changes") or []:
            per["change"][kind].append(v)
        if g.get("changes"):
            per["loud_silent"]["loud only" if matches_task(rows[0], {"loud_only": True}) else
                               "silent only" if matches_task(rows[0], {"silent_only": True}) else "mixed"].append(v)
            per["variant"][g.get("variant") or "plain"].append(v)
            per["n_changes"][str(len(g["changes"]))].append(v)
        per["hidden_header"]["yes" if g.get("hidden_header") else "no"].append(v)
    return {k: {name: {"tasks": len(vs), "pass_rate": round(mean(vs), 2)} for name, vs in sorted(d.items())}
            for k, d in per.items()}


def _effort_ratios(cells: list[Cell]) -> list[dict[str, Any]]:
    """Output tokens at each effort against low, for each model and benchmark."""
    by: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for c in cells:
        rows = [r for rs in c.runs.values() for r in rs]
        key = (c.setting["model"], benchmark_name(c.benchmark))
        by[key][c.setting["effort"]] = mean([metric_of(r, "output_tokens") for r in rows])
    out = []
    for (model, bench), e in sorted(by.items()):
        if "low" in e and e["low"] > 0:
            for effort in ("medium", "high"):
                if effort in e:
                    out.append({"model": model, "benchmark": bench, "ratio": f"{effort}/low",
                                "value": round(e[effort] / e["low"], 2)})
    return out


def _arm_contrasts(cells: list[Cell], resamples: int, seed: int) -> list[dict[str, Any]]:
    """Each arm against the base arm (as_built, or base for a repair) of the same setting and case, paired by task."""
    out: list[dict[str, Any]] = []
    for c in cells:
        base_arm = "base" if c.benchmark["case"] == "repair" else "as_built"
        if c.benchmark["arm"] == base_arm:
            continue
        base = next((b for b in cells if b.setting == c.setting and b.benchmark == {**c.benchmark, "arm": base_arm}),
                    None)
        if base is None:
            continue
        a, b = c.values(), base.values()
        shared = sorted(set(a) & set(b))
        if not shared:
            continue
        diffs = [(a[t] - b[t]) * 100 for t in shared]
        lo, hi = bootstrap_ci(diffs, resamples, seed + len(out))
        out.append({"setting": setting_name(c.setting), "benchmark": benchmark_name(c.benchmark),
                    "contrast": f"{c.benchmark['arm']} - {base_arm}", "estimate": round(mean(diffs), 2),
                    "ci": [round(lo, 2), round(hi, 2)], "n": len(shared)})
    return out


def analyze(run_dirs: list[str], out: str, *, prereg: str | None = None, resamples: int = 10_000,
            seed: int = 0) -> dict[str, Any]:
    """Summarise ``run_dirs`` into ``out``/summary.json and ``out``/report.md; return the summary."""
    cells = load_cells(run_dirs)
    cells.sort(key=lambda c: (setting_name(c.setting), benchmark_name(c.benchmark)))
    summary: dict[str, Any] = {
        "runs": [os.path.abspath(d) for d in run_dirs], "resamples": resamples, "seed": seed, "level": 0.95,
        "scoring_versions": sorted({str(r.get("scoring_version"))
                                    for c in cells for rs in c.runs.values() for r in rs}),
        "cells": [_cell_summary(c, resamples, seed + i) for i, c in enumerate(cells)],
        "effort_output_ratios": _effort_ratios(cells),
        "arm_contrasts": _arm_contrasts(cells, resamples, seed + 7919),
    }
    if prereg:
        rules = read_prereg(prereg)
        summary["prereg"] = os.path.abspath(prereg)
        summary["verdicts"] = [v for model in sorted({c.setting["model"] for c in cells})
                               for v in verdicts(cells, rules, model, resamples, seed)]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as fh:
        fh.write(render_report(summary))
    return summary


def render_report(summary: dict[str, Any]) -> str:
    """The markdown report of an ``analyze`` summary: the pass-rate table, contrasts, verdicts."""
    cells = summary["cells"]
    settings = sorted({c["setting"] for c in cells})
    benches = sorted({c["benchmark"] for c in cells})
    by = {(c["setting"], c["benchmark"]): c for c in cells}
    lines = ["# Results", "",
             f"Pass rate (% of hidden tests passed, averaged over tasks; runs averaged per task first) with a 95% "
             f"percentile bootstrap interval over tasks ({summary['resamples']:,} resamples). Scoring version "
             f"{', '.join(summary['scoring_versions'])} (this analysis: {SCORING_VERSION}).", "",
             "| setting | " + " | ".join(benches) + " |", "| --- |" + " --- |" * len(benches)]
    for s in settings:
        row = []
        for b in benches:
            c = by.get((s, b))
            row.append(f"{c['pass_rate']:.1f} [{c['ci'][0]:.1f}, {c['ci'][1]:.1f}] (n={c['tasks']})" if c else "")
        lines.append(f"| {s} | " + " | ".join(row) + " |")
    lines += ["", "## Cells", "", "| setting | benchmark | tasks | runs/task | full pass % | missing | API errors | "
              "output tokens | probes used | tested header % |", "| --- |" + " --- |" * 9]
    for c in cells:
        lines.append(f"| {c['setting']} | {c['benchmark']} | {c['tasks']} | {c['runs_per_task']} | "
                     f"{c['full_pass']:.1f} | "
                     f"{c['missing']} | {c['api_errors']} | {c['output_tokens_mean']:.0f} | "
                     f"{c.get('probes_used_mean', '')} | {c.get('tested_hidden_header_share', '')} |")
    if summary["arm_contrasts"]:
        lines += ["", "## Arms against the base arm (paired by task)", ""]
        lines += [f"- {r['setting']}, {r['benchmark']}: {r['contrast']} {r['estimate']:+.1f} pts "
                  f"[95% CI {r['ci'][0]:+.1f}, {r['ci'][1]:+.1f}] (n={r['n']})" for r in summary["arm_contrasts"]]
    if summary["effort_output_ratios"]:
        lines += ["", "## Output tokens by effort", ""]
        lines += [f"- {r['model']}, {r['benchmark']}: {r['ratio']} = {r['value']:.2f}x"
                  for r in summary["effort_output_ratios"]]
    if summary.get("verdicts"):
        lines += ["", "## Pre-registered hypotheses", "", "| ID | model | claim | verdict | evidence |",
                  "| --- | --- | --- | --- | --- |"]
        lines += [f"| {v['id']} | {v['model']} | {v['claim']} | {v['verdict']} | {v['evidence']} "
                  "|" for v in summary["verdicts"]]
    return "\n".join(lines) + "\n"

"""Reading run folders into per-task values.

A run folder is what ``har2client run`` writes. Per (task, run) the last ok or missing line counts (a
missing submission scores 0); api_error lines are counted and left out. A setting is a model and an
effort; a benchmark is a case, a tier, an arm and (Case 2) a probe budget. A task's value in a cell is
the mean over its runs.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .._errors import Har2ClientError
from ..grading import read_results

SETTING_KEYS = ("model", "effort")
BENCHMARK_KEYS = ("case", "tier", "arm", "probes")


@dataclass
class Cell:
    """The tasks of one setting on one benchmark: each task's runs."""

    setting: dict[str, Any]
    benchmark: dict[str, Any]
    runs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)   # task_id -> rows
    api_errors: int = 0

    def values(self, metric: str = "pass_rate", subset: dict[str, Any] | None = None) -> dict[str, float]:
        """Each task's mean of ``metric`` over its runs (tasks of ``subset`` only)."""
        out = {}
        for task_id, rows in self.runs.items():
            if subset and not matches_task(rows[0], subset):
                continue
            out[task_id] = sum(metric_of(r, metric) for r in rows) / len(rows)
        return out


def metric_of(row: dict[str, Any], metric: str) -> float:
    if metric == "pass_rate":
        return float(row["pass_rate"])
    if metric == "full_repair":
        return float(row["pass_rate"] == 1.0)
    if metric == "tested_hidden_header":
        return float(bool(row.get("tested_hidden_header")))
    if metric == "probes_used":
        return float(row.get("probes_used") or 0)
    if metric == "output_tokens":
        return float((row.get("tokens") or {}).get("completion", 0))
    raise Har2ClientError(f"no metric {metric!r} (pass_rate, full_repair, tested_hidden_header, probes_used, "
                          "output_tokens)")


def matches_task(row: dict[str, Any], subset: dict[str, Any]) -> bool:
    """Whether a row's task is in ``subset``: hidden_header, n_changes, variant, change, loud_only, silent_only."""
    g = row.get("grading") or {}
    for key, want in subset.items():
        if key == "hidden_header":
            have: Any = bool(g.get("hidden_header"))
        elif key == "n_changes":
            have = len(g.get("changes") or [])
        elif key == "variant":
            have = g.get("variant") or "plain"
        elif key == "change":
            if want not in (g.get("changes") or []):
                return False
            continue
        elif key == "loud_only":
            have = bool(g.get("loud")) and not g.get("silent")
        elif key == "silent_only":
            have = bool(g.get("silent")) and not g.get("loud")
        else:
            raise Har2ClientError(f"no task subset {key!r} (hidden_header, n_changes, variant, change, loud_only, "
                                  "silent_only)")
        if isinstance(want, list) and not isinstance(have, list):
            if have not in want:
                return False
        elif have != want:
            return False
    return True


def load_cells(run_dirs: list[str]) -> list[Cell]:
    """Every (setting, benchmark) cell in ``run_dirs``."""
    cells: dict[tuple[Any, ...], Cell] = {}
    for d in run_dirs:
        meta_path = os.path.join(d, "run.json")
        if not os.path.isfile(meta_path):
            raise Har2ClientError(f"{d}: not a run folder (no run.json)")
        names = sorted(n for n in os.listdir(d) if n.startswith("run-") and n.endswith(".jsonl"))
        for name in names:
            latest: dict[str, dict[str, Any]] = {}
            errors: dict[tuple[Any, ...], int] = defaultdict(int)
            for row in read_results(os.path.join(d, name)):
                key = tuple(row.get(k) for k in SETTING_KEYS + BENCHMARK_KEYS)
                if row.get("status") == "api_error":
                    errors[key] += 1
                elif row.get("status") in ("ok", "missing"):
                    latest[row["task_id"]] = row
            for row in latest.values():
                key = tuple(row.get(k) for k in SETTING_KEYS + BENCHMARK_KEYS)
                cell = cells.get(key)
                if cell is None:
                    cell = cells[key] = Cell({k: row.get(k) for k in SETTING_KEYS},
                                             {k: row.get(k) for k in BENCHMARK_KEYS})
                cell.runs.setdefault(row["task_id"], []).append(row)
            for key, n in errors.items():
                if key in cells:
                    cells[key].api_errors += n
    if not cells:
        raise Har2ClientError(f"no finished episodes in {', '.join(run_dirs)}")
    return list(cells.values())


def setting_name(setting: dict[str, Any]) -> str:
    return setting["model"] + (f" {setting['effort']}" if setting.get("effort") not in (None, "none") else "")


def benchmark_name(b: dict[str, Any]) -> str:
    case = {"build": "Case 1", "investigate": "Case 2", "repair": "Case 3"}.get(b["case"], b["case"])
    probes = f", {b['probes']} probes" if b["case"] == "investigate" else ""
    return f"{case} Tier {b['tier']} {b['arm']}{probes}"


def read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)

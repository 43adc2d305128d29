"""The leaderboard: ``analyze`` summaries as a table of settings x benchmarks, and the verdict table.

Cells show the pass rate; the 95% interval is in the cell's tooltip, shown on hover and on keyboard
focus (every cell is focusable). Column headers are buttons that sort by that column. The HTML is
built here, with every value escaped, and sorted by a small script the page carries (``SORT_JS``).
"""

from __future__ import annotations

import html
import json
import os
from typing import Any

EMPTY = ("No results yet. Run a model with <code>har2client run</code>, summarise the runs with "
         "<code>har2client analyze RUNS --out DIR</code>, and start the Space with <code>--results DIR</code>.")

CSS = """
.h2c-board { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.h2c-board th, .h2c-board td { border: 1px solid #d0d7de; padding: 6px 10px; text-align: right; }
.h2c-board th:first-child, .h2c-board td:first-child { text-align: left; }
.h2c-board th button { all: unset; cursor: pointer; font-weight: 600; }
.h2c-board th button:focus-visible { outline: 2px solid #0969da; }
.h2c-board td.h2c-cell { position: relative; }
.h2c-board td.h2c-cell:focus { outline: 2px solid #0969da; }
.h2c-ci { display: none; position: absolute; z-index: 10; left: 0; top: 100%; white-space: nowrap;
          background: #24292f; color: #fff; padding: 3px 7px; border-radius: 4px; font-size: 12px; }
.h2c-board td.h2c-cell:hover .h2c-ci, .h2c-board td.h2c-cell:focus .h2c-ci { display: block; }
.h2c-empty { padding: 1em; border: 1px dashed #d0d7de; }
"""

SORT_JS = """
() => {
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".h2c-board th button");
    if (!button) return;
    const table = button.closest("table");
    const col = Number(button.dataset.col);
    const descending = button.dataset.order !== "desc";
    table.querySelectorAll("th button").forEach((b) => {
      b.dataset.order = "";
      b.closest("th").removeAttribute("aria-sort");
    });
    button.dataset.order = descending ? "desc" : "asc";
    button.closest("th").setAttribute("aria-sort", descending ? "descending" : "ascending");
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    const key = (row) => {
      const cell = row.cells[col];
      const v = cell.dataset.value;
      return v === undefined || v === "" ? null : (isNaN(Number(v)) ? v : Number(v));
    };
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : x > y ? 1 : 0) * (descending ? -1 : 1);
    });
    rows.forEach((row) => body.appendChild(row));
  });
}
"""


def read_summaries(results: str | None) -> list[dict[str, Any]]:
    """Every ``summary.json`` under ``results`` (a summary file, or a folder searched one level deep)."""
    if not results:
        return []
    if os.path.isfile(results):
        paths = [results]
    elif os.path.isdir(results):
        paths = [os.path.join(results, "summary.json")] + [os.path.join(results, d, "summary.json")
                                                             for d in sorted(os.listdir(results))]
    else:
        return []
    out = []
    for p in paths:
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as fh:
                data = json.load(fh)
            data["_path"] = p
            out.append(data)
    return out


def board(summaries: list[dict[str, Any]]) -> tuple[list[str], list[str], dict[tuple[str, str], dict[str, Any]]]:
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for s in summaries:
        for c in s.get("cells", []):
            cells[(c["setting"], c["benchmark"])] = {**c, "_source": s.get("_path"), "_runs": s.get("runs", [])}
    settings = sorted({k[0] for k in cells})
    benchmarks = sorted({k[1] for k in cells})
    return settings, benchmarks, cells


def leaderboard_html(summaries: list[dict[str, Any]], raw_link: str | None = None) -> str:
    """The leaderboard table as HTML (sortable, each cell's interval on hover and focus)."""
    settings, benchmarks, cells = board(summaries)
    if not cells:
        return f'<div class="h2c-empty" id="h2c-empty">{EMPTY}</div>'
    e = html.escape
    head = "".join(f'<th scope="col"><button type="button" data-col="{i + 1}">{e(b)}</button></th>'
                   for i, b in enumerate(benchmarks))
    rows = []
    for s in settings:
        tds = [f'<th scope="row" data-value="{e(s)}">{e(s)}</th>']
        for b in benchmarks:
            c = cells.get((s, b))
            if c is None:
                tds.append('<td data-value="">–</td>')
                continue
            ci = f"95% CI {c['ci'][0]:.1f} to {c['ci'][1]:.1f} (n={c['tasks']}, {c['runs_per_task']:g} runs/task)"
            tds.append(f'<td class="h2c-cell" tabindex="0" data-value="{c["pass_rate"]:.2f}" aria-label="{e(s)}, '
                       f'{e(b)}: {c["pass_rate"]:.1f}%, {e(ci)}">{c["pass_rate"]:.1f}'
                       f'<span class="h2c-ci" role="tooltip">{e(ci)}</span></td>')
        rows.append("<tr>" + "".join(tds) + "</tr>")
    sources = sorted({p for c in cells.values() for p in c.get("_runs", [])})
    links = "".join(f"<li><code>{e(p)}</code></li>" for p in sources)
    raw = (f'<p>Raw results: <a href="{e(raw_link)}">{e(raw_link)}</a></p>' if raw_link else "") + \
        (f"<details><summary>Run folders behind these numbers</summary><ul>{links}</ul></details>" if links else "")
    return (f'<table class="h2c-board" id="h2c-leaderboard"><thead><tr><th scope="col">'
            f'<button type="button" data-col="0">setting</button></th>{head}</tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>"
            "<p>Pass rate: % of hidden tests passed, averaged over tasks. Hover or focus a cell for its 95% "
            "interval; click a column to sort.</p>" + raw)


def verdict_rows(summaries: list[dict[str, Any]]) -> list[list[str]]:
    out = []
    for s in summaries:
        for v in s.get("verdicts", []):
            out.append([v["id"], v["model"], v["claim"], v["verdict"], v["evidence"]])
    return out


def chart_rows(summaries: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Data for the charts: pass rate by effort with and without extra information, and per switch."""
    _, _, cells = board(summaries)
    info_arms = {"hint", "evidence"}
    effort_rows, switch_rows = [], []
    for (setting, bench), c in cells.items():
        effort = c.get("effort") or "none"
        arm = c.get("arm") or ""
        probed = c.get("case") == "investigate" and c.get("probes")
        effort_rows.append({"model": c.get("model", setting), "effort": effort, "benchmark": bench,
                            "information": "with" if arm in info_arms or probed else "without",
                            "pass_rate": c["pass_rate"]})
        for name, v in (c.get("breakdown", {}).get("switch") or {}).items():
            switch_rows.append({"setting": setting, "switch": name, "pass_rate": v["pass_rate"], "benchmark": bench})
    return {"effort": effort_rows, "switch": switch_rows}

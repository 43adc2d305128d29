"""The task explorer: what a model sees of a task, and nothing else.

It reads a task's visible files only (``tasks._task.visible_files``: the arm's goal and recording,
task.json, a repair's client_v1.py and failure.txt), never ``hidden/``. Switch settings are hidden for
the test split; the switch filter works only for tasks whose configurations were published (a
``configs.jsonl`` beside the tasks, as ``build tierb --configs`` writes for a public seed).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from ..har import read_har, render_compact
from ..tasks import NOTE, arms_of, task_metas, visible_files

EXCERPT_CHARS = 1500


@dataclass
class TaskCard:
    task_id: str
    path: str
    tier: str
    case: str
    domain: str
    arms: list[str]
    switches: dict[str, str] = field(default_factory=dict)


class TaskIndex:
    """The tasks of a folder of task directories, by what a visitor may filter on."""

    def __init__(self, tasks: str | None) -> None:
        self.cards: dict[str, TaskCard] = {}
        self.public_switches = False
        if not tasks or not os.path.isdir(tasks):
            return
        switches = self._published_switches(tasks)
        self.public_switches = bool(switches)
        for path, meta in task_metas(tasks):
            tid = meta["task_id"]
            self.cards[tid] = TaskCard(tid, path, str(meta.get("tier", "")), str(meta.get("case", "build")),
                                       str(meta.get("domain", "")), list(arms_of(path)), switches.get(tid, {}))

    @staticmethod
    def _published_switches(tasks: str) -> dict[str, dict[str, str]]:
        path = os.path.join(tasks, "configs.jsonl")
        out: dict[str, dict[str, str]] = {}
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    row = json.loads(line)
                    on = {k: v for k, v in row.get("switches", {}).items() if v != "off"}
                    out[row["task_id"]] = on
                    for case in ("investigate",):  # the same configuration under its Case 2 id
                        out[row["task_id"].replace("tierb_", f"{case}_", 1)] = on
        return out

    def switch_names(self) -> list[str]:
        """The switch names the published configurations have."""
        return sorted({s for c in self.cards.values() for s in c.switches})

    def find(self, text: str = "", tier: str = "any", case: str = "any", arm: str = "any",
             switch: str = "any") -> list[str]:
        """The ids of the tasks that match the search text and filters."""
        text = (text or "").strip().lower()
        return [c.task_id for c in self.cards.values()
                if (not text or text in c.task_id.lower() or text in c.domain.lower())
                and tier in ("any", c.tier) and case in ("any", c.case) and arm in ("any", *c.arms)
                and (switch == "any" or switch in c.switches)]

    def view(self, task_id: str, arm: str | None = None) -> dict[str, Any]:
        """The visible parts of one task for one arm: goal, request list, an excerpt, the arm's note."""
        card = self.cards.get(task_id)
        if card is None:
            return {"error": f"no task {task_id!r} here"}
        arm = arm if arm in card.arms else card.arms[0]
        names = visible_files(card.path, arm)
        goal_name, rec_name = names[0], names[1]
        with open(os.path.join(card.path, goal_name), encoding="utf-8") as fh:
            goal = fh.read()
        rec = read_har(os.path.join(card.path, rec_name))
        requests = [f"{e.request.method} {e.request.url.split('?')[0]} -> {e.response.status}" for e in rec.entries]
        excerpt = render_compact(rec)
        if len(excerpt) > EXCERPT_CHARS:
            more = len(excerpt) - EXCERPT_CHARS
            excerpt = excerpt[:EXCERPT_CHARS] + f"\n[... {more} more characters in the full recording]"
        note = ""
        if NOTE in goal:
            note = goal.split(NOTE, 1)[1].strip().split("\n\n", 1)[0]
        extra = {}
        for name in names[3:]:
            with open(os.path.join(card.path, name), encoding="utf-8") as fh:
                extra[name] = fh.read()
        return {"task_id": task_id, "arm": arm, "arms": card.arms, "tier": card.tier, "case": card.case,
                "goal": goal, "requests": requests, "excerpt": excerpt, "note": note, "files": names, "extra": extra,
                "switches": card.switches if self.public_switches else None}

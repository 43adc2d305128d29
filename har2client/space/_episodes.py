"""The episode viewer: a Case 2 episode record (``har2client episode`` or ``run --case investigate``),
one step at a time."""

from __future__ import annotations

import json
import os
from typing import Any

from .._errors import Har2ClientError
from .._jsonl import json_lines

MAX_EPISODE_BYTES = 20 * 1024 * 1024


def read_episode_file(path: str) -> list[dict[str, Any]]:
    """The lines of an episode JSONL; a clear error for anything else."""
    if os.path.getsize(path) > MAX_EPISODE_BYTES:
        raise Har2ClientError(f"{os.path.basename(path)}: larger than 20 MB")
    lines = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in json_lines(fh, os.path.basename(path)):
            if not isinstance(line, dict) or "kind" not in line:
                raise Har2ClientError(f"{os.path.basename(path)}: line {n} is not an episode line (no kind)")
            lines.append(line)
    if not lines or lines[0]["kind"] != "start":
        raise Har2ClientError(f"{os.path.basename(path)}: not an episode record (it does not begin with a start line)")
    return lines


def steps(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The episode as steps: each message, each tool call with its answer, and the end with the grade."""
    out: list[dict[str, Any]] = []
    for line in lines:
        kind = line["kind"]
        if kind == "start":
            out.append({"title": f"Episode of {line.get('task_id')}: arm {line.get('arm')}, budget "
                                 f"{line.get('budget')}",
                        "text": f"Tools: {', '.join(line.get('tools', []))}. Policy or model: "
                                f"{line.get('policy') or '?'}."})
        elif kind == "message":
            calls = line.get("tool_calls") or []
            text = line.get("content") or ""
            if calls:
                text += "".join(f"\n\n→ calls `{c.get('name')}`" + (f" with `{c.get('arguments', '')[:2000]}`"
                                                                     if c.get("name") != "submit_client" else "")
                                for c in calls)
            out.append({"title": f"{line.get('role')} (turn {line.get('turn')})", "text": text.strip(),
                        "reasoning": line.get("reasoning")})
        elif kind == "tool":
            step: dict[str, Any] = {"title": f"tool {line.get('name')}", "text": ""}
            if line.get("name") == "http_request":
                try:
                    args = json.loads(line.get("arguments") or "{}")
                except ValueError:
                    args = {"raw": line.get("arguments")}
                step["request"] = args
                step["answer"] = line.get("result")
            elif line.get("name") == "submit_client":
                try:
                    step["code"] = json.loads(line.get("arguments") or "{}").get("code", "")
                except ValueError:
                    step["code"] = line.get("arguments") or ""
                step["text"] = json.dumps(line.get("result"))
            else:
                step["text"] = json.dumps(line.get("result"))
            out.append(step)
        elif kind == "end":
            grade = line.get("grade") or {}
            out.append({"title": f"end: {line.get('reason')}, pass rate {line.get('pass_rate', 0):.3f}",
                        "text": f"probes used {line.get('probes_used')}; tested the hidden header: "
                                f"{line.get('tested_hidden_header')}", "code": line.get("code"),
                        "tests": [[t["name"], "pass" if t["passed"] else "fail", t.get("error") or ""]
                                  for t in grade.get("tests", [])]})
    return out

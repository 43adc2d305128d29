"""An investigate episode: a build task, a practice server the model may probe, and a submission.

The practice server is an instance of the task's API with its own seed, host, credentials and data
(none of them the recording's or any grading instance's), served in-process: starting one costs
milliseconds. The trusted side makes every probe from the tool's arguments, never from model code;
each probe is bounded in size, answered through the engine's app, and written to the episode record.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from .._errors import TaskError
from .._seeding import rng, token_hex
from ..api import Instance, client_kwargs, create_app, instance_seed
from ..grading import SCORING_VERSION, grade_code
from ..har import clean
from ..tasks import Task, arms_of, load_task, render_observation
from ._tools import MAX_PROBE_REQUEST_BYTES, METHODS, PROBE_BODY_CHARS, tools_for

BUDGETS = (0, 1, 5)
# Grades a submission: (task directory, code, grading seed) -> the grade as a dict.
GradeFn = Callable[[str, str, int], dict[str, Any]]


class InvestigateEpisode:
    """One episode. ``tool(name, arguments)`` answers a tool call; the record is ``lines`` (JSONL).

    ``grade_fn`` grades the submission (by default here, in this thread's sandbox; an environment
    passes its shared grading pool's).
    """

    def __init__(self, task: Task | str, budget: int, arm: str = "as_built", episode_seed: int | None = None,
                 policy: str = "", grade_fn: GradeFn | None = None) -> None:
        self.task = task if isinstance(task, Task) else load_task(task)
        if budget < 0:
            raise TaskError(f"a probe budget is 0 or more, not {budget}")
        arms = arms_of(self.task.path)
        if arm not in arms:
            raise TaskError(f"{self.task.path}: no arm {arm!r} (this task has {', '.join(arms)})")
        self.budget, self.arm = budget, arm
        self._grade = grade_fn or grade_code
        self.episode_seed = episode_seed if episode_seed is not None else secrets.randbits(62)
        self.model = self.task.model
        task_seed = int(self.task.grading["task_seed"])
        self.practice = Instance(self.model, instance_seed(task_seed, "practice", self.episode_seed))
        host = urlsplit(self.model.server).hostname or "api.example"
        self.base_url = f"https://practice-{token_hex(rng(self.episode_seed, 'practice-host'), 3)}.{host}"
        self._transport = httpx.WSGITransport(app=create_app(self.model, self.practice))
        self.credentials = {k: v for k, v in client_kwargs(self.model, self.practice, self.base_url).items()
                            if k != "base_url"}
        self.probes = 0
        self.turn = 0
        self.submitted = False
        self._graded: tuple[str, dict[str, Any]] | None = None
        self.ended: dict[str, Any] | None = None
        self.started = time.monotonic()
        self.lines: list[dict[str, Any]] = [{
            "kind": "start", "task_id": self.task.task_id, "case": "investigate", "arm": arm, "budget": budget,
            "practice_base_url": self.base_url if budget > 0 else None, "episode_seed": self.episode_seed,
            "scoring_version": SCORING_VERSION, "tools": [t["function"]["name"] for t in self.tools()],
            "policy": policy}]

    # -- what the model gets ----------------------------------------------------------------

    def tools(self) -> list[dict[str, Any]]:
        """The episode's tools in OpenAI's format (no ``http_request`` when the budget is 0)."""
        return tools_for(self.budget)

    def practice_section(self) -> str:
        """The goal's extra section: the practice server, its credentials, the budget (none in the control)."""
        if self.budget == 0:
            return ""
        creds = "\n".join(f"- `{k}`: `{v}`" for k, v in self.credentials.items())
        return (f"## Practice server\n\nBefore you submit, you may send up to {self.budget} requests to a practice "
                f"server with the `http_request` tool. It runs the same API with its own data.\n\n"
                f"- base URL: `{self.base_url}`\n{creds}\n\nEnd the episode with `submit_client`: the code is graded "
                "on a fresh server, as in the goal.\n")

    def prompt(self) -> str:
        """The first user message: the arm's observation and, with a budget, the practice section."""
        text = render_observation(self.task.path, self.arm)
        return text + ("\n\n" + self.practice_section() if self.budget else "")

    # -- the record -------------------------------------------------------------------------

    def message(self, role: str, content: str | None, tool_calls: list[dict[str, Any]] | None = None,
                reasoning: str | None = None, tokens: dict[str, int] | None = None,
                seconds: float | None = None) -> None:
        """Record one message of the conversation (with its tool calls, reasoning and tokens)."""
        line: dict[str, Any] = {"kind": "message", "turn": self.turn, "role": role, "content": content}
        if tool_calls:
            line["tool_calls"] = tool_calls
        if reasoning is not None:
            line["reasoning"] = reasoning
        if tokens is not None:
            line["tokens"] = tokens
        if seconds is not None:
            line["seconds"] = round(seconds, 4)
        self.lines.append(line)
        if role == "assistant":
            self.turn += 1

    def act(self, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
        """A scripted policy's turn: one assistant message calling one tool, and the tool's answer."""
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call_id = f"call_{len(self.lines)}"
        self.message("assistant", None, [{"id": call_id, "name": name, "arguments": text}])
        return self.tool(name, text, call_id)

    def tool(self, name: str, arguments: dict[str, Any] | str, call_id: str = "") -> dict[str, Any]:
        """Answer one tool call; bad calls get ``{"error": ...}`` and cost no probe."""
        t = time.monotonic()
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        probe = None
        if self.ended is not None:
            result: dict[str, Any] = {"error": "the episode has ended"}
        else:
            try:
                args = json.loads(text) if isinstance(arguments, str) else dict(arguments)
                if not isinstance(args, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                args, result = None, {"error": f"the arguments are not a JSON object ({exc})"}
            if args is not None:
                if name == "http_request":
                    result = self._probe(args)
                    probe = result.get("probe")
                elif name == "submit_client":
                    result = self._submit(args)
                else:
                    result = {"error": f"no tool {name!r} (tools: {', '.join(self.lines[0]['tools'])})"}
        self.lines.append({"kind": "tool", "turn": self.turn, "call_id": call_id or f"call_{len(self.lines)}",
                           "name": name, "arguments": text, "result": result, "probe": probe,
                           "seconds": round(time.monotonic() - t, 4)})
        if self._graded is not None and self.ended is None:
            self.end("submitted", code=self._graded[0], grade=self._graded[1])
        return result

    def _probe(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.budget == 0:
            return {"error": "http_request is not offered in this episode (its probe budget is 0)"}
        unknown = sorted(set(args) - {"method", "url", "headers", "query", "body"})
        if unknown:
            return {"error": f"unknown arguments: {', '.join(unknown)}"}
        method, url = args.get("method"), args.get("url")
        if not isinstance(method, str) or method.upper() not in METHODS:
            return {"error": f"method must be one of {', '.join(METHODS)}"}
        if not isinstance(url, str) or not url:
            return {"error": "url must be an absolute URL on the practice server"}
        headers, query = args.get("headers") or {}, args.get("query") or {}
        for what, value in (("headers", headers), ("query", query)):
            if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k,
                                                      v in value.items()):
                return {"error": f"{what} must be an object of strings"}
        try:
            target = httpx.URL(url)
        except (httpx.InvalidURL, TypeError) as exc:
            return {"error": f"url is not a URL ({exc})"}
        base = httpx.URL(self.base_url)
        if (target.scheme, target.host, target.port) != (base.scheme, base.host, base.port):
            return {"error": f"only the practice server {self.base_url} is reachable; {url[:200]} is not on it "
                             "(this request was not sent and does not count as a probe)"}
        if self.probes >= self.budget:
            return {"error": f"the probe budget is used up ({self.budget} request"
                             f"{'s' if self.budget != 1 else ''}); submit the client with submit_client"}
        body = args.get("body")
        content = b""
        if body is not None:
            content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            if not isinstance(body, str) and not any(k.lower() == "content-type" for k in headers):
                headers = {**headers, "Content-Type": "application/json"}
        if len(content) > MAX_PROBE_REQUEST_BYTES:
            return {"error": f"the body is larger than {MAX_PROBE_REQUEST_BYTES} bytes"}
        self.probes += 1
        request = httpx.Request(method.upper(), target.copy_merge_params(query) if query else target,
                                headers=headers, content=content or None)
        try:
            response = self._transport.handle_request(request)
            response.read()
        except Exception as exc:  # noqa: BLE001 - the model's request broke the app: say so, go on
            return {"error": f"the request could not be sent: {type(exc).__name__}: {exc}", "probe": self.probes}
        text = clean(response.content.decode("utf-8", "replace"))
        if len(text) > PROBE_BODY_CHARS:
            text = text[:PROBE_BODY_CHARS] + f"\n[... cut: {len(text) - PROBE_BODY_CHARS} more characters]"
        return {"status": response.status_code, "headers": [[k, v] for k, v in response.headers.multi_items()],
                "body": text, "probe": self.probes, "probes_left": self.budget - self.probes}

    def _submit(self, args: dict[str, Any]) -> dict[str, Any]:
        code = args.get("code")
        if not isinstance(code, str) or not code.strip():
            return {"error": "code must be the whole client.py as a string"}
        result = self._grade(self.task.path, code, self.grading_seed)
        self.submitted = True
        self._graded = (code, result)  # the episode ends once this call is on the record
        return {"pass_rate": result["pass_rate"], "passed": result["passed"], "total": result["total"]}

    @property
    def grading_seed(self) -> int:
        """The seed of the episode's grading instance."""
        return rng(self.episode_seed, "grading").getrandbits(62)

    def end(self, reason: str, code: str | None = None, grade: dict[str, Any] | None = None) -> dict[str, Any]:
        """End the episode (idempotent); a missing submission scores 0."""
        if self.ended is None:
            from ._measures import tested_hidden_header

            self.ended = {"kind": "end", "submitted": code is not None, "code": code, "grade": grade,
                          "pass_rate": float(grade["pass_rate"]) if grade else 0.0, "probes_used": self.probes,
                          "tested_hidden_header": tested_hidden_header(self.lines, self.model),
                          "reason": reason, "seconds": round(time.monotonic() - self.started, 3)}
            self.lines.append(self.ended)
        return self.ended

    def write(self, path: str) -> None:
        """Write the episode record to ``path`` as JSONL."""
        with open(path, "w", encoding="utf-8") as fh:
            for line in self.lines:
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")

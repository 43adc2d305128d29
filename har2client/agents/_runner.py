"""Running a model on the tasks through an OpenAI-compatible API: ``har2client run``.

    OUT/run.json              the settings, the scoring version, when it started
    OUT/run-R.jsonl           one line per task of run R: the request, the full response(s), the extracted
                              code, the grade, tokens and timings; ``status`` ok, missing or api_error
    OUT/episodes/ID.R.jsonl   Case 2: each episode's record (the investigate episode format)

Cases 1 and 3 are one call with no tools; Case 2 is a tool-calling conversation (``http_request``,
``submit_client``) in which each assistant turn, with its reasoning fields as the provider sent them
(``reasoning_content``, ``reasoning``, ``reasoning_details``), goes back in the next request. The SDK
retries 429 and 5xx answers with backoff (``max_retries``); an error after that is an ``api_error``
line, excluded from scores and kept in the file. ``resume`` asks again only for what has no ok or
missing line.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

from .._errors import Har2ClientError
from .._seeding import derive_seed
from ..grading import SCORING_VERSION, append_line, grade_code, read_results
from ..tasks import Task, arms_of, load_task
from ._extract import extract_client
from ._prompts import task_messages

EFFORTS = ("low", "medium", "high", "none")
CASES = ("build", "investigate", "repair")
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")
FINISHED = ("ok", "missing")


@dataclass
class RunSettings:
    """One run of a model: which model and API, which case, tier, arm and effort, and where results go."""
    model: str
    base_url: str
    tasks: str
    out: str
    case: str = "build"
    tier: str = "B"
    arm: str | None = None
    effort: str = "none"
    probes: int = 5
    runs: int = 1
    max_output_tokens: int = 32768
    max_tokens_field: str = "max_tokens"
    concurrency: int = 4
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 600.0
    max_retries: int = 4
    compact: bool = True
    seed: int = 0
    limit: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    baseline: str | None = None  # a baseline writes the client instead of a model (no API is called)

    def check(self) -> None:
        """Raise a one-line error for a setting that is not allowed (the CLI's checks)."""
        if self.case not in CASES:
            raise Har2ClientError(f"--case must be one of {', '.join(CASES)}, not {self.case!r}")
        if self.effort not in EFFORTS:
            raise Har2ClientError(f"--effort must be one of {', '.join(EFFORTS)}, not {self.effort!r}")
        if self.tier not in ("A", "B"):
            raise Har2ClientError(f"--tier must be A or B, not {self.tier!r}")
        if self.runs < 1 or self.concurrency < 1 or self.max_output_tokens < 1:
            raise Har2ClientError("--runs, --concurrency and --max-output-tokens must be at least 1")
        if self.max_tokens_field not in ("max_tokens", "max_completion_tokens"):
            raise Har2ClientError("--max-tokens-field is max_tokens or max_completion_tokens")
        if self.baseline is not None:
            from ._baselines import BASELINES

            if self.baseline not in BASELINES:
                raise Har2ClientError(f"--baseline must be one of {', '.join(BASELINES)}, not {self.baseline!r}")
            if self.case == "investigate":
                raise Har2ClientError("a baseline does not probe: run it on --case build or repair")

    @property
    def label(self) -> str:
        """The setting, as the report names it: model, effort (never for a model without levels), arm."""
        parts = [self.model] + ([self.effort] if self.effort != "none" else []) + [self.arm_name]
        if self.case == "investigate":
            parts.append(f"{self.probes} probes")
        return " / ".join(parts)

    @property
    def arm_name(self) -> str:
        """The arm the run uses: the one asked for, or the case's base arm."""
        return self.arm or ("base" if self.case == "repair" else "as_built")


class ApiError(Exception):
    """The model's API failed after the SDK's retries."""


def _tasks(s: RunSettings) -> list[Task]:
    if not os.path.isdir(s.tasks):
        raise Har2ClientError(f"{s.tasks}: no such directory of tasks")
    out = []
    for name in sorted(os.listdir(s.tasks)):
        path = os.path.join(s.tasks, name)
        if not os.path.isfile(os.path.join(path, "task.json")):
            continue
        task = load_task(path)
        meta = task.meta
        if meta.get("case", "build") == s.case and str(meta.get("tier", "B")) == s.tier:
            if s.arm_name not in arms_of(path):
                raise Har2ClientError(f"{path}: no arm {s.arm_name!r} (it has {', '.join(arms_of(path))})")
            out.append(task)
    if not out:
        raise Har2ClientError(f"{s.tasks}: no {s.case} tasks of Tier {s.tier}")
    return out[: s.limit] if s.limit else out


# -- talking to the model ---------------------------------------------------------------------

class ModelClient:
    def __init__(self, s: RunSettings) -> None:
        from openai import OpenAI

        key = os.environ.get(s.api_key_env)
        if not key:
            raise Har2ClientError(f"${s.api_key_env} is not set: export the API key there, or name another "
                                  "variable with --api-key-env")
        self.s = s
        self.client = OpenAI(base_url=s.base_url, api_key=key, timeout=s.timeout, max_retries=s.max_retries)

    def call(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """One chat completion; the response as JSON data, with the call's seconds. Raises ApiError."""
        import openai

        kwargs: dict[str, Any] = {"model": self.s.model, "messages": messages,
                                  self.s.max_tokens_field: self.s.max_output_tokens}
        if self.s.effort != "none":
            kwargs["reasoning_effort"] = self.s.effort
        if tools:
            kwargs["tools"] = tools
        kwargs.update(self.s.extra)
        t = time.monotonic()
        try:
            response = self.client.chat.completions.create(**kwargs)
        except openai.APIError as exc:
            status = getattr(exc, "status_code", None)
            raise ApiError(f"{type(exc).__name__}{f' {status}' if status else ''}: {str(exc)[:300]}") from None
        data = response.model_dump(mode="json", exclude_unset=True)
        if not data.get("choices"):
            raise ApiError("the response has no choices")
        data["_seconds"] = round(time.monotonic() - t, 3)
        return data


def assistant_turn(response: dict[str, Any]) -> dict[str, Any]:
    """The assistant message to send back: content, tool calls and the reasoning fields the provider sent."""
    msg = response["choices"][0]["message"]
    turn: dict[str, Any] = {"role": "assistant", "content": msg.get("content")}
    if msg.get("tool_calls"):
        turn["tool_calls"] = [{"id": c["id"], "type": "function",
                               "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}}
                              for c in msg["tool_calls"]]
    for name in REASONING_FIELDS:
        if msg.get(name) is not None:
            turn[name] = msg[name]
    return turn


def tokens(responses: list[dict[str, Any]]) -> dict[str, int]:
    out = {"prompt": 0, "completion": 0, "reasoning": 0}
    for r in responses:
        u = r.get("usage") or {}
        out["prompt"] += int(u.get("prompt_tokens") or 0)
        out["completion"] += int(u.get("completion_tokens") or 0)
        out["reasoning"] += int((u.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0)
    return out


# -- episodes ---------------------------------------------------------------------------------

def _single(s: RunSettings, api: ModelClient | None, task: Task, run: int) -> dict[str, Any]:
    seed = derive_seed(s.seed, task.task_id, run, "grading") % (1 << 62)
    row: dict[str, Any]
    if api is None:  # a baseline: the same row, graded the same way, with no model call in it
        assert s.baseline is not None
        from ._baselines import baseline_source

        t = time.monotonic()
        code: str | None = baseline_source(s.baseline, task, s.arm_name)
        row = {"request": None, "responses": [], "code": code, "tokens": {},
               "seconds": {"model": round(time.monotonic() - t, 3)}}
    else:
        messages = task_messages(task.path, s.case, s.arm_name, s.compact)
        row = {"request": {"messages": messages}}
        response = api.call(messages)
        row["responses"] = [response]
        turn = assistant_turn(response)
        code = extract_client(turn.get("content"))
        row.update(code=code, tokens=tokens([response]), seconds={"model": response["_seconds"]})
    if code is None:
        row.update(status="missing", pass_rate=0.0, grade=None)
        return row
    t = time.monotonic()
    grade = grade_code(task.path, code, seed)
    row.update(status="ok", pass_rate=grade["pass_rate"], grade=grade)
    if s.case == "repair":
        from ..repair import regression_between

        with open(os.path.join(task.path, "client_v1.py"), encoding="utf-8") as fh:
            v1 = grade_code(task.path, fh.read(), seed)
        row["repair"] = regression_between(task.grading, v1, grade)
    row["seconds"]["grade"] = round(time.monotonic() - t, 3)
    return row


def _investigate(s: RunSettings, api: ModelClient | None, task: Task, run: int) -> dict[str, Any]:
    assert api is not None  # RunSettings.check refuses a baseline here
    from ..investigate import InvestigateEpisode

    episode = InvestigateEpisode(task, s.probes, s.arm_name, derive_seed(s.seed, task.task_id, run,
                                                                         "episode") % (1 << 62),
                                 policy=s.model, grade_fn=grade_code)
    messages = task_messages(task.path, "investigate", s.arm_name, s.compact, episode.practice_section())
    for m in messages:
        episode.message(m["role"], m["content"])
    responses: list[dict[str, Any]] = []
    row: dict[str, Any] = {"request": {"messages": list(messages), "tools": episode.tools()}, "responses": responses}
    for _ in range(s.probes + 4):  # every probe, a submit, and a few turns of slack
        response = api.call(messages, episode.tools())
        responses.append(response)
        turn = assistant_turn(response)
        messages.append(turn)
        u = tokens([response])
        episode.message("assistant", turn.get("content"),
                        [{"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                         for c in turn.get("tool_calls", [])] or None,
                        reasoning=next((json.dumps(turn[f]) if not isinstance(turn[f], str) else turn[f]
                                        for f in REASONING_FIELDS if f in turn), None),
                        tokens=u, seconds=response["_seconds"])
        if not turn.get("tool_calls"):
            code = extract_client(turn.get("content"))  # a client in plain text is taken as the submission
            if code is not None:
                episode.tool("submit_client", {"code": code}, "plain-answer")
            break
        for call in turn["tool_calls"]:
            result = episode.tool(call["function"]["name"], call["function"]["arguments"], call["id"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result,
                                                                                               ensure_ascii=False)})
        if episode.ended is not None:
            break
    end = episode.ended or episode.end("no submission")
    os.makedirs(os.path.join(s.out, "episodes"), exist_ok=True)
    episode.write(os.path.join(s.out, "episodes", f"{task.task_id}.{run}.jsonl"))
    row.update(status="ok" if end["submitted"] else "missing", code=end["code"], grade=end["grade"],
               pass_rate=end["pass_rate"], tokens=tokens(responses),
               probes_used=end["probes_used"], tested_hidden_header=end["tested_hidden_header"],
               seconds={"model": round(sum(r["_seconds"] for r in responses), 3)})
    return row


# -- the run ----------------------------------------------------------------------------------

Progress = Callable[[int, int, dict[str, Any]], None]


def run(s: RunSettings, *, resume: bool = False, progress: Progress | None = None) -> list[dict[str, Any]]:
    """Ask the model for every task and run; write the raw files; return every finished row."""
    s.check()
    tasks = _tasks(s)
    os.makedirs(s.out, exist_ok=True)
    meta_path = os.path.join(s.out, "run.json")
    settings = {k: v for k, v in asdict(s).items() if k not in ("out",)}
    if os.path.exists(meta_path):
        if not resume:
            raise Har2ClientError(f"{s.out}: holds a run already; pass --resume to continue it, or choose another "
                                  "--out")
        with open(meta_path, encoding="utf-8") as fh:
            old = json.load(fh)["settings"]
        changed = [k for k in settings if k not in ("concurrency", "runs", "limit", "timeout", "max_retries")
                   and old.get(k) != settings[k]]
        if changed:
            raise Har2ClientError(f"{s.out}: was run with other settings ({', '.join(changed)}); choose another --out")
    with open(meta_path, "w", encoding="utf-8") as fh:
        json.dump({"settings": settings, "label": s.label, "scoring_version": SCORING_VERSION,
                   "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, fh, indent=2)
    api = ModelClient(s) if s.baseline is None else None
    todo: list[tuple[Task, int]] = []
    fds: dict[int, int] = {}
    done_rows: list[dict[str, Any]] = []
    for r in range(1, s.runs + 1):
        path = os.path.join(s.out, f"run-{r}.jsonl")
        rows = read_results(path, repair=True)
        finished = {row["task_id"] for row in rows if row.get("status") in FINISHED}
        done_rows += [row for row in rows if row.get("status") in FINISHED]
        todo += [(t, r) for t in tasks if t.task_id not in finished]
        fds[r] = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    lock = threading.Lock()
    total, count = len(todo), 0

    def one(item: tuple[Task, int]) -> dict[str, Any]:
        task, r = item
        t = time.monotonic()
        base = {"task_id": task.task_id, "run": r, "model": s.model, "case": s.case, "tier": s.tier, "arm": s.arm_name,
                "effort": s.effort, "probes": s.probes if s.case == "investigate" else None, "label": s.label,
                "scoring_version": SCORING_VERSION, "grading": _grading_facts(task)}
        try:
            row = {**base, **(_investigate if s.case == "investigate" else _single)(s, api, task, r)}
        except ApiError as exc:
            row = {**base, "status": "api_error", "error": str(exc), "pass_rate": None}
        row.setdefault("seconds", {})["episode"] = round(time.monotonic() - t, 3)
        return row

    try:
        with ThreadPoolExecutor(s.concurrency) as pool:
            for future in as_completed([pool.submit(one, item) for item in todo]):
                row = future.result()
                with lock:
                    append_line(fds[row["run"]], row)
                    count += 1
                    if row["status"] in FINISHED:
                        done_rows.append(row)
                    if progress:
                        progress(count, total, row)
    finally:
        for fd in fds.values():
            os.close(fd)
    return done_rows


def _grading_facts(task: Task) -> dict[str, Any]:
    """What the analysis breaks scores down by: switches or conventions, a repair's changes; a hidden header."""
    g = task.grading
    return {"switches": g.get("switches") or {n: "on" for n in g.get("conventions", [])},
            "hidden_header": bool(g.get("hidden_header")), "level": g.get("level"),
            "changes": g.get("changes"), "loud": g.get("loud"), "silent": g.get("silent"), "variant": g.get("variant")}

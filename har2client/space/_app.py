"""The Space: leaderboard, task explorer, episode viewer, submissions and charts, in one Gradio app.

``build_app`` makes the Blocks; ``serve`` launches it with the page's CSS and sorting script and
starts the grading worker as its own process (submissions are never graded in the web process).
(No ``from __future__ import annotations`` here: Gradio reads ``gr.Request`` from the live annotation.)
"""

import atexit
import os
import subprocess
import sys
from typing import Any

from .._errors import Har2ClientError
from ._episodes import read_episode_file, steps
from ._explorer import TaskIndex
from ._leaderboard import (
    CSS,
    SORT_JS,
    chart_rows,
    leaderboard_html,
    read_summaries,
    verdict_rows,
)
from ._submissions import connect, parse_upload, status_rows, submit

ANY = "any"


def build_app(results: str | None = None, tasks: str | None = None, episodes: str | None = None,
              db: str = "space.sqlite", raw_link: str | None = None) -> Any:
    """The Space's Gradio Blocks: leaderboard, explorer, episodes, submissions, charts."""
    import gradio as gr
    import pandas as pd

    summaries = read_summaries(results)
    index = TaskIndex(tasks)
    connect(db).close()  # the schema exists before the first page load
    episode_files = sorted(os.path.join(episodes, f) for f in os.listdir(episodes) if f.endswith(".jsonl")) \
        if episodes and os.path.isdir(episodes) else []

    with gr.Blocks(title="HAR2Client") as app:
        gr.Markdown("# HAR2Client\nWrite an API client from recorded traffic; hidden tests on a fresh server grade it.")
        with gr.Tab("Leaderboard", id="leaderboard"):
            gr.HTML(leaderboard_html(summaries, raw_link), elem_id="h2c-board-wrap")
            gr.Markdown("### Pre-registered hypotheses (PREREG.md)")
            gr.Dataframe(pd.DataFrame(verdict_rows(summaries), columns=["ID", "model", "claim", "verdict", "evidence"]),
                         elem_id="h2c-verdicts", interactive=False, wrap=True)

        with gr.Tab("Explore", id="explore"):
            gr.Markdown("What a model sees: the goal, the requests in the recording and one short excerpt. "
                        "Hidden tests, grading credentials and reference clients are never shown.")
            with gr.Row():
                search = gr.Textbox(label="task id or domain", elem_id="h2c-search")
                tier = gr.Dropdown([ANY, "B", "A"], value=ANY, label="tier", elem_id="h2c-tier")
                case = gr.Dropdown([ANY, "build", "investigate", "repair"], value=ANY, label="case", elem_id="h2c-case")
                arm = gr.Dropdown([ANY, "as_built", "hint", "placebo", "evidence", "base", "notice"], value=ANY,
                                  label="arm", elem_id="h2c-arm")
                switch = gr.Dropdown([ANY, *index.switch_names()], value=ANY,
                                     label="switch (published configurations only)",
                                     elem_id="h2c-switch", interactive=index.public_switches)
            found = gr.Dropdown(index.find(), label=f"tasks ({len(index.cards)})", elem_id="h2c-found")
            shown_arm = gr.Radio([], label="arm shown", elem_id="h2c-shown-arm")
            note = gr.Markdown(elem_id="h2c-note")
            goal = gr.Markdown(elem_id="h2c-goal")
            requests = gr.Textbox(label="requests in the recording", lines=8, elem_id="h2c-requests")
            excerpt = gr.Code(label="excerpt of the recording", elem_id="h2c-excerpt")
            extra = gr.Code(label="client_v1.py and failure.txt (repair)", language="python", elem_id="h2c-extra")

            def refilter(text: str, t: str, c: str, a: str, s: str) -> Any:
                ids = index.find(text, t, c, a, s)
                return gr.update(choices=ids, value=ids[0] if ids else None, label=f"tasks ({len(ids)})")

            def show(task_id: str | None, a: str | None) -> tuple[Any, ...]:
                if not task_id:
                    return gr.update(choices=[], value=None), "", "Choose a task.", "", "", ""
                v = index.view(task_id, a)
                if "error" in v:
                    return gr.update(), "", v["error"], "", "", ""
                note_text = f"**Note of the {v['arm']} arm:** {v['note']}" if v["note"] else f"Arm {v['arm']}: no note."
                if v["switches"]:
                    note_text += "\n\nSwitches on: " + ", ".join(f"{k} ({val})" for k,
                                                                 val in sorted(v["switches"].items()))
                extra_text = "\n\n".join(f"# --- {k} ---\n{txt}" for k, txt in v["extra"].items())
                return (gr.update(choices=v["arms"], value=v["arm"]), note_text, v["goal"], "\n".join(v["requests"]),
                        v["excerpt"], extra_text)

            views = [shown_arm, note, goal, requests, excerpt, extra]
            for control in (search, tier, case, arm, switch):  # a filter shows its first match at once
                control.change(refilter, [search, tier, case, arm, switch], found).then(
                    lambda t: show(t, None), found, views)
            found.input(lambda t: show(t, None), found, views, api_name="open_task")
            shown_arm.input(show, [found, shown_arm], views)

        with gr.Tab("Episodes", id="episodes"):
            gr.Markdown("Case 2 episodes: the model probes a practice server, then submits its client.")
            with gr.Row():
                listed = gr.Dropdown([os.path.basename(f) for f in episode_files], label="recorded episodes",
                                     elem_id="h2c-episode-list")
                upload_ep = gr.File(label="or load an episode JSONL", file_types=[".jsonl"], elem_id="h2c-episode-file")
            state = gr.State({"steps": [], "i": 0})
            with gr.Row():
                prev_b = gr.Button("◀ previous", elem_id="h2c-prev")
                pos = gr.Markdown(elem_id="h2c-pos")
                next_b = gr.Button("next ▶", elem_id="h2c-next")
            step_title = gr.Markdown(elem_id="h2c-step-title")
            step_text = gr.Markdown(elem_id="h2c-step-text")
            reasoning = gr.Textbox(label="reasoning", lines=4, elem_id="h2c-reasoning")
            probe = gr.JSON(label="probe: request and answer", elem_id="h2c-probe")
            code = gr.Code(label="submitted client", language="python", elem_id="h2c-code")
            tests = gr.Dataframe(headers=["hidden test", "result", "error"], label="grade", elem_id="h2c-tests")

            def render(st: dict[str, Any]) -> tuple[Any, ...]:
                if not st["steps"]:
                    return "No episode loaded.", "", "", "", None, "", None
                s = st["steps"][st["i"]]
                return (f"step {st['i'] + 1} of {len(st['steps'])}", f"### {s['title']}", s.get("text", ""),
                        s.get("reasoning") or "", {"request": s["request"],
                                                   "answer": s["answer"]} if "request" in s else None,
                        s.get("code") or "", pd.DataFrame(s["tests"], columns=["hidden test", "result", "error"])
                        if s.get("tests") else None)

            outs = [pos, step_title, step_text, reasoning, probe, code, tests]

            def load(path: str | None) -> tuple[Any, ...]:
                if not path:
                    st: dict[str, Any] = {"steps": [], "i": 0}
                    return (st, *render(st))
                try:
                    st = {"steps": steps(read_episode_file(path)), "i": 0}
                except Har2ClientError as exc:
                    raise gr.Error(str(exc)) from None
                return (st, *render(st))

            def move(st: dict[str, Any], by: int) -> tuple[Any, ...]:
                if st["steps"]:
                    st = {**st, "i": max(0, min(len(st["steps"]) - 1, st["i"] + by))}
                return (st, *render(st))

            listed.input(lambda name: load(next((f for f in episode_files if os.path.basename(f) == name), None)),
                          listed, [state, *outs])
            upload_ep.upload(lambda f: load(f), upload_ep, [state, *outs])
            prev_b.click(lambda st: move(st, -1), state, [state, *outs])
            next_b.click(lambda st: move(st, 1), state, [state, *outs])

        with gr.Tab("Submit", id="submit"):
            gr.Markdown(f"Upload a predictions JSONL (`task_id`, `model`, `code` per line) or a zip of `TASK_ID.py` "
                        f"clients for the {len(index.cards)} tasks here. It is graded in the sandbox by a separate "
                        "worker; a task without a client scores 0. Up to 5 MB, 10 submissions a day.")
            with gr.Row():
                model_name = gr.Textbox(label="model name", elem_id="h2c-model")
                upload = gr.File(label="predictions", file_types=[".jsonl", ".zip"], elem_id="h2c-upload")
            send = gr.Button("Submit", variant="primary", elem_id="h2c-send")
            message = gr.Markdown(elem_id="h2c-message")
            queue = gr.Dataframe(headers=["id", "user", "model", "status", "graded", "mean pass rate", "error"],
                                 value=status_rows(db), elem_id="h2c-queue", interactive=False)
            refresh = gr.Button("refresh", size="sm", elem_id="h2c-refresh")

            def do_submit(name: str, path: str | None, request: gr.Request) -> tuple[str, Any]:
                if not path:
                    return "Choose a file first.", status_rows(db)
                try:
                    with open(path, "rb") as fh:
                        data = fh.read()
                    model, codes = parse_upload(path, data, set(index.cards))
                    user = (request.username if request and request.username else
                            (request.client.host if request and request.client else "anonymous"))
                    sid = submit(db, user, (name or model or "unnamed").strip()[:80], os.path.basename(path), codes,
                                 sorted(index.cards))
                except Har2ClientError as exc:
                    return f"**Not queued:** {exc}", status_rows(db)
                queued = f"Queued as submission {sid} ({len(codes)} clients for {len(index.cards)} tasks)."
                return queued, status_rows(db)

            send.click(do_submit, [model_name, upload], [message, queue])
            refresh.click(lambda: status_rows(db), None, queue)
            gr.Timer(1.0).tick(lambda: status_rows(db), None, queue)  # the queue's state, every second

        with gr.Tab("Charts", id="charts"):
            data = chart_rows(summaries)
            effort = pd.DataFrame(data["effort"] or [], columns=["model", "effort", "benchmark", "information",
                                                                 "pass_rate"])
            order = [e for e in ("none", "low", "medium", "high") if e in set(effort["effort"])]
            mean = (effort.groupby(["effort", "information"], as_index=False)["pass_rate"].mean()
                    if len(effort) else effort)
            if len(mean):  # one bar per effort and information, side by side rather than stacked
                mean["bar"] = mean["effort"] + ", " + mean["information"]
            bars = [f"{e}, {i}" for e in order for i in ("without", "with")]
            switches = pd.DataFrame(data["switch"] or [], columns=["setting", "switch", "pass_rate", "benchmark"])
            if len(switches):
                switches = switches.groupby(["switch", "setting"], as_index=False)["pass_rate"].mean()
                switches["bar"] = switches["switch"] + " / " + switches["setting"]
            gr.ScatterPlot(effort, x="effort", y="pass_rate", color="information", sort=order or None,
                           title="Effort against extra information (without: the base arm; with: hint, evidence or "
                                 "probes)",
                           elem_id="h2c-chart-effort")
            gr.BarPlot(mean, x="bar" if len(mean) else "effort", y="pass_rate", color="information",
                       sort=[b for b in bars if len(mean) and b in set(mean["bar"])] or None,
                       title="Mean pass rate by effort, without and with the extra information",
                       elem_id="h2c-chart-bars")
            gr.BarPlot(switches, x="bar" if len(switches) else "switch", y="pass_rate", color="setting",
                       title="Pass rate by switch (tasks with it on), per setting", elem_id="h2c-chart-switch",
                       x_label_angle=-30)
    return app


def start_worker(db: str, tasks: str, workers: int = 1) -> "subprocess.Popen[bytes]":
    proc = subprocess.Popen([sys.executable, "-m", "har2client.space._worker", "--db", db, "--tasks", tasks,
                             "--workers", str(workers)])

    def stop() -> None:
        if proc.poll() is None:
            proc.terminate()

    atexit.register(stop)
    return proc


def serve(results: str | None, tasks: str | None, episodes: str | None, db: str, port: int = 7860,
          host: str = "127.0.0.1", workers: int = 1, raw_link: str | None = None) -> None:
    """Serve the Space, and start its grading worker when there are tasks to grade on."""
    if tasks:
        start_worker(db, tasks, workers)
    app = build_app(results, tasks, episodes, db, raw_link)
    app.launch(server_name=host, server_port=port, css=CSS, js=SORT_JS, theme=_theme(), ssr_mode=False, show_error=True)


def _theme() -> Any:
    # The default theme's web fonts held the first paint back until three font files had loaded (about
    # 0.7 s of a 1.1 s page load); the system's own fonts draw at once.
    import gradio as gr

    return gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                             font_mono=["ui-monospace", "Consolas", "monospace"])

"""The ``har2client`` command: a thin shell over the library.

Every subcommand calls one library function; errors a user can cause print one
line (``har2client: error: ...``) and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import __version__
from ._errors import Har2ClientError

if TYPE_CHECKING:
    from .grading import TestResult

EPILOG = """\
examples:
  har2client quickstart
  har2client build tierb --out runs/tierB --seed 1 --configs runs/tierb_configs.jsonl
  har2client build tiera --out runs/tierA
  har2client grade runs/tierB/tierb_00_invoices client.py
  har2client grade runs/tierB/tierb_00_invoices client.py --json
  har2client grade-all runs/tierB --baseline reference --workers 2 --out runs/ref.jsonl
  har2client baseline reference runs/tierB/tierb_00_invoices -o ref.py
  har2client render runs/tierB/tierb_00_invoices/recording.har
  har2client dataset build --out runs/dataset --secret-seed $SECRET --train 100
  har2client pull tierb_00_invoices --source runs/dataset
  har2client grade tierb_00_invoices client.py --source runs/dataset
  har2client serve-env --port 8000
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="har2client",
        description="Build API-client tasks from recorded HTTP traffic and grade clients on fresh servers.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"har2client {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    q = sub.add_parser("quickstart", help="build one Tier B task, grade its reference and replay clients",
                       description="Build one Tier B task, grade its reference client (expect 1.000) and the "
                                   "client that replays its recording (expect a low score), and say where the files "
                                   "are.")
    q.add_argument("--dir", default="runs/quickstart", help="where to put the files (default: %(default)s)")

    b = sub.add_parser("build", help="build task directories",
                       description="Build task directories. The same seed gives byte-identical files.")
    bsub = b.add_subparsers(dest="tier", required=True, metavar="TIER")
    bt = bsub.add_parser("tierb", help="the 50 Tier B tasks (invented APIs, six switches)")
    bt.add_argument("--out", required=True, help="directory to write tierb_NN_domain/ task directories into")
    bt.add_argument("--seed", type=int, default=1, help="build seed (default: %(default)s)")
    bt.add_argument("--limit", type=int, default=None, help="build only the first N tasks")
    bt.add_argument("--configs", default=None, help="also write the task configurations as JSONL here")

    ba = bsub.add_parser("tiera", help="the Tier A tasks (real public APIs, har2client/tiera/specs/)")
    ba.add_argument("--out", required=True, help="directory to write tiera_NN_api/ task directories into")
    ba.add_argument("--seed", type=int, default=1, help="build seed (default: %(default)s)")
    br = bsub.add_parser("repair", help="the 64 Case 3 tasks: an old client, the failure it now gives, a new recording")
    br.add_argument("--out", required=True, help="directory to write repair_NN_domain/ task directories into")
    br.add_argument("--seed", type=int, default=1, help="build seed (default: %(default)s)")
    br.add_argument("--limit", type=int, default=None, help="build only the first N tasks")
    bi = bsub.add_parser("investigate", help="the 50 Case 2 tasks: Tier B tasks with a practice server to probe")
    bi.add_argument("--out", required=True, help="directory to write investigate_NN_domain/ task directories into")
    bi.add_argument("--seed", type=int, default=1, help="build seed (default: %(default)s)")
    bi.add_argument("--limit", type=int, default=None, help="build only the first N tasks")

    e = sub.add_parser("episode", help="play one investigate episode with a scripted policy and write its record",
                       description="Play one Case 2 episode on TASK (an investigate or build task) with a scripted, "
                                   "non-LLM policy: reference (submit the reference client at once), as-built "
                                   "(submit what the recording supports, no probes), probe-then-reference (probe "
                                   "the hidden header within the budget, then submit the reference). Writes the "
                                   "episode record (JSONL, har2client/investigate/episode.schema.json) and prints "
                                   "its measures.")
    e.add_argument("task", help="task directory, or a task id to pull from --source")
    e.add_argument("--policy", required=True, choices=("reference", "as-built", "probe-then-reference"))
    e.add_argument("--budget", type=int, default=5,
                   help="probes allowed: 0 (control, no tool), 1 or 5 (default: %(default)s)")
    e.add_argument("--arm", default="as_built", choices=("as_built", "hint", "evidence", "placebo"),
                   help="the Case 1 arm the goal and recording come from (default: %(default)s)")
    e.add_argument("--seed", type=int, default=None, help="episode seed (practice server and grading); default: new")
    e.add_argument("--out", default="episode.jsonl", help="the episode record to write (default: %(default)s)")
    e.add_argument("--source", default=None,
                   help="where a task id is pulled from: ORG/NAME or a dataset folder (default: $HAR2CLIENT_SOURCE)")

    g = sub.add_parser("grade", help="grade a client.py on a fresh grading server of a task",
                       description="Grade CLIENT on a fresh instance of TASK (new data, credentials and host). "
                                   "Prints each hidden test, then pass_rate=. Exit status: 0 graded, 1 the client "
                                   "could not run at all (missing file, import error), 2 bad arguments or task.")
    g.add_argument("task", help="task directory, or a task id to pull from --source")
    g.add_argument("client", help="the client.py to grade")
    g.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    g.add_argument("--seed", type=int, default=None, help="grading-instance seed, to reproduce a grade")
    g.add_argument("--call-timeout", type=float, default=None, help="seconds per client call (default: the task's)")
    g.add_argument("--task-timeout", type=float, default=None, help="seconds for the whole grade (default: the task's)")
    g.add_argument("--isolation", choices=("auto", "full", "partial"), default="auto",
                   help="auto: full when bubblewrap can create namespaces here (default)")
    g.add_argument("--source", default=None,
                   help="where a task id is pulled from: ORG/NAME or a dataset folder (default: $HAR2CLIENT_SOURCE)")

    ds = sub.add_parser("dataset", help="build the Hugging Face dataset folders",
                        description="Build the tasks as a dataset: OUT (Parquet per config and split, a card that "
                                    "load_dataset reads offline) and OUT-hidden beside it (the gated grading part).")
    dsub = ds.add_subparsers(dest="dataset_command", required=True, metavar="ACTION")
    db = dsub.add_parser("build", help="build OUT and OUT-hidden")
    db.add_argument("--out", required=True, help="output directory")
    db.add_argument("--tasks", nargs="+", default=None, metavar="DIR",
                    help="directories of built task directories to use as the test split (default: build "
                         "Tier B and Tier A from the secret seed)")
    db.add_argument("--secret-seed", type=int, default=None,
                    help="seed of the test split; keep it private (default: $HAR2CLIENT_SECRET_SEED)")
    db.add_argument("--train", type=int, default=0, help="train tasks per config, from public seeds (default: 0)")
    db.add_argument("--overwrite", action="store_true",
                    help="replace an earlier dataset build in OUT (refused otherwise: it may hold another secret seed)")

    pb = sub.add_parser("publish", help="upload the dataset folders to the Hugging Face Hub",
                        description="Upload FOLDER to --repo and FOLDER-hidden to --hidden-repo, which is made "
                                    "gated (manual approval). Reads the token from HF_TOKEN or the login cache.")
    pb.add_argument("--repo", required=True, help="ORG/NAME of the public dataset")
    pb.add_argument("--hidden-repo", required=True, help="ORG/NAME of the gated hidden part")
    pb.add_argument("--folder", default="runs/dataset", help="the dataset build output (default: %(default)s)")
    pb.add_argument("--dry-run", action="store_true", help="print what would be uploaded where, and upload nothing")

    pl = sub.add_parser("pull", help="fetch one task's files by its id",
                        description="Fetch the visible and hidden files of TASK_ID from a Hub dataset (ORG/NAME, "
                                    "hidden part ORG/NAME-hidden) or a local dataset folder into the Hugging Face "
                                    "cache, and print the task directory.")
    pl.add_argument("task_id")
    pl.add_argument("--source", default=None, help="ORG/NAME or a dataset folder (default: $HAR2CLIENT_SOURCE)")
    pl.add_argument("--hidden-source", default=None,
                    help="the hidden part, ORG/NAME or a folder (default: SOURCE-hidden)")

    ga = sub.add_parser("grade-all", help="grade many clients, in parallel, into a JSONL file",
                        description="Grade every task in TASKS_DIR once per model. Each finished grade is one JSON "
                                    "line in --out (the same object as grade --json, plus model, level, switches); "
                                    "--resume continues a file after a crash or a kill without grading anything "
                                    "twice. Prints a summary: mean pass rate, per-switch pass rates, failed tests "
                                    "by reason (also written to OUT.summary.json).")
    ga.add_argument("tasks_dir", help="directory of task directories")
    source = ga.add_mutually_exclusive_group(required=True)
    source.add_argument("--clients", help="directory of TASK_ID.py or TASK_ID/client.py files")
    source.add_argument("--predictions", help='JSONL, one {"task_id", "model", "code"} per line')
    source.add_argument("--baseline", choices=("reference", "replay", "heuristic"),
                        help="grade a baseline client of each task (heuristic: written by rules from the visible "
                             "files of the as_built arm)")
    ga.add_argument("--arm", default=None,
                    help="with --baseline heuristic: the arm whose visible files it reads (default: each task's base "
                         "arm, as_built or a repair's base); the results then name the model 'heuristic (ARM)'")
    ga.add_argument("--workers", type=int, default=1, help="grades at a time, each in its own sandbox (default: 1)")
    ga.add_argument("--out", required=True, help="results file (JSONL)")
    ga.add_argument("--resume", action="store_true", help="continue --out, skipping what it already holds")
    ga.add_argument("--isolation", choices=("auto", "full", "partial"), default="auto",
                    help="auto: full when bubblewrap can create namespaces here (default)")

    bl = sub.add_parser("baseline", help="write a baseline client of a task",
                        description="reference: the task's own client (scores 1.000). replay: a client that "
                                    "re-sends the recorded requests (what copying the recording gives). heuristic: "
                                    "a client written by rules from what a model is shown (the goal and the arm's "
                                    "recording; never hidden/), with no model.")
    bl.add_argument("kind", choices=("reference", "replay", "heuristic"))
    bl.add_argument("--arm", default=None,
                    help="the arm whose visible files the heuristic reads (default: the task's base arm)")
    bl.add_argument("task", help="task directory, or a task id (pulled earlier, or from --source)")
    bl.add_argument("-o", "--out", default=None, help="file to write (default: standard output)")
    bl.add_argument("--source", default=None,
                    help="where a task id is pulled from: ORG/NAME or a dataset folder (default: $HAR2CLIENT_SOURCE)")

    se = sub.add_parser("serve-env", help="serve the RL environments to remote trainers (OpenEnv, HTTP and WebSocket)",
                        description="Serve TrafficToClientEnv and RepairEnv as an OpenEnv server: each WebSocket "
                                    "session (/ws) is one environment, chosen by its reset's settings (case: build, "
                                    "investigate or repair; split, curriculum, arm, source, probe_budget, compact, "
                                    "tasks; seed). Every session grades on one shared pool. Needs the openenv extra.")
    se.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    se.add_argument("--port", type=int, default=8000, help="port (default: %(default)s)")
    se.add_argument("--workers", type=int, default=None, help="grading processes (default: one per core)")
    se.add_argument("--max-sessions", type=int, default=64, help="concurrent sessions (default: %(default)s)")
    se.add_argument("--isolation", choices=("auto", "full", "partial"), default="auto",
                    help="the grading sandbox (default: %(default)s, full where the machine allows)")
    ru = sub.add_parser("run", help="run a model on tasks through an OpenAI-compatible API, grade every answer",
                        description="Ask a model (any OpenAI-compatible endpoint: vLLM, the Hugging Face router, a "
                                    "provider) for each task's client, grade it, and write OUT/run-R.jsonl (request, "
                                    "response, code, grade, tokens, timings per task) and, for Case 2, "
                                    "OUT/episodes/. A client is the answer's last fenced python block; none is a "
                                    "missing submission (0). API errors after retries are kept as api_error lines and "
                                    "excluded from scores. Needs the run extra (openai).")
    ru.add_argument("--model", default=None, help="the model's name at the API (required unless --baseline)")
    ru.add_argument("--base-url", default=None,
                    help="the API's base URL, e.g. http://127.0.0.1:8000/v1 (required unless --baseline)")
    ru.add_argument("--baseline", choices=("heuristic", "replay", "reference"), default=None,
                    help="a baseline writes each client instead of a model (no API): its runs analyse, and show on "
                         "the leaderboard, as a model's do")
    ru.add_argument("--api-key-env", default="OPENAI_API_KEY", help="variable holding the key (default: %(default)s)")
    ru.add_argument("--tasks", default=None, help="a folder of task directories (default: $HAR2CLIENT_TASKS)")
    ru.add_argument("--case", choices=("build", "investigate", "repair"), default="build")
    ru.add_argument("--tier", choices=("B", "A"), default="B")
    ru.add_argument("--arm", default=None,
                    help="as_built, hint, placebo, evidence; repair: base, hint, placebo, notice")
    ru.add_argument("--effort", choices=("low", "medium", "high", "none"), default="none",
                    help="reasoning_effort on every call; none sends none (a model without levels)")
    ru.add_argument("--probes", type=int, default=5, help="Case 2's probe budget (default: %(default)s)")
    ru.add_argument("--runs", type=int, default=1, help="runs per task (default: %(default)s)")
    ru.add_argument("--max-output-tokens", type=int, default=32768, help="per call (default: %(default)s)")
    ru.add_argument("--max-tokens-field", choices=("max_tokens", "max_completion_tokens"), default="max_tokens")
    ru.add_argument("--concurrency", type=int, default=4, help="episodes at a time (default: %(default)s)")
    ru.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    ru.add_argument("--raw", action="store_true", help="show the recording as the HAR file, not compact text")
    ru.add_argument("--out", required=True, help="the run's folder")
    ru.add_argument("--resume", action="store_true", help="continue a run in --out: ask only for what is unfinished")
    an = sub.add_parser("analyze", help="summarise runs: pass rates with bootstrap intervals, breakdowns, verdicts",
                        description="Read run folders (har2client run --out) and write OUT/summary.json and "
                                    "OUT/report.md: pass rate per setting and benchmark with a 95%% percentile "
                                    "bootstrap interval over tasks, breakdowns, and the verdict of each hypothesis "
                                    "in PREREG.md.")
    an.add_argument("runs", nargs="+", help="run folders")
    an.add_argument("--out", required=True)
    an.add_argument("--prereg", default=None, help="the pre-registration (default: PREREG.md here, if any)")
    an.add_argument("--resamples", type=int, default=10000)
    sp = sub.add_parser("space", help="run the Space locally: leaderboard, explorer, episodes, submissions",
                        description="Serve the HAR2Client Space (Gradio) on this machine; submissions are graded by a "
                                    "worker process it starts. Needs the space extra.")
    sp.add_argument("--results", default=None, help="analyze output: a summary.json or a folder of them")
    sp.add_argument("--tasks", default=None,
                    help="a folder of task directories (the explorer; what submissions are graded on)")
    sp.add_argument("--episodes", default=None, help="a folder of episode JSONL files")
    sp.add_argument("--db", default="space.sqlite", help="the submissions database (default: %(default)s)")
    sp.add_argument("--port", type=int, default=7860)
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--workers", type=int, default=1, help="grading processes (default: %(default)s)")
    r = sub.add_parser("render", help="print a recording as compact text for a prompt",
                       description="Read a HAR file, check it, and print the compact text rendering models are "
                                   "shown. For a task (a directory or a task id), what a model given one arm "
                                   "sees: the arm's goal and its recording. Arms: as_built (goal.md and "
                                   "recording.har), hint (the goal plus a sentence naming the trickiest "
                                   "requirement), evidence (hidden-header tasks: the recording plus one request "
                                   "refused for lack of the header), placebo (the goal plus a sentence of the "
                                   "same length about nothing).")
    r.add_argument("path", help="a .har file, a task directory, or a task id")
    r.add_argument("--arm", default=None, help="which observation of the task to show: as_built (the default), "
                   "hint, evidence, placebo; a repair task's base (its default), hint, placebo, notice")
    r.add_argument("--source", default=None,
                   help="where a task id is pulled from: ORG/NAME or a dataset folder (default: $HAR2CLIENT_SOURCE)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except Har2ClientError as exc:
        print(f"har2client: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("har2client: interrupted", file=sys.stderr)
        return 130


def _cmd_build(args: argparse.Namespace) -> int:
    def progress(done: int, total: int, task_id: str) -> None:
        print(f"[{done}/{total}] {task_id}", file=sys.stderr, flush=True)

    if args.tier == "tiera":
        from .tiera import NOT_SERVED, build_tiera

        paths = build_tiera(args.out, args.seed, progress=progress)
        unserved = (f" ({len(NOT_SERVED)} descriptions not served yet: {', '.join(sorted(NOT_SERVED))})"
                    if NOT_SERVED else "")
        print(f"built {len(paths)} tasks in {args.out}{unserved}")
        return 0
    if args.tier == "repair":
        from .repair import build_repair

        paths = build_repair(args.out, args.seed, args.limit, progress=progress)
        print(f"built {len(paths)} repair tasks in {args.out}")
        return 0
    if args.tier == "investigate":
        from .tierb import build_investigate

        paths = build_investigate(args.out, args.seed, args.limit, progress=progress)
        print(f"built {len(paths)} investigate tasks in {args.out}")
        return 0
    from .tierb import build_tierb

    paths = build_tierb(args.out, args.seed, args.limit, args.configs, progress=progress)
    print(f"built {len(paths)} tasks in {args.out}" + (f"; configs in {args.configs}" if args.configs else ""))
    return 0


def _cmd_grade(args: argparse.Namespace) -> int:
    from .grading import shared_sandbox
    from .hub import resolve_task

    path = resolve_task(args.task, args.source)
    # The sandbox starts in another process while this one imports the fake servers and loads the task.
    box = shared_sandbox(args.isolation, wait=False) if os.path.isdir(path) else None
    from .grading import Limits, grade
    from .tasks import load_task

    task = load_task(path)
    g = task.grading
    limits = Limits(call_seconds=args.call_timeout or float(g.get("call_seconds", 10)),
                    task_seconds=args.task_timeout or float(g.get("task_seconds", 120)))

    printed = 0

    def progress(t: TestResult) -> None:
        nonlocal printed
        printed += 1
        if not args.json:
            print(_test_line(t), flush=True)

    result = grade(task, args.client, seed=args.seed, limits=limits, progress=progress, isolation=args.isolation,
                   sandbox=box)
    repair = None
    if task.meta.get("case") == "repair":  # what the submission broke that client_v1 still did
        from .repair import regression

        repair = regression(task, result, limits=limits, isolation=args.isolation, sandbox=box)
    if args.json:
        print(json.dumps({**result.to_dict(), **(repair or {})}))
    else:
        from .grading import NOT_RUN

        unrun = [t.name for t in result.tests[printed:] if t.error == NOT_RUN]
        for t in result.tests[printed:]:  # tests that never ran: the client could not load, or time ran out
            if t.error != NOT_RUN:
                print(_test_line(t))
        if unrun:  # why is said once, below
            print(f"NOT RUN  {len(unrun)} tests: {', '.join(unrun)}")
        for w in result.warnings:
            print(f"warning: {w}", file=sys.stderr)
        if result.error:
            print(f"har2client: error: {result.error}", file=sys.stderr)
        print(f"{result.task_id}: {result.passed}/{result.total} tests passed in {result.seconds:.2f} s "
              f"(grading seed {result.grading_seed})")
        if repair is not None:
            print(f"client_v1 passes {repair['client_v1_pass_rate']:.3f} on this release; the submission loses "
                  f"{len(repair['regressed'])} of its tests: regression_rate={repair['regression_rate']:.3f}")
        print(f"pass_rate={result.pass_rate:.3f}")
    return 1 if result.error else 0


def _cmd_grade_all(args: argparse.Namespace) -> int:
    from .grading import remove_orphaned_scratch, scratch_prefix, shared_sandbox

    if args.workers < 1:
        raise Har2ClientError("--workers must be at least 1")
    remove_orphaned_scratch()
    if args.workers == 1:  # grades run here: the sandbox starts while the judge's modules load
        shared_sandbox(args.isolation, wait=False)
    from .grading import grade_all, plan_jobs, progress_printer, render_summary, summarize

    with tempfile.TemporaryDirectory(prefix=scratch_prefix("batch")) as scratch:  # generated client files
        from .agents import baseline_source

        jobs = plan_jobs(args.tasks_dir, clients=args.clients, predictions=args.predictions,
                         baseline=args.baseline, scratch=scratch,
                         baseline_source=lambda kind, task: baseline_source(kind, task, args.arm))
        if args.baseline == "heuristic" and args.arm:  # a row per arm, never mixed with the base arm's
            jobs = [dataclasses.replace(j, model=f"heuristic ({args.arm})") for j in jobs]
        results = grade_all(jobs, args.out, workers=args.workers, resume=args.resume, isolation=args.isolation,
                            progress=progress_printer())
    summary = summarize(results)
    with open(args.out + ".summary.json", "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=2, sort_keys=True)
        fh.write("\n")
    print(render_summary(summary))
    print(f"results: {args.out} ({len(results)} grades); summary: {args.out}.summary.json")
    return 0


def _cmd_dataset(args: argparse.Namespace) -> int:
    from .hub import build_dataset

    if args.train < 0:
        raise Har2ClientError("--train must be 0 or more")
    counts = build_dataset(args.out, secret=args.secret_seed, train=args.train, task_dirs=args.tasks,
                           progress=lambda msg: print(msg, file=sys.stderr, flush=True), overwrite=args.overwrite)
    print(f"public: {args.out}  hidden: {os.path.normpath(args.out)}-hidden  ("
          + ", ".join(f"{c} {s} {n}" for (c, s), n in sorted(counts.items())) + ")")
    return 0


def _cmd_publish(args: argparse.Namespace) -> int:
    from .hub import publish

    print("\n".join(publish(args.folder, args.repo, args.hidden_repo, dry_run=args.dry_run)))
    return 0


def _cmd_pull(args: argparse.Namespace) -> int:
    from .hub import pull

    print(pull(args.task_id, args.source, args.hidden_source))
    return 0


def _test_line(t: TestResult) -> str:
    return f"PASS  {t.name}" if t.passed else f"FAIL  {t.name}: {t.error}"


def _cmd_baseline(args: argparse.Namespace) -> int:
    from .agents import baseline_source
    from .hub import resolve_task
    from .tasks import load_task

    source = baseline_source(args.kind, load_task(resolve_task(args.task, args.source)), args.arm)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(source)
        print(f"wrote the {args.kind} client of {args.task} to {args.out}")
    else:
        sys.stdout.write(source)
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from .har import read_har, render_compact
    from .hub import resolve_task
    from .tasks import render_observation

    path = args.path if os.path.isfile(args.path) else resolve_task(args.path, args.source)
    if not os.path.isdir(path):
        sys.stdout.write(render_compact(read_har(path)))
        return 0
    if not os.path.isfile(os.path.join(path, "recording.har")):
        raise Har2ClientError(f"{path}: no recording.har; is this a task directory?")
    from .tasks import arms_of

    sys.stdout.write(render_observation(path, args.arm or next(iter(arms_of(path)))))
    return 0


def _cmd_episode(args: argparse.Namespace) -> int:
    from .hub import resolve_task
    from .investigate import InvestigateEpisode, run_policy

    episode = InvestigateEpisode(resolve_task(args.task, args.source), args.budget, args.arm, args.seed, args.policy)
    end = run_policy(episode, args.policy)
    episode.write(args.out)
    tested = {True: "yes", False: "no", None: "n/a (no hidden header)"}[end["tested_hidden_header"]]
    print(f"episode: {episode.task.task_id}, policy {args.policy}, arm {args.arm}, budget {args.budget}: "
          f"probes used {end['probes_used']}, tested the hidden header: {tested}, pass_rate={end['pass_rate']:.3f}")
    print(f"wrote {args.out}")
    return 0


def _cmd_serve_env(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from .env.openenv_env import create_server
    except ImportError as exc:
        raise Har2ClientError(f"serving environments needs the openenv extra ({exc.name} is missing): "
                              "pip install 'har2client[openenv]'") from None
    from .env import close_shared_pools

    app = create_server(args.workers, args.max_sessions, args.isolation)
    print(f"serving the environments at http://{args.host}:{args.port} (WebSocket /ws, up to {args.max_sessions} "
          "sessions); Ctrl-C stops", file=sys.stderr, flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        close_shared_pools()
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    if args.baseline is None:
        if not (args.model and args.base_url):
            raise Har2ClientError("pass --model and --base-url (the model's API), or --baseline")
        try:
            import openai  # noqa: F401
        except ImportError:
            raise Har2ClientError("running a model needs the run extra: pip install 'har2client[run]'") from None
    from .agents import RunSettings, run

    tasks = args.tasks or os.environ.get("HAR2CLIENT_TASKS")
    if not tasks:
        raise Har2ClientError("which tasks? pass --tasks DIR (a folder of task directories) or set HAR2CLIENT_TASKS")
    settings = RunSettings(model=args.model or args.baseline, base_url=args.base_url or "", baseline=args.baseline,
                           tasks=tasks, out=args.out, case=args.case,
                           tier=args.tier, arm=args.arm, effort=args.effort, probes=args.probes, runs=args.runs,
                           max_output_tokens=args.max_output_tokens, max_tokens_field=args.max_tokens_field,
                           concurrency=args.concurrency, api_key_env=args.api_key_env, compact=not args.raw,
                           limit=args.limit)
    scores: list[float] = []
    tty = sys.stderr.isatty()

    failed: list[str] = []

    def progress(done: int, total: int, row: dict) -> None:
        if row["status"] != "api_error":
            scores.append(row["pass_rate"])
        else:
            failed.append(row["task_id"])
        mean = sum(scores) / len(scores) if scores else 0.0
        bar = "#" * int(24 * done / max(total, 1))
        line = (f"[{bar:<24}] {done}/{total} {row['task_id']} run {row['run']}: {row['status']} "
                f"{'' if row['pass_rate'] is None else format(row['pass_rate'], '.3f')} | mean {mean:.3f}")
        sys.stderr.write(("\r" + line + ("\n" if done == total else "")) if tty else line + "\n")
        sys.stderr.flush()

    rows = run(settings, resume=args.resume, progress=progress)
    errors = len(failed)
    print(f"{settings.label}: {len(rows)} finished episodes, mean pass rate "
          f"{(sum(r['pass_rate'] for r in rows) / len(rows)) if rows else 0.0:.3f}"
          f"{f'; {errors} API errors (run again with --resume to retry them)' if errors else ''}; "
          f"raw files in {args.out}")
    return 0


def _cmd_analyze(args: argparse.Namespace) -> int:
    from .analysis import analyze

    prereg = args.prereg or ("PREREG.md" if os.path.isfile("PREREG.md") else None)
    summary = analyze(args.runs, args.out, prereg=prereg, resamples=args.resamples)
    for v in summary.get("verdicts", []):
        print(f"{v['id']}\t{v['verdict']}\t{v['evidence']}")
    print(f"wrote {os.path.join(args.out, 'summary.json')} and {os.path.join(args.out, 'report.md')}")
    return 0


def _cmd_space(args: argparse.Namespace) -> int:
    try:
        import gradio  # noqa: F401
    except ImportError:
        raise Har2ClientError("the Space needs the space extra: pip install 'har2client[space]'") from None
    from .space import serve

    serve(args.results, args.tasks, args.episodes, args.db, port=args.port, host=args.host, workers=args.workers)
    return 0


def _cmd_quickstart(args: argparse.Namespace) -> int:
    from .quickstart import quickstart

    return quickstart(args.dir)


COMMANDS = {"dataset": _cmd_dataset, "publish": _cmd_publish, "pull": _cmd_pull, "build": _cmd_build,
            "grade": _cmd_grade, "grade-all": _cmd_grade_all, "baseline": _cmd_baseline, "render": _cmd_render,
            "episode": _cmd_episode,
            "serve-env": _cmd_serve_env, "run": _cmd_run, "analyze": _cmd_analyze, "space": _cmd_space,
            "quickstart": _cmd_quickstart}

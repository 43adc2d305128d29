"""The tasks as a Hugging Face dataset: a public folder anyone may load, a hidden folder behind a gate.

    OUT/README.md                             the card: YAML front matter (configs, splits, features,
                                               licence) and the text of dataset_card.md
    OUT/data/<config>/<split>-00000-of-00001.parquet
    OUT-hidden/README.md                      the gated card (extra_gated_prompt, extra_gated_fields)
    OUT-hidden/tasks/<task_id>/...            what grading needs: hidden/ of the task, and its task.json

The two folders sit side by side as the two Hub repositories do (ORG/NAME and ORG/NAME-hidden), so
the public one never contains the hidden one.
``datasets.load_dataset(OUT, "tierB", split="test")`` reads it offline with no code of ours:
the front matter says where each config's splits are. The test split is built from a seed that is
never published, so its hidden part cannot be regenerated from the public code.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from .._errors import Har2ClientError
from ..har import read_har, render_compact
from ..tasks._task import load_task

CONFIGS = ("tierB", "tierA")
SPLITS = ("train", "test")
PUBLIC_TRAIN_SEED = 1000       # train seeds are public: 1000, 1001, ...
SECRET_ENV = "HAR2CLIENT_SECRET_SEED"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The public columns. Nothing here says which conventions an API uses beyond what its recording shows.
FEATURES = pa.schema([
    ("task_id", pa.string()), ("tier", pa.string()), ("case", pa.string()), ("domain", pa.string()),
    ("api", pa.string()), ("goal", pa.string()), ("recording", pa.string()), ("recording_compact", pa.string()),
    ("recording_evidence", pa.string()), ("observation_format", pa.string()), ("source", pa.string()),
    ("class_name", pa.string()), ("constructor", pa.list_(pa.string())), ("methods", pa.list_(pa.string())),
    ("licence", pa.string()), ("docs", pa.string()),
])
HIDDEN_FILES = ("spec.json", "openapi.yaml", "tests.json", "grading.json", "reference_client.py")


def secret_seed(given: int | None) -> int:
    if given is not None:
        return given
    raw = os.environ.get(SECRET_ENV)
    if raw is None:
        raise Har2ClientError(f"the test split needs a secret seed: pass --secret-seed or set {SECRET_ENV} "
                              "(keep it out of the repository; anyone who has it can rebuild the hidden tests)")
    try:
        return int(raw)
    except ValueError:
        raise Har2ClientError(f"{SECRET_ENV} must be a whole number, not {raw!r}") from None


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def task_row(task_dir: str) -> dict[str, Any]:
    """The public row of one task directory."""
    task = load_task(task_dir)
    meta = task.meta
    evidence = task.file("recording_evidence.har")
    return {
        "task_id": task.task_id, "tier": meta["tier"], "case": meta["case"], "domain": meta["domain"],
        "api": meta.get("api", ""), "goal": _read(task.file("goal.md")), "recording": _read(task.recording_path),
        "recording_compact": render_compact(read_har(task.recording_path)),
        "recording_evidence": _read(evidence) if os.path.exists(evidence) else "",
        "observation_format": meta["observation_format"], "source": meta["source"],
        "class_name": meta.get("class_name", "Client"), "constructor": list(meta.get("constructor", [])),
        "methods": list(meta.get("methods", [])), "licence": meta.get("licence", "CC-BY-4.0"),
        "docs": meta.get("docs", ""),
    }


def _write_hidden(task_dir: str, hidden_root: str) -> None:
    task = load_task(task_dir)
    dest = os.path.join(hidden_root, "tasks", task.task_id)
    os.makedirs(dest, exist_ok=True)
    shutil.copyfile(task.file("task.json"), os.path.join(dest, "task.json"))
    for name in HIDDEN_FILES:
        src = task.hidden_file(name)
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(dest, name))


def _write_parquet(rows: list[dict[str, Any]], path: str) -> int:
    """Write ``rows``; return their size in memory (what a card's num_bytes reports)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=FEATURES)
    pq.write_table(table, path, compression="zstd")
    return int(table.nbytes)


class _PlainDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # the card is read by people too: no &anchors
        return True


def _front_matter(counts: dict[tuple[str, str], int], sizes: dict[tuple[str, str], int]) -> str:
    features = [{"name": f.name, "dtype": "string"} if f.type == pa.string()
                else {"name": f.name, "sequence": "string"} for f in FEATURES]
    meta = {
        "license": "cc-by-4.0",
        "pretty_name": "HAR2Client",
        "task_categories": ["text-generation"],
        "tags": ["code", "api", "har", "benchmark", "reinforcement-learning"],
        "configs": [{"config_name": c, "data_files": [{"split": s, "path": f"data/{c}/{s}-*.parquet"}
                                                      for s in SPLITS if counts.get((c, s))]}
                    for c in CONFIGS if any(counts.get((c, s)) for s in SPLITS)],
        "dataset_info": [{"config_name": c, "features": features,
                          "splits": [{"name": s, "num_bytes": sizes[(c, s)], "num_examples": counts[(c, s)]}
                                     for s in SPLITS if counts.get((c, s))]}
                         for c in CONFIGS if any(counts.get((c, s)) for s in SPLITS)],
    }
    return "---\n" + yaml.dump(meta, Dumper=_PlainDumper, sort_keys=False) + "---\n"


def _licence_table(tier_a_rows: list[dict[str, Any]]) -> str:
    if not tier_a_rows:
        return ""
    lines = ["", "## Tier A licences", "",
             "Each Tier A task keeps the licence of the public API description it comes from.", "",
             "| task | API | licence of the provider's API description |", "| --- | --- | --- |"]
    seen = set()
    for r in sorted(tier_a_rows, key=lambda r: r["task_id"]):
        if r["api"] in seen:
            continue
        seen.add(r["api"])
        lines.append(f"| `{r['task_id']}` | [{r['api']}]({r['docs']}) | {r['licence']} |")
    return "\n".join(lines) + "\n"


HIDDEN_CARD = """---
license: cc-by-4.0
pretty_name: HAR2Client (hidden grading part)
extra_gated_prompt: >-
  This repository holds what grades HAR2Client: hidden tests, grading-instance recipes and reference
  clients. You get access to grade clients locally. You agree not to train on these files or on anything
  derived from them, and not to republish them.
extra_gated_fields:
  Name: text
  Affiliation: text
  I will not train models on the hidden tests or reference clients: checkbox
  I will not republish this repository or its contents: checkbox
---

# HAR2Client: hidden grading part

One folder per task, `tasks/<task_id>/`: the task's `task.json`, its API description (`spec.json` for
Tier B, `openapi.yaml` for Tier A), `tests.json`, `grading.json` and `reference_client.py`. The public
tasks are in the companion dataset. `har2client pull TASK_ID --source ORG/NAME` fetches one task's files
from both and `har2client grade TASK_ID client.py` grades a client on it.
"""


def dataset_folders(public: str, hidden: str | None = None) -> tuple[str, str]:
    """The public folder and its hidden companion (``PUBLIC-hidden`` unless given)."""
    public = os.path.normpath(public)
    return public, os.path.normpath(hidden) if hidden else public + "-hidden"


def _clear(folder: str) -> None:
    """Empty ``folder`` for a rebuild, but only if it is empty or an earlier dataset build."""
    if not os.path.exists(folder):
        return
    names = set(os.listdir(folder))
    if names and not names <= {"README.md", "data", "tasks", ".gitattributes"}:
        raise Har2ClientError(f"{folder}: exists and is not a HAR2Client dataset folder; choose another --out")
    shutil.rmtree(folder)


def build_dataset(out_dir: str, *, secret: int | None = None, train: int = 0, task_dirs: list[str] | None = None,
                  progress: Callable[[str], None] | None = None) -> dict[tuple[str, str], int]:
    """Write ``out_dir/public`` and ``out_dir/hidden``; return the number of tasks per (config, split).

    The test split is built from ``secret`` (or taken from ``task_dirs``: directories of task
    directories), the train split from public seeds, ``train`` tasks per config.
    """
    from ..tiera._build import build_tiera
    from ..tierb import TIERB_SIZE, build_tierb

    say = progress or (lambda _msg: None)
    public, hidden = dataset_folders(out_dir)
    for d in (public, hidden):
        _clear(d)  # a rebuild leaves nothing stale behind
    rows: dict[tuple[str, str], list[dict[str, Any]]] = {(c, s): [] for c in CONFIGS for s in SPLITS}
    with tempfile.TemporaryDirectory(prefix="h2c-dataset-") as work:
        sources: list[tuple[str, str]] = []  # (split, task dir)
        if task_dirs:
            for d in task_dirs:
                if not os.path.isdir(d):
                    raise Har2ClientError(f"{d}: no such directory of tasks")
                sources += [("test", os.path.join(d, t)) for t in sorted(os.listdir(d))
                            if os.path.isfile(os.path.join(d, t, "task.json"))]
        else:
            seed = secret_seed(secret)
            say("building the test split from the secret seed")
            sources += [("test", p) for p in build_tierb(os.path.join(work, "test", "tierB"), seed)]
            sources += [("test", p) for p in build_tiera(os.path.join(work, "test", "tierA"), seed)]
        if train:
            say(f"building {train} train tasks per config from public seeds")
            made, n = 0, 0
            while made < train:
                s = PUBLIC_TRAIN_SEED + n
                limit = min(TIERB_SIZE, train - made)
                sources += [("train", p) for p in build_tierb(os.path.join(work, "train", "tierB"), s, limit=limit,
                                                              id_prefix=f"s{s}_")]
                made, n = made + limit, n + 1
            made, n = 0, 0
            while made < train:
                s = PUBLIC_TRAIN_SEED + n
                paths = build_tiera(os.path.join(work, "train", "tierA"), s, id_prefix=f"s{s}_", limit=train - made)
                sources += [("train", p) for p in paths]
                made, n = made + len(paths), n + 1
        for split, task_dir in sources:
            row = task_row(task_dir)
            config = "tierB" if row["tier"] == "B" else "tierA"
            rows[(config, split)].append(row)
            _write_hidden(task_dir, hidden)
    counts = {k: len(v) for k, v in rows.items() if v}
    sizes = {}
    for (config, split), part in rows.items():
        if part:
            sizes[(config, split)] = _write_parquet(sorted(part, key=lambda r: r["task_id"]),
                                                    os.path.join(public, "data", config, f"{split}-00000-of-00001.parquet"))
    card = _front_matter(counts, sizes) + "\n" + _read(os.path.join(REPO_ROOT, "dataset_card.md"))
    card += _licence_table([r for (c, _), part in rows.items() if c == "tierA" for r in part])
    with open(os.path.join(public, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(card)
    with open(os.path.join(hidden, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(HIDDEN_CARD)
    say(f"wrote {sum(counts.values())} tasks: " + ", ".join(f"{c}/{s} {n}" for (c, s), n in sorted(counts.items())))
    return counts


# -- from the two folders back to a task directory ----------------------------------------------

def find_row(public_dir: str, task_id: str) -> dict[str, Any]:
    """The public row of ``task_id`` from a dataset folder's Parquet files."""
    data = os.path.join(public_dir, "data")
    if not os.path.isdir(data):
        raise Har2ClientError(f"{public_dir}: not a HAR2Client dataset folder (no data/)")
    for config in sorted(os.listdir(data)):
        for name in sorted(os.listdir(os.path.join(data, config))):
            if name.endswith(".parquet"):
                path = os.path.join(data, config, name)
                try:
                    table = pq.read_table(path)
                except (pa.ArrowInvalid, OSError) as exc:
                    raise Har2ClientError(f"{path}: not a readable Parquet file ({str(exc).splitlines()[0][:160]})") from None
                ids = table.column("task_id").to_pylist()
                if task_id in ids:
                    return table.slice(ids.index(task_id), 1).to_pylist()[0]
    raise Har2ClientError(f"{task_id}: no such task in {public_dir} (ids look like tierb_00_invoices, tiera_01_stripe)")


def restore_task(public_dir: str, hidden_dir: str, task_id: str, dest_root: str) -> str:
    """Rebuild the task directory of ``task_id`` from the public and hidden folders; return its path."""
    row = find_row(public_dir, task_id)
    hidden_task = os.path.join(hidden_dir, "tasks", task_id)
    if not os.path.isdir(hidden_task):
        raise Har2ClientError(f"{task_id}: the hidden part has no files for this task ({hidden_task})")
    dest = os.path.join(dest_root, task_id)
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(os.path.join(dest, "hidden"))
    for name, text in (("goal.md", row["goal"]), ("recording.har", row["recording"])):
        with open(os.path.join(dest, name), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    if row["recording_evidence"]:
        with open(os.path.join(dest, "recording_evidence.har"), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(row["recording_evidence"])
    shutil.copyfile(os.path.join(hidden_task, "task.json"), os.path.join(dest, "task.json"))
    for name in HIDDEN_FILES:
        src = os.path.join(hidden_task, name)
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(dest, "hidden", name))
    json.loads(_read(os.path.join(dest, "task.json")))  # a broken copy fails here, not in the grader
    return dest

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
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

from .._errors import Har2ClientError

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:  # the grader alone does not need Parquet
    raise Har2ClientError("dataset commands need the hub extra: pip install 'har2client[hub]'") from None
import yaml

from ..har import read_har, render_compact
from ..tasks import arms_of, load_task

CONFIGS = ("tierB", "tierA", "investigate", "repair")
SPLITS = ("train", "test")
PUBLIC_TRAIN_SEED = 1000       # train seeds are public: 1000, 1001, ...
SECRET_ENV = "HAR2CLIENT_SECRET_SEED"

# The public columns. Nothing here says which conventions an API uses beyond what its recording shows.
# Case 1's arms are per-arm observation columns: goal and recording are the as-built arm's; goal_hint
# and goal_placebo replace the goal, recording_evidence the recording ("" where the task has no such arm).
FEATURES = pa.schema([
    ("task_id", pa.string()), ("tier", pa.string()), ("case", pa.string()), ("domain", pa.string()),
    ("api", pa.string()), ("goal", pa.string()), ("recording", pa.string()), ("recording_compact", pa.string()),
    ("recording_evidence", pa.string()), ("arms", pa.list_(pa.string())), ("goal_hint", pa.string()),
    ("goal_placebo", pa.string()), ("budgets", pa.list_(pa.int64())), ("client_v1", pa.string()),
    ("failure", pa.string()), ("goal_notice", pa.string()), ("observation_format", pa.string()),
    ("source", pa.string()),
    ("class_name", pa.string()), ("constructor", pa.list_(pa.string())), ("methods", pa.list_(pa.string())),
    ("licence", pa.string()), ("docs", pa.string()), ("checked_against", pa.string()),
])
HIDDEN_FILES = ("openapi.yaml", "tests.json", "grading.json", "reference_client.py", "v1_openapi.yaml")


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
    arms = arms_of(task_dir)

    def arm_file(arm: str, kind: str) -> str:
        return _read(task.file(arms[arm][kind])) if arm in arms else ""

    return {
        "task_id": task.task_id, "tier": meta["tier"], "case": meta["case"], "domain": meta["domain"],
        "api": meta.get("api", ""), "goal": _read(task.file("goal.md")), "recording": _read(task.recording_path),
        "recording_compact": render_compact(read_har(task.recording_path)),
        "recording_evidence": arm_file("evidence", "recording"), "arms": list(arms),
        "goal_hint": arm_file("hint", "goal"), "goal_placebo": arm_file("placebo", "goal"),
        "budgets": [int(b) for b in meta.get("budgets", [])],  # investigate: the probe budgets (no credentials)
        "client_v1": _read(task.file("client_v1.py")) if os.path.exists(task.file("client_v1.py")) else "",
        "failure": _read(task.file("failure.txt")) if os.path.exists(task.file("failure.txt")) else "",
        "goal_notice": arm_file("notice", "goal"),
        "observation_format": meta["observation_format"], "source": meta["source"],
        "class_name": meta.get("class_name", "Client"), "constructor": list(meta.get("constructor", [])),
        "methods": list(meta.get("methods", [])), "licence": meta.get("licence", "CC-BY-4.0"),
        "docs": meta.get("docs", ""), "checked_against": meta.get("checked_against", ""),
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


class _SplitWriter:
    """One (config, split) streamed into one Parquet file, a batch of rows at a time.

    Memory stays flat however many tasks a split has; the card's num_bytes is the
    in-memory size of what was written.
    """

    def __init__(self, path: str) -> None:
        self.path, self.rows, self.nbytes = path, 0, 0
        self._writer: pq.ParquetWriter | None = None

    def write(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        table = pa.Table.from_pylist(rows, schema=FEATURES)
        if self._writer is None:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            self._writer = pq.ParquetWriter(self.path, FEATURES, compression="zstd")
        self._writer.write_table(table)
        self.rows += len(rows)
        self.nbytes += int(table.nbytes)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


class _PlainDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # the card is read by people too: no &anchors
        return True


def _front_matter(counts: dict[tuple[str, str], int], sizes: dict[tuple[str, str], int]) -> str:
    features = [{"name": f.name, "dtype": "string"} if f.type == pa.string()
                else {"name": f.name, "sequence": "int64" if f.type.value_type == pa.int64() else "string"}
                for f in FEATURES]
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
             "Each Tier A API description was written for this project from the provider's documentation and "
             "checked against the provider's published description. The table gives that description's licence as "
             "its provider states it (\"none stated\" where it states none) and what it was checked against.", "",
             "| task | API | licence of the provider's API description | checked against |",
             "| --- | --- | --- | --- |"]
    seen = set()
    for r in sorted(tier_a_rows, key=lambda r: r["task_id"]):
        if r["api"] in seen:
            continue
        seen.add(r["api"])
        lines.append(f"| `{r['task_id']}` | [{r['api']}]({r['docs']}) | {r['licence']} | {r['checked_against']} |")
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

One folder per task, `tasks/<task_id>/`: the task's `task.json`, its API description (`openapi.yaml`:
OpenAPI 3 with the `x-har2client` conventions, for both tiers), `tests.json`, `grading.json` and
`reference_client.py`. The public tasks are in the companion dataset.
`har2client pull TASK_ID --source ORG/NAME` fetches one task's files from both and
`har2client grade TASK_ID client.py` grades a client on it.
"""


def dataset_folders(public: str, hidden: str | None = None) -> tuple[str, str]:
    """The public folder and its hidden companion (``PUBLIC-hidden`` unless given)."""
    public = os.path.normpath(public)
    return public, os.path.normpath(hidden) if hidden else public + "-hidden"


def _check_target(folder: str, overwrite: bool) -> None:
    """Refuse to replace anything but an earlier dataset build, and that only with ``overwrite``."""
    if not os.path.exists(folder) or not os.listdir(folder):
        return
    if not set(os.listdir(folder)) <= {"README.md", "data", "tasks", ".gitattributes"}:
        raise Har2ClientError(f"{folder}: exists and is not a HAR2Client dataset folder; choose another --out")
    if not overwrite:
        raise Har2ClientError(f"{folder}: holds an earlier dataset build (perhaps from another secret seed); "
                              "pass --overwrite to replace it")


def _task_batches(work: str, secret: int | None, train: int, task_dirs: list[str] | None,
                  say: Callable[[str], None]) -> Iterator[tuple[str, list[str]]]:
    """(split, task directories) a batch at a time; each batch's files are deleted once the next is asked for."""
    from ..repair import REPAIR_SIZE, build_repair
    from ..tiera import build_tiera
    from ..tierb import TIERB_SIZE, build_investigate, build_tierb

    if task_dirs:
        for d in task_dirs:
            if not os.path.isdir(d):
                raise Har2ClientError(f"{d}: no such directory of tasks")
            found = [os.path.join(d, t) for t in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, t,
                                                                                                      "task.json"))]
            if not found:
                raise Har2ClientError(f"{d}: holds no task directories (no */task.json)")
            yield "test", found
    else:
        seed = secret_seed(secret)
        say("building the test split from the secret seed")
        for name, build in (("tierB", build_tierb), ("tierA", build_tiera), ("investigate", build_investigate),
                            ("repair", build_repair)):
            batch = os.path.join(work, "test", name)
            yield "test", build(batch, seed)
            shutil.rmtree(batch)
    if not train:
        return
    say(f"building {train} train tasks per config from public seeds")
    for name in CONFIGS:
        made, n = 0, 0
        while made < train:
            s = PUBLIC_TRAIN_SEED + n
            batch = os.path.join(work, "train", name, str(s))
            if name in ("tierB", "investigate", "repair"):
                builders: dict[str, Callable[..., list[str]]] = {
                    "tierB": build_tierb, "investigate": build_investigate, "repair": build_repair}
                build = builders[name]
                size = REPAIR_SIZE if name == "repair" else TIERB_SIZE
                paths = build(batch, s, limit=min(size, train - made), id_prefix=f"s{s}_")
            else:
                paths = build_tiera(batch, s, id_prefix=f"s{s}_", limit=train - made)
            if not paths:  # a seed that gives nothing would give nothing forever
                raise Har2ClientError(f"no {name} train task could be built from seed {s}")
            yield "train", paths
            shutil.rmtree(batch)
            made, n = made + len(paths), n + 1
            say(f"train {name}: {made}/{train}")


def build_dataset(out_dir: str, *, secret: int | None = None, train: int = 0, task_dirs: list[str] | None = None,
                  progress: Callable[[str], None] | None = None, overwrite: bool = False) -> dict[tuple[str, str], int]:
    """Write ``out_dir`` (public) and ``out_dir-hidden``; return the number of tasks per (config, split).

    The test split is built from ``secret`` (or taken from ``task_dirs``: directories of task
    directories), the train split from public seeds, ``train`` tasks per config. Both folders are
    built beside their destination and moved into place only when complete: a failure or an
    interruption leaves no half-written dataset, and an earlier one is replaced only with ``overwrite``.
    """
    say = progress or (lambda _msg: None)
    public, hidden = dataset_folders(out_dir)
    for d in (public, hidden):
        _check_target(d, overwrite)
        os.makedirs(os.path.dirname(os.path.abspath(d)), exist_ok=True)
    stages = [tempfile.mkdtemp(prefix=f".{os.path.basename(d)}.building-", dir=os.path.dirname(os.path.abspath(d)))
              for d in (public, hidden)]
    stage_public, stage_hidden = stages
    writers = {(c, sp): _SplitWriter(os.path.join(stage_public, "data", c, f"{sp}-00000-of-00001.parquet"))
               for c in CONFIGS for sp in SPLITS}
    licence_rows: dict[str, dict[str, Any]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="h2c-dataset-") as work:
            for split, batch in _task_batches(work, secret, train, task_dirs, say):
                by_config: dict[str, list[dict[str, Any]]] = {c: [] for c in CONFIGS}
                for task_dir in batch:
                    row = task_row(task_dir)
                    config = row["case"] if row["case"] in ("investigate", "repair") else \
                        "tierB" if row["tier"] == "B" else "tierA"
                    by_config[config].append(row)
                    if config == "tierA":  # the licence table names each API's first task
                        first = licence_rows.get(row["api"])
                        if first is None or row["task_id"] < first["task_id"]:
                            licence_rows[row["api"]] = row
                    _write_hidden(task_dir, stage_hidden)
                for config, rows in by_config.items():
                    writers[(config, split)].write(rows)
        for w in writers.values():
            w.close()
        counts = {k: w.rows for k, w in writers.items() if w.rows}
        sizes = {k: w.nbytes for k, w in writers.items() if w.rows}
        if not counts:
            raise Har2ClientError("no tasks to write: the dataset would be empty")
        card = _front_matter(counts, sizes) + "\n" + \
            resources.files("har2client.hub").joinpath("dataset_card.md").read_text(encoding="utf-8")
        card += _licence_table(list(licence_rows.values()))
        with open(os.path.join(stage_public, "README.md"), "w", encoding="utf-8") as fh:
            fh.write(card)
        with open(os.path.join(stage_hidden, "README.md"), "w", encoding="utf-8") as fh:
            fh.write(HIDDEN_CARD)
        for final, stage in ((public, stage_public), (hidden, stage_hidden)):
            if os.path.exists(final):
                shutil.rmtree(final)
            os.rename(stage, final)
    except BaseException:
        for w in writers.values():
            w.close()
        for stage in stages:
            shutil.rmtree(stage, ignore_errors=True)
        raise
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
                    raise Har2ClientError(f"{path}: not a readable Parquet file "
                                          f"({str(exc).splitlines()[0][:160]})") from None
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
    shutil.copyfile(os.path.join(hidden_task, "task.json"), os.path.join(dest, "task.json"))
    arms = arms_of(dest)
    for name, column in (("client_v1.py", "client_v1"), ("failure.txt", "failure")):
        if row.get(column):
            with open(os.path.join(dest, name), "w", encoding="utf-8", newline="\n") as fh:
                fh.write(row[column])
    for arm, kind, column in (("evidence", "recording", "recording_evidence"), ("hint", "goal", "goal_hint"),
                              ("placebo", "goal", "goal_placebo"), ("notice", "goal", "goal_notice")):
        if arm in arms and row.get(column):
            path = os.path.join(dest, arms[arm][kind])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(row[column])
    for name in HIDDEN_FILES:
        src = os.path.join(hidden_task, name)
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(dest, "hidden", name))
    json.loads(_read(os.path.join(dest, "task.json")))  # a broken copy fails here, not in the grader
    return dest

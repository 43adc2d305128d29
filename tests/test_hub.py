"""The dataset folders: load_dataset offline, nothing hidden in public, a faithful round trip, pull and publish."""

import glob
import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from conftest import ROOT, run_cli
from har2client.agents import baseline_source
from har2client.grading import grade
from har2client.hub import build_dataset, restore_task
from har2client.tiera._build import build_tiera
from test_tierb_build import tree_digest

pytestmark = pytest.mark.slow  # see pyproject.toml's markers

SECRET = "4242"


def HIDDEN(folder):
    return folder.parent / (folder.name + "-hidden")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """The dataset as the contract builds it: the CLI, a secret seed, a small train split."""
    out = tmp_path_factory.mktemp("datasets") / "h2c"
    r = run_cli("dataset", "build", "--out", str(out), "--secret-seed", SECRET, "--train", "3")
    assert r.returncode == 0, r.stderr
    assert "tierA test 27" in r.stdout and "tierB test 50" in r.stdout and "tierB train 3" in r.stdout
    return out


def test_load_dataset_reads_every_config_and_split_offline_without_our_code(dataset):
    code = (
        "import sys, json\n"
        "from datasets import load_dataset\n"
        "out = {}\n"
        "for c in ('tierB', 'tierA', 'investigate', 'repair'):\n"
        "    for s in ('test', 'train'):\n"
        "        d = load_dataset(sys.argv[1], c, split=s)\n"
        "        out[c + '/' + s] = [len(d), d[0]['task_id'], sorted(d.column_names), d[0]['budgets'], d[0]['arms'],\n"
        "                            bool(d[0]['goal_hint'])]\n"
        "assert not any(m.startswith('har2client') for m in sys.modules)\n"
        "print(json.dumps(out))\n"
    )
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(dataset / "hf")}
    r = subprocess.run([sys.executable, "-c", code, str(dataset)], capture_output=True, text=True,
                       env=env, cwd=str(dataset))
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["tierB/test"][:2] == [50, "tierb_00_invoices"] and got["tierA/test"][:2] == [27, "tiera_01_stripe"]
    assert got["tierB/train"][0] == 3 and got["tierB/train"][1].startswith("tierb_s1000_")
    assert {"task_id", "goal", "recording", "recording_compact", "observation_format", "source", "licence"} <= set(
        got["tierB/test"][2])
    # Case 2 as its own config: the same tasks with their probe budgets (practice credentials are per episode)
    assert got["investigate/test"][:2] == [50, "investigate_00_invoices"] and got["investigate/test"][3] == [0, 1, 5]
    assert got["tierB/test"][3] == [] and got["tierB/test"][4] == ["as_built", "evidence", "hint", "placebo"]
    assert got["tierB/test"][5] and got["investigate/train"][0] == 3
    # Case 3 as its own config: the old client and its failure are columns; the arms are the repair's
    assert got["repair/test"][0] == 64 and got["repair/test"][1].startswith("repair_00_") and {"client_v1", "failure",
                                                                                               "goal_notice"} <= set(
        got["repair/test"][2]) and got["repair/test"][4] == ["base", "hint", "notice", "placebo"]


def test_the_public_folder_holds_nothing_hidden(dataset):
    hidden_root = HIDDEN(dataset) / "tasks"
    secrets = {'"switches"', "Reference client for", "hidden_tests", "reference_client"}
    for task in hidden_root.iterdir():
        secrets |= {t["name"] for t in json.load(open(task / "tests.json"))}
        secrets.add(str(json.load(open(task / "grading.json"))["task_seed"]))
    texts = [open(dataset / "README.md").read()]
    for path in glob.glob(str(dataset / "data" / "*" / "*.parquet")):
        for row in pq.read_table(path).to_pylist():
            texts.append(json.dumps(row))
    leaks = {s for s in secrets if any(s in t for t in texts)}
    assert not leaks
    card = open(HIDDEN(dataset) / "README.md").read()
    assert "extra_gated_prompt" in card and "extra_gated_fields" in card


def test_the_card_names_each_tier_a_licence_and_what_it_was_checked_against(dataset):
    card = open(dataset / "README.md").read()
    table = card.split("## Tier A licences", 1)[1]
    rows = [line for line in table.splitlines() if line.startswith("| `tiera_")]
    assert len(rows) == 27 and "unknown" not in table.lower()
    assert all(len(cells := row.split(" | ")) == 4 and cells[2] and "checked on 20" in cells[3] for row in rows)
    assert sum("none stated" in row for row in rows) >= 1  # the truth where a provider states no licence


def test_the_test_split_depends_on_the_secret_seed(dataset, tmp_path):
    public_build = tmp_path / "public-seed"
    build_tiera(str(public_build), 1, limit=2)
    restored = restore_task(str(dataset), str(HIDDEN(dataset)), "tiera_01_stripe", str(tmp_path / "r"))
    assert open(os.path.join(restored, "recording.har")).read() != open(
        public_build / "tiera_01_stripe" / "recording.har").read()
    env = {k: v for k, v in os.environ.items() if k != "HAR2CLIENT_SECRET_SEED"}
    r = subprocess.run([sys.executable, "-m", "har2client", "dataset", "build", "--out", str(tmp_path / "x")],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 2 and "HAR2CLIENT_SECRET_SEED" in r.stderr and "Traceback" not in r.stderr


def test_every_task_round_trips_and_grades_exactly_as_the_original(tierb_dir, tmp_path):
    tiera_dir = tmp_path / "tierA"
    build_tiera(str(tiera_dir), 1)
    out = tmp_path / "ds"
    build_dataset(str(out), task_dirs=[str(tierb_dir), str(tiera_dir)])
    originals = sorted(glob.glob(str(tierb_dir / "tierb_*")) + glob.glob(str(tiera_dir / "tiera_*")))
    assert len(originals) == 77
    for original in originals:
        task_id = os.path.basename(original)
        restored = restore_task(str(out), str(HIDDEN(out)), task_id, str(tmp_path / "restored"))
        assert tree_digest(restored) == tree_digest(original), task_id
        for kind in ("reference", "replay"):
            client = tmp_path / f"{kind}.py"
            client.write_text(baseline_source(kind, original))
            a = grade(original, str(client), seed=17)
            b = grade(restored, str(client), seed=17)
            assert [t.passed for t in a.tests] == [t.passed for t in b.tests], (task_id, kind)
            assert kind == "replay" or a.pass_rate == 1.0


def test_pull_and_grade_by_task_id_from_a_local_folder(dataset, tmp_path):
    env_home = {"HF_HOME": str(tmp_path / "hf")}
    r = subprocess.run([sys.executable, "-m", "har2client", "pull", "tierb_00_invoices", "--source", str(dataset)],
                       capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env_home})
    assert r.returncode == 0, r.stderr
    task_dir = r.stdout.strip()
    assert task_dir.startswith(str(tmp_path / "hf")) and os.path.isfile(os.path.join(task_dir, "hidden", "tests.json"))
    ref = os.path.join(task_dir, "hidden", "reference_client.py")
    g = subprocess.run([sys.executable, "-m", "har2client", "grade", "tierb_00_invoices", ref, "--json"],
                       capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, **env_home, "HAR2CLIENT_SOURCE": str(dataset)})
    assert g.returncode == 0 and json.loads(g.stdout)["pass_rate"] == 1.0
    bad = subprocess.run([sys.executable, "-m", "har2client", "pull", "tierb_77_nothing", "--source", str(dataset)],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env_home})
    assert bad.returncode == 2 and "no such task" in bad.stderr and "Traceback" not in bad.stderr


def test_publish_dry_run_says_what_goes_where_and_errors_are_one_line(dataset, tmp_path):
    r = run_cli("publish", "--repo", "acme/h2c", "--hidden-repo", "acme/h2c-hidden", "--folder", str(dataset),
                "--dry-run")
    assert r.returncode == 0
    assert "would upload" in r.stdout and "https://huggingface.co/datasets/acme/h2c [public]" in r.stdout
    assert "acme/h2c-hidden [gated (manual approval)]" in r.stdout and "tasks/tierb_00_invoices/tests.json" in r.stdout
    env = {k: v for k, v in os.environ.items() if k != "HF_TOKEN"}
    env["HF_HOME"] = str(tmp_path / "no-login")
    r = subprocess.run([sys.executable, "-m", "har2client", "publish", "--repo", "acme/h2c", "--hidden-repo",
                        "acme/h2c-hidden", "--folder", str(dataset)], capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 2 and "no Hugging Face token" in r.stderr and "Traceback" not in r.stderr
    same = run_cli("publish", "--repo", "acme/h2c", "--hidden-repo", "acme/h2c", "--folder", str(dataset), "--dry-run")
    assert same.returncode == 2 and "must differ" in same.stderr


def test_a_corrupt_dataset_file_is_one_line(dataset, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    shutil.copytree(HIDDEN(dataset), HIDDEN(copy))
    (copy / "data" / "tierA" / "test-00000-of-00001.parquet").write_bytes(b"")
    r = run_cli("pull", "tierb_00_invoices", "--source", str(copy))
    assert r.returncode == 2 and "not a readable Parquet file" in r.stderr and "Traceback" not in r.stderr


def test_a_rebuild_never_deletes_a_folder_that_is_not_a_dataset(tmp_path):
    precious = tmp_path / "work"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    r = run_cli("dataset", "build", "--out", str(precious), "--secret-seed", SECRET)
    assert r.returncode == 2 and "not a HAR2Client dataset folder" in r.stderr
    assert (precious / "notes.txt").read_text() == "keep me"


def _two_tasks(tierb_dir, tmp_path):
    few = tmp_path / "few"
    few.mkdir()
    for name in sorted(os.listdir(tierb_dir))[:2]:
        if os.path.isdir(tierb_dir / name):
            os.symlink(tierb_dir / name, few / name)
    return few


def test_a_build_over_an_earlier_dataset_needs_overwrite(tierb_dir, tmp_path):
    few, out = _two_tasks(tierb_dir, tmp_path), tmp_path / "ds"
    assert run_cli("dataset", "build", "--out", str(out), "--tasks", str(few)).returncode == 0
    before = tree_digest(out)
    again = run_cli("dataset", "build", "--out", str(out), "--tasks", str(few))
    assert again.returncode == 2 and "pass --overwrite" in again.stderr and "Traceback" not in again.stderr
    assert tree_digest(out) == before
    assert run_cli("dataset", "build", "--out", str(out), "--tasks", str(few), "--overwrite").returncode == 0


def test_a_failed_build_leaves_nothing_half_written(tierb_dir, tmp_path):
    import shutil

    few = tmp_path / "few"
    few.mkdir()
    names = sorted(n for n in os.listdir(tierb_dir) if os.path.isdir(tierb_dir / n))[:3]
    for name in names:
        shutil.copytree(tierb_dir / name, few / name)
    (few / names[2] / "task.json").write_text("{ not json")  # the third task is broken
    parent = tmp_path / "out"
    parent.mkdir()
    r = run_cli("dataset", "build", "--out", str(parent / "ds"), "--tasks", str(few))
    assert r.returncode == 2 and "not valid JSON" in r.stderr and "Traceback" not in r.stderr
    assert os.listdir(parent) == []  # neither folder, nor anything staged beside them


def test_a_pulled_task_is_found_by_id_without_its_source(dataset, tmp_path):
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf")}
    env.pop("HAR2CLIENT_SOURCE", None)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "har2client", *args], capture_output=True, text=True,
                              cwd=ROOT, env=env)

    unknown = cli("grade", "tierb_00_invoices", "client.py")
    assert unknown.returncode == 2 and "har2client pull tierb_00_invoices --source" in unknown.stderr
    assert cli("pull", "tierb_00_invoices", "--source", str(dataset)).returncode == 0
    ref = tmp_path / "ref.py"
    made = cli("baseline", "reference", "tierb_00_invoices", "-o", str(ref))
    assert made.returncode == 0, made.stderr
    graded = cli("grade", "tierb_00_invoices", str(ref), "--json")
    assert graded.returncode == 0 and json.loads(graded.stdout)["pass_rate"] == 1.0
    rendered = cli("render", "tierb_00_invoices")
    assert rendered.returncode == 0 and "## recording.har" in rendered.stdout

"""publish and pull against a local stand-in for the Hugging Face Hub (tests/hub_standin.py says what it speaks).

The Hub cannot be reached from this machine; the stand-in serves the same HTTP API on loopback, and
huggingface_hub is pointed at it with HF_ENDPOINT, as its documentation describes for private hubs.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from hub_standin import WRITE_TOKEN, HubStandIn
from test_hub import dataset  # noqa: F401  (the module-scoped dataset fixture)

pytestmark = pytest.mark.slow  # see pyproject.toml's markers


@pytest.fixture
def hub(tmp_path):
    standin = HubStandIn(str(tmp_path / "hub"))
    yield standin
    standin.close()


def _cli(hub, tmp_path, *args, token=WRITE_TOKEN):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_ENDPOINT=hub.endpoint, HF_HUB_DISABLE_XET="1", HF_HOME=str(tmp_path / "hf"),
               HF_HUB_DISABLE_TELEMETRY="1")
    if token:
        env["HF_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "har2client", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def test_publish_then_pull_and_grade_through_the_hub_protocol(hub, dataset, tmp_path):  # noqa: F811
    r = _cli(hub, tmp_path, "publish", "--repo", "acme/h2c", "--hidden-repo", "acme/h2c-hidden",
             "--folder", str(dataset))
    assert r.returncode == 0, r.stderr[-2000:]
    stored = sorted(hub._files("datasets/acme/h2c"))
    assert "README.md" in stored and "data/tierB/test-00000-of-00001.parquet" in stored
    assert hub.repos["datasets/acme/h2c-hidden"]["gated"] == "manual"
    assert "tasks/tierb_00_invoices/tests.json" in hub._files("datasets/acme/h2c-hidden")

    pulled = _cli(hub, tmp_path, "pull", "tierb_00_invoices", "--source", "acme/h2c")
    assert pulled.returncode == 0, pulled.stderr[-2000:]
    task_dir = pulled.stdout.strip()
    assert os.path.isfile(os.path.join(task_dir, "hidden", "reference_client.py"))
    graded = _cli(hub, tmp_path, "grade", "tierb_00_invoices", os.path.join(task_dir, "hidden", "reference_client.py"),
                  "--source", "acme/h2c", "--json")
    assert graded.returncode == 0 and json.loads(graded.stdout)["pass_rate"] == 1.0


def test_a_gated_repo_without_access_and_an_unknown_repo_are_one_line_each(hub, dataset, tmp_path):  # noqa: F811
    assert _cli(hub, tmp_path, "publish", "--repo", "acme/h2c", "--hidden-repo", "acme/h2c-hidden",
                "--folder", str(dataset)).returncode == 0
    stranger = _cli(hub, tmp_path, "pull", "tierb_00_invoices", "--source", "acme/h2c", token="hf_someone_else")
    assert stranger.returncode == 2 and "Traceback" not in stranger.stderr
    assert "acme/h2c-hidden is gated" in stranger.stderr and "request it at" in stranger.stderr
    missing = _cli(hub, tmp_path, "pull", "tierb_00_invoices", "--source", "acme/nothing")
    assert missing.returncode == 2 and "no such dataset" in missing.stderr and "Traceback" not in missing.stderr
    refused = _cli(hub, tmp_path, "publish", "--repo", "acme/x", "--hidden-repo", "acme/x-hidden",
                   "--folder", str(dataset), token="hf_not_a_writer")
    assert refused.returncode == 2 and "the token was refused" in refused.stderr

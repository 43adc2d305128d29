"""The package as a user installs it: a wheel in a fresh virtual environment, run far from this checkout.

Everything the commands need must be inside the wheel (Tier A descriptions, the dataset card), and
the grader must work without the hub extra, saying in one line what to install for the rest.
Dependencies are pinned to uv.lock, so the test installs what the suite itself runs on.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

UV = shutil.which("uv")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(UV is None, reason="uv is not installed (CI installs it)")]


def _uv(*args, cwd=ROOT, timeout=600):
    r = subprocess.run([UV, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The wheel and the sdist that `uv build` makes, and uv.lock's pins for their dependencies."""
    dist = tmp_path_factory.mktemp("dist")
    _uv("build", "--out-dir", str(dist))
    [wheel] = [n for n in os.listdir(dist) if n.endswith(".whl")]
    [sdist] = [n for n in os.listdir(dist) if n.endswith(".tar.gz")]
    pins = dist / "pins.txt"
    _uv("export", "--frozen", "--no-hashes", "--no-emit-project", "--no-dev", "--all-extras", "-o", str(pins))
    return {"wheel": dist / wheel, "sdist": dist / sdist, "pins": pins}


@pytest.fixture(scope="module")
def wheel(built):
    return built["wheel"], built["pins"]


def _venv(tmp_path, wheel, extra=""):
    path, pins = wheel
    venv = tmp_path / "venv"
    _uv("venv", "--python", sys.executable, str(venv))
    python = venv / "bin" / "python"
    _uv("pip", "install", "--python", str(python), "-c", str(pins), f"{path}{extra}")
    return venv / "bin"


def _run(bindir, *args, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "UV_RUN_RECURSION_DEPTH")}
    return subprocess.run([str(bindir / "har2client"), *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=600)


def test_the_wheel_with_the_hub_extra_runs_every_main_command(wheel, tmp_path):
    bindir = _venv(tmp_path, wheel, "[hub]")
    work = tmp_path / "work"
    work.mkdir()
    quick = _run(bindir, "quickstart", cwd=work)
    assert quick.returncode == 0, quick.stderr
    assert "reference:  pass_rate=1.000" in quick.stdout and "next:       har2client grade" in quick.stdout
    tiera = _run(bindir, "build", "tiera", "--out", "tierA", cwd=work)
    assert tiera.returncode == 0 and "built 27 tasks" in tiera.stdout, tiera.stdout + tiera.stderr
    ds = _run(bindir, "dataset", "build", "--out", "ds", "--secret-seed", "5", "--train", "2", cwd=work)
    assert ds.returncode == 0, ds.stderr
    assert "tierA train 2" in ds.stdout and "tierB train 2" in ds.stdout and "tierA test 27" in ds.stdout
    assert (work / "ds" / "README.md").read_text().startswith("---\n")  # the card came from inside the wheel
    task = work / "tierA" / "tiera_01_stripe"
    graded = _run(bindir, "grade", str(task), str(task / "hidden" / "reference_client.py"), "--json", cwd=work)
    assert graded.returncode == 0 and json.loads(graded.stdout)["pass_rate"] == 1.0, graded.stderr


def test_the_bare_wheel_grades_and_names_the_extra_the_rest_needs(wheel, tmp_path):
    bindir = _venv(tmp_path, wheel)
    work = tmp_path / "work"
    work.mkdir()
    assert _run(bindir, "quickstart", cwd=work).returncode == 0
    ds = _run(bindir, "dataset", "build", "--out", "ds", "--secret-seed", "5", cwd=work)
    assert ds.returncode == 2 and "Traceback" not in ds.stderr
    assert ds.stderr.strip() == "har2client: error: dataset commands need the hub extra: pip install 'har2client[hub]'"
    assert not (work / "ds").exists()
    serve = _run(bindir, "serve-env", "--port", "1", cwd=work)
    assert serve.returncode == 2 and "Traceback" not in serve.stderr
    assert "needs the openenv extra" in serve.stderr and "pip install 'har2client[openenv]'" in serve.stderr
    for args, extra in ((("run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--tasks", ".", "--out", "o"),
                         "run"),
                        (("space", "--port", "1"), "space")):
        out = _run(bindir, *args, cwd=work)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert f"'har2client[{extra}]'" in out.stderr, out.stderr
    # the environments themselves need no extra: the page's snippet runs on the bare wheel
    snippet = ("from har2client.env.env import TrafficToClientEnv\n"
               "env = TrafficToClientEnv(curriculum='L0', seed=0)\nenv.reset()\n"
               "print(env.step({'type': 'submit', 'code': env.reference_code()})['reward'])\nenv.close()\n")
    out = subprocess.run([str(bindir / "python"), "-c", snippet], capture_output=True, text=True, cwd=work, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "1.0", out.stderr[-2000:]


def test_the_sdist_installs_and_runs_quickstart(built, tmp_path):
    bindir = _venv(tmp_path, (built["sdist"], built["pins"]))
    work = tmp_path / "work"
    work.mkdir()
    quick = _run(bindir, "quickstart", cwd=work)
    assert quick.returncode == 0 and "reference:  pass_rate=1.000" in quick.stdout, quick.stderr


def test_the_distributions_carry_the_licences_and_the_data(built):
    import tarfile
    import zipfile

    names = zipfile.ZipFile(built["wheel"]).namelist()
    assert any(n.endswith("licenses/LICENSE") for n in names) and any(n.endswith("licenses/NOTICE") for n in names)
    assert "har2client/tiera/specs/01_stripe.yaml" in names and "har2client/hub/dataset_card.md" in names
    assert "har2client/tasks/scoring_golden.json" in names
    with tarfile.open(built["sdist"]) as tar:
        members = {m.split("/", 1)[1] for m in tar.getnames() if "/" in m}
    assert {"LICENSE", "NOTICE", "CITATION.cff", "CHANGELOG.md", "pyproject.toml"} <= members
    assert "tests/har_corpus/mitmproxy.har" in members and not any(m.startswith(".venv") for m in members)

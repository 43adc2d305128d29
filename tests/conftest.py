import os
import sys

import pytest

from har2client.tierb import build_tierb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="session")
def tierb_dir(tmp_path_factory):
    """The 50 Tier B tasks of seed 1, built once for the session."""
    out = tmp_path_factory.mktemp("tierB")
    build_tierb(str(out), 1, configs_path=str(out / "configs.jsonl"))
    return out


@pytest.fixture(scope="session")
def tierb_tasks(tierb_dir):
    return sorted(str(p) for p in tierb_dir.iterdir() if p.is_dir())


def run_cli(*args, cwd=None, timeout=300):
    import subprocess

    return subprocess.run([sys.executable, "-m", "har2client", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout)

"""``har2client analyze``: bootstrap intervals that agree with SciPy's, and a synthetic model whose
verdicts are known before the analysis runs."""

import json
import os
import random
import re
import subprocess
import sys

import pytest

from har2client.agents._runner import RunSettings, run
from har2client.analysis import analyze, bootstrap_ci, bootstrap_combination, read_prereg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_standin import OpenAIStandIn

pytestmark = pytest.mark.slow  # see pyproject.toml's markers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREREG = os.path.join(ROOT, "PREREG.md")


@pytest.mark.parametrize("seed", range(6))
def test_the_bootstrap_interval_matches_scipys(seed):
    import numpy as np
    from scipy.stats import bootstrap

    r = random.Random(seed)
    n = r.choice((8, 14, 25, 50, 64))
    values = [100 * min(1.0, max(0.0, r.gauss(r.random(), 0.3))) for _ in range(n)]
    if seed % 2:
        values = [100.0 if r.random() < 0.7 else r.random() * 60 for _ in range(n)]  # pass rates pile up at 100
    lo, hi = bootstrap_ci(values, 10_000, seed)
    ref = bootstrap((np.array(values),), np.mean, n_resamples=10_000, method="percentile", confidence_level=0.95,
                    random_state=np.random.default_rng(seed)).confidence_interval
    assert abs(lo - ref.low) <= 0.5 and abs(hi - ref.high) <= 0.5, (lo, hi, ref)
    # two independent groups: the interval of the difference of means
    other = [v * 0.5 for v in values[: max(4, n // 2)]]
    lo, hi = bootstrap_combination([values, other], [1, -1], 10_000, seed)
    ref = bootstrap((np.array(values), np.array(other)), lambda a, b, axis=-1: np.mean(a, axis=axis) - np.mean(b,
                                                                                                               axis=axis),
                    n_resamples=10_000, method="percentile",
                    random_state=np.random.default_rng(seed)).confidence_interval
    assert abs(lo - ref.low) <= 0.5 and abs(hi - ref.high) <= 0.5


def test_the_prereg_has_every_hypothesis_of_the_page():
    rules = read_prereg(PREREG)
    assert [h["id"] for h in rules] == ["H10", "H16", "H17", "H18", "H19", "H20", "H21", "H22", "H23"]


# -- a synthetic model with known verdicts -------------------------------------------------------

# How many of the 12 tasks the "model" repairs, by (arm, effort); the rest it answers with client_v1
# unchanged. The repaired tasks are always the first k in one fixed order, so each arm's set holds the
# smaller ones: the paired differences all have one sign and the verdicts are known before the run:
# H16 supported (hint > base at low and at high), H17 rejected (high > low in base), H22 supported
# (placebo = base, hint > placebo), H23 rejected (a notice gains nothing here, under half of hint's 9 tasks),
# H18 not tested (no xhigh); H10, H19, H20, H21 not tested (no such runs).
REPAIRED = {("base", "low"): 2, ("placebo", "low"): 2, ("notice", "low"): 2, ("hint", "low"): 11,
            ("base", "high"): 8, ("hint", "high"): 12}
KNOWN = {"H10": "not tested", "H16": "supported", "H17": "rejected", "H18": "not tested", "H19": "not tested",
         "H20": "not tested", "H21": "not tested", "H22": "supported", "H23": "rejected"}


@pytest.fixture(scope="module")
def repair_tasks(tmp_path_factory):
    from har2client.repair import build_repair

    out = tmp_path_factory.mktemp("analysis") / "repair"
    build_repair(str(out), 1, limit=12)
    return str(out)


def test_analyze_finds_the_synthetic_models_known_verdicts(repair_tasks, tmp_path, monkeypatch):
    order = sorted(os.listdir(repair_tasks))

    def answer(messages, body):
        user = messages[-1]["content"]
        task_id, arm = re.search(r"# Task (\S+), arm (\w+):", user).groups()
        k = REPAIRED[(arm, body["reasoning_effort"])]
        name = "hidden/reference_client.py" if order.index(task_id) < k else "client_v1.py"
        with open(os.path.join(repair_tasks, task_id, name), encoding="utf-8") as fh:
            return "```python\n" + fh.read() + "```"

    monkeypatch.setenv("STANDIN_KEY", "x")
    runs = []
    with OpenAIStandIn(answer) as api:
        for (arm, effort) in REPAIRED:
            out = tmp_path / f"{arm}-{effort}"
            run(RunSettings(model="synthetic", base_url=api.base_url, tasks=repair_tasks, out=str(out), case="repair",
                            arm=arm, effort=effort, api_key_env="STANDIN_KEY", concurrency=4))
            runs.append(str(out))
    summary = analyze(runs, str(tmp_path / "analysis"), prereg=PREREG, resamples=2000)
    got = {v["id"]: v["verdict"] for v in summary["verdicts"]}
    assert got == KNOWN, {v["id"]: v["evidence"] for v in summary["verdicts"]}
    h16 = next(v for v in summary["verdicts"] if v["id"] == "H16")
    assert re.fullmatch(r"low: hint - base \+\d+\.\d pts \[95% CI \+\d+\.\d, \+\d+\.\d\] \(n=12\); high: .*",
                        h16["evidence"])
    cells = {c["benchmark"] + " / " + c["setting"]: c for c in summary["cells"]}
    assert cells["Case 3 Tier B hint / synthetic high"]["full_pass"] == 100.0
    assert cells["Case 3 Tier B base / synthetic low"]["full_pass"] == pytest.approx(100 * 2 / 12, abs=0.01)
    contrasts = {(c["setting"], c["contrast"]): c for c in summary["arm_contrasts"]}
    assert contrasts[("synthetic low", "placebo - base")]["estimate"] == 0.0
    assert contrasts[("synthetic high", "hint - base")]["n"] == 12 and contrasts[("synthetic high",
                                                                                  "hint - base")]["ci"][0] > 0
    report = open(tmp_path / "analysis" / "report.md", encoding="utf-8").read()
    assert "| H17 | synthetic | Effort does not fix noticing | rejected |" in report
    assert json.load(open(tmp_path / "analysis" / "summary.json", encoding="utf-8"))["verdicts"] == summary["verdicts"]
    # the command line: the same verdicts, one per line
    out = subprocess.run([sys.executable, "-m", "har2client", "analyze", *runs, "--out", str(tmp_path / "cli"),
                          "--prereg", PREREG, "--resamples", "500"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "H22\tsupported\tplacebo - base +0.0 pts [95% CI +0.0, +0.0] (n=12); hint - placebo +" in out.stdout

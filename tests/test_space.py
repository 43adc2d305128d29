"""The Space in a real browser: Playwright for Python driving Debian's chromium (no browser download
works here), against ``har2client space`` running as its own process with a real grading worker."""

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = os.environ.get("H2C_SCREENSHOTS")  # a folder to keep each tab's screenshot in, for people to look at

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_standin import OpenAIStandIn  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Six Tier B tasks (with their published configurations), two Case 2 episodes, and the analysis of a
    stand-in model's runs."""
    from har2client.agents._runner import RunSettings, run
    from har2client.analysis import analyze
    from har2client.investigate import InvestigateEpisode, run_policy
    from har2client.tierb import build_tierb

    root = tmp_path_factory.mktemp("space")
    tasks = root / "tasks"
    build_tierb(str(tasks), 1, limit=6, configs_path=str(tasks / "configs.jsonl"))
    (root / "episodes").mkdir()
    for t in ("tierb_00_invoices", "tierb_02_tickets"):
        ep = InvestigateEpisode(str(tasks / t), 5, "as_built", 1)
        run_policy(ep, "probe-then-reference")
        ep.write(str(root / "episodes" / f"{t}.jsonl"))

    def answer(messages, body):
        tid = re.search(r"# Task (\S+),", messages[-1]["content"]).group(1)
        if body.get("reasoning_effort") == "low" and tid.endswith(("01_orders", "03_contacts")):
            return "I cannot."
        return "```python\n" + (tasks / tid / "hidden" / "reference_client.py").read_text() + "```"

    os.environ["H2C_SPACE_KEY"] = "x"
    runs = []
    with OpenAIStandIn(answer) as api:
        for effort in ("low", "high"):
            for arm in ("as_built", "hint"):
                out = root / "runs" / f"{effort}-{arm}"
                run(RunSettings(model="standin", base_url=api.base_url, tasks=str(tasks), out=str(out), effort=effort,
                                arm=arm, api_key_env="H2C_SPACE_KEY"))
                runs.append(str(out))
    analyze(runs, str(root / "results"), prereg=os.path.join(os.path.dirname(__file__), "..", "PREREG.md"),
            resamples=500)
    return root


@pytest.fixture(scope="module")
def space(data):
    port = free_port()
    env = {**os.environ, "H2C_MAX_PER_DAY": "100", "GRADIO_ANALYTICS_ENABLED": "False"}
    log = open(data / "space.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "har2client", "space", "--results", str(data / "results"),
                             "--tasks", str(data / "tasks"), "--episodes", str(data / "episodes"),
                             "--db", str(data / "space.sqlite"), "--port", str(port), "--workers", "2"],
                            stdout=log, stderr=log, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, (data / "space.log").read_text()[-3000:]
            time.sleep(0.2)
    yield {"url": url, "db": str(data / "space.sqlite"), "tasks": data / "tasks"}
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, space):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(space["url"], wait_until="load")
    page.wait_for_selector("#h2c-leaderboard", timeout=30_000)
    yield page
    page.close()


def shot(page, name, tmp_path):
    folder = SHOTS or str(tmp_path)
    os.makedirs(folder, exist_ok=True)
    page.screenshot(path=os.path.join(folder, f"space-{name}.png"), full_page=True)


def test_leaderboard_sorts_and_shows_intervals_on_hover_and_focus(page, data, tmp_path):
    summary = json.loads((data / "results" / "summary.json").read_text())
    rows = lambda: [r.split("\t")[0] for r in page.locator("#h2c-leaderboard tbody tr").all_inner_texts()]  # noqa: E731
    assert rows() == ["standin high", "standin low"]
    header = page.locator("#h2c-leaderboard th button", has_text="Case 1 Tier B as_built")
    header.click()   # descending first
    assert rows() == ["standin high", "standin low"]
    header.click()   # then ascending
    assert rows() == ["standin low", "standin high"]
    assert page.locator("#h2c-leaderboard th[aria-sort=ascending]").count() == 1
    low = next(c for c in summary["cells"] if c["setting"] == "standin low" and c["benchmark"] == "Case 1 Tier B "
                                                                                                  "as_built")
    cell = page.locator("#h2c-leaderboard tbody tr", has_text="standin low").locator("td.h2c-cell").first
    tip = cell.locator(".h2c-ci")
    assert not tip.is_visible()
    cell.hover()
    assert tip.is_visible() and f"95% CI {low['ci'][0]:.1f} to {low['ci'][1]:.1f}" in tip.inner_text()
    page.mouse.move(0, 0)
    page.keyboard.press("Tab")  # a cell takes keyboard focus and shows its interval
    cell.focus()
    assert tip.is_visible()
    assert page.locator("#h2c-verdicts").inner_text().count("H1") >= 4
    shot(page, "leaderboard", tmp_path)


def test_explorer_filters_opens_a_task_and_shows_nothing_hidden(page, space, tmp_path):
    page.get_by_role("tab", name="Explore").click()
    page.locator("#h2c-switch input").click()
    page.get_by_role("option", name="hidden_header").click()
    configs = [json.loads(x) for x in (space["tasks"] / "configs.jsonl").read_text().splitlines()]
    with_header = sorted(c["task_id"] for c in configs if c["switches"]["hidden_header"] != "off")
    found = page.locator("#h2c-found")
    page.wait_for_function(f"document.querySelector('#h2c-found').innerText.includes('tasks ({len(with_header)})')")
    found.locator("input").click()
    # the chosen one has a check mark
    options = [o.replace("\u2713", "").strip() for o in found.get_by_role("option").all_inner_texts()]
    assert sorted(options) == with_header
    found.get_by_role("option", name=with_header[0]).click()
    page.wait_for_function("document.querySelector('#h2c-requests textarea').value.length > 0")
    requests = page.locator("#h2c-requests textarea").input_value()
    assert re.search(r"^(GET|POST) https://", requests, re.M)
    assert "Constructor" in page.locator("#h2c-goal").inner_text()  # the goal, rendered as markdown
    page.locator("#h2c-shown-arm").get_by_text("hint", exact=True).click()
    page.wait_for_function("document.querySelector('#h2c-note').innerText.includes('Note of the hint arm')")
    shot(page, "explore", tmp_path)
    # nothing hidden: not in the page, not in what the app's API answered
    task = space["tasks"] / with_header[0]
    grading = json.loads((task / "hidden" / "grading.json").read_text())
    secrets = [t["name"] for t in json.loads((task / "hidden" / "tests.json").read_text())]
    secrets.append((task / "hidden" / "reference_client.py").read_text().split("class Client", 1)[1][:300])
    text = page.content()
    for s in secrets:
        assert s not in text
    assert str(grading["task_seed"]) not in text


def test_episode_viewer_steps_through_probes_to_the_grade(page, tmp_path):
    page.get_by_role("tab", name="Episodes").click()
    page.locator("#h2c-episode-list input").click()
    page.get_by_role("option", name="tierb_00_invoices.jsonl").click()
    page.wait_for_function("document.querySelector('#h2c-pos').innerText.includes('step 1 of')")
    total = int(re.search(r"of (\d+)", page.locator("#h2c-pos").inner_text()).group(1))
    saw_probe = False
    for i in range(total - 1):
        page.locator("#h2c-next").click()
        page.wait_for_function(f"document.querySelector('#h2c-pos').innerText.includes('step {i + 2} of')")
        if "tool http_request" in page.locator("#h2c-step-title").inner_text():
            saw_probe = saw_probe or "status" in page.locator("#h2c-probe").inner_text()
    assert saw_probe
    assert "end: submitted" in page.locator("#h2c-step-title").inner_text()
    assert "class Client" in page.locator("#h2c-code").inner_text()
    assert "pass" in page.locator("#h2c-tests").inner_text()
    page.locator("#h2c-prev").click()
    page.wait_for_function(f"document.querySelector('#h2c-pos').innerText.includes('step {total - 1} of')")
    shot(page, "episodes", tmp_path)


def test_a_predictions_file_is_graded_to_the_right_score(page, space, tmp_path):
    lines = [json.dumps({"task_id": t.name, "model": "reference",
                         "code": (t / "hidden" / "reference_client.py").read_text()})
             for t in sorted(space["tasks"].iterdir()) if t.is_dir()]
    lines[-1] = json.dumps({"task_id": json.loads(lines[-1])["task_id"], "model": "reference", "code": "broken("})
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(lines) + "\n")
    page.get_by_role("tab", name="Submit").click()
    page.locator("#h2c-model textarea, #h2c-model input").first.fill("browser-test")
    page.locator("#h2c-upload input[type=file]").set_input_files(str(preds))
    page.wait_for_timeout(500)
    page.locator("#h2c-send").click()
    page.wait_for_function("document.querySelector('#h2c-message').innerText.includes('Queued as submission')")
    sid = re.search(r"submission (\d+)", page.locator("#h2c-message").inner_text()).group(1)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # the page polls the queue every second
        text = page.locator("#h2c-queue").inner_text()
        if re.search(r"browser-test\s+finished", text):
            break
        page.wait_for_timeout(500)
    else:
        raise AssertionError(f"not finished on the page: {page.locator('#h2c-queue').inner_text()[:1000]}")
    assert re.search(r"browser-test\s+finished\s+6/6\s+0\.8333", text), text  # five of six tasks fully right
    with sqlite3.connect(space["db"]) as conn:
        assert conn.execute("SELECT COUNT(*) FROM results WHERE submission_id = ?", (sid,)).fetchone()[0] == 6
    shot(page, "submit", tmp_path)
    page.get_by_role("tab", name="Charts").click()
    page.wait_for_timeout(1000)
    assert page.locator("#h2c-chart-effort").is_visible()
    shot(page, "charts", tmp_path)


def test_twenty_submissions_at_once_none_lost_none_twice_page_stays_fast(space, browser, tmp_path):
    from gradio_client import Client, handle_file

    preds = tmp_path / "one.jsonl"
    t = sorted(p for p in space["tasks"].iterdir() if p.is_dir())[0]
    preds.write_text(json.dumps({"task_id": t.name, "model": "load",
                                 "code": (t / "hidden" / "reference_client.py").read_text()}))
    client = Client(space["url"], verbose=False)

    def send(i):
        return client.predict(f"load-{i}", handle_file(str(preds)), api_name="/do_submit")[0]

    with ThreadPoolExecutor(20) as ex:
        messages = list(ex.map(send, range(20)))
    assert all("Queued as submission" in m for m in messages), messages
    ids = {int(re.search(r"submission (\d+)", m).group(1)) for m in messages}
    assert len(ids) == 20
    loads = []
    for _ in range(3):  # a fresh browser context each time: nothing cached, as a first visit
        page = browser.new_page()
        t0 = time.monotonic()
        page.goto(space["url"], wait_until="load")
        page.wait_for_selector("#h2c-leaderboard")
        loads.append(time.monotonic() - t0)
        page.close()
    with sqlite3.connect(space["db"]) as conn:
        still_grading = conn.execute(f"SELECT COUNT(*) FROM submissions WHERE status IN ('pending', 'running') "
                                     f"AND id IN ({','.join(map(str, ids))})").fetchone()[0]
    assert still_grading > 0, "the loads were meant to be measured while the worker grades"
    assert sorted(loads)[1] < 2.0, loads  # the median page load while the worker grades 20 submissions
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with sqlite3.connect(space["db"]) as conn:
            states = dict(conn.execute(f"SELECT id, status FROM submissions WHERE id IN ({','.join(map(str, ids))})"))
        if all(s in ("finished", "failed") for s in states.values()):
            break
        time.sleep(0.5)
    assert set(states.values()) == {"finished"}
    with sqlite3.connect(space["db"]) as conn:
        counts = conn.execute(f"SELECT COUNT(*), COUNT(DISTINCT submission_id || task_id) FROM results "
                              f"WHERE submission_id IN ({','.join(map(str, ids))})").fetchone()
    assert counts == (20 * 6, 20 * 6)  # every task of every submission, each once


def test_a_worker_killed_mid_grade_resumes_from_the_database(data, tmp_path):
    from har2client.space._submissions import submit

    db = str(tmp_path / "q.sqlite")
    tasks = data / "tasks"
    ids = sorted(p.name for p in tasks.iterdir() if p.is_dir())
    codes = {t: (tasks / t / "hidden" / "reference_client.py").read_text() for t in ids}
    sid = submit(db, "u", "m", "f.jsonl", codes, ids)
    worker = [sys.executable, "-m", "har2client.space._worker", "--db", db, "--tasks", str(tasks), "--workers", "1"]
    proc = subprocess.Popen(worker, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with sqlite3.connect(db) as conn:
            n = conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        if n >= 2:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as conn:
        before = conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        assert conn.execute("SELECT status FROM submissions WHERE id = ?", (sid,)).fetchone()[0] == "running"
    assert before < len(ids)
    subprocess.run(worker + ["--once"], check=True, timeout=300)
    with sqlite3.connect(db) as conn:
        status, mean = conn.execute("SELECT status, mean_pass_rate FROM submissions WHERE id = ?", (sid,)).fetchone()
        rows = conn.execute("SELECT COUNT(*), COUNT(DISTINCT task_id) FROM results").fetchone()
    assert (status, mean, rows) == ("finished", 1.0, (len(ids), len(ids)))


def test_submissions_are_mirrored_to_hub_datasets_when_a_token_is_set(data, tmp_path):
    """Against the local Hub stand-in (tests/hub_standin.py: the Hub's HTTP API; the Hub is not reachable here)."""
    from har2client.space._submissions import submit
    from hub_standin import WRITE_TOKEN, HubStandIn

    hub = HubStandIn(str(tmp_path / "hub"))
    try:
        db = str(tmp_path / "q.sqlite")
        tasks = data / "tasks"
        ids = sorted(p.name for p in tasks.iterdir() if p.is_dir())
        sid = submit(db, "u", "mirrored", "f.jsonl",
                     {ids[0]: (tasks / ids[0] / "hidden" / "reference_client.py").read_text()}, ids)
        env = {**os.environ, "HF_ENDPOINT": hub.endpoint, "HF_HUB_DISABLE_XET": "1", "HF_HOME": str(tmp_path / "hf"),
               "HF_TOKEN": WRITE_TOKEN, "H2C_REQUESTS_REPO": "org/h2c-requests", "H2C_RESULTS_REPO": "org/h2c-results"}
        subprocess.run([sys.executable, "-m", "har2client.space._worker", "--db", db, "--tasks", str(tasks), "--once"],
                       check=True, timeout=300, env=env)
        # read back through the Hub protocol, in a process whose huggingface_hub sees the stand-in's endpoint
        read = ("import json, sys\nfrom huggingface_hub import hf_hub_download\n"
                "print(json.dumps([json.load(open(hf_hub_download(r, p, repo_type='dataset'))) for r, p in "
                "[(sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])]]))")
        out = subprocess.run([sys.executable, "-c", read, "org/h2c-requests", f"requests/{sid}.json", "org/h2c-results",
                              f"results/{sid}.json"], capture_output=True, text=True, timeout=120, env=env)
        assert out.returncode == 0, out.stderr[-2000:]
        req, res = json.loads(out.stdout)
        assert req["status"] == "finished" and req["model"] == "mirrored"
        assert res["results"]["tasks"][ids[0]] == 1.0
        assert res["results"]["mean_pass_rate"] == pytest.approx(1 / len(ids))
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT hub_synced FROM submissions WHERE id = ?", (sid,)).fetchone()[0] == "finished"
    finally:
        hub.close()


def test_the_explorers_api_answers_hold_nothing_hidden(space):
    from gradio_client import Client

    client = Client(space["url"], verbose=False)
    for task in sorted(p for p in space["tasks"].iterdir() if p.is_dir()):
        secrets = [t["name"] for t in json.loads((task / "hidden" / "tests.json").read_text())]
        secrets.append((task / "hidden" / "reference_client.py").read_text().split("class Client", 1)[1][:300])
        answer = json.dumps(client.predict(task.name, api_name="/open_task"))
        assert task.name in answer and "Constructor" in answer and all(s not in answer for s in secrets)


def test_uploads_and_limits_are_checked_before_anything_is_queued(tmp_path, monkeypatch):
    import io
    import zipfile

    from har2client import Har2ClientError
    from har2client.space import _submissions as sub
    from har2client.space._leaderboard import leaderboard_html

    assert 'id="h2c-empty"' in leaderboard_html([])  # no results yet: the board says how to make some
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("clients/t1.py", "class Client: pass\n")
        z.writestr("clients/t2/client.py", "class Client: pass\n")
    assert sub.parse_upload("c.zip", buf.getvalue(), {"t1", "t2"}) == (None, {"t1": "class Client: pass\n",
                                                                           "t2": "class Client: pass\n"})
    for name, data, says in [("big.jsonl", b"x" * (sub.MAX_UPLOAD_BYTES + 1), "larger than 5 MB"),
                             ("p.jsonl", b"{not json\n", "line 1 is not JSON"),
                             ("p.jsonl", b'{"task_id": "zz", "code": "x"}\n', "no such tasks here: zz"),
                             ("c.zip", b"PK not really", "not a zip file"), ("p.jsonl", b"\n", "holds no clients")]:
        with pytest.raises(Har2ClientError, match=says):
            sub.parse_upload(name, data, {"t1", "t2"})
    monkeypatch.setattr(sub, "MAX_PER_USER_PER_DAY", 2)
    db = str(tmp_path / "q.sqlite")
    now = time.time()
    sub.submit(db, "ann", "m", "f", {}, ["t1"], now=now - 90000)  # more than a day ago: does not count
    sub.submit(db, "ann", "m", "f", {}, ["t1"], now=now)
    sub.submit(db, "ann", "m", "f", {}, ["t1"], now=now)
    with pytest.raises(Har2ClientError, match="limit is 2"):
        sub.submit(db, "ann", "m", "f", {}, ["t1"], now=now)
    sub.submit(db, "bob", "m", "f", {}, ["t1"], now=now)
    assert [r[3] for r in sub.status_rows(db)] == ["pending"] * 4

"""Case 2, Investigate: practice servers, the two tools, budgets, the episode record and its measures."""

import json
import os

import pytest

from conftest import run_cli
from har2client import Har2ClientError
from har2client._seeding import rng
from har2client.api._reference import reference_source
from har2client.grading import grade
from har2client.har import read_har
from har2client.investigate import InvestigateEpisode, read_episode, run_policy, validate_episode
from har2client.investigate import tested_hidden_header as header_tested
from har2client.investigate._tools import MAX_PROBE_REQUEST_BYTES
from har2client.tasks import load_task


def _hidden(tierb_tasks):
    return [t for t in tierb_tasks if json.load(open(os.path.join(t, "hidden", "grading.json")))["hidden_header"]]


@pytest.mark.slow
def test_probing_the_header_then_submitting_the_reference_scores_one_on_every_hidden_header_task(tierb_tasks):
    tasks = _hidden(tierb_tasks)
    assert len(tasks) == 25
    for task in tasks:
        episode = InvestigateEpisode(task, 5, episode_seed=7, policy="probe-then-reference")
        end = run_policy(episode, "probe-then-reference")
        assert end["pass_rate"] == 1.0 and end["tested_hidden_header"] is True, task
        assert 2 <= end["probes_used"] <= 5
        validate_episode(episode.lines, task)


@pytest.mark.slow
def test_submitting_the_as_built_client_without_probing_scores_what_the_header_less_reference_does(tierb_tasks,
                                                                                                   tmp_path):
    for task in _hidden(tierb_tasks):
        episode = InvestigateEpisode(task, 5, episode_seed=8)
        end = run_policy(episode, "as-built")
        assert end["probes_used"] == 0 and end["tested_hidden_header"] is False
        mutant = tmp_path / "no_header.py"
        mutant.write_text(reference_source(load_task(task).model, drop="required_headers"))
        same = grade(task, str(mutant), seed=rng(8, "grading").getrandbits(62)).pass_rate
        assert end["pass_rate"] == round(same, 6) and 0.2 <= same <= 0.7, task


def test_the_practice_server_is_its_own_world(tierb_tasks):
    task = tierb_tasks[0]
    a, b = InvestigateEpisode(task, 5, episode_seed=1), InvestigateEpisode(task, 5, episode_seed=2)
    assert a.base_url != b.base_url and a.credentials != b.credentials
    recording = open(os.path.join(task, "recording.har")).read()
    assert a.base_url.split("//")[1] not in recording
    assert not [v for v in a.credentials.values() if v in recording]
    assert a.base_url in a.prompt() and all(v in a.prompt() for v in a.credentials.values())
    ids = {r["id"] for r in a.practice.all()}
    assert not ids & {r["id"] for r in b.practice.all()}


def _url(episode, path="/account"):
    prefix = episode.model.conventions["version"].get("prefix", "")
    return episode.base_url + prefix + path


def test_budget_zero_offers_no_probe_tool_and_tells_nothing_of_a_practice_server(tierb_tasks):
    episode = InvestigateEpisode(tierb_tasks[1], 0, episode_seed=3)
    assert [t["function"]["name"] for t in episode.tools()] == ["submit_client"]
    assert "Practice server" not in episode.prompt() and episode.lines[0]["practice_base_url"] is None
    result = episode.tool("http_request", {"method": "GET", "url": _url(episode)})
    assert "not offered" in result["error"] and episode.probes == 0


@pytest.mark.parametrize("budget", [1, 5])
def test_a_probe_past_the_budget_is_refused_and_says_so(tierb_tasks, budget):
    episode = InvestigateEpisode(tierb_tasks[1], budget, episode_seed=3)
    assert [t["function"]["name"] for t in episode.tools()] == ["http_request", "submit_client"]
    for i in range(budget):
        answer = episode.tool("http_request", {"method": "GET", "url": _url(episode)})
        assert "status" in answer and answer["probe"] == i + 1 and answer["probes_left"] == budget - i - 1
    past = episode.tool("http_request", {"method": "GET", "url": _url(episode)})
    assert "budget is used up" in past["error"] and episode.probes == budget
    assert episode.lines[-1]["probe"] is None


def test_another_host_is_refused_and_costs_no_probe(tierb_tasks):
    episode = InvestigateEpisode(tierb_tasks[1], 1, episode_seed=3)
    for url in ("https://example.org/account", "http://127.0.0.1:8080/account",
                episode.base_url.replace("https://", "http://") + "/account",
                episode.base_url + ":444/account", load_task(tierb_tasks[1]).model.server + "/account"):
        result = episode.tool("http_request", {"method": "GET", "url": url})
        assert "only the practice server" in result["error"] and "does not count" in result["error"], url
    assert episode.probes == 0
    assert "status" in episode.tool("http_request", {"method": "GET", "url": _url(episode)})


@pytest.mark.parametrize("arguments, says", [
    ("{not json", "not a JSON object"),
    ("[1, 2]", "not a JSON object"),
    ({"method": "GET"}, "url must be"),
    ({"method": "FETCH", "url": "x"}, "method must be one of"),
    ({"method": "GET", "url": "https://x", "headers": {"A": 1}}, "headers must be an object of strings"),
    ({"method": "GET", "url": "https://x", "query": ["a"]}, "query must be an object of strings"),
    ({"method": "GET", "url": "https://x", "colour": "red"}, "unknown arguments: colour"),
    ({"method": "GET", "url": 5}, "url must be"),
])
def test_malformed_arguments_get_a_tool_error_not_a_crash(tierb_tasks, arguments, says):
    episode = InvestigateEpisode(tierb_tasks[1], 5, episode_seed=3)
    result = episode.tool("http_request", arguments)
    assert says in result["error"] and episode.probes == 0
    assert "error" in episode.tool("submit_client", {"code": 5}) and episode.ended is None
    assert "no tool" in episode.tool("rm_rf", {})["error"]


def test_a_huge_body_is_refused_and_a_long_answer_is_cut(tierb_tasks):
    episode = InvestigateEpisode(tierb_tasks[1], 5, episode_seed=3)
    big = episode.tool("http_request", {"method": "POST", "url": _url(episode, "/x"),
                                        "body": "a" * (MAX_PROBE_REQUEST_BYTES + 1)})
    assert "larger than" in big["error"] and episode.probes == 0


def test_an_episode_without_a_submission_scores_zero_and_validates(tierb_tasks, tmp_path):
    episode = InvestigateEpisode(tierb_tasks[0], 5, episode_seed=4)
    episode.message("user", "go")
    episode.act("http_request", {"method": "GET", "url": _url(episode)})
    end = episode.end("no submission in 10 turns")
    assert end["submitted"] is False and end["pass_rate"] == 0.0 and end["probes_used"] == 1
    path = tmp_path / "episode.jsonl"
    episode.write(str(path))
    lines = read_episode(str(path))
    validate_episode(lines, str(path))
    assert "ended" in episode.tool("http_request", {"method": "GET", "url": _url(episode)})["error"]
    broken = [dict(lines[0]), {"kind": "tool", "turn": 0}]
    with pytest.raises(Har2ClientError, match="line 2 is not an episode line"):
        validate_episode(broken, "x.jsonl")
    with pytest.raises(Har2ClientError, match="starts with one start line"):
        validate_episode(lines[1:], "x.jsonl")


def _probe_line(method, url, headers=None, status=200, body=""):
    return {"kind": "tool", "turn": 1, "call_id": "c", "name": "http_request", "probe": 1, "seconds": 0.0,
            "arguments": json.dumps({"method": method, "url": url, "headers": headers or {}}),
            "result": {"status": status, "headers": [], "body": body}}


def test_tested_the_hidden_header_is_computed_from_hand_written_episodes(tierb_tasks):
    by_check = {}
    for task in _hidden(tierb_tasks):
        model = load_task(task).model
        rule = next(r for r in model.conventions["required_headers"] if r.get("recorded") is False)
        by_check.setdefault(rule["check"], (model, rule))
    assert set(by_check) == {"account", "csrf", "unique", "digest"}
    for check, (model, rule) in by_check.items():
        name, base = rule["name"], "https://practice-abc.example"
        prefix = model.conventions["version"].get("prefix", "")
        plural = f"{prefix}/{model.plural}"
        needing = ("GET", f"{base}{plural}/x1") if check == "account" else ("POST", f"{base}{plural}")
        not_needing = ("GET", f"{base}{plural}")  # a listing needs none of the four
        refusal = json.dumps({"error": {"code": "x", "message": f"The {name} header is required"}})
        cases = [
            ([_probe_line(*needing, headers={name: "v"})], True),                       # sent it
            ([_probe_line(*needing, status=403, body=refusal)], True),                  # went without, saw why
            ([_probe_line(*needing, headers={name.lower(): "v"}, status=201)], True),   # any spelling
            ([_probe_line(*not_needing, headers={name: "v"})], False),                  # where it is not needed
            ([_probe_line(*needing, status=200)], False),                               # without it, and no refusal
            ([{**_probe_line(*needing, headers={name: "v"}), "result": {"error": "budget"}}], False),  # never sent
            ([], False),
        ]
        for lines, want in cases:
            assert header_tested(lines, model) is want, (check, lines)
    plain = load_task(next(t for t in tierb_tasks if t not in _hidden(tierb_tasks))).model
    assert header_tested([], plain) is None


@pytest.mark.slow
def test_the_episode_and_build_commands(tmp_path):
    r = run_cli("build", "investigate", "--out", str(tmp_path / "inv"), "--limit", "1")
    assert r.returncode == 0 and "built 1 investigate tasks" in r.stdout
    task = tmp_path / "inv" / "investigate_00_invoices"
    meta = json.loads((task / "task.json").read_text())
    assert meta["case"] == "investigate" and meta["budgets"] == [0, 1, 5] and "level" not in meta
    out = tmp_path / "e.jsonl"
    e = run_cli("episode", str(task), "--policy", "probe-then-reference", "--budget", "5", "--seed", "3", "--out",
                str(out))
    assert e.returncode == 0, e.stderr
    assert "tested the hidden header: yes" in e.stdout and "pass_rate=1.000" in e.stdout
    lines = read_episode(str(out))
    validate_episode(lines)
    assert lines[-1]["kind"] == "end" and lines[-1]["pass_rate"] == 1.0
    assert read_har(str(task / "recording.har")).entries

"""Case 1's arms: four observations of one task, graded by the same hidden tests.

    as_built   goal.md and recording.har (the task's top level)
    hint       arms/hint/goal.md: the goal plus one sentence naming the API's trickiest requirement
    evidence   arms/evidence/recording.har: the recording plus one request refused for lack of the
               header the export dropped, with the API's answer (hidden-header tasks only)
    placebo    arms/placebo/goal.md: the goal plus one sentence of the same length saying nothing
               about the API (the control for the hint)

The task's top level is the as-built arm, so a harness that hands over the top-level files shows
nothing of the others; task.json lists each arm's files.
"""

from __future__ import annotations

from typing import Any

from .._seeding import rng
from ..api import ApiModel

ARMS = ("as_built", "hint", "evidence", "placebo")
NOTE = "## Note"
_NEUTRAL = ("write the client the way you would for a colleague", "keep each method short and its names plain",
            "give every public method a docstring", "prefer clear code to clever code",
            "let comments say why rather than what", "a small client is easier to review than a large one",
            "type hints help the next reader", "group the helpers below the public methods",
            "name things after what they are", "leave out what the goal does not ask for")


def _hidden_rule(model: ApiModel) -> dict[str, Any] | None:
    return next((r for r in model.conventions.get("required_headers", []) if r.get("recorded") is False), None)


def hint_sentence(model: ApiModel) -> str:
    """One sentence naming the requirement a client of ``model`` most easily misses."""
    c, auth = model.conventions, model.auth
    rule = _hidden_rule(model) or next(iter(c.get("required_headers", [])), None)
    if rule is not None:
        name, check = rule["name"], rule.get("check", "param")
        if check == "account":
            path = model.operations["account"].path
            return f"Requests on a single {model.resource} need an `{name}` header: the `id` that `GET {path}` answers."
        if check == "csrf":
            return (f"Requests that change data need an `{name}` header holding the value of the "
                    f"`{rule.get('cookie', 'csrftoken')}` cookie the API sets.")
        if check == "unique":
            return f"Every POST needs an `{name}` header with a new unique value (a UUID) each time."
        if check == "digest":
            return (f"Requests with a body need a `{name}` header: "
                    "`sha-256=:` and the body's SHA-256 in base64, then `:`.")
        methods = "/".join(m.upper() for m in rule["on"])
        return f"{methods} requests need a `{name}` header holding the `{rule['value']}` the client is given."
    expiry = model.expiry
    if expiry:
        what = "Sessions" if auth["style"] == "session_cookie" else "Tokens"
        span = f"{expiry['requests']} requests" if "requests" in expiry else f"{expiry['seconds']} seconds"
        again = (f"get a new one from `POST {auth['refresh_path']}` with the refresh token"
                 if expiry.get("renew") == "refresh" else "sign in again and retry")
        return f"{what} stop working after {span}: on a 401, {again}."
    p = c["paging"]
    pre = p.get("meta_prefix", "")
    if p["style"] == "cursor":
        source = "the last record's id" if p.get("cursor_source") == "last_id" else f"`{pre}{p['cursor_source']}`"
        return f"Lists come a page at a time: pass {source} back as `{p['cursor_param']}` until no more come."
    if p["style"] == "page":
        return (f"Lists come a page at a time: ask for `{p.get('page_param', 'page')}` 2, 3 and on "
                "until a page is empty.")
    if p["style"] == "offset":
        return (f"Lists come a page at a time: move `{p['offset_param']}` on by the records received "
                "until none come back.")
    if p["style"] == "link":
        return 'Lists come a page at a time: follow the `Link` header\'s `rel="next"` URL until there is none.'
    if p["style"] == "next_url":
        return f"Lists come a page at a time: follow the URL in `{pre}{p['next_key']}` until it is empty."
    v = c["version"]
    if v["style"] in ("header", "query"):
        how = "header" if v["style"] == "header" else "query parameter"
        return f"Every request needs the {how} `{v['name']}` set to `{v['value']}`."
    if v["style"] == "accept":
        return f"Every request needs the header `Accept: {v['value']}`."
    if v["style"] == "path":
        return f"Every path of this API starts with `{v['prefix']}`."
    style = auth["style"]
    if style == "password_bearer":
        return f"Sign in with `POST {auth['login_path']}` and send its token as `Authorization: Bearer <token>`."
    if style == "session_cookie":
        return f"Sign in with `POST {auth['login_path']}`: the session cookie it sets signs every later request."
    if style == "oauth2_client_credentials":
        return "Get a token with the OAuth 2.0 client-credentials grant and send it as `Authorization: Bearer <token>`."
    if style in ("header_key", "vendor"):
        after = f" after `{auth['prefix']}`" if auth.get("prefix") else ""
        return f"Send the API key in the `{auth['header']}` header{after}."
    if style == "query_key":
        return f"Send the API key as the `{auth['param']}` query parameter."
    if style == "basic":
        return "Send the user name and password with HTTP basic authentication."
    if style == "bearer":
        return "Send the access token as `Authorization: Bearer <token>`."
    env = c["envelope"]
    if env.get("list") or env.get("single"):
        return f"Answers wrap records: lists in `{env.get('list')}`, single records in `{env.get('single')}`."
    return "This API needs no sign-in, sends whole lists at once and answers with bare records."


def placebo_sentence(length: int, seed: int) -> str:
    """A sentence about nothing in the API, as close to ``length`` characters as the clauses allow."""
    import itertools

    r = rng(seed, "placebo")
    clauses = list(_NEUTRAL)
    r.shuffle(clauses)
    best = ""
    for size in range(1, len(clauses) + 1):
        for combo in itertools.combinations(clauses, size):
            text = "; ".join(combo)
            text = text[0].upper() + text[1:] + "."
            if abs(len(text) - length) < abs(len(best) - length):
                best = text
    return best


def goal_with_note(goal: str, sentence: str) -> str:
    """The goal with one more paragraph, a note of one sentence, before its constructor section."""
    head, sep, rest = goal.partition("## Constructor")
    return f"{head}{NOTE}\n\n{sentence}\n\n{sep}{rest}" if sep else f"{goal}\n{NOTE}\n\n{sentence}\n"


def arm_files(evidence: bool) -> dict[str, dict[str, str]]:
    """Which files each arm shows: its goal and its recording."""
    arms = {"as_built": {"goal": "goal.md", "recording": "recording.har"},
            "hint": {"goal": "arms/hint/goal.md", "recording": "recording.har"},
            "placebo": {"goal": "arms/placebo/goal.md", "recording": "recording.har"}}
    if evidence:
        arms["evidence"] = {"goal": "goal.md", "recording": "arms/evidence/recording.har"}
    return {a: arms[a] for a in ARMS if a in arms}


def render_observation(task_dir: str, arm: str = "as_built", compact: bool = True) -> str:
    """What a model given ``arm`` sees, as text: the arm's goal, then its recording (compact form, or the
    HAR file itself with ``compact=False``). The one prompt body every harness and environment uses."""
    return observation_parts(task_dir, arm, compact)["text"]


def observation_parts(task_dir: str, arm: str = "as_built", compact: bool = True) -> dict[str, Any]:
    """``render_observation``'s text and the pieces it is made of, each read once: ``files`` (the arm's
    visible files), ``goal``, ``extra`` (a repair's client_v1.py and failure.txt, by name), ``recording``
    (compact or raw) and ``text``."""
    import os

    from ..har import read_har, render_compact
    from ._task import visible_files

    names = visible_files(task_dir, arm)  # checks the arm exists
    goal, recording = names[0], names[1] if len(names) > 2 else None
    if recording is None or not recording.endswith(".har"):
        from .._errors import TaskError

        raise TaskError(f"{task_dir}: the {arm} arm has no recording; is this a task directory?")

    def read(name: str) -> str:
        with open(os.path.join(task_dir, name), encoding="utf-8") as fh:
            return fh.read()

    goal_text = read(goal)
    extra = {name: read(name) for name in names[3:]}
    task_id = os.path.basename(os.path.normpath(task_dir))
    parts = [f"# Task {task_id}, arm {arm}: {', '.join(names)}\n\n## {goal}\n\n{goal_text.rstrip()}\n\n"]
    for name, text in extra.items():
        fence = "python" if name.endswith(".py") else "text"
        parts.append(f"## {name}\n\n```{fence}\n{text.rstrip()}\n```\n\n")
    if compact:
        rec = render_compact(read_har(os.path.join(task_dir, recording)))
        parts.append(f"## {recording}\n\n{rec}")
    else:
        rec = read(recording)
        parts.append(f"## {recording}\n\n```json\n{rec.rstrip()}\n```\n")
    return {"files": names, "goal": goal_text, "extra": extra, "recording": rec, "text": "".join(parts)}

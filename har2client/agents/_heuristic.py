"""The heuristic baseline: a client written by rules from what a model is shown, with no model.

It reads only the task's visible files for an arm (``tasks.visible_files``: the goal, the recording,
and for a repair the old client and its failure), infers from the recording an API description in
the engine's own terms (an OpenAPI document with ``x-har2client`` conventions, as mitmproxy2swagger
infers one from captured flows), and lets the engine's generator write the client from it. What the
rules cannot see in the traffic (a header the exporter dropped, a token that never expired while
recording) the client does not handle: that is what the benchmark measures beyond pattern matching.
"""

from __future__ import annotations

import os

from .._errors import Har2ClientError, TaskError
from ..api import model_from_document, reference_source
from ..har import Recording, parse_har
from ..tasks import arms_of, visible_files
from ._goal_reading import read_goal
from ._inference import infer_document


def visible_inputs(task_dir: str, arm: str | None = None) -> tuple[str, Recording]:
    """The goal text and the recording of ``arm`` (by default the task's base arm: ``as_built``, or
    ``base`` for a repair): read through the list of visible files only, so no code path here can open
    ``hidden/``."""
    if arm is None:
        arm = "base" if "base" in arms_of(task_dir) else "as_built"
    names = visible_files(task_dir, arm)
    goal_name, recording_name = names[0], names[1]
    if any(n.split("/")[0] == "hidden" for n in names):
        raise TaskError(f"{task_dir}: a visible file under hidden/")  # the task layout broke its promise
    with open(os.path.join(task_dir, goal_name), encoding="utf-8") as fh:
        goal = fh.read()
    with open(os.path.join(task_dir, recording_name), "rb") as fh:
        recording = parse_har(fh.read(), os.path.join(task_dir, recording_name))
    return goal, recording


def heuristic_source(task_dir: str, arm: str | None = None) -> str:
    """The heuristic baseline's client.py for the task at ``task_dir``, given ``arm``'s files. When the
    rules cannot read the goal or find the API in the recording, the client says why on every call (a
    baseline scores what it can; a batch never stops on one task)."""
    goal, recording = visible_inputs(task_dir, arm)
    try:
        document = infer_document(read_goal(goal), recording)
        source = reference_source(model_from_document(document))
    except (ValueError, Har2ClientError) as exc:
        return _giving_up(str(exc).splitlines()[0])
    return source.replace("Reference client for", "Heuristic client for", 1)\
        .replace("(every convention handled)", "(inferred by rules from the recording)", 1)


def _giving_up(why: str) -> str:
    return (f'"""Heuristic client: the rules found no client to write ({why!r})."""\n\n\n'
            "class NotFoundError(Exception):\n    pass\n\n\n"
            "class Client:\n    def __init__(self, base_url, **credentials):\n        self.base_url = base_url\n\n"
            "    def __getattr__(self, name):\n"
            f"        raise NotImplementedError({why!r})\n")

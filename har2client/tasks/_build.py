"""Writing a build task's directory from an API's model: one writer for every tier.

    TASK/goal.md, TASK/recording.har, TASK/task.json   the as-built arm, and what every arm shares
    TASK/arms/hint/goal.md, TASK/arms/placebo/goal.md, TASK/arms/evidence/recording.har   the other arms
    TASK/hidden/openapi.yaml   the API's one description (the engine serves it)
    TASK/hidden/tests.json, TASK/hidden/grading.json, TASK/hidden/reference_client.py
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

from ..api import (
    ApiModel,
    clue_for,
    constructor_args,
    conventions_on,
    hidden_tests,
    instance_seed,
    method_names,
    record_session,
    recording_instance,
    reference_source,
)
from ..grading import SCORING_VERSION
from ..har import write_har
from ._arms import arm_files, goal_with_note, hint_sentence, placebo_sentence
from ._goal import goal_markdown
from ._task import write_json, write_text

CALL_SECONDS = 10
TASK_SECONDS = 120


def document_yaml(document: dict[str, Any]) -> str:
    """A document as YAML in JSON's syntax (JSON is YAML): any YAML or OpenAPI tool reads it, and the
    grader reads it with the JSON parser, 30 times faster than YAML's. The same bytes for the same document."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def build_api_task(model: ApiModel, out_dir: str, task_id: str, task_seed: int, *, meta: dict[str, Any],
                   profile: str, evidence: bool = False, document_path: str | None = None,
                   grading: dict[str, Any] | None = None, case: str = "build") -> str:
    """Write the build task ``task_id`` of ``model`` under ``out_dir`` and return its path.

    ``meta`` is the tier's part of task.json (tier, domain, api, source, licence...); the document is
    copied from ``document_path`` when the API has a file of its own, or written from the model.
    """
    tdir = os.path.join(out_dir, task_id)
    if os.path.isdir(tdir):
        shutil.rmtree(tdir)  # a rebuild starts clean, so stale files cannot survive it
    hidden = os.path.join(tdir, "hidden")
    os.makedirs(hidden)
    rec_seed = instance_seed(task_seed, "recording")
    write_har(record_session(model, recording_instance(model, rec_seed), rec_seed, profile=profile),
              os.path.join(tdir, "recording.har"))
    arms = arm_files(evidence)
    for files in arms.values():
        os.makedirs(os.path.join(tdir, os.path.dirname(files["goal"])), exist_ok=True)
        os.makedirs(os.path.join(tdir, os.path.dirname(files["recording"])), exist_ok=True)
    if evidence:
        write_har(record_session(model, recording_instance(model, rec_seed), rec_seed, profile=profile,
                                 evidence=True), os.path.join(tdir, arms["evidence"]["recording"]))
    goal = goal_markdown(model, task_id, CALL_SECONDS, TASK_SECONDS)
    hint = hint_sentence(model)
    write_text(os.path.join(tdir, "goal.md"), goal)
    write_text(os.path.join(tdir, arms["hint"]["goal"]), goal_with_note(goal, hint))
    write_text(os.path.join(tdir, arms["placebo"]["goal"]), goal_with_note(goal, placebo_sentence(len(hint),
                                                                                                  task_seed)))
    on = conventions_on(model)
    write_json(os.path.join(tdir, "task.json"), {  # nothing here says how hard the API is (no level)
        "task_id": task_id, "case": case, **meta, "observation_format": "har", "arms": arms,
        "files": {"goal": "goal.md", "recording": "recording.har",
                  "evidence_recording": arms["evidence"]["recording"] if evidence else None},
        "class_name": "Client", "constructor": ["base_url", *constructor_args(model)],
        "methods": list(method_names(model).values()), "allowed_imports": ["stdlib", "httpx", "requests"],
        "scoring_version": SCORING_VERSION,
    })
    if document_path:
        shutil.copyfile(document_path, os.path.join(hidden, "openapi.yaml"))
    else:
        write_text(os.path.join(hidden, "openapi.yaml"), document_yaml(model.document))
    write_json(os.path.join(hidden, "tests.json"), [t.to_dict() for t in hidden_tests(model, task_seed)])
    hidden_header = next(({"name": r["name"], "check": r.get("check", "param"), "clue": clue_for(model, rec_seed)}
                          for r in model.conventions.get("required_headers", []) if r.get("recorded") is False), None)
    write_json(os.path.join(hidden, "grading.json"), {
        "kind": "build", "tier": meta.get("tier"), "model_key": model.key, "task_seed": task_seed,
        "class_name": "Client", "call_seconds": CALL_SECONDS, "task_seconds": TASK_SECONDS,
        "conventions": on, "level": len(on), "hint": hint, "hidden_header": hidden_header, **(grading or {}),
    })
    write_text(os.path.join(hidden, "reference_client.py"), reference_source(model))
    return tdir

"""Building Tier A task directories: one per served API description."""

from __future__ import annotations

import dataclasses
import os
import shutil
from typing import Callable

from .._seeding import derive_seed
from ..api import instance_seed
from ..grading import SCORING_VERSION
from ..har import write_har
from ..tasks._task import write_json, write_text
from ._app import served
from ._goal import tiera_goal_markdown
from ._grading import tiera_hidden_tests
from ._openapi import TierAModel, load_tiera_specs
from ._reference import constructor_args, method_names, tiera_reference_source
from ._session import record_tiera_session, recording_instance

CALL_SECONDS = 10
TASK_SECONDS = 120


def conventions_on(model: TierAModel) -> list[str]:
    """The conventions a client of this API must handle (what the task's level counts)."""
    c = model.conventions
    on = ["auth"]
    if c["paging"]["style"] != "none":
        on.append("paging")
    if c["envelope"].get("list") or c["envelope"].get("single") or c["envelope"].get("request"):
        on.append("envelope")
    if c["version"]["style"] in ("header", "accept", "path"):
        on.append("version")
    return on


def build_tiera_task(model: TierAModel, out_dir: str, seed: int) -> str:
    task_seed = derive_seed(seed, "tiera-task", model.key)
    tdir = os.path.join(out_dir, model.task_id)
    if os.path.isdir(tdir):
        shutil.rmtree(tdir)
    os.makedirs(os.path.join(tdir, "hidden"))
    rec_seed = instance_seed(task_seed, "recording")
    write_har(record_tiera_session(model, recording_instance(model, rec_seed), rec_seed),
              os.path.join(tdir, "recording.har"))
    write_text(os.path.join(tdir, "goal.md"), tiera_goal_markdown(model, CALL_SECONDS, TASK_SECONDS))
    write_json(os.path.join(tdir, "task.json"), {
        "task_id": model.task_id, "tier": "A", "case": "build", "domain": model.key, "api": model.api,
        "docs": model.docs, "licence": model.licence, "source": "proxy_har", "observation_format": "har",
        "level": len(conventions_on(model)),
        "files": {"goal": "goal.md", "recording": "recording.har", "evidence_recording": None},
        "class_name": "Client", "constructor": ["base_url", *constructor_args(model)],
        "methods": list(method_names(model).values()), "allowed_imports": ["stdlib", "httpx", "requests"],
        "scoring_version": SCORING_VERSION,
    })
    hidden = os.path.join(tdir, "hidden")
    shutil.copyfile(model.path, os.path.join(hidden, "openapi.yaml"))
    write_json(os.path.join(hidden, "tests.json"), [t.to_dict() for t in tiera_hidden_tests(model, task_seed)])
    write_json(os.path.join(hidden, "grading.json"), {
        "tier": "A", "api_name": f"{model.number}_{model.key}", "task_seed": task_seed, "class_name": "Client", "call_seconds": CALL_SECONDS,
        "task_seconds": TASK_SECONDS, "conventions": conventions_on(model), "level": len(conventions_on(model)),
    })
    write_text(os.path.join(hidden, "reference_client.py"), tiera_reference_source(model))
    return tdir


def build_tiera(out_dir: str, seed: int = 1, progress: Callable[[int, int, str], None] | None = None,
                id_prefix: str = "", limit: int | None = None) -> list[str]:
    """Build the Tier A tasks of every served API description (the first ``limit``) into ``out_dir``."""
    models = [dataclasses.replace(m, id_prefix=id_prefix) for m in load_tiera_specs() if served(m)][:limit]
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for i, model in enumerate(models):
        paths.append(build_tiera_task(model, out_dir, seed))
        if progress:
            progress(i + 1, len(models), model.task_id)
    return paths

"""Building Tier B task directories from a seed."""

from __future__ import annotations

import os
import shutil
from typing import Callable

from ..agents._reference import reference_source
from ..api import instance_seed
from ..grading import SCORING_VERSION
from ..har import write_har
from ..har._session import record_session, recording_instance
from ..tasks._goal import goal_markdown
from ..tasks._task import write_json, write_text
from ._configs import TIERB_SIZE, TaskConfig, tierb_configs, write_configs
from ._world import hidden_tests

CALL_SECONDS = 10
TASK_SECONDS = 120


def build_task(config: TaskConfig, out_dir: str) -> str:
    """Write the task directory of ``config`` under ``out_dir`` and return its path."""
    spec = config.spec()
    tdir = os.path.join(out_dir, config.task_id)
    if os.path.isdir(tdir):
        shutil.rmtree(tdir)  # a rebuild starts clean, so stale files cannot survive it
    os.makedirs(os.path.join(tdir, "hidden"))
    rec_seed = instance_seed(config.seed, "recording")
    write_har(record_session(spec, recording_instance(spec, rec_seed), config.seed),
              os.path.join(tdir, "recording.har"))
    evidence = spec.switches.hidden_header != "off"
    if evidence:
        write_har(record_session(spec, recording_instance(spec, rec_seed), config.seed, evidence=True),
                  os.path.join(tdir, "recording_evidence.har"))
    res = spec.resource
    write_text(os.path.join(tdir, "goal.md"), goal_markdown(spec, config.task_id, CALL_SECONDS, TASK_SECONDS))
    write_json(os.path.join(tdir, "task.json"), {
        "task_id": config.task_id,
        "tier": "B",
        "case": "build",
        "domain": config.domain,
        "api": spec.name,
        "source": "browser_har",
        "observation_format": "har",
        "level": config.level,
        "files": {"goal": "goal.md", "recording": "recording.har",
                  "evidence_recording": "recording_evidence.har" if evidence else None},
        "class_name": "Client",
        "constructor": ["base_url", *spec.credential_names],
        "methods": [f"list_{res.plural}", f"get_{res.name}", f"create_{res.name}", f"update_{res.name}",
                    f"delete_{res.name}"],
        "allowed_imports": ["stdlib", "httpx", "requests"],
        "licence": "CC-BY-4.0",  # an invented API: the task is our data
        "scoring_version": SCORING_VERSION,
    })
    hidden = os.path.join(tdir, "hidden")
    write_json(os.path.join(hidden, "spec.json"), spec.to_dict())
    write_json(os.path.join(hidden, "tests.json"), [t.to_dict() for t in hidden_tests(spec, config.seed)])
    write_json(os.path.join(hidden, "grading.json"), {
        "task_seed": config.seed, "class_name": "Client", "call_seconds": CALL_SECONDS,
        "task_seconds": TASK_SECONDS, "switches": config.to_dict()["switches"], "level": config.level,
    })
    write_text(os.path.join(hidden, "reference_client.py"), reference_source(spec))
    return tdir


def build_tierb(out_dir: str, seed: int, limit: int | None = None, configs_path: str | None = None,
                progress: Callable[[int, int, str], None] | None = None, id_prefix: str = "") -> list[str]:
    """Build the Tier B tasks of ``seed`` (the first ``limit`` of them) into ``out_dir``."""
    size = TIERB_SIZE if limit is None else max(0, min(limit, TIERB_SIZE))
    configs = tierb_configs(seed, size, id_prefix)
    os.makedirs(out_dir, exist_ok=True)
    if configs_path:
        parent = os.path.dirname(os.path.abspath(configs_path))
        os.makedirs(parent, exist_ok=True)
        write_configs(configs, configs_path)
    paths = []
    for i, config in enumerate(configs):
        paths.append(build_task(config, out_dir))
        if progress:
            progress(i + 1, len(configs), config.task_id)
    return paths

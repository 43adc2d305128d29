"""Building Tier B task directories from a seed."""

from __future__ import annotations

import os
from collections.abc import Callable

from ..api import model_from_document
from ..tasks import build_api_task
from ._configs import TIERB_SIZE, TaskConfig, tierb_configs, write_configs


def build_task(config: TaskConfig, out_dir: str, case: str = "build") -> str:
    """Write the task directory of ``config`` under ``out_dir`` and return its path.

    ``case="investigate"`` writes the same task as a Case 2 task (``investigate_NN_domain``): its
    task.json names the probe budgets and tools; the practice server is made per episode.
    """
    model = model_from_document(config.document(), config.task_id, config.slug)
    task_id = config.task_id if case == "build" else config.task_id.replace("tierb_", f"{case}_", 1)
    extra = {} if case == "build" else {"budgets": [0, 1, 5], "tools": ["http_request", "submit_client"]}
    return build_api_task(
        model, out_dir, task_id, config.seed, profile="browser", case=case,
        evidence=config.switches.hidden_header != "off",
        meta={"tier": "B", "domain": config.domain, "api": model.api, "source": "browser_har",
              "licence": "CC-BY-4.0", **extra},  # an invented API: the task is our data
        grading={"switches": config.to_dict()["switches"]},
    )


def build_investigate(out_dir: str, seed: int, limit: int | None = None,
                      progress: Callable[[int, int, str], None] | None = None, id_prefix: str = "") -> list[str]:
    """Build the Case 2 (investigate) tasks of ``seed``: the Tier B tasks, each with a practice server."""
    return build_tierb(out_dir, seed, limit, progress=progress, id_prefix=id_prefix, case="investigate")


def build_tierb(out_dir: str, seed: int, limit: int | None = None, configs_path: str | None = None,
                progress: Callable[[int, int, str], None] | None = None, id_prefix: str = "",
                case: str = "build") -> list[str]:
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
        paths.append(build_task(config, out_dir, case))
        if progress:
            progress(i + 1, len(configs), config.task_id)
    return paths

"""Building Tier A task directories: one per served API description."""

from __future__ import annotations

import os
from collections.abc import Callable

from .._seeding import derive_seed
from ..tasks import build_api_task
from ._specs import NOT_SERVED, TierASpec, tiera_specs


def build_tiera_task(spec: TierASpec, out_dir: str, seed: int, id_prefix: str = "") -> str:
    """Build the Tier A task of ``spec`` into ``out_dir`` from ``seed``; its path."""
    model = spec.model
    return build_api_task(
        model, out_dir, spec.task_id(id_prefix), derive_seed(seed, "tiera-task", spec.key), profile="proxy",
        document_path=spec.path,
        meta={"tier": "A", "domain": spec.key, "api": model.api, "docs": model.docs, "licence": model.licence,
              "checked_against": model.checked_against, "source": "proxy_har"},
    )


def build_tiera(out_dir: str, seed: int = 1, progress: Callable[[int, int, str], None] | None = None,
                id_prefix: str = "", limit: int | None = None) -> list[str]:
    """Build the Tier A tasks of every served API description (the first ``limit``) into ``out_dir``."""
    specs = [s for s in tiera_specs() if s.key not in NOT_SERVED][:limit]
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for i, spec in enumerate(specs):
        paths.append(build_tiera_task(spec, out_dir, seed, id_prefix))
        if progress:
            progress(i + 1, len(specs), spec.task_id(id_prefix))
    return paths

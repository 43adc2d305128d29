"""Building Case 3 (repair) tasks: an old client, the failure it now gives, a short new recording.

    TASK/goal.md             v1's contract (the same methods, keys and units)
    TASK/client_v1.py        v1's reference, compact or SDK-style
    TASK/failure.txt         what client_v1 does now: its exception, or the first check of its user that fails
    TASK/recording.har       a short session against v2
    TASK/task.json           visible metadata and the arms' files (base, hint, placebo, notice)
    TASK/arms/ARM/goal.md    the goal plus one line: what changed, a placebo, or only that it changed
    TASK/hidden/             v2's document, the hidden tests (v1's contract), grading.json, the reference
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from typing import Any

from .._seeding import derive_seed, rng
from ..api import (
    ApiModel,
    constructor_args,
    hidden_tests,
    instance_seed,
    method_names,
    model_from_document,
    record_session,
    recording_instance,
    reference_source,
)
from ..grading import SCORING_VERSION
from ..har import write_har
from ..tasks import (
    CALL_SECONDS,
    TASK_SECONDS,
    document_yaml,
    goal_markdown,
    goal_with_note,
    placebo_sentence,
    write_json,
    write_text,
)
from ..tierb import TaskConfig, tierb_configs
from ._changes import KINDS, LOUD, NotApplicable, apply_change
from ._contract import renames_between, repaired_source
from ._failure import failure_text
from ._sdk import sdk_source

REPAIR_SIZE = 64
FAMILIES = 7
VARIANTS = ("", "partial", "misleading", "terse", "sdk")
NOTICE = "The API has changed since this client was written."
_MISLEADING = ("Note from the on-call engineer: this started right after we upgraded httpx; probably the new "
               "connection pool or the rate limiter again, the API itself did not change.\n\n")


def change_phrase(kind: str, v1: ApiModel, v2: ApiModel) -> str:
    """What one change did, in a few words (the hint arm's line is these phrases)."""
    if kind == "resource_moved":
        return f"One {v1.resource.replace('_', ' ')}'s operations moved to `{v2.operations['get'].path}`."
    if kind == "auth_changed":
        style = v2.auth["style"]
        how = {"header_key": f"the key goes in the `{v2.auth.get('header')}` header",
               "query_key": f"the key goes in the `{v2.auth.get('param')}` query parameter",
               "bearer": "the key goes in `Authorization: Bearer`",
               "basic": "sign in with HTTP basic on every request",
               "password_bearer": f"sign in at `POST {v2.auth.get('login_path')}` for a bearer token"}.get(style, style)
        return f"Sign-in changed: {how}."
    if kind == "version_changed":
        v = v2.conventions["version"]
        return (f"Paths start with `{v['prefix']}` now." if v["style"] == "path"
                else f"Send `{v.get('name', 'Accept')}: {v['value']}`." if v["style"] in ("header", "accept")
                else f"Send `{v['name']}={v['value']}`.")
    if kind == "header_required":
        rule = v2.conventions["required_headers"][-1]
        return f"Every request needs the `{rule['name']}` header."
    if kind == "request_wrapped":
        return f"Writes hold their fields in a `{v2.conventions['envelope']['request']}` object."
    if kind == "field_renamed":
        old, new = next(iter(v2.conventions.get("request_aliases", {}).items()))
        return f"Answers call `{old}` `{new}` now."
    if kind == "envelope_changed":
        return f"Answers are wrapped in `{v2.conventions['envelope']['list']}` now."
    if kind == "unit_changed":
        field, unit = next(iter(v2.conventions["units"].items()))
        return f"`{field}` comes as {'a decimal string' if unit == 'decimal_from_cents' else 'epoch seconds'} now."
    if kind == "filter_renamed":
        param, field = next(iter(v2.conventions["filter_params"].items()))
        return f"Filter by {field} with `{param}`; `{field}` is ignored."
    return "Lists come a page at a time now (`page`, `per_page`)."


def _as_shipped(source: str, v1: ApiModel) -> str:
    """The old client as its users have it: its docstring says what it is for, not how it was made."""
    first, rest = source.split("\n", 1)
    if not first.startswith('"""'):
        return source
    return f'"""A Python client for the {v1.api}, written for its first release."""\n' + rest


def _release(v1_doc: dict[str, Any], kinds: list[str], r: random.Random) -> dict[str, Any]:
    doc = v1_doc
    for kind in kinds:
        doc = apply_change(doc, kind, r)
    doc["info"]["version"] = "2"
    return doc


def applicable(doc: dict[str, Any], seed: int) -> list[str]:
    """The change kinds that apply to the API description ``doc``."""
    out = []
    for kind in KINDS:
        try:
            apply_change(doc, kind, random.Random(seed))
            out.append(kind)
        except NotApplicable:
            pass
    return out


def build_repair_task(family: TaskConfig, kinds: list[str], out_dir: str, task_id: str, task_seed: int,
                      variant: str = "") -> str:
    """Write one repair task; raise NotApplicable when the release cannot be made on this family."""
    v1_doc = family.document()
    v2_doc = _release(v1_doc, kinds, rng(task_seed, "release"))
    v1 = model_from_document(v1_doc, task_id, family.slug)
    v2 = model_from_document(v2_doc, task_id, family.slug)
    renames = renames_between(v1, v2)
    tdir = os.path.join(out_dir, task_id)
    if os.path.isdir(tdir):
        shutil.rmtree(tdir)
    for sub in ("hidden", "arms/hint", "arms/placebo", "arms/notice"):
        os.makedirs(os.path.join(tdir, sub))
    client_v1 = _as_shipped(sdk_source(v1) if variant == "sdk" else reference_source(v1), v1)
    failure = failure_text(client_v1, v1, v2, derive_seed(task_seed, "failure") % (1 << 62), terse=variant == "terse")
    if variant == "misleading":
        failure = _MISLEADING + failure
    rec_seed = instance_seed(task_seed, "recording")
    roles = {"": ("get", "create"), "partial": (), "misleading": ("get", "create"), "terse": (), "sdk": ("get",
                                                                                                         "create")}
    write_har(record_session(v2, recording_instance(v2, rec_seed), rec_seed, roles=roles[variant]),
              os.path.join(tdir, "recording.har"))
    goal = goal_markdown(v1, task_id, CALL_SECONDS, TASK_SECONDS)
    hint = " ".join(change_phrase(k, v1, v2) for k in kinds)
    write_text(os.path.join(tdir, "goal.md"), goal)
    write_text(os.path.join(tdir, "client_v1.py"), client_v1)
    write_text(os.path.join(tdir, "failure.txt"), failure)
    write_text(os.path.join(tdir, "arms/hint/goal.md"), goal_with_note(goal, hint))
    write_text(os.path.join(tdir, "arms/placebo/goal.md"), goal_with_note(goal, placebo_sentence(len(hint), task_seed)))
    write_text(os.path.join(tdir, "arms/notice/goal.md"), goal_with_note(goal, NOTICE))
    loud = [k for k in kinds if k in LOUD]
    arms = {arm: {"goal": goal_file, "recording": "recording.har", "client_v1": "client_v1.py",
                  "failure": "failure.txt"}
            for arm, goal_file in (("base", "goal.md"), ("hint", "arms/hint/goal.md"),
                                   ("placebo", "arms/placebo/goal.md"), ("notice", "arms/notice/goal.md"))}
    write_json(os.path.join(tdir, "task.json"), {
        "task_id": task_id, "case": "repair", "tier": "B", "domain": family.domain, "api": v1.api,
        "family": family.domain, "source": "browser_har", "observation_format": "har", "licence": "CC-BY-4.0",
        "arms": arms, "files": {"goal": "goal.md", "recording": "recording.har", "client_v1": "client_v1.py",
                                "failure": "failure.txt"},
        "class_name": "Client", "constructor": ["base_url", *constructor_args(v1)],
        "methods": list(method_names(v1).values()), "allowed_imports": ["stdlib", "httpx", "requests"],
        "scoring_version": SCORING_VERSION,
    })
    hidden = os.path.join(tdir, "hidden")
    write_text(os.path.join(hidden, "openapi.yaml"), document_yaml(v2_doc))
    write_json(os.path.join(hidden, "tests.json"), [t.to_dict() for t in hidden_tests(v1, task_seed)])
    write_json(os.path.join(hidden, "grading.json"), {
        "kind": "repair", "tier": "B", "model_key": family.slug, "task_seed": task_seed, "class_name": "Client",
        "call_seconds": CALL_SECONDS, "task_seconds": TASK_SECONDS, "changes": kinds,
        "loud": loud, "silent": [k for k in kinds if k not in LOUD], "variant": variant or "plain",
        "client_v1_style": "sdk" if variant == "sdk" else "compact", "renames": renames, "hint": hint,
        "family_seed": family.seed,
    })
    write_text(os.path.join(hidden, "reference_client.py"), repaired_source(v2, renames))
    write_text(os.path.join(hidden, "v1_openapi.yaml"), document_yaml(v1_doc))
    return tdir


def plan_repair(seed: int) -> list[tuple[TaskConfig, list[str], str]]:
    """The 64 tasks of ``seed``: (family, changes, variant), in the issue's composition."""
    r = rng(seed, "repair-plan")
    configs = tierb_configs(seed)
    candidates: dict[str, tuple[TaskConfig, list[str]]] = {}
    for c in configs:  # one base API a domain: the one that takes the most kinds of change
        kinds = applicable(c.document(), c.seed)
        if c.domain not in candidates or len(kinds) > len(candidates[c.domain][1]):
            candidates[c.domain] = (c, kinds)
    pool = sorted(candidates.values(), key=lambda f: (-len(f[1]), f[0].index))
    families: list[tuple[TaskConfig, list[str]]] = []
    while len(families) < FAMILIES and pool:  # first whatever covers kinds not covered yet, then the richest
        covered = {k for _, kinds in families for k in kinds}
        best = max(pool, key=lambda f: (len(set(f[1]) - covered), len(f[1]), -f[0].index))
        pool.remove(best)
        families.append(best)
    missing = set(KINDS) - {k for _, kinds in families for k in kinds}
    if missing or len(families) < FAMILIES:
        raise NotApplicable(f"seed {seed}: no {FAMILIES} base APIs take every kind of change (missing "
                            f"{sorted(missing)})")
    families.sort(key=lambda f: f[0].index)
    plan: list[tuple[TaskConfig, list[str], str]] = []
    singles = list(KINDS) + [KINDS[r.randrange(len(KINDS))] for _ in range(4)]
    for i, kind in enumerate(singles):
        fams = [f for f in families if kind in f[1]]
        plan.append((fams[i % len(fams)][0], [kind], ""))
    for count, n in ((3, 10), (4, 8)):
        for i in range(n):
            fam, kinds = families[i % len(families)]
            plan.append((fam, r.sample(kinds, count), ""))
    for variant in VARIANTS[1:]:
        for i in range(8):
            fam, kinds = families[i % 3]
            plan.append((fam, r.sample(kinds, 3), variant))
    return plan


def is_a_repair(task_dir: str, task_seed: int) -> bool:
    """Whether client_v1 on v2 passes some hidden tests and fails others (else there is nothing to repair,
    or nothing left to keep)."""
    from ..grading import grade

    for nonce in range(3):  # on three grading instances: a test may hinge on the data drawn
        seed = derive_seed(task_seed, "check", nonce) % (1 << 62)
        if not 0.0 < grade(task_dir, os.path.join(task_dir, "client_v1.py"), seed=seed).pass_rate < 1.0:
            return False
    return True


def build_repair(out_dir: str, seed: int, limit: int | None = None, id_prefix: str = "",
                 progress: Callable[[int, int, str], None] | None = None) -> list[str]:
    """Build the repair tasks of ``seed`` (the first ``limit``) into ``out_dir``."""
    plan = plan_repair(seed)[:limit]
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for i, (family, kinds, variant) in enumerate(plan):
        task_seed = derive_seed(seed, "repair-task", i)
        attempt = 0
        while True:
            task_id = f"repair_{id_prefix}{i:02d}_{family.domain}"
            try:
                path = build_repair_task(family, kinds, out_dir, task_id, task_seed, variant)
                if is_a_repair(path, task_seed):
                    paths.append(path)
                    break
                shutil.rmtree(path)
                raise NotApplicable("client_v1 passes every test or none: not a repair")
            except NotApplicable:  # a change took away what the next needed, or broke all: draw again
                attempt += 1
                r = rng(seed, "repair-redraw", i, attempt)
                if len(kinds) == 1:  # a single change keeps its kind and takes another base API
                    others = [c for c in tierb_configs(seed) if kinds[0] in applicable(c.document(), c.seed)]
                    family = others[r.randrange(len(others))]
                else:
                    kinds = r.sample(applicable(family.document(), family.seed), len(kinds))
                if attempt > 50:
                    raise
        if progress:
            progress(i + 1, len(plan), task_id)
    return paths

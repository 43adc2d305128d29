"""Tier B task configurations: which switches each of the 50 tasks turns on, and how.

The assignment is balanced rather than independent per task, so that every
level from 0 to 6 occurs, every variant of every switch occurs, and exactly half
of the tasks hide a required header (the evidence experiment needs that split).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .._seeding import derive_seed, rng
from ._document import tierb_document
from ._domains import DOMAIN_BY_KEY, DOMAINS
from ._switches import BODY_PAGING, SWITCH_NAMES, SWITCH_VARIANTS, TOKEN_LOGINS, Details, Switches

TIERB_SIZE = 50
# How many tasks have each level (number of switches on); sums to TIERB_SIZE.
LEVEL_COUNTS = {0: 2, 1: 7, 2: 9, 3: 10, 4: 9, 5: 8, 6: 5}
HIDDEN_HEADER_TASKS = 25


@dataclass(frozen=True)
class TaskConfig:
    """What decides a Tier B task: its index, domain, seed, switches and details."""
    index: int
    domain: str
    seed: int
    switches: Switches
    details: Details
    id_prefix: str = ""   # "s1000_" for the train split's tasks, so their ids never meet the test split's

    @property
    def task_id(self) -> str:
        """The task's id (``tierb_NN_<domain>``)."""
        return f"tierb_{self.id_prefix}{self.index:02d}_{self.domain}"

    @property
    def level(self) -> int:
        """The task's level: how many switches are on."""
        return self.switches.level

    @property
    def slug(self) -> str:
        """The domain's brand in lower case."""
        return DOMAIN_BY_KEY[self.domain].slug

    def document(self) -> dict[str, Any]:
        """The task's API as an OpenAPI document (the switches written as the engine's conventions)."""
        d = DOMAIN_BY_KEY[self.domain]
        return tierb_document(f"{d.brand} API", d.slug, f"api.{d.slug}.example", d.resource, self.switches,
                              self.details)

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain JSON data (a line of ``configs.jsonl``)."""
        return {"task_id": self.task_id, "index": self.index, "domain": self.domain, "seed": self.seed,
                "level": self.level, "switches": dataclasses.asdict(self.switches),
                "details": dataclasses.asdict(self.details),
                **({"id_prefix": self.id_prefix} if self.id_prefix else {})}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskConfig:
        return cls(index=data["index"], domain=data["domain"], seed=data["seed"],
                   switches=Switches(**data["switches"]), details=Details(**data["details"]),
                   id_prefix=data.get("id_prefix", ""))


def _cycle(seed: int, name: str, variants: tuple[str, ...]) -> Iterator[str]:
    """Variants in seeded rounds: every variant once per round, so all of them occur."""
    r = rng(seed, "variant-cycle", name)
    while True:
        round_ = list(variants)
        r.shuffle(round_)
        yield from round_


def _on_sets(seed: int) -> list[set[str]]:
    r = rng(seed, "on-sets")
    levels = [lvl for lvl, n in LEVEL_COUNTS.items() for _ in range(n)]
    r.shuffle(levels)
    # Task 00 is the one quickstart and the docs show: give it one of the all-switches slots.
    top = levels.index(max(levels))
    levels[0], levels[top] = levels[top], levels[0]
    # The hidden header goes to HIDDEN_HEADER_TASKS tasks; all-on tasks must have it.
    candidates = [i for i, lvl in enumerate(levels) if 0 < lvl < 6]
    forced = [i for i, lvl in enumerate(levels) if lvl == 6]
    weights = {i: levels[i] for i in candidates}
    chosen: set[int] = set(forced)
    while len(chosen) < HIDDEN_HEADER_TASKS:
        pool = [i for i in candidates if i not in chosen]
        pick = r.choices(pool, weights=[weights[i] for i in pool])[0]
        chosen.add(pick)
    others = [n for n in SWITCH_NAMES if n != "hidden_header"]
    sets: list[set[str]] = []
    for i, lvl in enumerate(levels):
        on = {"hidden_header"} if i in chosen else set()
        on |= set(r.sample(others, lvl - len(on)))
        if "expiry" in on and "login" not in on:
            # Expiry needs something to expire: turn on the login instead of it.
            on = (on - {"expiry"}) | {"login"}
        sets.append(on)
    return sets


def _details(seed: int, brand: str) -> Details:
    r = rng(seed, "details")
    page = r.choice((5, 8, 10, 20))
    return Details(
        key_header=r.choice(("X-API-Key", "Api-Key", "X-Auth-Token", f"X-{brand}-Key")),
        key_param=r.choice(("api_key", "key", "access_key", "apikey")),
        version_header=r.choice(("X-API-Version", f"{brand}-Version", "X-Version")),
        version_value=f"{r.randint(2023, 2026)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
        path_version=f"v{r.randint(2, 4)}",
        page_size=page,
        max_page_size=page * 2 + r.choice((0, 5)),
        token_lifetime_requests=r.randint(4, 8),
        token_lifetime_seconds=r.choice((300, 600, 900, 1800)),
    )


def tierb_configs(seed: int, size: int = TIERB_SIZE, id_prefix: str = "") -> list[TaskConfig]:
    """The configurations of the Tier B tasks for ``seed`` (the first ``size`` of the 50)."""
    sets = _on_sets(seed)
    cycles = {name: _cycle(seed, name, variants) for name, variants in SWITCH_VARIANTS.items()}
    # Constrained combinations draw from their own cycles, so repairs never starve a variant.
    token_logins = _cycle(seed, "token-login", tuple(v for v in TOKEN_LOGINS if v != "password_bearer"))
    flat_paging = _cycle(seed, "flat-paging", tuple(p for p in SWITCH_VARIANTS["paging"] if p not in BODY_PAGING))
    configs = []
    for index, on in enumerate(sets):
        chosen = {name: "off" for name in SWITCH_NAMES}
        for name in ("expiry", "envelope", "version", "hidden_header"):
            if name in on:
                chosen[name] = next(cycles[name])
        if "login" in on:
            if chosen["expiry"].endswith("_refresh"):
                chosen["login"] = "password_bearer"
            elif chosen["expiry"] != "off":
                chosen["login"] = next(token_logins)
            else:
                chosen["login"] = next(cycles["login"])
        if "paging" in on:
            chosen["paging"] = next(flat_paging if chosen["envelope"] == "off" else cycles["paging"])
        domain = DOMAINS[index % len(DOMAINS)]
        task_seed = derive_seed(seed, "tierb-task", index)
        configs.append(TaskConfig(index, domain.key, task_seed, Switches(**chosen), _details(task_seed, domain.brand),
                                  id_prefix))
    return configs[:size]


def write_configs(configs: list[TaskConfig], path: str) -> None:
    """Write ``configs`` to ``path`` as JSONL, one line each."""
    with open(path, "w", encoding="utf-8") as fh:
        for c in configs:
            fh.write(json.dumps(c.to_dict(), sort_keys=True) + "\n")

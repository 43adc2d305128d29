"""The Tier A API descriptions shipped in ``specs/``: one OpenAPI document per real public API."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from importlib import resources

from .._errors import SpecError
from ..api import ApiModel, load_model

# Shipped inside the package (a wheel has nothing beside it): found the same way installed or in a checkout.
SPEC_DIR = str(resources.files("har2client.tiera").joinpath("specs"))
# Descriptions whose conventions the engine does not model yet, by API key -> the reason. A task built
# from one would be unfaithful, so it is refused instead. Every description in specs/ is served today.
NOT_SERVED: dict[str, str] = {}


@dataclass(frozen=True)
class TierASpec:
    """One Tier A API description in ``tierA_specs/``."""
    number: str    # "01"
    key: str       # "stripe": used in task ids
    path: str

    @property
    def model(self) -> ApiModel:
        """The API model read from the description."""
        return load_model(self.path, self.key)

    def task_id(self, id_prefix: str = "") -> str:
        """The id of this API's task."""
        return f"tiera_{id_prefix}{self.number}_{self.key}"


def tiera_spec(path: str) -> TierASpec:
    stem = os.path.basename(path).split(".")[0]
    if "_" not in stem:
        raise SpecError(f"{path}: cannot tell the API's number and key (name it NN_key.yaml)")
    number, key = stem.split("_", 1)
    return TierASpec(number, key, path)


def tiera_specs(directory: str = SPEC_DIR) -> list[TierASpec]:
    """Every description in ``directory``; none at all is an error (an incomplete install, say)."""
    paths = sorted(glob.glob(os.path.join(directory, "*.yaml")))
    if not paths:
        raise SpecError(f"{directory}: no Tier A API descriptions (*.yaml) there; the installation is incomplete")
    return [tiera_spec(p) for p in paths]


def load_tiera_spec(path: str) -> ApiModel:
    """The model of one Tier A description."""
    return tiera_spec(path).model


def load_tiera_specs(directory: str = SPEC_DIR) -> list[ApiModel]:
    """The API models of every Tier A description in ``directory``."""
    return [s.model for s in tiera_specs(directory)]

"""The episode record: JSONL, one object a line, each valid for ``episode.schema.json``."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from .._errors import Har2ClientError

EPISODE_SCHEMA = str(resources.files("har2client.investigate").joinpath("episode.schema.json"))


def read_episode(path: str) -> list[dict[str, Any]]:
    """The lines of an episode JSONL file; a missing or broken file raises a one-line error."""
    try:
        with open(path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except FileNotFoundError:
        raise Har2ClientError(f"{path}: no such episode file") from None
    except ValueError as exc:
        raise Har2ClientError(f"{path}: not JSON lines ({exc})") from None


def validate_episode(lines: list[dict[str, Any]], source: str = "<episode>") -> None:
    """Raise a one-line error naming the first line that breaks the schema or the record's order."""
    try:
        import jsonschema
    except ImportError:
        raise Har2ClientError("validating an episode needs jsonschema: pip install jsonschema") from None
    with open(EPISODE_SCHEMA, encoding="utf-8") as fh:
        validator = jsonschema.Draft202012Validator(json.load(fh))
    for i, line in enumerate(lines, 1):
        error = next(iter(validator.iter_errors(line)), None)
        if error is not None:
            raise Har2ClientError(f"{source}: line {i} is not an episode line ({error.message[:200]})")
    kinds = [line.get("kind") for line in lines]
    if not kinds or kinds[0] != "start" or kinds.count("start") != 1:
        raise Har2ClientError(f"{source}: an episode starts with one start line")
    if "end" in kinds and (kinds.count("end") != 1 or kinds[-1] != "end"):
        raise Har2ClientError(f"{source}: an episode has at most one end line, and it is the last")

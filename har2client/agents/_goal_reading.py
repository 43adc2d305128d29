"""What a task's goal.md says, read by rules: the constructor, the methods and the record.

The goal is written for a model; these rules read the few facts in it that a client's shape needs,
and nothing else. Used by the heuristic baseline, which may read only what a model is shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TYPES = {"str": "string", "int": "integer", "bool": "boolean", "float": "number", "list": "array",
          "dict": "object"}


@dataclass
class GoalFacts:
    """The facts of one goal.md."""

    api: str
    resource: str
    plural: str
    base_url: str
    constructor: list[str]                      # after base_url, in order
    methods: dict[str, tuple[str, list[str]]]   # role -> (method name, its parameters)
    fields: dict[str, dict[str, str]] = field(default_factory=dict)   # record key -> JSON schema
    id_field: str = "id"

    @property
    def filter(self) -> str | None:
        """The field the list method filters on, if it takes one."""
        params = self.methods.get("list", ("", []))[1]
        return params[0] if params else None

    @property
    def create_fields(self) -> list[str]:
        """The fields the create method takes."""
        return [p for p in self.methods.get("create", ("", []))[1] if not p.startswith("**")]


def read_goal(text: str) -> GoalFacts:
    """The facts of goal.md ``text``; a goal these rules cannot read raises ValueError."""
    head = re.search(r"^# Goal: a Python client for the (.+?) \((.+?) records\)", text, re.M)
    ctor = re.search(r"Client\(base_url: str(.*?)\)", text)
    base = re.search(r"in the recording it was `([^`]+)`", text)
    if not (head and ctor and base):
        raise ValueError("not a goal these rules can read (no title, constructor or recorded base URL)")
    constructor = [p.split(":")[0].strip() for p in ctor.group(1).split(",") if p.strip()]
    methods: dict[str, tuple[str, list[str]]] = {}
    for name, params in re.findall(r"^### `(\w+)\((.*?)\)", text, re.M):
        role = name.split("_", 1)[0]
        if role in ("list", "get", "create", "update", "delete"):
            methods[role] = (name, [p.split(":")[0].split("=")[0].strip() for p in params.split(",") if p.strip()])
    fields = {}
    for key, kind in re.findall(r"^\| `(\w+)` \| (\w+)", text, re.M):
        fields[key] = {"type": _TYPES.get(kind, "string")}
    id_field = re.search(r"whose `(\w+)` is `\w+`", text)
    get_name = methods.get("get", ("get_record", []))[0]
    list_name = methods.get("list", ("list_records", []))[0]
    return GoalFacts(api=head.group(1), resource=get_name[len("get_"):], plural=list_name[len("list_"):],
                     base_url=base.group(1).rstrip("/"), constructor=constructor, methods=methods, fields=fields,
                     id_field=id_field.group(1) if id_field else "id")

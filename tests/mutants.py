"""Semantic mutants of a task's reference client: plausible wrong clients the hidden tests must catch.

Each mutant is the reference with one method wrapped (or, for first_page_only, the reference without
its paging), so it is wrong in exactly one way. ``MUTANTS[name] = (applies, make)``: ``applies(model)``
says whether the API has what the mutant breaks, ``make(model)`` gives its source.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from har2client.api._reference import method_names, reference_source


def _names(model: Any) -> dict[str, str]:
    return method_names(model)


def _wrap(model: Any, role: str, body: str) -> str:
    """The reference with ``Client.<role method>`` replaced by ``body`` (which may call ``_orig``)."""
    name = _names(model)[role]
    return (reference_source(model) + f"\n\n_orig = Client.{name}\n\n\ndef _mutant(self, *args, **kwargs):\n"
            + "".join(f"    {line}\n" for line in body.strip("\n").splitlines()) + f"\n\nClient.{name} = _mutant\n")


def _int_field(model: Any) -> str | None:
    props = model.record_schema.get("properties", {})
    return next((k for k, v in props.items() if k != model.id_field and v.get("type") == "integer"), None)


def _plain_field(model: Any) -> str | None:
    props = model.record_schema.get("properties", {})
    return next((k for k in props if k != model.id_field), None)


MUTANTS: dict[str, tuple[Callable[[Any], bool], Callable[[Any], str]]] = {
    "ignores_the_filter": (
        lambda m: bool(m.filters),
        lambda m: _wrap(m, "list", "return _orig(self)")),
    "duplicates_a_record": (
        lambda m: True,
        lambda m: _wrap(m, "list", "items = _orig(self, *args, **kwargs)\nreturn items + items[:1]")),
    "drops_a_field": (
        lambda m: _plain_field(m) is not None,
        lambda m: _wrap(m, "get",
                        f"record = dict(_orig(self, *args, **kwargs))\nrecord.pop({_plain_field(m)!r}, None)\n"
                                  "return record")),
    "update_does_nothing": (
        lambda m: "update" in m.operations,
        lambda m: _wrap(m, "update", f"record = dict(self.{_names(m)['get']}(args[0]))\nrecord.update(kwargs)\n"
                                     "return record")),
    "create_fakes_its_answer": (
        lambda m: "create" in m.operations,
        lambda m: _wrap(m, "create", f"return dict(kwargs, **{{{m.id_field!r}: 'fake_0001'}})")),
    "delete_does_nothing": (
        lambda m: "delete" in m.operations,
        lambda m: _wrap(m, "delete", "return None")),
    "wrong_error_type": (
        lambda m: True,
        lambda m: _wrap(m, "get", "try:\n    return _orig(self, *args, **kwargs)\nexcept NotFoundError as exc:\n"
                                  "    raise LookupError(str(exc)) from None")),
    "stale_cache": (
        lambda m: True,
        lambda m: reference_source(m) + f"""

_list, _get = Client.{_names(m)['list']}, Client.{_names(m)['get']}
_CACHE = {{}}  # at class level: it outlives every client object


def _cached_list(self, *args, **kwargs):
    items = _list(self, *args, **kwargs)
    for item in items:
        _CACHE.setdefault(str(item.get({m.id_field!r})), item)
    return items


def _cached_get(self, record_id):
    return _CACHE.get(str(record_id)) or _get(self, record_id)


Client.{_names(m)['list']}, Client.{_names(m)['get']} = _cached_list, _cached_get
"""),
    "first_page_only": (
        lambda m: m.conventions["paging"]["style"] != "none",
        lambda m: reference_source(m, drop="paging")),
    "wrong_type_for_a_field": (
        lambda m: _int_field(m) is not None,
        lambda m: _wrap(m, "get", f"record = dict(_orig(self, *args, **kwargs))\n"
                                  f"record[{_int_field(m)!r}] = str(record.get({_int_field(m)!r}))\nreturn record")),
    "update_answers_the_old_record": (
        lambda m: "update" in m.operations,
        lambda m: _wrap(m, "update", f"before = self.{_names(m)['get']}(args[0])\n_orig(self, *args, **kwargs)\n"
                                     "return before")),
}

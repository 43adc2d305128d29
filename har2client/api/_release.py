"""Releases of an API: a change is an edit of its document that gives a new document, and the
difference between two releases can be computed and said in words.

``evolve(document, edit)`` applies an edit to a copy (the old release stays as it was);
``release_diff(old, new)`` lists the :class:`Change` s between two documents, each with a sentence a
changelog, a hint or a notice can use. Case 3 (repair) builds its releases and their hints on this.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._model import ApiModel, model_from_document
from ._shapes import filter_params

_ROLE_WORDS = {"list": "listing {plural}", "get": "fetching one {resource}", "create": "creating {a_resource}",
               "update": "updating {a_resource}", "delete": "deleting {a_resource}", "account": "the account"}


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


@dataclass(frozen=True)
class Change:
    """One difference between two releases: what changed (``aspect``), where, from what, to what."""

    aspect: str     # auth, expiry, version, paging, envelope, required_header, operation, field, request_field, ...
    where: str      # the convention key, the operation role, or the field name
    old: Any
    new: Any
    text: str       # the change in words

    def to_dict(self) -> dict[str, Any]:
        """The change as plain JSON data."""
        return {"aspect": self.aspect, "where": self.where, "old": self.old, "new": self.new, "text": self.text}


def evolve(document: dict[str, Any], edit: Callable[[dict[str, Any]], None], release: str | None = None) -> dict[str,
                                                                                                                 Any]:
    """A new release: ``edit`` applied to a deep copy of ``document`` (and ``info.version`` set to ``release``)."""
    new = copy.deepcopy(document)
    edit(new)
    if release is not None:
        new.setdefault("info", {})["version"] = release
    return new


def _model(doc: dict[str, Any] | ApiModel) -> ApiModel:
    return doc if isinstance(doc, ApiModel) else model_from_document(doc, "<release>")


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


def _schema_words(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "string")
    if "enum" in schema:
        return "one of " + ", ".join(map(str, schema["enum"]))
    return kind + (f" ({schema['format']})" if schema.get("format") else "")


def release_diff(old: dict[str, Any] | ApiModel, new: dict[str, Any] | ApiModel) -> list[Change]:
    """Every difference between two releases that a client of the API could notice, in a fixed order."""
    a, b = _model(old), _model(new)
    words = {"plural": b.plural.replace("_", " "), "resource": b.resource.replace("_", " ")}
    words["a_resource"] = _a(words["resource"])
    changes: list[Change] = []
    for aspect in ("auth", "version", "paging", "envelope"):
        before, after = _flat(a.conventions.get(aspect) or {}), _flat(b.conventions.get(aspect) or {})
        for key in sorted(before.keys() | after.keys()):
            if before.get(key) != after.get(key):
                name = "expiry" if key.startswith("expiry") else aspect
                text = (f"{aspect} {key}: {before.get(key)!r} is now {after.get(key)!r}"
                        if key in before and key in after
                        else f"{aspect} {key} {after.get(key)!r} is new" if key in after
                        else f"{aspect} {key} {before.get(key)!r} is gone")
                changes.append(Change(name, key, before.get(key), after.get(key), text[0].upper() + text[1:] + "."))
    headers_a = {r["name"]: r for r in a.conventions.get("required_headers", [])}
    headers_b = {r["name"]: r for r in b.conventions.get("required_headers", [])}
    for name in sorted(headers_a.keys() | headers_b.keys()):
        if headers_a.get(name) == headers_b.get(name):
            continue
        rule = headers_b.get(name) or headers_a[name]
        methods = ", ".join(m.upper() for m in rule["on"])
        text = (f"Requests ({methods}) now need the {name} header." if name not in headers_a
                else f"The {name} header is no longer needed." if name not in headers_b
                else f"The {name} header's rule changed: now on {methods}.")
        changes.append(Change("required_header", name, headers_a.get(name), headers_b.get(name), text))
    for role in sorted(a.operations.keys() | b.operations.keys()):
        oa, ob = a.operations.get(role), b.operations.get(role)
        what = _ROLE_WORDS.get(role, role).format(**words)
        if oa and ob and (oa.method, oa.path) != (ob.method, ob.path):
            changes.append(Change("operation", role, f"{oa.method} {oa.path}", f"{ob.method} {ob.path}",
                                  f"The operation for {what} moved from {oa.method} {oa.path} "
                                  f"to {ob.method} {ob.path}."))
        elif oa and ob and oa.success_status != ob.success_status:
            changes.append(Change("operation", role, oa.success_status, ob.success_status,
                                  f"{what.capitalize()} now answers {ob.success_status} "
                                  f"instead of {oa.success_status}."))
        elif oa is None and ob is not None:
            changes.append(Change("operation", role, None, f"{ob.method} {ob.path}",
                                  f"New: {what} ({ob.method} {ob.path})."))
        elif ob is None and oa is not None:
            changes.append(Change("operation", role, f"{oa.method} {oa.path}", None,
                                  f"Removed: {what} ({oa.method} {oa.path})."))
    changes += _fields("field", a.field_properties, b.field_properties, f"{_a(words['resource']).capitalize()} record")
    if "create" in a.operations and "create" in b.operations:
        (pa, ra), (pb, rb) = a.request_fields("create"), b.request_fields("create")
        changes += _fields("request_field", pa, pb, "The create request")
        for name in sorted((rb - ra) & set(pb)):
            changes.append(Change("request_field", name, "optional", "required",
                                  f"The create request now requires {name}."))
    for name in sorted(set(a.filters) ^ set(b.filters)):
        text = f"Listing filters by {name}." if name in b.filters else f"Listing no longer filters by {name}."
        changes.append(Change("filter", name, name in a.filters, name in b.filters, text))
    pa, pb = filter_params(a), filter_params(b)
    for param in sorted(pb.keys() - pa.keys()):
        was = next((p for p, f in pa.items() if f == pb[param]), None)
        if was is not None:
            changes.append(Change("filter", pb[param], was, param, f"Listing filters by {pb[param]} with the "
                                  f"`{param}` parameter now; `{was}` is ignored."))
    units_a, units_b = a.conventions.get("units", {}), b.conventions.get("units", {})
    for field in sorted(units_a.keys() | units_b.keys()):
        if units_a.get(field) != units_b.get(field):
            said = _UNIT_WORDS.get(units_b.get(field), "as it is kept")
            changes.append(Change("unit", field, units_a.get(field), units_b.get(field),
                                  f"Answers give {_a(words['resource'])}'s {field} {said}."))
    return changes


_UNIT_WORDS = {"decimal_from_cents": "as a decimal string of the whole amount (12.34), not in cents",
               "epoch_from_date": "as seconds since 1970 (UTC), not as a date string"}


def _fields(aspect: str, before: dict[str, Any], after: dict[str, Any], owner: str) -> list[Change]:
    out = []
    gone, added = [k for k in before if k not in after], [k for k in after if k not in before]
    for old_name in list(gone):  # one field out and one of the same shape in: a rename
        twin = next((k for k in added if _schema_words(after[k]) == _schema_words(before[old_name])), None)
        if twin is not None:
            gone.remove(old_name)
            added.remove(twin)
            out.append(Change(aspect, twin, old_name, twin, f"{owner} calls {old_name} {twin} now."))
    out += [Change(aspect, k, _schema_words(before[k]), None, f"{owner} no longer has {k}.") for k in gone]
    out += [Change(aspect, k, None, _schema_words(after[k]),
                   f"{owner} has a new field {k} ({_schema_words(after[k])}).")
            for k in added]
    for k in before.keys() & after.keys():
        if _schema_words(before[k]) != _schema_words(after[k]):
            out.append(Change(aspect, k, _schema_words(before[k]), _schema_words(after[k]),
                              f"{owner}'s {k} is {_schema_words(after[k])} now, not {_schema_words(before[k])}."))
    return sorted(out, key=lambda c: (c.where, c.text))


def describe_release(changes: list[Change], title: str = "What changed") -> str:
    """A changelog section: one line per change."""
    if not changes:
        return f"## {title}\n\nNothing a client can notice.\n"
    return f"## {title}\n\n" + "".join(f"- {c.text}\n" for c in changes)

"""A layered, SDK-style old client: a transport, a resource class and a record model over it.

The same behaviour as the compact reference, laid out as SDKs are (the repair has to find where in the
layers the change lands): ``_Transport`` is the compact client's machinery, ``<Resource>Resource`` the
operations, ``Record`` the model, and ``Client`` the entry point the goal names.
"""

from __future__ import annotations

from ..api import ApiModel, constructor_args, reference_source


def sdk_source(model: ApiModel) -> str:
    compact = reference_source(model).replace("class Client:", "class _Transport:", 1)
    compact = compact.replace('"""Reference client for', '"""An SDK for', 1)
    res, many = model.resource, model.plural
    cls = "".join(part.capitalize() for part in res.split("_"))
    args = constructor_args(model)
    sig = "".join(f", {a}" for a in args)
    call = "".join(f", {a}" for a in args)
    f = model.filters[0] if model.filters else None
    list_sig, list_call = (f"self, {f}=None", f"{f}={f}") if f else ("self", "")
    ops = model.operations
    out = [compact.rstrip(), "", "", f'''class Record(dict):
    """One {res.replace("_", " ")}: a dict whose keys also read as attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class {cls}Resource:
    """The {many.replace("_", " ")} of the account."""

    def __init__(self, transport):
        self._transport = transport

    def list({list_sig}):
        return [Record(r) for r in self._transport.list_{many}({list_call})]

    def get(self, {res}_id):
        return Record(self._transport.get_{res}({res}_id))
''']
    if "create" in ops:
        out.append(f'''
    def create(self, **fields):
        return Record(self._transport.create_{res}(**fields))
''')
    if "update" in ops:
        out.append(f'''
    def update(self, {res}_id, **changes):
        return Record(self._transport.update_{res}({res}_id, **changes))
''')
    if "delete" in ops:
        out.append(f'''
    def delete(self, {res}_id):
        self._transport.delete_{res}({res}_id)
''')
    out.append(f'''

class Client:
    """The SDK's entry point: the {many.replace("_", " ")} resource over one transport."""

    def __init__(self, base_url{sig}):
        self.{many} = {cls}Resource(_Transport(base_url{call}))

    def list_{many}({list_sig}):
        return [dict(r) for r in self.{many}.list({list_call})]

    def get_{res}(self, {res}_id):
        return dict(self.{many}.get({res}_id))
''')
    if "create" in ops:
        out.append(f'''
    def create_{res}(self, **fields):
        return dict(self.{many}.create(**fields))
''')
    if "update" in ops:
        out.append(f'''
    def update_{res}(self, {res}_id, **changes):
        return dict(self.{many}.update({res}_id, **changes))
''')
    if "delete" in ops:
        out.append(f'''
    def delete_{res}(self, {res}_id):
        self.{many}.delete({res}_id)
''')
    return "\n".join(out).rstrip() + "\n"

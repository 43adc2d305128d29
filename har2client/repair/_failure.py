"""``failure.txt``: what the old client now does against the new release, as its user saw it.

A user's script (listing, reading, checking, writing with the old client) runs against a fresh instance
of the new release. A loud change stops it with the client's exception; a silent one gets only 2xx
answers, and the first check the script makes on what it got fails (a missing key, a value of the wrong
type, a filter that did not filter, fewer records than the account has).
"""

from __future__ import annotations

import linecache
import random
import sys
import traceback
import types
from typing import Any

from ..api import (
    ApiModel,
    HTTPServer,
    Instance,
    client_kwargs,
    create_app,
    create_values,
    fake_from_schema,
    listen_socket,
    plain_fields,
)

_TYPES = {"integer": "int", "string": "str", "boolean": "bool", "number": "float"}


def user_script(v1: ApiModel, total: int, r: random.Random) -> str:
    """The script a user of the old client ran, checking what it got against the contract it was written for."""
    many, one = v1.plural, v1.resource
    lines = ["from client_v1 import Client", "", "", "def main(client):",
             f"    {many} = client.list_{many}()",
             f"    assert len({many}) == {total}, f'list_{many}() gave {{len({many})}} {many.replace('_', ' ')}; "
             f"the account has {total}'",
             f"    first = client.get_{one}({many}[0]['{v1.id_field}'])"]
    for key, schema in v1.record_schema.get("properties", {}).items():
        kind = _TYPES.get(schema.get("type", "string"))
        if kind:
            lines.append(f"    assert isinstance(first['{key}'], {kind}), "
                         f"f'{key} is {{first[\"{key}\"]!r}}, not a {kind}'")
    if v1.filters:
        f = v1.filters[0]
        value = v1.field_properties[f]["enum"][r.randrange(len(v1.field_properties[f]["enum"]))]
        said = f"list_{many}({f}={value!r}) gave {many.replace('_', ' ')} of another {f}"
        lines += [f"    picked = client.list_{many}({f}={value!r})",
                  f"    assert all(x['{f}'] == {value!r} for x in picked), {said!r}"]
    if "create" in v1.operations:
        lines.append(f"    new = client.create_{one}(**{create_values(v1, r)!r})")
        if "update" in v1.operations:
            field = plain_fields(v1, "update")[0][0]
            value = fake_from_schema(v1.field_properties[field], r, field)
            lines.append(f"    client.update_{one}(new['{v1.id_field}'], {field}={value!r})")
        if "delete" in v1.operations:
            lines.append(f"    client.delete_{one}(new['{v1.id_field}'])")
    return "\n".join(lines) + "\n"


def failure_text(client_v1: str, v1: ApiModel, v2: ApiModel, seed: int, terse: bool = False) -> str:
    """Run the user's script with ``client_v1`` against a new instance of ``v2``; say how it failed."""
    instance = Instance(v2, seed)
    server = HTTPServer(listen_socket("127.0.0.1"), create_app(v2, instance))
    script = user_script(v1, len(instance.all()), random.Random(seed))
    name = f"sync_{v1.plural}.py"
    module = types.ModuleType("client_v1")
    module.__file__ = "client_v1.py"
    saved = sys.modules.get("client_v1")
    for path, text in (("client_v1.py", client_v1), (name, script)):  # so the traceback shows their lines
        linecache.cache[path] = (len(text), None, text.splitlines(True), path)
    try:
        sys.modules["client_v1"] = module
        exec(compile(client_v1, "client_v1.py", "exec"), module.__dict__)
        ns: dict[str, Any] = {}
        exec(compile(script, name, "exec"), ns)
        client = module.Client(**client_kwargs(v2, instance, f"http://127.0.0.1:{server.port}"))
        try:
            ns["main"](client)
        except Exception as exc:  # noqa: BLE001 - the failure is the point
            frames = traceback.format_exception(type(exc), exc, exc.__traceback__)
            frames = [f for f in frames if "har2client" not in f and "<frozen" not in f]
            text = "".join(frames).replace(f"127.0.0.1:{server.port}", v2.server.split("://", 1)[1])
            if terse:
                return f"$ python {name}\n" + text.strip().splitlines()[-1][:120] + "\n"
            return f"$ python {name}\n" + text
        return f"$ python {name}\n(it ran to the end)\n"
    finally:
        server.close()
        if saved is not None:
            sys.modules["client_v1"] = saved
        else:
            sys.modules.pop("client_v1", None)
        for path in ("client_v1.py", name):
            linecache.cache.pop(path, None)

"""The one fake-API engine: an API is an OpenAPI document with conventions; instances of it are served.

``model_from_document`` / ``load_model`` read a description, ``Instance`` is one seeded world of it,
``create_app`` its Flask app, ``serve`` puts it on a loopback address; ``evolve`` makes a new release
of a document and ``release_diff`` says how two releases differ. Its other parts load on demand:
``_reference`` (the reference client), ``_session`` (a recording), ``_world`` (the judge's world and
hidden tests), ``_client`` (a conventions-driven client).
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports
from ._app import InstanceApp, create_app
from ._fake import ABOUT_KIND, KINDS, fake_from_schema, fake_value
from ._instance import Clock, Instance, credential_names, instance_seed, page_sizes
from ._model import ApiModel, Operation, load_model, model_from_document, read_document
from ._release import Change, describe_release, evolve, release_diff
from ._server import RunningServer, listen_socket, loopback_host, serve
from ._shapes import ApiRefusal

__all__ = [
    "ABOUT_KIND", "ApiModel", "ApiRefusal", "Change", "Clock", "Instance", "InstanceApp", "KINDS", "Operation",
    "RunningServer", "create_app", "credential_names", "describe_release", "evolve", "fake_from_schema", "fake_value",
    "instance_seed", "listen_socket",
    "load_model", "loopback_host", "model_from_document", "page_sizes", "read_document", "release_diff", "serve",
]

# What the other sub-packages use besides: each loads its module on first use, so no import
# cycle forms and importing this package costs no more than before.
if _typing.TYPE_CHECKING:
    from ._client import ConventionsClient
    from ._http import HTTPServer
    from ._reference import constructor_args, conventions_on, method_names, reference_source
    from ._session import clue_for, record_session, recording_instance
    from ._world import (
        ApiWorld,
        client_kwargs,
        create_values,
        hidden_tests,
        plain_fields,
        start_grading_world,
        start_world,
    )
__all__ += ["ApiWorld", "ConventionsClient", "HTTPServer", "client_kwargs", "clue_for",
            "constructor_args", "conventions_on", "create_values", "hidden_tests", "method_names", "plain_fields",
            "record_session", "recording_instance", "reference_source", "start_grading_world",
            "start_world"]
__getattr__ = _lazy_exports(__name__, {
    "ConventionsClient": "._client",
    "HTTPServer": "._http",
    **dict.fromkeys(("constructor_args", "conventions_on", "method_names", "reference_source"), "._reference"),
    **dict.fromkeys(("clue_for", "record_session", "recording_instance"), "._session"),
    **dict.fromkeys(("ApiWorld", "client_kwargs", "create_values", "hidden_tests", "plain_fields",
                     "start_grading_world", "start_world"),
                    "._world"),
})

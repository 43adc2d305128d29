"""The one fake-API engine: an API is an OpenAPI document with conventions; instances of it are served.

``model_from_document`` / ``load_model`` read a description, ``Instance`` is one seeded world of it,
``create_app`` its Flask app, ``serve`` puts it on a loopback address; ``evolve`` makes a new release
of a document and ``release_diff`` says how two releases differ. Its other parts load on demand:
``_reference`` (the reference client), ``_session`` (a recording), ``_world`` (the judge's world and
hidden tests), ``_client`` (a conventions-driven client).
"""

from ._app import InstanceApp, create_app
from ._fake import KINDS, fake_from_schema, fake_value
from ._instance import Clock, Instance, credential_names, instance_seed, page_sizes
from ._model import ApiModel, Operation, load_model, model_from_document, read_document
from ._release import Change, describe_release, evolve, release_diff
from ._server import RunningServer, listen_socket, loopback_host, serve
from ._shapes import ApiRefusal

__all__ = [
    "ApiModel", "ApiRefusal", "Change", "Clock", "Instance", "InstanceApp", "KINDS", "Operation", "RunningServer",
    "create_app", "credential_names", "describe_release", "evolve", "fake_from_schema", "fake_value", "instance_seed",
    "listen_socket",
    "load_model", "loopback_host", "model_from_document", "page_sizes", "read_document", "release_diff", "serve",
]

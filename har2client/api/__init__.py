"""The fake-API engine: an API description, its instances, and the Flask app that serves them."""

from ._app import InstanceApp, create_app, spec_app
from ._errors_http import ApiError
from ._data import Store, fake_record, fake_value
from ._instance import Clock, Instance, instance_seed
from ._server import RunningServer, listen_socket, loopback_host, serve
from ._spec import (
    SWITCH_NAMES,
    SWITCH_VARIANTS,
    ApiSpec,
    Details,
    Field,
    Resource,
    Switches,
)

__all__ = [
    "ApiError", "ApiSpec", "InstanceApp", "spec_app", "Clock", "Details", "Field", "Instance", "Resource", "RunningServer",
    "SWITCH_NAMES", "SWITCH_VARIANTS", "Store", "Switches", "create_app", "fake_record", "fake_value",
    "instance_seed", "listen_socket", "loopback_host", "serve",
]

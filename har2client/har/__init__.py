"""HAR recordings: the model, a tolerant reader, a browser-shaped writer, a compact renderer."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports
from ._model import Entry, Message, Page, Recording, Request, Response
from ._reader import parse_har, read_har
from ._render import render_compact
from ._writer import recording_to_har, write_har

__all__ = ["Entry", "Message", "Page", "Recording", "Request", "Response", "parse_har", "read_har",
           "recording_to_har", "render_compact", "write_har"]

# What the other sub-packages use besides: each loads its module on first use, so no import
# cycle forms and importing this package costs no more than before.
if _typing.TYPE_CHECKING:
    from ._exchange import REASONS, exchange_entry, iso_time
    from ._render import clean
__all__ += ["REASONS", "clean", "exchange_entry", "iso_time"]
__getattr__ = _lazy_exports(__name__, {
    **dict.fromkeys(("REASONS", "exchange_entry", "iso_time"), "._exchange"),
    "clean": "._render",
})

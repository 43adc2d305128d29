"""HAR recordings: the model, a tolerant reader, a browser-shaped writer, a compact renderer."""

from ._model import Entry, Message, Page, Recording, Request, Response
from ._reader import parse_har, read_har
from ._render import render_compact
from ._writer import recording_to_har, write_har

__all__ = ["Entry", "Message", "Page", "Recording", "Request", "Response", "parse_har", "read_har",
           "recording_to_har", "render_compact", "write_har"]

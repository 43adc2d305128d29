"""What a recording is, independent of the HAR file that stores it."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import SplitResult, parse_qsl, urlsplit


@lru_cache(maxsize=8192)
def split_url(url: str) -> SplitResult | None:
    """The URL's parts, or None when it cannot be parsed (``http://[::1``); parsed once per URL."""
    try:
        return urlsplit(url)
    except ValueError:
        return None


@dataclass
class Message:
    """What requests and responses share: headers and a body."""
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: str = ""             # text, or base64 when ``body_base64``
    mime_type: str = ""
    body_base64: bool = False
    body_note: str = ""        # why there is no body although there was one: "not recorded", a missing file
    body_size: int = -1        # what the exporter says the body's size was (-1: not said)

    def header(self, name: str) -> str | None:
        """The first header called ``name`` (any case), or None."""
        lname = name.lower()
        for k, v in self.headers:
            if k.lower() == lname:
                return v
        return None


@dataclass
class Request(Message):
    """A recorded request."""
    method: str = "GET"
    url: str = ""
    http_version: str = "HTTP/1.1"
    form_params: list[tuple[str, str]] = field(default_factory=list)

    @property
    def query(self) -> list[tuple[str, str]]:
        """The URL's query parameters, in order, blanks kept."""
        parts = split_url(self.url)
        return parse_qsl(parts.query, keep_blank_values=True) if parts else []

    @property
    def host(self) -> str:
        """The host (with port), or "" for a relative or unparsable URL."""
        parts = split_url(self.url)
        return parts.netloc if parts else ""

    @property
    def path(self) -> str:
        """The URL's path (``/`` when it has none)."""
        parts = split_url(self.url)
        return (parts.path or "/") if parts else "/"


@dataclass
class Response(Message):
    """A recorded response."""
    status: int = 0
    status_text: str = ""
    http_version: str = "HTTP/1.1"


@dataclass
class Entry:
    """One exchange of a recording: a request, its response, and when."""
    request: Request
    response: Response
    started: str                # ISO 8601 with milliseconds and zone
    time_ms: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    pageref: str = ""
    resource_type: str = ""     # Chrome's _resourceType: xhr, fetch, script, font, ...
    server_ip: str = ""


@dataclass
class Page:
    """A page of a browser recording."""
    id: str
    title: str
    started: str


@dataclass
class Recording:
    """A HAR file's content: its entries (request and response pairs), pages and who wrote it."""
    entries: list[Entry]
    pages: list[Page] = field(default_factory=list)
    creator: tuple[str, str] = ("HAR2Client", "0")
    browser: tuple[str, str] | None = None
    source: str = ""            # the file it was read from, for error messages

    def hosts(self) -> list[str]:
        """The hosts the recording talks to, the most requested first."""
        seen: dict[str, int] = {}
        for e in self.entries:
            seen[e.request.host] = seen.get(e.request.host, 0) + 1
        return sorted(seen, key=lambda h: -seen[h])

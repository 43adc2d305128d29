"""Scripted, non-LLM policies for tests and demos; each plays one whole episode.

    reference             submits the task's reference client at once (no probes)
    as-built              submits what the as-built recording supports: the reference without the hidden
                          header's handling (the recording never shows the header), at once
    probe-then-reference  probes the hidden header within the budget (a request without it where it is
                          needed, then with it), then submits the reference
"""

from __future__ import annotations

from typing import Any

import httpx

from ..api import ConventionsClient, create_values, reference_source
from ._episode import InvestigateEpisode

POLICIES = ("reference", "as-built", "probe-then-reference")
_SKIP = {"host", "content-length", "connection", "accept-encoding", "user-agent"}


class ToolTransport(httpx.BaseTransport):
    """An httpx transport whose every request is one ``http_request`` tool call of the episode."""

    def __init__(self, episode: InvestigateEpisode) -> None:
        self.episode = episode

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        args: dict[str, Any] = {"method": request.method, "url": str(request.url),
                                "headers": {k: v for k, v in request.headers.items() if k.lower() not in _SKIP}}
        if request.content:
            args["body"] = request.content.decode()
        result = self.episode.act("http_request", args)
        if "status" not in result:
            raise httpx.TransportError(result.get("error", "the tool refused the request"))
        return httpx.Response(result["status"], headers=result["headers"], content=result["body"].encode(),
                              request=request)


def _probe_hidden_header(episode: InvestigateEpisode) -> None:
    model = episode.model
    rule = next((r for r in model.conventions.get("required_headers", []) if r.get("recorded") is False), None)
    http = httpx.Client(transport=ToolTransport(episode))
    client = ConventionsClient(model, episode.base_url, episode.practice.credentials, episode.practice.client_params,
                               http=http)
    ops = model.operations
    try:
        if rule is None:
            client.request(ops["list"])  # nothing hidden: look at one page
            return
        op, kwargs = (ops["create"], {"body": create_values(model, client.r)}) if "post" in rule["on"] \
            else (ops["get"], {"rid": "probe-1"})
        client.ignore = "required_headers"
        client.request(op, **kwargs)      # without it: the refusal names it
        client.ignore = None
        client.request(op, **kwargs)      # with it, derived as the API wants
    except (httpx.TransportError, httpx.HTTPStatusError):
        pass  # out of probes: go with what was seen


def run_policy(episode: InvestigateEpisode, policy: str) -> dict[str, Any]:
    """Play ``policy`` to the end of ``episode``; return its end line."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (one of {', '.join(POLICIES)})")
    episode.message("system", "You write API clients from recorded traffic. Answer with tool calls.")
    episode.message("user", episode.prompt())
    model = episode.model
    if policy == "probe-then-reference" and episode.budget > 0:
        _probe_hidden_header(episode)
    drop = "required_headers" if policy == "as-built" and any(
        r.get("recorded") is False for r in model.conventions.get("required_headers", [])) else None
    episode.act("submit_client", {"code": reference_source(model, drop=drop)})
    return episode.end("submitted")

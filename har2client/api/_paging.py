"""Paging for the Tier B fakes: one page of rows, its metadata for the body, and its headers."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import request

from ._errors_http import ApiError
from ._instance import Instance
from ._spec import ApiSpec


def _int_arg(name: str, default: int, low: int, high: int | None = None) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, "invalid_parameter", f"{name} must be an integer") from None
    if value < low:
        raise ApiError(400, "invalid_parameter", f"{name} must be at least {low}")
    return min(value, high) if high is not None else value


def _url_with(**params: Any) -> str:
    args = request.args.to_dict()
    args.update({k: str(v) for k, v in params.items()})
    return f"{request.base_url}?{urlencode(args)}"


def paginate(spec: ApiSpec, instance: Instance, rows: list) -> tuple[list, dict[str, Any], dict[str, str]]:
    """One page of ``rows``, the paging metadata for the body, and headers."""
    kind, d = spec.switches.paging, spec.details
    total = len(rows)
    if kind in ("page", "link"):
        per = _int_arg("per_page", d.page_size, 1, d.max_page_size)
        page = _int_arg("page", 1, 1)
        chunk = rows[(page - 1) * per: page * per]
        pages = max(1, -(-total // per))
        if kind == "page":
            return chunk, {"page": page, "per_page": per, "total_pages": pages}, {}
        links = []
        if page < pages:
            links.append(f'<{_url_with(page=page + 1, per_page=per)}>; rel="next"')
            links.append(f'<{_url_with(page=pages, per_page=per)}>; rel="last"')
        if page > 1:
            links.append(f'<{_url_with(page=1, per_page=per)}>; rel="first"')
        return chunk, {}, ({"Link": ", ".join(links)} if links else {})
    if kind == "offset":
        limit = _int_arg("limit", d.page_size, 1, d.max_page_size)
        offset = _int_arg("offset", 0, 0)
        return rows[offset: offset + limit], {"offset": offset, "limit": limit, "total": total}, {}
    if kind in ("cursor", "next_url"):
        limit = _int_arg("limit", d.page_size, 1, d.max_page_size)
        token = request.args.get("cursor" if kind == "cursor" else "page_token")
        start = 0
        if token:
            pos = instance.position_of(token)
            if pos is None:
                raise ApiError(400, "invalid_cursor", "The cursor is not valid for this account")
            start = pos
        chunk = rows[start: start + limit]
        more = start + limit < total
        nxt = instance.cursor_for(start + limit) if more else None
        if kind == "cursor":
            return chunk, {"next_cursor": nxt, "has_more": more}, {}
        return chunk, {"next": _url_with(page_token=nxt) if nxt else None}, {}
    return rows, {}, {}

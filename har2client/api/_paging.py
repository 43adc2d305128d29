"""Paging: the five styles, in each API's own parameter names and meta paths.

``paging.meta_prefix`` puts every meta key under one object (``meta.``, ``paging.``); ``echo`` repeats
the page's own arguments in the body; ``default_limit`` and ``page_cap`` size the pages.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from flask import request

from ._instance import page_sizes
from ._model import ApiModel
from ._shapes import ApiRefusal, current, read_args


def _arg(name: str) -> Any:
    """A paging argument: from the query, or from the body where the listing came by POST (Notion, Slack, Jira)."""
    return read_args().get(name)


def _int_arg(name: str, default: int) -> int:
    raw = _arg(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ApiRefusal(400, f"{name} must be an integer", code="invalid_parameter") from None


def _url(**params: Any) -> str:
    args = request.args.to_dict()
    args.update({k: str(v) for k, v in params.items()})
    return f"{request.base_url}?{urlencode(args)}"


def _cursor_alternative(rows: list[dict[str, Any]], alt: dict[str, str],
                        cap: int) -> tuple[list, dict[str, Any], dict[str, str]]:
    """The cursor paging an API offers beside its first style, chosen by its size parameter (Zendesk:
    ``page[size]`` and ``page[after]``, answered with ``meta.has_more``, ``meta.after_cursor``, ``links.next``)."""
    size = max(1, min(_int_arg(alt["size_param"], cap), cap))
    after = _arg(alt["after_param"])
    start = 0
    if after:
        pos = current().position_of(str(after))
        if pos is None:
            raise ApiRefusal(400, "The cursor is not valid for this account", code="invalid_cursor")
        start = pos
    chunk = rows[start:start + size]
    more = start + size < len(rows)
    token = current().cursor_for(start + len(chunk))
    meta = {alt["more_key"]: more, alt["cursor_key"]: token,
            alt["next_key"]: _url(**{alt["after_param"]: token, alt["size_param"]: size}) if more else None}
    return chunk, meta, {}


def paginate(model: ApiModel, rows: list[dict[str, Any]]) -> tuple[list, dict[str, Any], dict[str, str]]:
    """One page of ``rows``, values for dotted paths in the body, and response headers."""
    p = model.conventions["paging"]
    style = p["style"]
    alternative = p.get("cursor_alternative")
    if alternative and _arg(alternative["size_param"]) is not None:
        return _cursor_alternative(rows, alternative, page_sizes(model)[1])
    size_param = p.get("per_page_param") or p.get("limit_param")
    default, cap = page_sizes(model)
    size = default
    if not p.get("fixed_page_size") and size_param and _arg(size_param) is not None:
        size = max(p.get("min_limit", 1), min(_int_arg(size_param, default), cap))
    total = len(rows)
    pre = p.get("meta_prefix", "")
    meta: dict[str, Any] = {}
    headers: dict[str, str] = {}
    if style == "none":
        return rows[:size] if size_param and _arg(size_param) else rows, meta, headers
    if style in ("page", "link", "next_url") and not p.get("cursor_param"):
        page_param = p.get("page_param", "page")
        first = int(p.get("first_page", 1))  # Twilio counts pages from 0
        page = max(first, _int_arg(page_param, first))
        start = (page - first) * size
        chunk = rows[start:start + size]
        pages = max(1, -(-total // size))
        more = page - first + 1 < pages
        sized = {size_param: size} if size_param else {}
        # a next link that also carries a position token, as Twilio's PageToken (the page number decides)
        position = {p["page_token"]: current().cursor_for(start + size)} if p.get("page_token") and more else {}
        nxt = _url(**{page_param: page + 1, **sized, **position}) if more else None
        if p.get("echo") or p.get("pages_key") in ("pages", "total_pages"):  # bodies that count pages say which this is
            meta[pre + page_param] = page
        if p.get("echo") and size_param:
            meta[pre + size_param] = size
        if style == "page":
            if p.get("pages_key"):
                meta[pre + p["pages_key"]] = pages
            if p.get("total_key"):
                meta[pre + p["total_key"]] = total
            if p.get("next_key"):
                meta[pre + p["next_key"]] = nxt
        elif style == "link":
            links = [f'<{nxt}>; rel="next"'] if nxt else []
            if more:
                links.append(f'<{_url(**{page_param: first + pages - 1, **sized})}>; rel="last"')
                if p.get("next_header"):
                    headers[p["next_header"]] = str(page + 1)
            if page > first:
                links.append(f'<{_url(**{page_param: first, **sized})}>; rel="first"')
            if links:
                headers["Link"] = ", ".join(links)
        else:
            if nxt and p.get("relative"):
                parts = urlsplit(nxt)
                nxt = parts.path + "?" + parts.query
            meta[pre + p["next_key"]] = nxt
        return chunk, meta, headers
    if style == "offset":
        offset = max(0, _int_arg(p["offset_param"], 0))
        chunk = rows[offset:offset + size]
        more = offset + size < total
        if p.get("echo"):
            meta.update({pre + p["offset_param"]: offset, pre + p["limit_param"]: size})
        if p.get("total_key"):
            meta[pre + p["total_key"]] = total
        if p.get("more_key"):
            meta[pre + p["more_key"]] = more
        if p.get("next_key"):
            meta[pre + p["next_key"]] = (offset + size if more else None) if "start" in p["next_key"] else (
                _url(**{p["offset_param"]: offset + size, p["limit_param"]: size}) if more else None)
        return chunk, meta, headers
    # cursor styles, and Link headers that carry a cursor (Shopify's page_info, Okta's after)
    cursor = _arg(p["cursor_param"])
    start = 0
    if p.get("cursor_source") == "before_id":  # newest first, before=<id> for older ones (Discord)
        rows = sorted(rows, key=lambda r: int(r[model.id_field]), reverse=True)
    if cursor:
        if p.get("cursor_source") == "before_id":
            if not str(cursor).isdigit():
                raise ApiRefusal(400, f"{p['cursor_param']}: value {cursor!r} is not snowflake.", code="invalid_cursor")
            start = next((i for i, r in enumerate(rows) if int(r[model.id_field]) < int(cursor)), len(rows))
        elif p.get("cursor_source") == "last_id":
            ids = [str(r[model.id_field]) for r in rows]
            if cursor not in ids:
                raise ApiRefusal(400, f"No such object: {cursor}", code="invalid_cursor")
            start = ids.index(cursor) + 1
        else:
            pos = current().position_of(str(cursor))
            if pos is None:
                raise ApiRefusal(400, "The cursor is not valid for this account", code="invalid_cursor")
            start = pos
    chunk = rows[start:start + size]
    more = start + size < total
    token = current().cursor_for(start + size) if more else None
    if style == "link":
        if token:
            headers["Link"] = f'<{_url(**{p["cursor_param"]: token})}>; rel="next"'
        return chunk, meta, headers
    if style == "next_url":  # the next page's URL carries a cursor (Lob's after=)
        meta[pre + p["next_key"]] = _url(**{p["cursor_param"]: token}) if token else None
        return chunk, meta, headers
    if p.get("cursor_source") == "before_id":
        return chunk, meta, headers  # no more flag: a page shorter than asked is the last
    if p.get("cursor_source") == "last_id":
        meta[pre + p.get("more_key", "has_more")] = more
    else:
        meta[pre + p["cursor_source"]] = token if token else p.get("end_cursor")  # Slack ends with ""
        if p.get("more_key"):
            meta[pre + p["more_key"]] = more
        if p.get("last_key"):
            meta[pre + p["last_key"]] = not more  # Jira's isLast
    return chunk, meta, headers

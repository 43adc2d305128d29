"""The listing method of a reference client: one loop per paging style, in the API's own names."""

from __future__ import annotations

from typing import Any

from ._model import ApiModel


def listing_body(model: ApiModel, method: str, lp: str, paging: dict[str, Any]) -> str:
    """The body of ``_list_all(self, filters=None)``: every page of the list at path expression ``lp``."""
    style = paging["style"]
    if style == "none":
        list_body = f"return self._items(self._request(\"GET\", {lp}, params=self._list_params(filters)).json())"
    elif style == "link":
        list_body = f"""
            items, url = [], None
            while True:
                resp = self._request("GET", {lp}, params=self._list_params(filters), url=url)
                items.extend(self._items(resp.json()))
                url = resp.links.get("next", {{}}).get("url")
                if not url:
                    return items
        """
    elif style == "next_url":
        list_body = f"""
            items, url = [], None
            while True:
                body = self._request("GET", {lp}, params=self._list_params(filters), url=url).json()
                items.extend(self._items(body))
                url = self._meta(body, "{paging['next_key']}")
                if not url:
                    return items
        """
    elif style == "page":
        pp = paging.get("page_param", "page")
        stop = []
        if paging.get("pages_key"):
            stop.append(f'page >= (self._meta(body, "{paging["pages_key"]}") or page + 1)')
        if paging.get("next_key"):
            stop.append(f'not self._meta(body, "{paging["next_key"]}")')
        list_body = f"""
            items, page = [], 1
            while True:
                body = self._request("GET", {lp}, params=self._list_params(filters, **{{"{pp}": page}})).json()
                chunk = self._items(body)
                items.extend(chunk)
                if {" or ".join(["not chunk", *stop])}:
                    return items
                page += 1
        """
    elif style == "offset":
        op_, stop = paging["offset_param"], ["not chunk"]
        if paging.get("more_key"):
            stop.append(f'self._meta(body, "{paging["more_key"]}") is False')
        if paging.get("total_key"):
            stop.append(f'offset >= (self._meta(body, "{paging["total_key"]}") or offset + 1)')
        list_body = f"""
            items, offset = [], 0
            while True:
                body = self._request("GET", {lp}, params=self._list_params(filters, **{{"{op_}": offset}})).json()
                chunk = self._items(body)
                items.extend(chunk)
                offset += len(chunk)
                if {" or ".join(stop)}:
                    return items
        """
    elif paging.get("in_body"):  # listing by POST, the cursor in the request body (Notion)
        cp = paging["cursor_param"]
        list_body = f"""
            items, cursor = [], None
            while True:
                query = {{"{cp}": cursor}} if cursor else {{}}
                body = self._request("{method}", {lp}, params=self._list_params(filters), body=query).json()
                chunk = self._items(body)
                items.extend(chunk)
                cursor = self._meta(body, "{paging['cursor_source']}")
                if not cursor:
                    return items
        """
    else:  # cursor
        cp, sized = paging["cursor_param"], ""
        if paging.get("cursor_source") == "last_id":
            more = paging.get("more_key", "has_more")
            nxt = f'chunk[-1]["{model.id_field}"] if chunk and self._meta(body, "{more}") else None'
        elif paging.get("cursor_source") == "before_id":  # no more flag: a page shorter than asked is the last
            size = paging.get("max_limit", 100)
            nxt = f'min((r["{model.id_field}"] for r in chunk), key=int) if len(chunk) >= {size} else None'
            sized = f', {paging["limit_param"]}={size}'
        else:
            nxt = f'self._meta(body, "{paging["cursor_source"]}")'
        list_body = f"""
            items, cursor = [], None
            while True:
                params = self._list_params(filters{sized}, **({{"{cp}": cursor}} if cursor else {{}}))
                body = self._request("GET", {lp}, params=params).json()
                chunk = self._items(body)
                items.extend(chunk)
                cursor = {nxt}
                if not cursor:
                    return items
        """
    return list_body

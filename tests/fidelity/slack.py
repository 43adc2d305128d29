"""Slack channels, written from api.slack.com/methods (conversations.*) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url, timeout=10, headers={"Authorization": f"Bearer {api_key}"})

    def _call(self, http_method, method, **kwargs):
        resp = self.http.request(http_method, f"/api/{method}", **kwargs)
        resp.raise_for_status()
        body = resp.json()
        if not body.get("ok"):  # errors come with HTTP 200 and ok: false
            if body.get("error") == "channel_not_found":
                raise NotFoundError(body["error"])
            raise RuntimeError(body.get("error"))
        return body

    def list_channels(self):
        channels, cursor = [], None
        while True:  # cursor-based: the last page's next_cursor is an empty string
            params = {"limit": 200, **({"cursor": cursor} if cursor else {})}
            body = self._call("GET", "conversations.list", params=params)
            channels += body["channels"]
            cursor = body.get("response_metadata", {}).get("next_cursor")
            if not cursor:
                return channels

    def get_channel(self, channel_id):
        return self._call("GET", "conversations.info", params={"channel": channel_id})["channel"]

    def create_channel(self, **fields):
        return self._call("POST", "conversations.create", data=fields)["channel"]

    def update_channel(self, channel_id, **changes):
        return self._call("POST", "conversations.rename", data={"channel": channel_id, **changes})["channel"]

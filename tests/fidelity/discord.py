"""Discord channel messages, written from discord.com/developers/docs/resources/message (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key, channel_id):
        self.http = httpx.Client(base_url=base_url + "/api/v10", timeout=10,
                                 headers={"Authorization": f"Bot {api_key}"})
        self.messages = f"/channels/{channel_id}/messages"

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:  # 10008 Unknown Message
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_messages(self):
        # Newest first; older ones with before=<the oldest id so far>. A page shorter than the limit is the last.
        messages, before = [], None
        while True:
            page = self._call("GET", self.messages, params={"limit": 100, **({"before": before} if before else {})})
            messages += page
            if len(page) < 100:
                return messages
            before = min((m["id"] for m in page), key=int)

    def get_message(self, message_id):
        return self._call("GET", f"{self.messages}/{message_id}")

    def create_message(self, **fields):
        return self._call("POST", self.messages, json=fields)

    def update_message(self, message_id, **changes):
        return self._call("PATCH", f"{self.messages}/{message_id}", json=changes)

    def delete_message(self, message_id):
        self._call("DELETE", f"{self.messages}/{message_id}")

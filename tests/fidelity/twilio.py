"""Twilio messages, written from twilio.com/docs/messaging/api/message-resource (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, username, password, AccountSid):
        self.base = base_url
        self.http = httpx.Client(base_url=base_url, timeout=10, auth=(username, password))  # SID and auth token
        self.messages = f"/2010-04-01/Accounts/{AccountSid}/Messages"

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_messages(self):
        messages, url = [], f"{self.messages}.json?PageSize=1000"
        while url:  # next_page_uri is relative to the API's host, null on the last page
            page = self._call("GET", url)
            messages += page["messages"]
            url = page.get("next_page_uri")
        return messages

    def get_message(self, sid):
        return self._call("GET", f"{self.messages}/{sid}.json")

    def create_message(self, **fields):
        return self._call("POST", f"{self.messages}.json", data=fields)  # To, From, Body... form-encoded

    def update_message(self, sid, **changes):
        return self._call("POST", f"{self.messages}/{sid}.json", data=changes)

    def delete_message(self, sid):
        self._call("DELETE", f"{self.messages}/{sid}.json")

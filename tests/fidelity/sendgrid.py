"""SendGrid API keys, written from twilio.com/docs/sendgrid/api-reference/api-keys (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url + "/v3", timeout=10, headers={"Authorization": f"Bearer {api_key}"})

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_api_keys(self):
        return self._call("GET", "/api_keys")["result"]  # every key in one answer

    def get_api_key(self, api_key_id):
        return self._call("GET", f"/api_keys/{api_key_id}")["result"][0]  # a one-key list

    def create_api_key(self, **fields):
        return self._call("POST", "/api_keys", json=fields)

    def update_api_key(self, api_key_id, **changes):
        return self._call("PATCH", f"/api_keys/{api_key_id}", json=changes)

    def delete_api_key(self, api_key_id):
        self._call("DELETE", f"/api_keys/{api_key_id}")

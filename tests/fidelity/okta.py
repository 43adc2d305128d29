"""Okta users, written from developer.okta.com/docs/api/openapi/okta-management (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url + "/api/v1", timeout=10, headers={
            "Authorization": f"SSWS {api_key}", "Accept": "application/json"})

    def _call(self, method, url, **kwargs):
        resp = self.http.request(method, url, **kwargs)
        if resp.status_code == 404:  # E0000007
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp

    def list_users(self):
        users, url, params = [], "/users", {"limit": 200}
        while url:  # the Link header's rel="next" carries the after cursor
            resp = self._call("GET", url, params=params)
            users += resp.json()
            url, params = resp.links.get("next", {}).get("url"), None
        return users

    def get_user(self, user_id):
        return self._call("GET", f"/users/{user_id}").json()

    def create_user(self, **profile):
        return self._call("POST", "/users", json={"profile": profile}).json()

    def update_user(self, user_id, **changes):
        return self._call("POST", f"/users/{user_id}", json={"profile": changes}).json()  # partial update

    def delete_user(self, user_id):
        # Deleting an active user only deactivates it (DEPROVISIONED); deleting it again removes it.
        self._call("DELETE", f"/users/{user_id}")
        if self._still_there(user_id):
            self._call("DELETE", f"/users/{user_id}")

    def _still_there(self, user_id):
        return self.http.get(f"/users/{user_id}").status_code == 200

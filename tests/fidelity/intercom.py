"""Intercom contacts, written from developers.intercom.com (REST API 2.16) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url, timeout=10, headers={
            "Authorization": f"Bearer {api_key}", "Intercom-Version": "2.16", "Accept": "application/json"})

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json()

    def list_contacts(self):
        contacts, after = [], None
        while True:  # cursor pages: pages.next.starting_after until there is no next
            params = {"per_page": 150, **({"starting_after": after} if after else {})}
            body = self._call("GET", "/contacts", params=params)
            contacts += body["data"]
            after = ((body.get("pages") or {}).get("next") or {}).get("starting_after")
            if not after:
                return contacts

    def get_contact(self, contact_id):
        return self._call("GET", f"/contacts/{contact_id}")

    def create_contact(self, **fields):
        return self._call("POST", "/contacts", json=fields)

    def update_contact(self, contact_id, **changes):
        return self._call("PUT", f"/contacts/{contact_id}", json=changes)

    def delete_contact(self, contact_id):
        self._call("DELETE", f"/contacts/{contact_id}")

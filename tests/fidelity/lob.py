"""Lob addresses, written from docs.lob.com (addresses) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        # HTTP basic with the API key as the user name and an empty password.
        self.http = httpx.Client(base_url=base_url + "/v1", timeout=10, auth=(api_key, ""))

    def _call(self, method, url, **kwargs):
        resp = self.http.request(method, url, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp.json()

    def list_addresses(self):
        addresses, url, params = [], "/addresses", {"limit": 100}
        while url:  # next_url is the next page's full URL, empty on the last page
            body = self._call("GET", url, params=params)
            addresses += body["data"]
            url, params = body.get("next_url"), None
        return addresses

    def get_address(self, address_id):
        return self._call("GET", f"/addresses/{address_id}")

    def create_address(self, **fields):
        return self._call("POST", "/addresses", json=fields)

    def delete_address(self, address_id):
        self._call("DELETE", f"/addresses/{address_id}")

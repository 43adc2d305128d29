"""Linode instances, written from techdocs.akamai.com/linode-api/reference (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url + "/v4", timeout=10, headers={"Authorization": f"Bearer {api_key}"})

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json()

    def list_instances(self):
        instances, page = [], 1
        while True:  # page and page_size (25 to 500); the body says how many pages there are
            body = self._call("GET", "/linode/instances", params={"page": page, "page_size": 500})
            instances += body["data"]
            if page >= body["pages"]:
                return instances
            page += 1

    def get_instance(self, linode_id):
        return self._call("GET", f"/linode/instances/{linode_id}")

    def create_instance(self, **fields):
        return self._call("POST", "/linode/instances", json=fields)

    def update_instance(self, linode_id, **changes):
        return self._call("PUT", f"/linode/instances/{linode_id}", json=changes)

    def delete_instance(self, linode_id):
        self._call("DELETE", f"/linode/instances/{linode_id}")

"""DigitalOcean droplets, written from docs.digitalocean.com/reference/api (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url + "/v2", timeout=10, headers={"Authorization": f"Bearer {api_key}"})

    def _call(self, method, url, **kwargs):
        resp = self.http.request(method, url, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_droplets(self):
        droplets, url, params = [], "/droplets", {"per_page": 200}
        while url:  # links.pages.next is the next page's URL, absent on the last
            body = self._call("GET", url, params=params)
            droplets += body["droplets"]
            url, params = ((body.get("links") or {}).get("pages") or {}).get("next"), None
        return droplets

    def get_droplet(self, droplet_id):
        return self._call("GET", f"/droplets/{droplet_id}")["droplet"]

    def create_droplet(self, **fields):
        return self._call("POST", "/droplets", json=fields)["droplet"]  # 202 Accepted, the droplet being built

    def delete_droplet(self, droplet_id):
        self._call("DELETE", f"/droplets/{droplet_id}")

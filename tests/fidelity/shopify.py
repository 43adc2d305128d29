"""Shopify products, written from shopify.dev/docs/api/admin-rest (REST Admin API) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url + "/admin/api/2026-01", timeout=10,
                                 headers={"X-Shopify-Access-Token": api_key})

    def _call(self, method, url, **kwargs):
        resp = self.http.request(method, url, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp

    def list_products(self):
        products, url, params = [], "/products.json", {"limit": 250}
        while url:  # cursor pagination: the Link header's rel="next" carries page_info
            resp = self._call("GET", url, params=params)
            products += resp.json()["products"]
            url, params = resp.links.get("next", {}).get("url"), None
        return products

    def get_product(self, product_id):
        return self._call("GET", f"/products/{product_id}.json").json()["product"]

    def create_product(self, **fields):
        return self._call("POST", "/products.json", json={"product": fields}).json()["product"]

    def update_product(self, product_id, **changes):
        return self._call("PUT", f"/products/{product_id}.json", json={"product": changes}).json()["product"]

    def delete_product(self, product_id):
        self._call("DELETE", f"/products/{product_id}.json")

"""Square customers, written from developer.squareup.com/reference/square/customers-api (not from a recording)."""

import uuid

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url + "/v2", timeout=10, headers={
            "Authorization": f"Bearer {api_key}", "Square-Version": "2025-08-20"})

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json()

    def list_customers(self):
        customers, cursor = [], None
        while True:  # the cursor comes back until the last page
            body = self._call("GET", "/customers", params={"limit": 100, **({"cursor": cursor} if cursor else {})})
            customers += body.get("customers", [])
            cursor = body.get("cursor")
            if not cursor:
                return customers

    def get_customer(self, customer_id):
        return self._call("GET", f"/customers/{customer_id}")["customer"]

    def create_customer(self, **fields):
        # An idempotency key makes a retried create safe.
        return self._call("POST", "/customers", json={"idempotency_key": str(uuid.uuid4()), **fields})["customer"]

    def update_customer(self, customer_id, **changes):
        return self._call("PUT", f"/customers/{customer_id}", json=changes)["customer"]

    def delete_customer(self, customer_id):
        self._call("DELETE", f"/customers/{customer_id}")

"""Stripe customers, written from docs.stripe.com/api/customers (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        # Secret keys go in as bearer tokens; pinning a version keeps answers stable across account upgrades.
        self.http = httpx.Client(base_url=base_url, timeout=10, headers={
            "Authorization": f"Bearer {api_key}", "Stripe-Version": "2026-07-29.dahlia"})

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:  # resource_missing
            raise NotFoundError(resp.json()["error"].get("message", path))
        resp.raise_for_status()
        return resp.json()

    def list_customers(self):
        customers, after = [], None
        while True:  # cursor pagination: starting_after the last object until has_more is false
            params = {"limit": 100, **({"starting_after": after} if after else {})}
            page = self._call("GET", "/v1/customers", params=params)
            customers += page["data"]
            if not page["has_more"]:
                return customers
            after = page["data"][-1]["id"]

    def get_customer(self, customer_id):
        customer = self._call("GET", f"/v1/customers/{customer_id}")
        if customer.get("deleted"):  # a deleted customer is still retrievable, marked deleted
            raise NotFoundError(customer_id)
        return customer

    def create_customer(self, **fields):
        return self._call("POST", "/v1/customers", data=fields)  # form-encoded, as every Stripe write

    def update_customer(self, customer_id, **changes):
        return self._call("POST", f"/v1/customers/{customer_id}", data=changes)

    def delete_customer(self, customer_id):
        self._call("DELETE", f"/v1/customers/{customer_id}")

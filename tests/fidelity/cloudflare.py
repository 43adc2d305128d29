"""Cloudflare DNS records, written from developers.cloudflare.com/api (dns records) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key, zone_id):
        self.http = httpx.Client(base_url=base_url + "/client/v4", timeout=10,
                                 headers={"Authorization": f"Bearer {api_key}"})
        self.records = f"/zones/{zone_id}/dns_records"

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        body = resp.json()
        if not body.get("success"):  # every answer is {success, errors, messages, result}
            raise RuntimeError(body.get("errors"))
        return body

    def list_dns_records(self):
        records, page = [], 1
        while True:
            body = self._call("GET", self.records, params={"page": page, "per_page": 5000})
            records += body["result"]
            if page >= body["result_info"]["total_pages"]:
                return records
            page += 1

    def get_dns_record(self, record_id):
        return self._call("GET", f"{self.records}/{record_id}")["result"]

    def create_dns_record(self, **fields):
        return self._call("POST", self.records, json=fields)["result"]

    def update_dns_record(self, record_id, **changes):
        return self._call("PATCH", f"{self.records}/{record_id}", json=changes)["result"]

    def delete_dns_record(self, record_id):
        self._call("DELETE", f"{self.records}/{record_id}")

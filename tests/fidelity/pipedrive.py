"""Pipedrive persons, written from developers.pipedrive.com/docs/api/v1/Persons (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url + "/v1", timeout=10, params={"api_token": api_key})

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        body = resp.json()
        if not body.get("success"):
            raise RuntimeError(body)
        return body

    def list_persons(self):
        persons, start = [], 0
        while True:  # additional_data.pagination: more_items_in_collection and next_start
            body = self._call("GET", "/persons", params={"start": start, "limit": 500})
            persons += body["data"] or []
            pagination = (body.get("additional_data") or {}).get("pagination") or {}
            if not pagination.get("more_items_in_collection"):
                return persons
            start = pagination["next_start"]

    def get_person(self, person_id):
        return self._call("GET", f"/persons/{person_id}")["data"]

    def create_person(self, **fields):
        return self._call("POST", "/persons", json=fields)["data"]

    def update_person(self, person_id, **changes):
        return self._call("PUT", f"/persons/{person_id}", json=changes)["data"]

    def delete_person(self, person_id):
        self._call("DELETE", f"/persons/{person_id}")

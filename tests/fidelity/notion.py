"""Notion pages of a data source, written from developers.notion.com/reference (2025-09-03) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key, data_source_id):
        self.http = httpx.Client(base_url=base_url + "/v1", timeout=10, headers={
            "Authorization": f"Bearer {api_key}", "Notion-Version": "2025-09-03"})
        self.source = data_source_id

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:  # object_not_found
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json()

    def list_pages(self):
        pages, cursor = [], None
        while True:  # POST queries: start_cursor in the body, has_more/next_cursor in the answer
            body = self._call("POST", f"/data_sources/{self.source}/query",
                              json={"page_size": 100, **({"start_cursor": cursor} if cursor else {})})
            pages += body["results"]
            if not body.get("has_more"):
                return pages
            cursor = body["next_cursor"]

    def get_page(self, page_id):
        return self._call("GET", f"/pages/{page_id}")

    def create_page(self, **fields):
        parent = {"type": "data_source_id", "data_source_id": self.source}
        return self._call("POST", "/pages", json={"parent": parent, "properties": {}, **fields})

    def update_page(self, page_id, **changes):
        return self._call("PATCH", f"/pages/{page_id}", json=changes)

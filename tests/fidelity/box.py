"""Box folders, written from developer.box.com/reference (folders, client credentials grant) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, client_id, client_secret, parent_folder_id, enterprise_id):
        self.base = base_url
        self.http = httpx.Client(base_url=base_url + "/2.0", timeout=10)
        self.grant = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret,
                      "box_subject_type": "enterprise", "box_subject_id": enterprise_id}  # the service account
        self.parent, self.token = parent_folder_id, None

    def _headers(self):
        if self.token is None:
            resp = httpx.post(self.base + "/oauth2/token", data=self.grant, timeout=10)
            resp.raise_for_status()
            self.token = resp.json()["access_token"]
        return {"Authorization": f"Bearer {self.token}"}

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, headers=self._headers(), **kwargs)
        if resp.status_code == 401:  # the token expired: one new one
            self.token = None
            resp = self.http.request(method, path, headers=self._headers(), **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_folders(self):
        entries, offset = [], 0
        while True:  # offset pagination against total_count
            page = self._call("GET", f"/folders/{self.parent}/items", params={"limit": 1000, "offset": offset})
            entries += page["entries"]
            offset += len(page["entries"])
            if not page["entries"] or offset >= page["total_count"]:
                return entries

    def get_folder(self, folder_id):
        return self._call("GET", f"/folders/{folder_id}")

    def create_folder(self, **fields):
        return self._call("POST", "/folders", json={"parent": {"id": self.parent}, **fields})

    def update_folder(self, folder_id, **changes):
        return self._call("PUT", f"/folders/{folder_id}", json=changes)

    def delete_folder(self, folder_id):
        self._call("DELETE", f"/folders/{folder_id}")

"""GitLab project issues, written from docs.gitlab.com/api/issues/ (not from a recording)."""

from urllib.parse import quote

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key, id):
        self.http = httpx.Client(base_url=base_url, timeout=10, headers={"PRIVATE-TOKEN": api_key})
        self.project = f"/api/v4/projects/{quote(str(id), safe='')}"

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp

    def list_issues(self):
        issues, page = [], "1"
        while page:  # offset pagination: X-Next-Page is empty on the last page
            resp = self._call("GET", f"{self.project}/issues", params={"per_page": 100, "page": page})
            issues += resp.json()
            page = resp.headers.get("X-Next-Page")
        return issues

    def get_issue(self, issue_iid):
        return self._call("GET", f"{self.project}/issues/{issue_iid}").json()

    def create_issue(self, **fields):
        return self._call("POST", f"{self.project}/issues", json=fields).json()

    def update_issue(self, issue_iid, **changes):
        return self._call("PUT", f"{self.project}/issues/{issue_iid}", json=changes).json()

    def delete_issue(self, issue_iid):
        self._call("DELETE", f"{self.project}/issues/{issue_iid}")

"""Jira Cloud issues, written from developer.atlassian.com/cloud/jira/platform/rest/v3 (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, username, password, project_key):
        self.http = httpx.Client(base_url=base_url + "/rest/api/3", timeout=10, auth=(username, password))
        self.project = project_key

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_issues(self):
        # search/jql pages by nextPageToken until isLast; it answers only ids unless fields are named.
        issues, token = [], None
        while True:
            params = {"jql": f'project = "{self.project}"', "fields": "*all", "maxResults": 100}
            body = self._call("GET", "/search/jql", params={**params, **({"nextPageToken": token} if token else {})})
            issues += body["issues"]
            token = body.get("nextPageToken")
            if body.get("isLast", True) or not token:
                return issues

    def get_issue(self, key):
        return self._call("GET", f"/issue/{key}")

    def create_issue(self, **fields):
        created = self._call("POST", "/issue", json={"fields": {
            "project": {"key": self.project}, "issuetype": {"name": "Task"}, **fields}})
        return self.get_issue(created["key"])  # the create answers id, key and self only

    def update_issue(self, key, **changes):
        self._call("PUT", f"/issue/{key}", json={"fields": changes})  # 204 No Content
        return self.get_issue(key)

    def delete_issue(self, key):
        self._call("DELETE", f"/issue/{key}")

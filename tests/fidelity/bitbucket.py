"""Bitbucket Cloud issues, written from developer.atlassian.com/cloud/bitbucket/rest (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, username, password, workspace, repo_slug):
        # An Atlassian account's email and API token, as HTTP basic.
        self.http = httpx.Client(base_url=base_url, timeout=10, auth=(username, password))
        self.issues = f"/2.0/repositories/{workspace}/{repo_slug}/issues"

    def _call(self, method, url, **kwargs):
        resp = self.http.request(method, url, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_issues(self):
        issues, url, params = [], self.issues, {"pagelen": 100}
        while url:  # paged responses carry the next page's full URL in "next", absent on the last
            page = self._call("GET", url, params=params)
            issues += page["values"]
            url, params = page.get("next"), None
        return issues

    def get_issue(self, issue_id):
        return self._call("GET", f"{self.issues}/{issue_id}")

    def create_issue(self, **fields):
        return self._call("POST", self.issues, json=fields)

    def update_issue(self, issue_id, **changes):
        return self._call("PUT", f"{self.issues}/{issue_id}", json=changes)

    def delete_issue(self, issue_id):
        self._call("DELETE", f"{self.issues}/{issue_id}")

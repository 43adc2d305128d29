"""GitHub issues, written from docs.github.com/en/rest/issues/issues (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key, owner, repo):
        self.http = httpx.Client(base_url=base_url, timeout=10, headers={
            "Authorization": f"Bearer {api_key}", "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28"})
        self.repo = f"/repos/{owner}/{repo}"

    def _call(self, method, url, **kwargs):
        resp = self.http.request(method, url, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp

    def list_issues(self):
        # The list shows open issues unless state=all; pages follow the Link header's rel="next".
        issues, url, params = [], f"{self.repo}/issues", {"state": "all", "per_page": 100}
        while url:
            resp = self._call("GET", url, params=params)
            issues += resp.json()
            url, params = resp.links.get("next", {}).get("url"), None
        return issues

    def get_issue(self, issue_number):
        return self._call("GET", f"{self.repo}/issues/{issue_number}").json()

    def create_issue(self, **fields):
        return self._call("POST", f"{self.repo}/issues", json=fields).json()

    def update_issue(self, issue_number, **changes):
        return self._call("PATCH", f"{self.repo}/issues/{issue_number}", json=changes).json()

"""Microsoft Graph users, written from learn.microsoft.com/graph/api/resources/user (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, client_id, client_secret, token_url, tenant):
        self.http = httpx.Client(base_url=base_url + "/v1.0", timeout=10)
        # Client credentials against the tenant's v2.0 token endpoint, for Graph's .default scope.
        self.grant = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret,
                      "scope": "https://graph.microsoft.com/.default"}
        self.token_url, self.token = token_url.replace("{tenant}", tenant), None

    def _headers(self):
        if self.token is None:
            resp = httpx.post(self.token_url, data=self.grant, timeout=10)
            resp.raise_for_status()
            self.token = resp.json()["access_token"]
        return {"Authorization": f"Bearer {self.token}"}

    def _call(self, method, url, **kwargs):
        resp = self.http.request(method, url, headers=self._headers(), **kwargs)
        if resp.status_code == 401:
            self.token = None
            resp = self.http.request(method, url, headers=self._headers(), **kwargs)
        if resp.status_code == 404:  # Request_ResourceNotFound
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_users(self):
        users, url, params = [], "/users", {"$top": 999}
        while url:  # @odata.nextLink until the last page
            body = self._call("GET", url, params=params)
            users += body["value"]
            url, params = body.get("@odata.nextLink"), None
        return users

    def get_user(self, user_id):
        return self._call("GET", f"/users/{user_id}")

    def create_user(self, **fields):
        return self._call("POST", "/users", json=fields)

    def update_user(self, user_id, **changes):
        self._call("PATCH", f"/users/{user_id}", json=changes)  # 204 No Content
        return self.get_user(user_id)

    def delete_user(self, user_id):
        self._call("DELETE", f"/users/{user_id}")

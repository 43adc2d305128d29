"""Asana tasks, written from developers.asana.com/reference/tasks (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key, project):
        self.http = httpx.Client(base_url=base_url + "/api/1.0", timeout=10,
                                 headers={"Authorization": f"Bearer {api_key}"})
        self.project = project

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json()

    def list_tasks(self):
        tasks, offset = [], None
        while True:  # pages carry next_page.offset, null on the last
            params = {"project": self.project, "limit": 100, **({"offset": offset} if offset else {})}
            body = self._call("GET", "/tasks", params=params)
            tasks += body["data"]
            offset = (body.get("next_page") or {}).get("offset")
            if not offset:
                return tasks

    def get_task(self, task_gid):
        return self._call("GET", f"/tasks/{task_gid}")["data"]

    def create_task(self, **fields):
        # A new task needs a workspace, a project or a parent: this client's project.
        return self._call("POST", "/tasks", json={"data": {"projects": [self.project], **fields}})["data"]

    def update_task(self, task_gid, **changes):
        return self._call("PUT", f"/tasks/{task_gid}", json={"data": changes})["data"]

    def delete_task(self, task_gid):
        self._call("DELETE", f"/tasks/{task_gid}")

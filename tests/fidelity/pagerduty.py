"""PagerDuty incidents, written from developer.pagerduty.com/api-reference (REST API v2) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key, from_email, service_id):
        self.http = httpx.Client(base_url=base_url, timeout=10, headers={
            "Authorization": f"Token token={api_key}", "Accept": "application/vnd.pagerduty+json;version=2"})
        self.from_email, self.service_id = from_email, service_id

    def _call(self, method, path, **kwargs):
        resp = self.http.request(method, path, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json()

    def list_incidents(self):
        incidents, offset = [], 0
        while True:  # classic pagination: offset and limit until more is false
            body = self._call("GET", "/incidents", params={"limit": 100, "offset": offset})
            incidents += body["incidents"]
            offset += len(body["incidents"])
            if not body.get("more") or not body["incidents"]:
                return incidents

    def get_incident(self, incident_id):
        return self._call("GET", f"/incidents/{incident_id}")["incident"]

    def create_incident(self, **fields):
        # Writes name the user acting (From); an incident names its service.
        incident = {"type": "incident", "service": {"id": self.service_id, "type": "service_reference"}, **fields}
        return self._call("POST", "/incidents", json={"incident": incident},
                          headers={"From": self.from_email})["incident"]

    def update_incident(self, incident_id, **changes):
        return self._call("PUT", f"/incidents/{incident_id}", json={"incident": {"type": "incident", **changes}},
                          headers={"From": self.from_email})["incident"]

"""Zendesk tickets, written from developer.zendesk.com/api-reference/ticketing/tickets (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, username, password):
        # API token authentication: "{email}/token" as the user name, the token as the password.
        self.http = httpx.Client(base_url=base_url + "/api/v2", timeout=10, auth=(f"{username}/token", password))

    def _call(self, method, url, **kwargs):
        resp = self.http.request(method, url, **kwargs)
        if resp.status_code == 404:
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def list_tickets(self):
        tickets, url, params = [], "/tickets.json", {"per_page": 100}
        while url:  # offset pagination: next_page is a full URL, null on the last page
            page = self._call("GET", url, params=params)
            tickets += page["tickets"]
            url, params = page.get("next_page"), None
        return tickets

    def get_ticket(self, ticket_id):
        return self._call("GET", f"/tickets/{ticket_id}")["ticket"]

    def create_ticket(self, **fields):
        return self._call("POST", "/tickets", json={"ticket": fields})["ticket"]

    def update_ticket(self, ticket_id, **changes):
        return self._call("PUT", f"/tickets/{ticket_id}", json={"ticket": changes})["ticket"]

    def delete_ticket(self, ticket_id):
        self._call("DELETE", f"/tickets/{ticket_id}")

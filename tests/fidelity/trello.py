"""Trello cards, written from developer.atlassian.com/cloud/trello/rest (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key, token, board_id, list_id):
        self.http = httpx.Client(base_url=base_url + "/1", timeout=10, params={"key": api_key, "token": token})
        self.board, self.list = board_id, list_id

    def _call(self, method, path, **params):
        resp = self.http.request(method, path, params=params)
        if resp.status_code in (400, 404):  # an unknown id: "invalid id" or "The requested resource was not found."
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json()

    def list_cards(self):
        return self._call("GET", f"/boards/{self.board}/cards")  # one array, no paging

    def get_card(self, card_id):
        return self._call("GET", f"/cards/{card_id}")

    def create_card(self, **fields):
        return self._call("POST", "/cards", idList=self.list, **fields)  # query parameters, the list required

    def update_card(self, card_id, **changes):
        return self._call("PUT", f"/cards/{card_id}", **changes)

    def delete_card(self, card_id):
        self._call("DELETE", f"/cards/{card_id}")

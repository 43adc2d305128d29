"""Spotify album tracks, written from developer.spotify.com/documentation/web-api (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, client_id, client_secret, token_url, album_id):
        self.http = httpx.Client(base_url=base_url, timeout=10)
        self.credentials, self.token_url, self.album_id = (client_id, client_secret), token_url, album_id
        self.token = None

    def _headers(self):
        if self.token is None:  # client credentials flow: the app's id and secret as HTTP basic
            resp = httpx.post(self.token_url, data={"grant_type": "client_credentials"}, auth=self.credentials,
                              timeout=10)
            resp.raise_for_status()
            self.token = resp.json()["access_token"]
        return {"Authorization": f"Bearer {self.token}"}

    def _get(self, url, **kwargs):
        resp = self.http.get(url, headers=self._headers(), **kwargs)
        if resp.status_code == 401:  # the hour-long token ran out: get another once
            self.token = None
            resp = self.http.get(url, headers=self._headers(), **kwargs)
        if resp.status_code in (400, 404):  # an unknown or malformed id
            raise NotFoundError(url)
        resp.raise_for_status()
        return resp.json()

    def list_tracks(self):
        tracks, page = [], self._get(f"/v1/albums/{self.album_id}/tracks", params={"limit": 50})
        while True:  # paging objects: follow next until it is null
            tracks += page["items"]
            if not page.get("next"):
                return tracks
            page = self._get(page["next"])

    def get_track(self, track_id):
        return self._get(f"/v1/tracks/{track_id}")

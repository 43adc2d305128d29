"""TMDB movies, written from developer.themoviedb.org/reference (discover, movie details) (not from a recording)."""

import httpx


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, api_key):
        self.http = httpx.Client(base_url=base_url + "/3", timeout=10, params={"api_key": api_key})

    def _get(self, path, **params):
        resp = self.http.get(path, params=params)
        if resp.status_code == 404:  # status_code 34: the resource could not be found
            raise NotFoundError(path)
        resp.raise_for_status()
        return resp.json()

    def list_movies(self):
        movies, page = [], 1
        while True:  # pages of 20, up to total_pages
            body = self._get("/discover/movie", page=page)
            movies += body["results"]
            if page >= body["total_pages"]:
                return movies
            page += 1

    def get_movie(self, movie_id):
        return self._get(f"/movie/{movie_id}")

"""The error answers a Tier B fake API sends on purpose."""

from __future__ import annotations


class ApiError(Exception):
    """An error response the fake API deliberately sends."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}

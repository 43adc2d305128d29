"""Allocate far more memory than any grader should give."""


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        self.hog = []

    def __getattr__(self, name):
        def call(*a, **k):
            while True:
                self.hog.append(bytearray(256 * 1024 * 1024))
        return call

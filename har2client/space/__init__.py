"""The Space (the space extra): leaderboard, task explorer, episode viewer, submissions, charts."""

from ._app import build_app, serve
from ._explorer import TaskIndex
from ._leaderboard import leaderboard_html, read_summaries

__all__ = ["TaskIndex", "build_app", "leaderboard_html", "read_summaries", "serve"]

"""Submissions mirrored to Hub datasets, as the Hugging Face leaderboard template keeps them: one JSON file
per request in a requests dataset (its status as it changes) and one per finished grade in a results
dataset. Only when a token and both dataset ids are configured (``HF_TOKEN``, ``H2C_REQUESTS_REPO``,
``H2C_RESULTS_REPO``); the SQLite queue stays the truth, and a push that fails is tried again on the
worker's next pass (``hub_synced`` in the database).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ..grading import SCORING_VERSION


class HubSink:
    def __init__(self, requests_repo: str, results_repo: str, token: str) -> None:
        from huggingface_hub import HfApi

        self.api = HfApi(token=token)
        self.requests_repo, self.results_repo = requests_repo, results_repo
        for repo in (requests_repo, results_repo):
            self.api.create_repo(repo, repo_type="dataset", private=True, exist_ok=True)

    @classmethod
    def from_env(cls) -> HubSink | None:
        token, req, res = (os.environ.get(k) for k in ("HF_TOKEN", "H2C_REQUESTS_REPO", "H2C_RESULTS_REPO"))
        if not (token and req and res):
            return None
        try:
            return cls(req, res, token)
        except Exception as exc:  # noqa: BLE001 - the Space grades without the Hub rather than not at all
            print(f"har2client space: not mirroring to the Hub ({type(exc).__name__}: {exc})", file=sys.stderr)
            return None

    def push(self, submission: dict[str, Any], results: list[dict[str, Any]] | None) -> None:
        """The request file (always) and, for a finished submission, the results file."""
        sid = submission["id"]
        request = {"id": sid, "model": submission["model"], "user": submission["user"], "status": submission["status"],
                   "submitted_time": submission["created"], "tasks": submission["tasks"], "error": submission["error"],
                   "scoring_version": SCORING_VERSION}
        self.api.upload_file(path_or_fileobj=json.dumps(request, indent=2).encode(),
                             path_in_repo=f"requests/{sid}.json",
                             repo_id=self.requests_repo, repo_type="dataset",
                             commit_message=f"submission {sid}: {submission['status']}")
        if submission["status"] == "finished" and results is not None:
            body = {"config": {"model_name": submission["model"], "submission": sid,
                               "scoring_version": SCORING_VERSION},
                    "results": {"mean_pass_rate": submission["mean_pass_rate"],
                                "tasks": {r["task_id"]: r["pass_rate"] for r in results}}}
            self.api.upload_file(path_or_fileobj=json.dumps(body, indent=2).encode(),
                                 path_in_repo=f"results/{sid}.json",
                                 repo_id=self.results_repo, repo_type="dataset",
                                 commit_message=f"results of submission {sid}")

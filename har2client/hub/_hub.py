"""Publishing the dataset folders to the Hugging Face Hub, and pulling one task back by its id.

A *source* is either a local dataset folder (``har2client dataset build`` output, its hidden part
beside it as ``FOLDER-hidden``) or a Hub dataset ``ORG/NAME`` whose hidden part is ``ORG/NAME-hidden``. Pulled tasks are
kept in the Hugging Face cache (``$HF_HOME/har2client/tasks``).
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from .._errors import Har2ClientError

SOURCE_ENV = "HAR2CLIENT_SOURCE"


def _files(folder: str) -> list[tuple[str, int]]:
    out = []
    for root, _, names in os.walk(folder):
        for name in sorted(names):
            path = os.path.join(root, name)
            out.append((os.path.relpath(path, folder), os.path.getsize(path)))
    return sorted(out)


def publish(folder: str, repo: str, hidden_repo: str, *, dry_run: bool = False, token: str | None = None) -> list[str]:
    """Upload ``folder/public`` to ``repo`` and ``folder/hidden`` to the gated ``hidden_repo``; return a report."""
    from ._dataset import dataset_folders

    public, hidden = dataset_folders(folder)
    for d in (public, hidden):
        if not os.path.isdir(d):
            raise Har2ClientError(f"{d}: missing; build the dataset first (har2client dataset build --out {folder})")
    if repo == hidden_repo:
        raise Har2ClientError("--repo and --hidden-repo must differ: the hidden part goes behind a gate")
    report = []
    for target, d, gate in ((repo, public, "public"), (hidden_repo, hidden, "gated (manual approval)")):
        files = _files(d)
        size = sum(n for _, n in files)
        verb = "would upload" if dry_run else "uploading"
        report.append(f"{verb} {len(files)} files ({size / 1e6:.1f} MB) from {d} to "
                      f"https://huggingface.co/datasets/{target} [{gate}]")
        report += [f"  {path}  {n} bytes" for path, n in files]
    if dry_run:
        return report
    from huggingface_hub import HfApi, get_token
    from huggingface_hub.errors import HfHubHTTPError

    token = token or get_token()
    if not token:
        raise Har2ClientError("no Hugging Face token: set HF_TOKEN or run `hf auth login` (a token with write access)")
    api = HfApi(token=token)
    try:
        api.create_repo(repo, repo_type="dataset", exist_ok=True)
        api.upload_folder(folder_path=public, repo_id=repo, repo_type="dataset", commit_message="HAR2Client tasks")
        api.create_repo(hidden_repo, repo_type="dataset", exist_ok=True)
        api.update_repo_settings(hidden_repo, repo_type="dataset", gated="manual")
        api.upload_folder(folder_path=hidden, repo_id=hidden_repo, repo_type="dataset",
                          commit_message="HAR2Client hidden grading part")
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else None
        why = {401: "the token was refused", 403: "the token cannot write to this organisation"}.get(
            status, str(exc).splitlines()[0])
        raise Har2ClientError(f"publishing to the Hub failed: {why}") from None
    except ValueError as exc:  # huggingface_hub's word for a card the Hub rejects, or an answer it cannot read
        raise Har2ClientError(f"publishing to the Hub failed: {' '.join(str(exc).split())[:300]}") from None
    return report


def _cache_root() -> str:
    from huggingface_hub import constants

    return os.path.join(constants.HF_HOME, "har2client", "tasks")


def pull(task_id: str, source: str | None = None, hidden_source: str | None = None) -> str:
    """The directory of ``task_id``'s visible and hidden files, fetched from ``source`` into the cache."""
    from ._dataset import dataset_folders, restore_task  # Parquet: only when a task is really pulled

    source = source or os.environ.get(SOURCE_ENV)
    if not source:
        raise Har2ClientError(f"where from? pass --source ORG/NAME or a dataset folder, or set {SOURCE_ENV}")
    dest_root = os.path.join(_cache_root(), hashlib.sha256(source.encode()).hexdigest()[:12])
    if os.path.isdir(source):
        public, hidden = dataset_folders(source, hidden_source)
        if not os.path.isdir(hidden):
            raise Har2ClientError(f"{hidden}: missing; the hidden part of {source} should be beside it")
        return restore_task(public, hidden, task_id, dest_root)
    if source.count("/") != 1:
        raise Har2ClientError(f"{source}: neither a dataset folder nor a Hub dataset id (ORG/NAME)")
    hidden_source = hidden_source or f"{source}-hidden"
    public_dir = _download(source, ["README.md", "data/*/*.parquet"])
    hidden_dir = _download(hidden_source, [f"tasks/{task_id}/*"])
    return restore_task(public_dir, hidden_dir, task_id, dest_root)


def _download(repo: str, patterns: list[str]) -> str:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import (GatedRepoError, HfHubHTTPError, LocalEntryNotFoundError,
                                        RepositoryNotFoundError)

    try:
        return snapshot_download(repo_id=repo, repo_type="dataset", allow_patterns=patterns)
    except GatedRepoError:
        raise Har2ClientError(f"{repo} is gated and this account has not been granted access: request it at "
                              f"https://huggingface.co/datasets/{repo} and log in (HF_TOKEN or `hf auth login`)") from None
    except RepositoryNotFoundError:
        raise Har2ClientError(f"{repo}: no such dataset on the Hub (or it is private and your token cannot see it)") from None
    except LocalEntryNotFoundError:
        raise Har2ClientError(f"{repo}: cannot reach the Hub and nothing is cached (are you offline?)") from None
    except HfHubHTTPError as exc:
        raise Har2ClientError(f"{repo}: the Hub refused the download ({str(exc).splitlines()[0]})") from None


def resolve_task(task: str, source: str | None = None) -> str:
    """``task`` as a task directory: a directory as given, or a task id pulled from ``source``."""
    if os.path.isdir(task):
        return task
    looks_like_id = task.startswith(("tierb_", "tiera_")) and os.sep not in task
    if looks_like_id and (source or os.environ.get(SOURCE_ENV)):
        return pull(task, source)
    return task  # load_task names the missing directory in its own one-line error


__all__: list[Any] = ["SOURCE_ENV", "publish", "pull", "resolve_task"]

"""Publishing the dataset folders to the Hugging Face Hub, and pulling one task back by its id.

A *source* is either a local dataset folder (``har2client dataset build`` output, its hidden part
beside it as ``FOLDER-hidden``) or a Hub dataset ``ORG/NAME`` whose hidden part is ``ORG/NAME-hidden``. Pulled tasks are
kept in the Hugging Face cache (``$HF_HOME/har2client/tasks``).
"""

from __future__ import annotations

import hashlib
import os
import re
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
    _need_hub()
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
            status or 0, str(exc).splitlines()[0])
        raise Har2ClientError(f"publishing to the Hub failed: {why}") from None
    except ValueError as exc:  # huggingface_hub's word for a card the Hub rejects, or an answer it cannot read
        raise Har2ClientError(f"publishing to the Hub failed: {' '.join(str(exc).split())[:300]}") from None
    return report


def _need_hub() -> None:
    try:
        import huggingface_hub  # noqa: F401
    except ImportError:
        raise Har2ClientError("talking to the Hugging Face Hub needs the hub extra: pip install "
                              "'har2client[hub]'") from None


def _cache_root() -> str:
    """Where pulled tasks live: the Hugging Face cache, located by its documented rule (no hub import)."""
    hf_home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
    return os.path.join(hf_home, "har2client", "tasks")


def pulled(task_id: str) -> list[tuple[str, str]]:
    """(source, task directory) of every earlier pull of ``task_id``."""
    root = _cache_root()
    found = []
    for key in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        task_dir = os.path.join(root, key, task_id)
        if os.path.isfile(os.path.join(task_dir, "task.json")):
            try:
                with open(os.path.join(root, key, "SOURCE"), encoding="utf-8") as fh:
                    source = fh.read().strip()
            except OSError:
                source = key
            found.append((source, task_dir))
    return found


def pull(task_id: str, source: str | None = None, hidden_source: str | None = None) -> str:
    """The directory of ``task_id``'s visible and hidden files, fetched from ``source`` into the cache."""
    from ._dataset import dataset_folders, restore_task  # Parquet: only when a task is really pulled

    source = source or os.environ.get(SOURCE_ENV)
    if not source:
        raise Har2ClientError(f"where from? pass --source ORG/NAME or a dataset folder, or set {SOURCE_ENV}")
    dest_root = os.path.join(_cache_root(), hashlib.sha256(source.encode()).hexdigest()[:12])
    os.makedirs(dest_root, exist_ok=True)
    with open(os.path.join(dest_root, "SOURCE"), "w", encoding="utf-8") as fh:  # names the source in messages
        fh.write(source + "\n")
    if os.path.isdir(source):
        public, hidden = dataset_folders(source, hidden_source)
        if not os.path.isdir(hidden):
            raise Har2ClientError(f"{hidden}: missing; the hidden part of {source} should be beside it")
        return restore_task(public, hidden, task_id, dest_root)
    if source.count("/") != 1:
        raise Har2ClientError(f"{source}: neither a dataset folder nor a Hub dataset id (ORG/NAME)")
    hidden_source = hidden_source or f"{source}-hidden"
    public_dir = download_files(source, ["README.md", "data/*/*.parquet"])
    hidden_dir = download_files(hidden_source, [f"tasks/{task_id}/*"])
    return restore_task(public_dir, hidden_dir, task_id, dest_root)


def download_files(repo: str, patterns: list[str]) -> str:
    """The files of dataset ``repo`` that match ``patterns``, fetched into the Hub cache: its folder."""
    _need_hub()
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    try:
        return snapshot_download(repo_id=repo, repo_type="dataset", allow_patterns=patterns)
    except GatedRepoError:
        raise Har2ClientError(f"{repo} is gated and this account has not been granted access: request it at "
                              f"https://huggingface.co/datasets/{repo} and log in (HF_TOKEN or `hf auth "
                              "login`)") from None
    except RepositoryNotFoundError:
        raise Har2ClientError(f"{repo}: no such dataset on the Hub (or it is private and your token cannot see "
                              "it)") from None
    except LocalEntryNotFoundError:
        raise Har2ClientError(f"{repo}: cannot reach the Hub and nothing is cached (are you offline?)") from None
    except HfHubHTTPError as exc:
        raise Har2ClientError(f"{repo}: the Hub refused the download ({str(exc).splitlines()[0]})") from None


def looks_like_task_id(text: str) -> bool:
    """``tierb_00_invoices``, ``tiera_s1000_01_stripe``: a word, not a path or a file name."""
    return re.fullmatch(r"[a-z][a-z0-9]*_\w+", text) is not None


def resolve_task(task: str, source: str | None = None) -> str:
    """``task`` as a task directory: a directory as given, or a task id, pulled from ``source`` or found in
    the local cache of earlier pulls."""
    if os.path.isdir(task) or not looks_like_task_id(task):
        return task  # load_task names a missing directory in its own one-line error
    source = source or os.environ.get(SOURCE_ENV)
    if source:
        return pull(task, source)
    found = pulled(task)
    if len(found) == 1:
        return found[0][1]
    if not found:
        raise Har2ClientError(f"{task}: no such task directory, and no task of that id has been pulled; get it "
                              f"with: har2client pull {task} --source ORG/NAME (or a dataset folder)")
    raise Har2ClientError(f"{task}: pulled from {len(found)} sources ({', '.join(s for s, _ in found)}); "
                          "pass --source to say which")


__all__: list[Any] = ["SOURCE_ENV", "looks_like_task_id", "publish", "pull", "pulled", "resolve_task"]

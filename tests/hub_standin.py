"""A local stand-in for the Hugging Face Hub, for the publish and pull tests (this machine cannot reach the Hub).

It speaks the parts of the Hub's HTTP API that huggingface_hub uses for our calls, with the Hub's
own shapes: POST /api/repos/create, PUT /api/datasets/{repo}/settings, the classic commit path
(POST .../preupload/{rev}, then an NDJSON POST .../commit/{rev}; huggingface_hub takes it when
HF_HUB_DISABLE_XET is set), POST /api/validate-yaml, GET /api/datasets/{repo}/revision/{rev},
GET /api/datasets/{repo}/tree/{rev}, and HEAD/GET
/datasets/{repo}/resolve/{rev}/{path} with X-Repo-Commit and ETag. Errors carry the Hub's
X-Error-Code (RepoNotFound, GatedRepo). Repositories live in a directory; writes need the write
token; a gated repository serves its files only to granted tokens.
"""

import base64
import hashlib
import json
import os

import yaml
from flask import Flask, Response, request

from har2client.api._http import HTTPServer, ServerLimits
from har2client.api._server import listen_socket

WRITE_TOKEN = "hf_standin_write_token"


class HubStandIn:
    def __init__(self, root: str) -> None:
        self.root = root
        self.repos: dict[str, dict] = {}      # "datasets/org/name" -> {"gated": ..., "sha": ...}
        self.granted: set[str] = {WRITE_TOKEN}
        # The Hub takes whole dataset commits in one request: a grading server's body bounds are not its.
        big = ServerLimits(body_bytes=1 << 30, body_bytes_total=1 << 32, requests=1 << 30)
        self.server = HTTPServer(listen_socket("127.0.0.1"), self._app(), big)
        self.endpoint = f"http://127.0.0.1:{self.server.port}"

    def close(self) -> None:
        self.server.close()

    # -- helpers ---------------------------------------------------------------------------

    def _token(self) -> str | None:
        auth = request.headers.get("Authorization", "")
        return auth[7:] if auth.startswith("Bearer ") else None

    def _files(self, key: str) -> list[str]:
        base = os.path.join(self.root, key)
        out = []
        for dirpath, _, names in os.walk(base):
            out += [os.path.relpath(os.path.join(dirpath, n), base) for n in names]
        return sorted(out)

    @staticmethod
    def _error(status: int, code: str, message: str) -> Response:
        return Response(json.dumps({"error": message}), status=status, mimetype="application/json",
                        headers={"X-Error-Code": code, "X-Error-Message": message})

    def _app(self) -> Flask:
        app = Flask("hub-standin")

        @app.post("/api/validate-yaml")
        def validate_yaml():
            # The Hub checks a README's front matter before a commit; so does this stand-in, for real.
            content = request.get_json()["content"]
            if content.startswith("---"):
                try:
                    meta = yaml.safe_load(content.split("---", 2)[1])
                except yaml.YAMLError as exc:
                    return Response(json.dumps({"errors": [{"message": str(exc)}], "warnings": []}), status=400,
                                    mimetype="application/json")
                if not isinstance(meta, dict):
                    return Response(json.dumps({"errors": [{"message": "metadata must be a mapping"}]}), status=400,
                                    mimetype="application/json")
            return {"errors": [], "warnings": []}

        @app.post("/api/repos/create")
        def create():
            if self._token() != WRITE_TOKEN:
                return self._error(401, "Unauthorized", "Invalid credentials in Authorization header")
            body = request.get_json()
            key = f"{body['type']}s/{body.get('organization')}/{body['name']}"
            if key in self.repos:
                return self._error(409, "RepoExists", "You already created this dataset repo")
            self.repos[key] = {"gated": False, "sha": "0" * 40}
            os.makedirs(os.path.join(self.root, key), exist_ok=True)
            return {"url": f"{self.endpoint}/{key}", "name": key.split("/", 1)[1]}

        @app.put("/api/datasets/<org>/<name>/settings")
        def settings(org, name):
            key = f"datasets/{org}/{name}"
            if self._token() != WRITE_TOKEN:
                return self._error(401, "Unauthorized", "Invalid credentials in Authorization header")
            if key not in self.repos:
                return self._error(404, "RepoNotFound", "Repository not found")
            self.repos[key]["gated"] = request.get_json().get("gated", False)
            return {}

        @app.post("/api/datasets/<org>/<name>/preupload/<rev>")
        def preupload(org, name, rev):
            files = request.get_json()["files"]
            return {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]}

        @app.post("/api/datasets/<org>/<name>/commit/<rev>")
        def commit(org, name, rev):
            key = f"datasets/{org}/{name}"
            if self._token() != WRITE_TOKEN:
                return self._error(401, "Unauthorized", "Invalid credentials in Authorization header")
            if key not in self.repos:
                return self._error(404, "RepoNotFound", "Repository not found")
            digest = hashlib.sha1()
            for line in request.get_data().decode().splitlines():
                op = json.loads(line)
                if op["key"] == "file":
                    path = os.path.join(self.root, key, op["value"]["path"])
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    data = base64.b64decode(op["value"]["content"])
                    with open(path, "wb") as fh:
                        fh.write(data)
                    digest.update(data)
            self.repos[key]["sha"] = digest.hexdigest()
            return {"commitUrl": f"{self.endpoint}/{key}/commit/{self.repos[key]['sha']}",
                    "commitOid": self.repos[key]["sha"], "pullRequestUrl": None}

        @app.get("/api/datasets/<org>/<name>/revision/<path:rev>")
        def info(org, name, rev):
            key = f"datasets/{org}/{name}"
            if key not in self.repos:
                return self._error(404, "RepoNotFound", "Repository not found")
            repo = self.repos[key]
            return {"id": f"{org}/{name}", "_id": key, "sha": repo["sha"], "private": False,
                    "gated": repo["gated"], "disabled": False, "downloads": 0, "likes": 0, "tags": [],
                    "siblings": [{"rfilename": f} for f in self._files(key)]}

        @app.get("/api/datasets/<org>/<name>/tree/<rev>")
        def tree(org, name, rev):
            key = f"datasets/{org}/{name}"
            if key not in self.repos:
                return self._error(404, "RepoNotFound", "Repository not found")
            entries = []
            for f in self._files(key):
                with open(os.path.join(self.root, key, f), "rb") as fh:
                    data = fh.read()
                entries.append({"type": "file", "path": f, "size": len(data), "oid": hashlib.sha1(data).hexdigest()})
            return Response(json.dumps(entries), mimetype="application/json")

        @app.route("/datasets/<org>/<name>/resolve/<rev>/<path:path>", methods=["GET", "HEAD"])
        def resolve(org, name, rev, path):
            key = f"datasets/{org}/{name}"
            if key not in self.repos:
                return self._error(404, "RepoNotFound", "Repository not found")
            repo = self.repos[key]
            if repo["gated"] and self._token() not in self.granted:
                return self._error(403, "GatedRepo", "Access to this dataset is restricted")
            full = os.path.join(self.root, key, path)
            if not os.path.isfile(full):
                return self._error(404, "EntryNotFound", "Entry not found")
            with open(full, "rb") as fh:
                data = fh.read()
            headers = {"X-Repo-Commit": repo["sha"], "ETag": '"' + hashlib.sha256(data).hexdigest() + '"',
                       "Content-Length": str(len(data))}
            # The full body for HEAD too: the HTTP server sends HEAD's headers only, with the true length.
            return Response(data, headers=headers, mimetype="application/octet-stream")

        return app

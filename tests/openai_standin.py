"""A local stand-in for an OpenAI-compatible chat completions API (no model API is reachable here).

It speaks the real protocol (``POST /v1/chat/completions`` and ``GET /v1/models``, the response
objects the ``openai`` SDK parses) over real HTTP on loopback. Its "model" answers each prompt with
whatever ``answer(messages)`` returns, so a test decides what the model writes; every request is
kept in ``requests`` for the test to read.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from flask import Flask, jsonify, request
from werkzeug.serving import make_server


class OpenAIStandIn:
    def __init__(self, answer: Callable[[list[dict[str, Any]]], str]) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        app = Flask("openai-standin")

        @app.post("/v1/chat/completions")
        def chat() -> Any:
            body = request.get_json(force=True)
            self.requests.append(body)
            if not isinstance(body.get("messages"), list) or not body.get("model"):
                return jsonify({"error": {"message": "messages and model are required", "type": "invalid_request_error"}}), 400
            text = self.answer(body["messages"])
            prompt_tokens = sum(len(str(m.get("content", ""))) for m in body["messages"]) // 4
            return jsonify({
                "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
                "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text) // 4,
                          "total_tokens": prompt_tokens + len(text) // 4},
            })

        @app.get("/v1/models")
        def models() -> Any:
            return jsonify({"object": "list", "data": [{"id": "standin", "object": "model", "owned_by": "tests"}]})

        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.base_url = f"http://127.0.0.1:{self._server.server_port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "OpenAIStandIn":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._thread.join()

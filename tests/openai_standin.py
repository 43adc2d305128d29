"""A local stand-in for an OpenAI-compatible chat completions API (no model API is reachable here).

It speaks the real protocol (``POST /v1/chat/completions`` and ``GET /v1/models``, the response
objects the ``openai`` SDK parses) over real HTTP on loopback. Its "model" answers each request with
whatever ``answer(messages)`` returns, so a test decides what the model writes: a string (the
content), or a dict with ``content``, ``tool_calls`` (``name``, ``arguments``), reasoning fields
(``reasoning_content``, ``reasoning``, ``reasoning_details``), ``reasoning_tokens``, ``delay``
(seconds before answering) or ``status`` (answer with that HTTP error instead). Every request is kept
in ``requests`` for the test to read.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.serving import make_server


class OpenAIStandIn:
    def __init__(self, answer: Callable[..., Any]) -> None:
        self.answer = answer
        self._wants_body = len(inspect.signature(answer).parameters) > 1  # answer(messages, body): sees effort, tools
        self.requests: list[dict[str, Any]] = []
        app = Flask("openai-standin")

        @app.post("/v1/chat/completions")
        def chat() -> Any:
            body = request.get_json(force=True)
            self.requests.append(body)
            if not isinstance(body.get("messages"), list) or not body.get("model"):
                return jsonify({"error": {"message": "messages and model are required",
                                          "type": "invalid_request_error"}}), 400
            spec = self.answer(body["messages"], body) if self._wants_body else self.answer(body["messages"])
            if isinstance(spec, str):
                spec = {"content": spec}
            if spec.get("delay"):
                time.sleep(spec["delay"])
            if spec.get("status"):
                return jsonify({"error": {"message": spec.get("message", "stand-in error"), "type": "server_error"}}), \
                    spec["status"]
            text = spec.get("content")
            message: dict[str, Any] = {"role": "assistant", "content": text}
            for name in ("reasoning_content", "reasoning", "reasoning_details"):
                if name in spec:
                    message[name] = spec[name]
            if spec.get("tool_calls"):
                message["tool_calls"] = [{"id": f"call_{len(self.requests)}_{i}", "type": "function",
                                          "function": {"name": c["name"], "arguments": c["arguments"]}}
                                         for i, c in enumerate(spec["tool_calls"])]
            prompt_tokens = sum(len(str(m.get("content", ""))) for m in body["messages"]) // 4
            completion_tokens = len(text or "") // 4 + 10
            return jsonify({
                "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
                "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "tool_calls" if spec.get("tool_calls") else "stop",
                             "message": message}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens,
                          "completion_tokens_details": {"reasoning_tokens": spec.get("reasoning_tokens", 0)}},
            })

        @app.get("/v1/models")
        def models() -> Any:
            return jsonify({"object": "list", "data": [{"id": "standin", "object": "model", "owned_by": "tests"}]})

        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.base_url = f"http://127.0.0.1:{self._server.server_port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> OpenAIStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._thread.join()

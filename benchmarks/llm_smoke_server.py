"""OpenAI-compatible server for `make llm-smoke`: llama-cpp-python's server with schema-constrained output.

Runs in .venv-llm (llama-cpp-python[server]), not in parley's environment. llama-cpp-python's server
(0.3.x) only knows ``response_format: {"type": "json_object", "schema": ...}``; the OpenAI form that
parley sends, ``{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}``, is refused
with HTTP 422. This shim rewrites the second form into the first before the request reaches the
server, so llama.cpp compiles the schema into a grammar and samples only tokens that keep the reply
valid against it. Schemas the grammar compiler cannot handle are served with the plain-JSON grammar
(what llama-cpp-python does on its own) and logged.

Every chat completion is logged as one JSON line (``--log``): schema name, how it was constrained,
HTTP status and seconds.

    python scripts/llm_smoke_server.py --model PATH.gguf --port 8765 [--alias NAME] [--log FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class SchemaConstraint:
    """ASGI middleware: json_schema response formats → llama-cpp-python's json_object + schema.

    With rewrite=False it only logs: the stock server then answers json_schema with HTTP 500, and
    parley's client downgrades to json_object with the schema itself (no shim needed since then).
    """

    def __init__(self, app: ASGIApp, log_path: str | None, *, rewrite: bool = True) -> None:
        self.app = app
        self.log_path = log_path
        self.rewrite_formats = rewrite
        self._compiles: dict[str, str] = {}  # schema hash -> "schema" or the compiler's error
        self._lock = threading.Lock()

    def _grammar_status(self, schema: Any) -> str:
        """'schema' when llama.cpp can compile the schema into a grammar, else the error text."""
        from llama_cpp.llama_grammar import LlamaGrammar

        text = json.dumps(schema, sort_keys=True)
        key = hashlib.sha256(text.encode()).hexdigest()
        with self._lock:
            if key not in self._compiles:
                try:
                    LlamaGrammar.from_json_schema(text, verbose=False)
                    self._compiles[key] = "schema"
                except Exception as exc:  # any compiler failure: the plain JSON grammar
                    self._compiles[key] = f"json (schema not compilable: {type(exc).__name__}: {exc})"[:300]
            return self._compiles[key]

    def rewrite(self, body: bytes) -> tuple[bytes, dict[str, Any]]:
        """The request body to forward, and what to log about it."""
        info: dict[str, Any] = {"constraint": "none"}
        try:
            data = json.loads(body)
        except ValueError:
            return body, info
        if not isinstance(data, dict):
            return body, info
        fmt = data.get("response_format")
        info["max_tokens"] = data.get("max_tokens")
        info["messages_chars"] = sum(
            len(str(m.get("content", ""))) for m in data.get("messages", []) if isinstance(m, dict)
        )
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and not self.rewrite_formats:
            spec = fmt.get("json_schema") or {}
            info["schema_name"] = spec.get("name") if isinstance(spec, dict) else None
            info["constraint"] = "json_schema (passed through)"
            return body, info
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            spec = fmt.get("json_schema") or {}
            schema = spec.get("schema") if isinstance(spec, dict) else None
            info["schema_name"] = spec.get("name") if isinstance(spec, dict) else None
            if isinstance(schema, dict):
                status = self._grammar_status(schema)
                info["constraint"] = status
                data["response_format"] = (
                    {"type": "json_object", "schema": schema}
                    if status == "schema"
                    else {"type": "json_object"}
                )
            else:
                info["constraint"] = "json"
                data["response_format"] = {"type": "json_object"}
            return json.dumps(data).encode(), info
        if isinstance(fmt, dict) and fmt.get("type") == "json_object":
            info["constraint"] = "schema" if "schema" in fmt else "json"
        return body, info

    def _log(self, record: dict[str, Any]) -> None:
        if not self.log_path:
            return
        with self._lock, open(self.log_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or not scope["path"].endswith("/chat/completions")
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body, info = self.rewrite(b"".join(chunks))
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        inner_scope = dict(scope, headers=headers)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        status: list[int] = []

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        started = time.monotonic()
        try:
            await self.app(inner_scope, replay, watch)
        finally:
            info.update(status=status[0] if status else None, seconds=round(time.monotonic() - started, 3))
            self._log(info)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", required=True, help="GGUF file")
    parser.add_argument("--alias", default="smollm2-135m-instruct", help="model name clients use")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="llama.cpp threads (default 1: on shared busy cores, 2 OpenMP threads spin-wait: 20x slower)",
    )
    parser.add_argument("--log", default=None, help="JSON lines, one per chat completion")
    parser.add_argument(
        "--passthrough",
        action="store_true",
        help="forward response formats unchanged (the stock server's behaviour), only log",
    )
    args = parser.parse_args()

    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    server = ServerSettings(host=args.host, port=args.port)
    model = ModelSettings(
        model=args.model,
        model_alias=args.alias,
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        n_threads_batch=args.threads,
        verbose=False,
    )
    app = SchemaConstraint(
        create_app(server_settings=server, model_settings=[model]), args.log, rewrite=not args.passthrough
    )
    print(
        f"serving {args.model} as {args.alias!r} on http://{args.host}:{args.port}/v1",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""LLM fakes for tests: `FakeLLM` (in-process, scripted) and `StubServer` (real HTTP on 127.0.0.1).

`StubServer` speaks enough of the OpenAI API (``POST /v1/chat/completions``, ``GET /v1/models``)
to exercise the real client: each request is answered by the next step of a script, or by a
function of the request, with valid, malformed, slow or failing replies (429 with Retry-After,
500, a dropped connection).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from parley.errors import LLMError
from parley.llm.tokens import estimate_prompt_tokens, estimate_tokens
from parley.llm.types import LLMRequest, LLMResponse, Message, TokenUsage

logger = logging.getLogger(__name__)

FakeReply = str | Exception
"""A scripted reply: text, or an exception to raise (e.g. an `LLMError`)."""


class FakeLLM:
    """An `LLMClient` that answers from a script or a function, without any I/O.

    Args:
        replies: Replies in order, or a function from the request to a reply.
        model: Model name it claims to be.

    Attributes:
        requests: Every request received, in order.
    """

    def __init__(
        self, replies: Sequence[FakeReply] | Callable[[LLMRequest], FakeReply], model: str = "fake-model"
    ) -> None:
        self.model = model
        self._script = None if callable(replies) else list(replies)
        self._function = replies if callable(replies) else None
        self._lock = threading.Lock()
        self.requests: list[LLMRequest] = []

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """The next scripted reply (or the function's), with estimated token counts.

        Raises:
            LLMError: the script ran out (or a scripted exception).
        """
        with self._lock:
            self.requests.append(request)
            if self._function is not None:
                reply = self._function(request)
            elif self._script:
                reply = self._script.pop(0)
            else:
                raise LLMError(f"FakeLLM ran out of scripted replies after {len(self.requests) - 1} requests")
        if isinstance(reply, Exception):
            raise reply
        usage = TokenUsage(estimate_prompt_tokens(request.messages), estimate_tokens(reply), estimated=True)
        return LLMResponse(reply, self.model, usage, source="fake")


@dataclass(frozen=True, slots=True)
class StubReply:
    """How the stub answers one request.

    Attributes:
        text: Completion content (for status 200).
        status: HTTP status.
        delay_s: Seconds to wait before answering (slow replies, timeouts, concurrency tests).
        retry_after: Retry-After header value, if any.
        drop: Close the connection without answering.
        body: Raw body overriding the completion JSON (error bodies, broken JSON).
    """

    text: str = ""
    status: int = 200
    delay_s: float = 0.0
    retry_after: str | None = None
    drop: bool = False
    body: str | None = None

    @classmethod
    def ok(cls, text: str | Mapping[str, Any], delay_s: float = 0.0) -> StubReply:
        """A 200 completion whose content is text (a mapping is sent as JSON)."""
        content = text if isinstance(text, str) else json.dumps(text)
        return cls(text=content, delay_s=delay_s)

    @classmethod
    def error(cls, status: int, retry_after: str | None = None, body: str = "") -> StubReply:
        """An HTTP error."""
        return cls(
            status=status,
            retry_after=retry_after,
            body=body or json.dumps({"error": {"message": f"stub {status}"}}),
        )

    @classmethod
    def dropped(cls) -> StubReply:
        """A connection closed with no response."""
        return cls(drop=True)


StubPlan = Sequence[StubReply] | Callable[[Mapping[str, Any]], StubReply]
"""Replies in order, or a function of the request body."""


@dataclass
class StubStats:
    """What the stub observed.

    Attributes:
        requests: Request bodies, in arrival order.
        headers: Request headers, in arrival order.
        max_in_flight: Most requests being handled at once.
    """

    requests: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    headers: list[dict[str, str]] = field(default_factory=list[dict[str, str]])
    in_flight: int = 0
    max_in_flight: int = 0


class StubServer:
    """An OpenAI-compatible server on 127.0.0.1 (ephemeral port) in a background thread.

    Use as a context manager; `base_url` is ready inside the block.

    Args:
        plan: The script or function answering chat requests.
        model: Model id reported by completions and ``/v1/models``.
    """

    def __init__(self, plan: StubPlan, model: str = "stub-model") -> None:
        self.model = model
        self._function = plan if callable(plan) else None
        self._script = None if callable(plan) else list(plan)
        self._lock = threading.Lock()
        self.stats = StubStats()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="parley-llm-stub",
            daemon=True,
        )

    @property
    def base_url(self) -> str:
        """URL of the API root, e.g. ``http://127.0.0.1:43117/v1``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def spec(self, model: str | None = None) -> str:
        """An LLM spec pointing at this server."""
        return f"{self.base_url}#{model or self.model}"

    def start(self) -> StubServer:
        """Start serving."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the socket."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def next_reply(self, body: Mapping[str, Any]) -> StubReply:
        """The reply to a chat request (also updates the stats)."""
        with self._lock:
            self.stats.requests.append(dict(body))
            if self._function is not None:
                return self._function(body)
            if not self._script:
                return StubReply.error(500, body=json.dumps({"error": {"message": "stub script exhausted"}}))
            return self._script.pop(0)

    def enter(self, headers: Mapping[str, str]) -> None:
        """Count a request in flight."""
        with self._lock:
            self.stats.headers.append(dict(headers))
            self.stats.in_flight += 1
            self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)

    def leave(self) -> None:
        """Count a request done."""
        with self._lock:
            self.stats.in_flight -= 1


def completion_body(text: str, model: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI chat-completion response for text, with token counts estimated from the request."""
    messages = [Message(m["role"], m["content"]) for m in body.get("messages", [])]
    prompt, completion = estimate_prompt_tokens(messages), estimate_tokens(text)
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _handler_for(stub: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once: no delayed-ACK stalls

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("stub: " + format, *args)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(
                    200, json.dumps({"object": "list", "data": [{"id": stub.model, "object": "model"}]})
                )
            else:
                self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            raw = self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
                return
            body = json.loads(raw or b"{}")
            stub.enter({k.lower(): v for k, v in self.headers.items()})
            try:
                reply = stub.next_reply(body)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
            finally:
                stub.leave()
            if reply.drop:
                self.close_connection = True
                return
            payload = (
                reply.body
                if reply.body is not None
                else json.dumps(completion_body(reply.text, str(body.get("model") or stub.model), body))
            )
            self._send(reply.status, payload, reply.retry_after)

        def _send(self, status: int, payload: str, retry_after: str | None = None) -> None:
            data = payload.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                logger.debug("stub: client went away before the reply was written")

    return Handler

"""The `LLMClient` protocol and its OpenAI-compatible implementation over httpx.

`OpenAIClient` retries 429/5xx, timeouts and dropped connections with exponential backoff and
seeded jitter (honouring Retry-After), limits in-flight requests per endpoint with a semaphore
shared by every session in the process, asks for JSON-schema output and downgrades to JSON mode
or plain text when an endpoint refuses it. The API key is read from the environment per call and
never stored on the client, logged or recorded.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import httpx

from parley.errors import LLMError
from parley.llm.bridge import EventLoopThread, default_bridge
from parley.llm.tokens import estimate_prompt_tokens, estimate_tokens
from parley.llm.types import LLMRequest, LLMResponse, ResponseMode, TokenUsage
from parley.protocol.clock import Clock, SystemClock

logger = logging.getLogger(__name__)

Sleeper = Callable[[float], Awaitable[None]]
"""Waits a number of seconds (asyncio.sleep in production, a recorder in tests)."""

AuthStyle = Literal["bearer", "azure", "none"]

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
"""HTTP statuses worth retrying: timeouts, rate limits and server errors."""

_MODE_ORDER: tuple[ResponseMode, ...] = ("json_schema", "json_object", "text")


class LLMClient(Protocol):
    """Anything that completes chat requests; every LLM-backed role talks to one of these.

    Attributes:
        model: The model name requests are built for.
    """

    model: str

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete one request.

        Raises:
            LLMError: the endpoint failed after retries, or (for replays) no recording matches.
        """
        ...


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and how to reach an OpenAI-compatible API (no secret in here, only its variable's name).

    Attributes:
        base_url: URL up to and including the API version path ("https://api.openai.com/v1").
        model: Model (or Azure deployment) name.
        api_key_env: Environment variable holding the key, or None for keyless local servers.
        auth: "bearer" (Authorization header), "azure" (api-key header) or "none".
        api_version: Azure's api-version query parameter.
        mode: The best structured-output mode the endpoint supports.
        concurrency: Most requests in flight to this endpoint at once, process-wide.
        timeout_s: Seconds before a request is abandoned (then retried).
    """

    base_url: str
    model: str
    api_key_env: str | None = None
    auth: AuthStyle = "bearer"
    api_version: str | None = None
    mode: ResponseMode = "json_schema"
    concurrency: int = 8
    timeout_s: float = 60.0

    @property
    def chat_url(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff with jitter.

    Attributes:
        max_attempts: Attempts per request, the first included.
        base_delay_s: Delay before the second attempt; doubled each time.
        max_delay_s: Cap on any single delay (also caps Retry-After).
        jitter: Random extra fraction of the delay, drawn from the client's seeded generator.
    """

    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    jitter: float = 0.25

    def delay(self, attempt: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number attempt (from 1)."""
        if retry_after is not None:
            return min(self.max_delay_s, max(0.0, retry_after))
        base = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return base * (1.0 + self.jitter * rng.random())


@dataclass(slots=True)
class _Failure:
    detail: str
    retry_after: float | None = None


@dataclass(frozen=True, slots=True)
class _Downgrade:
    """The endpoint refused the structured-output format; ask again with the next one."""


@dataclass(slots=True)
class _State:
    mode_cap: ResponseMode
    http: httpx.AsyncClient | None = None
    in_flight: int = 0
    max_in_flight: int = 0
    attempts: int = 0


class OpenAIClient:
    """An `LLMClient` for any OpenAI-compatible chat-completions endpoint.

    Args:
        endpoint: Where to send requests.
        retry: Backoff policy.
        seed: Seed of the jitter generator.
        sleeper: Awaitable sleep (default asyncio.sleep); tests pass a recorder so they never wait.
        clock: Measures latency (default: the monotonic system clock).
        bridge: Event-loop thread all calls run on (default: the process-wide one).
        transport: httpx transport override (tests).
        environ: Where the API key is looked up (default os.environ).
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        retry: RetryPolicy | None = None,
        seed: int = 0,
        sleeper: Sleeper | None = None,
        clock: Clock | None = None,
        bridge: EventLoopThread | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.model = endpoint.model
        self._retry = retry or RetryPolicy()
        self._rng = random.Random(seed)
        self._sleep: Sleeper = sleeper or asyncio.sleep
        self._clock = clock or SystemClock()
        self._bridge = bridge or default_bridge()
        self._transport = transport
        self._environ = environ if environ is not None else os.environ
        self._state = _State(endpoint.mode)

    def __repr__(self) -> str:
        return f"OpenAIClient(base_url={self.endpoint.base_url!r}, model={self.model!r})"

    @property
    def attempts(self) -> int:
        """HTTP attempts made so far (retries included)."""
        return self._state.attempts

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete request on the bridge loop (see `LLMClient.complete`)."""
        return await self._bridge.run_async(self._complete(request))

    def complete_sync(self, request: LLMRequest) -> LLMResponse:
        """Blocking form of `complete` for synchronous code."""
        return self._bridge.run(self._complete(request))

    async def list_models(self) -> list[str]:
        """Model ids the endpoint serves (GET /models).

        Raises:
            LLMError: the endpoint did not answer with a model list.
        """
        return await self._bridge.run_async(self._list_models())

    def close(self) -> None:
        """Close the connection pool (idempotent)."""
        http, self._state.http = self._state.http, None
        if http is not None:
            self._bridge.run(http.aclose())

    # -- internals (all run on the bridge loop) ------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        if self._state.http is None:
            timeout = httpx.Timeout(self.endpoint.timeout_s, connect=min(10.0, self.endpoint.timeout_s))
            self._state.http = httpx.AsyncClient(timeout=timeout, transport=self._transport)
        return self._state.http

    def _secret(self) -> str | None:
        name = self.endpoint.api_key_env
        if name is None or self.endpoint.auth == "none":
            return None
        key = self._environ.get(name)
        if not key:
            raise LLMError(
                f"environment variable {name} is not set; it must hold the key for {self.endpoint.base_url}"
            )
        return key

    def _headers(self, key: str | None) -> dict[str, str]:
        if key is None:
            return {}
        if self.endpoint.auth == "azure":
            return {"api-key": key}
        return {"Authorization": f"Bearer {key}"}

    def _params(self) -> dict[str, str]:
        return {"api-version": self.endpoint.api_version} if self.endpoint.api_version else {}

    def _mode(self, request: LLMRequest) -> ResponseMode:
        wanted: ResponseMode = request.mode if request.schema is not None else "text"
        cap = self._state.mode_cap
        return wanted if _MODE_ORDER.index(wanted) >= _MODE_ORDER.index(cap) else cap

    def _body(self, request: LLMRequest, mode: ResponseMode) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [m.to_json() for m in request.messages],
            "temperature": request.temperature,
        }
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.seed is not None:
            body["seed"] = request.seed
        if mode == "json_schema" and request.schema is not None:
            schema = {"name": request.schema_name, "schema": dict(request.schema)}
            body["response_format"] = {"type": "json_schema", "json_schema": schema}
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    async def _complete(self, request: LLMRequest) -> LLMResponse:
        key = self._secret()
        failure = _Failure("no attempt made")
        attempt = 0
        while attempt < self._retry.max_attempts:
            attempt += 1
            mode = self._mode(request)
            outcome = await self._attempt(request, mode, key)
            if isinstance(outcome, LLMResponse):
                return outcome
            if isinstance(outcome, _Downgrade):
                attempt -= 1  # the endpoint refused the output format, not the request: not a retry
                continue
            failure = outcome
            if attempt < self._retry.max_attempts:
                delay = self._retry.delay(attempt, self._rng, failure.retry_after)
                logger.warning(
                    "LLM call to %s failed (%s); retry %d/%d in %.2f s",
                    self.endpoint.base_url,
                    _redact(failure.detail, key),
                    attempt,
                    self._retry.max_attempts - 1,
                    delay,
                )
                await self._sleep(delay)
        raise LLMError(
            f"{self.endpoint.chat_url} (model {self.model}) failed after {attempt} attempts: "
            f"{_redact(failure.detail, key)}"
        )

    async def _attempt(
        self, request: LLMRequest, mode: ResponseMode, key: str | None
    ) -> LLMResponse | _Failure | _Downgrade:
        limiter = self._bridge.semaphore(self.endpoint.base_url, self.endpoint.concurrency)
        async with limiter:
            self._state.attempts += 1
            self._state.in_flight += 1
            self._state.max_in_flight = max(self._state.max_in_flight, self._state.in_flight)
            start = self._clock.now()
            try:
                reply = await self._http().post(
                    self.endpoint.chat_url,
                    json=self._body(request, mode),
                    headers=self._headers(key),
                    params=self._params(),
                )
            except httpx.TimeoutException as error:
                return _Failure(f"timed out after {self.endpoint.timeout_s} s ({type(error).__name__})")
            except httpx.TransportError as error:
                return _Failure(f"connection error ({type(error).__name__}: {error})")
            finally:
                self._state.in_flight -= 1
            latency = self._clock.now() - start
        return self._interpret(reply, request, mode, latency, key)

    def _interpret(
        self, reply: httpx.Response, request: LLMRequest, mode: ResponseMode, latency: float, key: str | None
    ) -> LLMResponse | _Failure | _Downgrade:
        status = reply.status_code
        if status == 200:
            return _parse_completion(reply, request, latency)
        body = reply.text[:300]
        if status == 400 and mode != "text" and _mentions_format(body):
            self._state.mode_cap = _MODE_ORDER[_MODE_ORDER.index(mode) + 1]
            logger.info(
                "%s refused %s output; falling back to %s", self.endpoint.base_url, mode, self._state.mode_cap
            )
            return _Downgrade()
        if status in RETRYABLE_STATUS:
            return _Failure(f"HTTP {status}: {body}", _retry_after(reply))
        raise LLMError(
            f"{self.endpoint.chat_url} (model {self.model}) answered HTTP {status}, which is not retryable: "
            f"{_redact(body, key)}"
        )

    async def _list_models(self) -> list[str]:
        key = self._secret()
        url = self.endpoint.base_url.rstrip("/") + "/models"
        try:
            reply = await self._http().get(url, headers=self._headers(key), params=self._params())
            data = reply.json()["data"]
            return [str(item["id"]) for item in data]
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
            raise LLMError(f"{url} did not return a model list: {_redact(str(error), key)}") from None


def _parse_completion(reply: httpx.Response, request: LLMRequest, latency: float) -> LLMResponse | _Failure:
    try:
        data = reply.json()
        choice = data["choices"][0]
        text = choice["message"].get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return _Failure(f"HTTP 200 without a completion: {reply.text[:200]!r}")
    usage = data.get("usage") or {}
    if "prompt_tokens" in usage:
        tokens = TokenUsage(int(usage["prompt_tokens"]), int(usage.get("completion_tokens", 0)))
    else:
        tokens = TokenUsage(estimate_prompt_tokens(request.messages), estimate_tokens(text), estimated=True)
    return LLMResponse(
        text=str(text),
        model=str(data.get("model") or request.model),
        usage=tokens,
        latency_s=round(latency, 6),  # as recorded, so live and replayed totals agree
        finish_reason=choice.get("finish_reason"),
    )


def _mentions_format(body: str) -> bool:
    lowered = body.lower()
    return any(word in lowered for word in ("response_format", "json_schema", "json_object"))


def _retry_after(reply: httpx.Response) -> float | None:
    value = reply.headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None  # an HTTP date: use our own backoff instead


def _redact(text: str, key: str | None) -> str:
    return text.replace(key, "***") if key else text

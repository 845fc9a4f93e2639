"""The `LLMClient` protocol and its OpenAI-compatible implementation over httpx.

`OpenAIClient` retries 429/5xx, timeouts and dropped connections with exponential backoff and
seeded jitter (honouring Retry-After), bounds every attempt by a total deadline, limits in-flight
requests with a semaphore of its own (shared by every session using the client), opens a circuit
after consecutive failed calls, stops at a run's `RunBudget`, asks for strict JSON-schema output
and, when an endpoint refuses it, downgrades once to JSON mode (then plain text), announcing it and
adding the request's compact example to the prompt from then on. Every failure is one
`EndpointError` line ("llm: POST URL: connection refused"). The API key is read from the
environment per call and never stored on the client, logged or recorded.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import random
import socket
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import httpx

from parley.errors import LLMError
from parley.llm.bridge import EventLoopThread, default_bridge
from parley.llm.structured import LENGTH_KEYWORDS, has_length_keywords, is_strict, lean_schema
from parley.llm.tokens import estimate_prompt_tokens, estimate_tokens
from parley.llm.types import LLMRequest, LLMResponse, ResponseMode, TokenUsage
from parley.protocol.clock import Clock, SystemClock

logger = logging.getLogger(__name__)

Sleeper = Callable[[float], Awaitable[None]]
"""Waits a number of seconds (asyncio.sleep in production, a recorder in tests)."""

Notify = Callable[[str], None]
"""Receives one-line notices meant for the person running parley (first failure of an endpoint, ...)."""

AuthStyle = Literal["bearer", "azure", "none"]

FailureKind = Literal["endpoint_error", "circuit_open", "budget_exhausted"]
"""Why an endpoint gave no answer: it failed, its circuit is open, or the run's budget is spent."""

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
"""HTTP statuses worth retrying: timeouts, rate limits and server errors."""

FORMAT_REFUSAL_STATUS = frozenset({400, 422, 500})
"""Statuses with which servers refuse a response_format: 400 (OpenAI-style), 422 (a validation
error) and 500 (llama-cpp-python's server: "Input should be 'text' or 'json_object'"). A 422 or
500 counts as a refusal only when its body names ``response_format``; it is then not retried."""

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
        concurrency: Most requests in flight at once through one client (one client per distinct
            endpoint config in an `LLMRuntime`, shared by all its sessions).
        timeout_s: Total seconds one attempt may take (connecting, sending and reading the whole
            reply); then it is abandoned and retried.
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


class EndpointError(LLMError):
    """An endpoint gave no usable answer, in one line: ``llm: POST URL: CAUSE``.

    Attributes:
        url: The URL that was (or would have been) called.
        cause: Short reason without the URL ("connection refused", "HTTP 404: ...", "timed out after 5 s").
        kind: "endpoint_error", "circuit_open" (not called: too many consecutive failures) or
            "budget_exhausted" (not called: the run's budget is spent).
        root: What went wrong underneath (for an open circuit, the last failure's cause; else cause).
        attempts: HTTP attempts made.
    """

    def __init__(
        self,
        url: str,
        cause: str,
        kind: FailureKind = "endpoint_error",
        attempts: int = 1,
        root: str | None = None,
    ) -> None:
        self.url = url
        self.cause = cause
        self.kind: FailureKind = kind
        self.root = root or cause
        self.attempts = attempts
        suffix = f" (after {attempts} attempts)" if attempts > 1 else ""
        super().__init__(f"llm: POST {url}: {cause}{suffix}")


class RunBudget:
    """Wall-clock seconds and tokens a whole run may spend on endpoints (shared by its clients).

    Args:
        seconds: Seconds from the budget's creation after which no call starts (None: no limit).
        tokens: Prompt + completion tokens after which no call starts (None: no limit).
        clock: Monotonic clock (default: the system's).
    """

    def __init__(
        self, seconds: float | None = None, tokens: int | None = None, clock: Clock | None = None
    ) -> None:
        self.seconds = seconds
        self.tokens = tokens
        self._clock = clock or SystemClock()
        self._start = self._clock.now()
        self._lock = threading.Lock()
        self._spent_tokens = 0

    @property
    def spent_tokens(self) -> int:
        """Tokens spent so far."""
        with self._lock:
            return self._spent_tokens

    def remaining_s(self) -> float | None:
        """Seconds left (None: no time limit)."""
        if self.seconds is None:
            return None
        return self.seconds - (self._clock.now() - self._start)

    def spend(self, tokens: int) -> None:
        """Count tokens one call used."""
        with self._lock:
            self._spent_tokens += max(0, tokens)

    def exhausted(self) -> str | None:
        """Why no further call may start, or None."""
        remaining = self.remaining_s()
        if remaining is not None and remaining <= 0:
            return f"run budget of {self.seconds:g} s is spent"
        if self.tokens is not None and self.spent_tokens >= self.tokens:
            return f"run budget of {self.tokens} tokens is spent ({self.spent_tokens} used)"
        return None


@dataclass(slots=True)
class _Failure:
    detail: str
    retry_after: float | None = None
    retryable: bool = True


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
    consecutive_failures: int = 0
    last_cause: str = ""
    circuit: str | None = None
    notified: bool = False
    lean: bool = False  # the endpoint refused string-length keywords: send schemas without them
    compiles_schema: bool = False  # JSON mode honours response_format.schema (no example needed)
    downgrades: list[str] = field(default_factory=list[str])


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
        circuit_failures: Consecutive failed calls after which the endpoint is not called again
            (every later call fails at once); 0 never opens the circuit.
        budget: The run's budget (shared with the run's other clients), or None.
        notify: Receives one line on the first failed call and when the circuit opens (default: the
            module logger at WARNING).
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
        circuit_failures: int = 5,
        budget: RunBudget | None = None,
        notify: Notify | None = None,
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
        self._circuit_failures = circuit_failures
        self._budget = budget
        self._notify: Notify = notify or logger.warning
        self._state = _State(endpoint.mode)
        self._limiter = asyncio.Semaphore(endpoint.concurrency)

    def __repr__(self) -> str:
        return f"OpenAIClient(base_url={self.endpoint.base_url!r}, model={self.model!r})"

    @property
    def attempts(self) -> int:
        """HTTP attempts made so far (retries included)."""
        return self._state.attempts

    @property
    def max_in_flight(self) -> int:
        """Most requests this client had in flight at once."""
        return self._state.max_in_flight

    @property
    def structured(self) -> ResponseMode:
        """The structured-output mode requests are sent with now (the configured one, or what the
        endpoint was downgraded to after refusing it)."""
        return self._state.mode_cap

    @property
    def downgrades(self) -> tuple[str, ...]:
        """One line per structured-output downgrade this run (each was announced once)."""
        return tuple(self._state.downgrades)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete request on the bridge loop (see `LLMClient.complete`).

        Raises:
            EndpointError: the endpoint failed after retries, its circuit is open or the budget is spent.
        """
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
        enforced = request.schema is not None and (
            mode == "json_schema" or (mode == "json_object" and self._state.compiles_schema)
        )
        body: dict[str, Any] = {
            "model": request.model,
            "messages": _messages(request, hint=not enforced),
            "temperature": request.temperature,
        }
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.seed is not None:
            body["seed"] = request.seed
        if mode == "json_schema" and request.schema is not None:
            sent = lean_schema(request.schema) if self._state.lean else dict(request.schema)
            schema = {"name": request.schema_name, "strict": is_strict(sent), "schema": sent}
            body["response_format"] = {"type": "json_schema", "json_schema": schema}
        elif mode == "json_object":
            # llama-cpp-python compiles "schema" into a grammar; other servers ignore the key
            response_format: dict[str, Any] = {"type": "json_object"}
            if request.schema is not None:
                response_format["schema"] = dict(request.schema)
            body["response_format"] = response_format
        return body

    def _refuse_early(self) -> None:
        url = self.endpoint.chat_url
        if self._state.circuit is not None:
            raise EndpointError(url, self._state.circuit, "circuit_open", root=self._state.last_cause)
        spent = self._budget.exhausted() if self._budget is not None else None
        if spent is not None:
            raise EndpointError(url, spent, "budget_exhausted")

    async def _complete(self, request: LLMRequest) -> LLMResponse:
        self._refuse_early()
        key = self._secret()
        failure = _Failure("no attempt made")
        attempt = 0
        while attempt < self._retry.max_attempts:
            attempt += 1
            deadline = self.endpoint.timeout_s
            remaining = self._budget.remaining_s() if self._budget is not None else None
            if remaining is not None and remaining <= 0:
                failure = _Failure(f"{failure.detail}; the run's time budget is spent", retryable=False)
                break
            if remaining is not None:
                deadline = min(deadline, remaining)
            outcome = await self._attempt(request, self._mode(request), key, deadline)
            if isinstance(outcome, LLMResponse):
                self._succeeded(outcome)
                return outcome
            if isinstance(outcome, _Downgrade):
                attempt -= 1  # the endpoint refused the output format, not the request: not a retry
                continue
            failure = outcome
            if not failure.retryable or attempt >= self._retry.max_attempts:
                break
            delay = self._retry.delay(attempt, self._rng, failure.retry_after)
            remaining = self._budget.remaining_s() if self._budget is not None else None
            if remaining is not None and delay >= remaining:
                wait = "Retry-After" if failure.retry_after is not None else "backoff"
                failure = _Failure(
                    f"{failure.detail}; {wait} of {delay:g} s exceeds the {max(0.0, remaining):.1f} s "
                    "left in the run budget",
                    retryable=False,
                )
                break
            logger.info(
                "LLM call to %s failed (%s); retry %d/%d in %.2f s",
                self.endpoint.base_url,
                _redact(failure.detail, key),
                attempt,
                self._retry.max_attempts - 1,
                delay,
            )
            await self._sleep(delay)
        raise self._failed(_redact(failure.detail, key), attempt)

    def _succeeded(self, response: LLMResponse) -> None:
        self._state.consecutive_failures = 0
        if self._budget is not None:
            self._budget.spend(response.usage.prompt_tokens + response.usage.completion_tokens)

    def _failed(self, cause: str, attempts: int) -> EndpointError:
        error = EndpointError(self.endpoint.chat_url, cause, attempts=attempts)
        state = self._state
        state.consecutive_failures += 1
        state.last_cause = cause
        if not state.notified:
            state.notified = True
            self._notify(str(error))
        if (
            self._circuit_failures
            and state.consecutive_failures >= self._circuit_failures
            and state.circuit is None
        ):
            state.circuit = (
                f"circuit open after {state.consecutive_failures} consecutive failed calls (last: {cause})"
            )
            self._notify(
                f"llm: POST {self.endpoint.chat_url}: {state.circuit}; later calls fall back at once"
            )
        return error

    async def _attempt(
        self, request: LLMRequest, mode: ResponseMode, key: str | None, deadline: float
    ) -> LLMResponse | _Failure | _Downgrade:
        async with self._limiter:
            self._state.attempts += 1
            self._state.in_flight += 1
            self._state.max_in_flight = max(self._state.max_in_flight, self._state.in_flight)
            start = self._clock.now()
            try:
                async with asyncio.timeout(deadline):  # the whole exchange, not the gap between bytes
                    reply = await self._http().post(
                        self.endpoint.chat_url,
                        json=self._body(request, mode),
                        headers=self._headers(key),
                        params=self._params(),
                    )
            except (TimeoutError, httpx.TimeoutException):
                return _Failure(f"timed out after {deadline:g} s")
            except httpx.TransportError as error:
                return _Failure(_transport_cause(error))
            finally:
                self._state.in_flight -= 1
            latency = self._clock.now() - start
        return self._interpret(reply, request, mode, latency)

    def _interpret(
        self, reply: httpx.Response, request: LLMRequest, mode: ResponseMode, latency: float
    ) -> LLMResponse | _Failure | _Downgrade:
        status = reply.status_code
        if status == 200:
            return _parse_completion(reply, request, latency)
        body = " ".join(reply.text[:300].split())
        if mode != "text" and _refuses_format(status, reply.text[:4000]):
            if mode == "json_schema" and self._lean_first(request, body):
                return _Downgrade()
            self._downgrade(mode, status, body)
            return _Downgrade()
        phrase = f"HTTP {status}" + (f" {reply.reason_phrase}" if reply.reason_phrase else "")
        if status in RETRYABLE_STATUS:
            return _Failure(f"{phrase}: {body}" if body else phrase, _retry_after(reply))
        return _Failure(f"{phrase} (not retryable): {body}" if body else phrase, retryable=False)

    def _downgrade(self, refused: ResponseMode, status: int, body: str) -> None:
        """Ask with the next mode from now on, and say so once (not per call)."""
        if _MODE_ORDER.index(self._state.mode_cap) > _MODE_ORDER.index(refused):
            return  # a concurrent call already moved past this mode
        self._state.mode_cap = _MODE_ORDER[_MODE_ORDER.index(refused) + 1]
        json_mode = self._state.mode_cap == "json_object"
        # A 422/500 naming response_format is a server validating the request's type (llama-cpp-python:
        # "Input should be 'text' or 'json_object'"), which compiles response_format.schema into a
        # grammar; an example reply in the prompt then only gets copied ("...") by a small model.
        self._state.compiles_schema = json_mode and status != 400
        if self._state.compiles_schema:
            how = "with the schema under response_format.schema (taken to be compiled into a grammar)"
        elif json_mode:
            how = "with the schema under response_format.schema and an example reply in the prompt"
        else:
            how = "with an example reply in the prompt"
        self._announce(
            f"llm: {self.endpoint.base_url} ({self.model}) refused response_format {refused} "
            f"(HTTP {status}: {body[:120]}); using {self._state.mode_cap} for the rest of the run, {how}"
        )

    def _lean_first(self, request: LLMRequest, body: str) -> bool:
        """A strict mode that refuses string lengths: drop them (once, said once) before giving up
        the schema altogether. False when that is not what the endpoint refused."""
        lowered = body.lower()
        if self._state.lean or not any(k.lower() in lowered for k in LENGTH_KEYWORDS):
            return False
        if request.schema is None or not has_length_keywords(request.schema):
            return False
        self._state.lean = True
        self._announce(
            f"llm: {self.endpoint.base_url} ({self.model}) refused string lengths in the json_schema "
            f"({body[:120]}); sending schemas without maxLength for the rest of the run"
        )
        return True

    def _announce(self, line: str) -> None:
        self._state.downgrades.append(line)
        self._notify(line)

    async def _list_models(self) -> list[str]:
        key = self._secret()
        url = self.endpoint.base_url.rstrip("/") + "/models"
        try:
            async with asyncio.timeout(self.endpoint.timeout_s):
                reply = await self._http().get(url, headers=self._headers(key), params=self._params())
            data = reply.json()["data"]
            return [str(item["id"]) for item in data]
        except (TimeoutError, httpx.HTTPError, ValueError, KeyError, TypeError) as error:
            raise LLMError(f"{url} did not return a model list: {_redact(str(error), key)}") from None


def _os_error(error: BaseException) -> OSError | None:
    """The innermost OSError behind error (httpx wraps the socket's error, sometimes twice)."""
    found: OSError | None = None
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError):
            found = current
        current = current.__cause__ or current.__context__
    return found


def _transport_cause(error: httpx.TransportError) -> str:
    text = str(error) or type(error).__name__
    if isinstance(error, httpx.ConnectError):
        root = _os_error(error)
        if isinstance(root, ConnectionRefusedError) or "refused" in text.lower():
            return "connection refused"
        if isinstance(root, socket.gaierror):
            return f"cannot resolve the host ({root.strerror or root})"
        return f"cannot connect ({root.strerror if root is not None and root.strerror else text})"
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return f"connection dropped ({text})"
    return f"connection error ({type(error).__name__}: {text})"


def _token_count(value: Any) -> int | None:
    """A reported token count, or None when it is missing, not a number, negative or absurd."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0 or value != int(value):
        return None
    return int(value)


def _usage(data: Mapping[str, Any], request: LLMRequest, text: str) -> TokenUsage:
    """Token usage as reported, or estimated for whatever the endpoint did not report usably."""
    raw = data.get("usage")
    reported: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    prompt = _token_count(reported.get("prompt_tokens"))
    completion = _token_count(reported.get("completion_tokens"))
    if prompt is not None and completion is not None:
        return TokenUsage(prompt, completion)
    return TokenUsage(
        prompt if prompt is not None else estimate_prompt_tokens(request.messages),
        completion if completion is not None else estimate_tokens(text),
        estimated=True,
    )


def _parse_completion(reply: httpx.Response, request: LLMRequest, latency: float) -> LLMResponse | _Failure:
    try:
        data = reply.json()
        choice = data["choices"][0]
        content = choice["message"].get("content")
        finish = choice.get("finish_reason")
        model = data.get("model")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return _Failure(f"HTTP 200 without a completion: {reply.text[:200]!r}")
    text = content if isinstance(content, str) else "" if content is None else json.dumps(content)
    return LLMResponse(
        text=text,
        model=model if isinstance(model, str) and model else request.model,
        usage=_usage(data, request, text),
        latency_s=round(latency, 6),  # as recorded, so live and replayed totals agree
        finish_reason=finish if isinstance(finish, str) else None,
    )


def _messages(request: LLMRequest, *, hint: bool) -> list[dict[str, str]]:
    """The wire messages; the request's format hint is appended to the system prompt when asked."""
    messages = [m.to_json() for m in request.messages]
    if hint and request.format_hint and messages and messages[0]["role"] == "system":
        messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{request.format_hint}"}
    elif hint and request.format_hint:
        messages.insert(0, {"role": "system", "content": request.format_hint})
    return messages


def _refuses_format(status: int, body: str) -> bool:
    """Whether an error reply refuses the response_format (see `FORMAT_REFUSAL_STATUS`)."""
    if status not in FORMAT_REFUSAL_STATUS:
        return False
    lowered = body.lower()
    if status == 400:
        return any(word in lowered for word in ("response_format", "json_schema", "json_object"))
    return "response_format" in lowered


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

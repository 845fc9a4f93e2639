"""LLM configuration: endpoint specs, per-role overrides, YAML files, and the runtime built from them.

Specs: ``openai:MODEL``, ``azure:RESOURCE/DEPLOYMENT``, ``ollama:MODEL``, ``vllm:MODEL`` or any
OpenAI-compatible ``http(s)://HOST/v1#MODEL``. A YAML file sets the default, per-role overrides
(``judge``, ``mediator``, ``negotiator``, ...) and the cache, record/replay and accounting options.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, cast

import httpx
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from parley.errors import LLMError, ScenarioError
from parley.llm.accounting import UsageLedger, load_prices
from parley.llm.bridge import EventLoopThread
from parley.llm.cache import CachedClient, RecordingClient, ReplayClient, ResponseCache
from parley.llm.client import Endpoint, LLMClient, Notify, OpenAIClient, RetryPolicy, RunBudget, Sleeper
from parley.llm.context import DEFAULT_ROLE, LLMSession
from parley.llm.types import ResponseMode
from parley.protocol.clock import Clock

StructuredMode = Literal["json_schema", "json_object", "none"]
"""How an endpoint constrains replies (the ``structured`` key of an endpoint config)."""

_MODES: Mapping[str, ResponseMode] = {
    "json_schema": "json_schema",
    "json_object": "json_object",
    "none": "text",
}

AZURE_API_VERSION = "2024-10-21"
"""Azure OpenAI api-version used unless a config names another."""

_SHORTHANDS = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "ollama": ("http://localhost:11434/v1", None),
    "vllm": ("http://localhost:8000/v1", None),
}


def parse_spec(spec: str) -> Endpoint:
    """The endpoint a spec names.

    Raises:
        ValueError: the spec matches no known form (the message lists the forms).
    """
    text = spec.strip()
    if text.startswith(("http://", "https://")):
        base, sep, model = text.partition("#")
        if not sep or not model:
            raise ValueError(
                f"{spec!r}: a URL spec needs the model after '#', e.g. http://localhost:11434/v1#qwen2.5:7b"
            )
        return Endpoint(base.rstrip("/"), model)
    prefix, sep, rest = text.partition(":")
    if sep and rest and prefix in _SHORTHANDS:
        base, key_env = _SHORTHANDS[prefix]
        return Endpoint(base, rest, key_env)
    if sep and prefix == "azure" and "/" in rest:
        resource, _, deployment = rest.partition("/")
        base = f"https://{resource}.openai.azure.com/openai/deployments/{deployment}"
        return Endpoint(base, deployment, "AZURE_OPENAI_API_KEY", "azure", AZURE_API_VERSION)
    raise ValueError(
        f"{spec!r} is not an LLM spec; expected openai:MODEL, azure:RESOURCE/DEPLOYMENT, ollama:MODEL, "
        "vllm:MODEL or http(s)://HOST/v1#MODEL"
    )


class EndpointConfig(BaseModel):
    """One endpoint in a config file (a bare string is read as ``{spec: ...}``).

    Attributes:
        spec: The endpoint spec.
        api_key_env: Environment variable with the key (overrides the spec's default).
        api_version: Azure api-version.
        structured: How replies are constrained: ``json_schema`` (default: a strict JSON schema the
            server enforces, so prompts carry no schema text), ``json_object`` (JSON mode; prompts
            carry a compact example reply) or ``none`` (no response_format; example in the prompt).
            An endpoint that refuses json_schema with HTTP 400 is downgraded once, announced, to
            json_object. ``mode`` is read as an older name of this key (``text`` meaning ``none``).
        concurrency: Most requests in flight to this endpoint at once (per runtime).
        timeout_s: Total seconds one attempt may take, the whole reply read included.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str
    api_key_env: str | None = None
    api_version: str | None = None
    structured: StructuredMode | None = None
    concurrency: int = Field(default=8, ge=1)
    timeout_s: float = Field(default=60.0, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"spec": data}
        if isinstance(data, Mapping) and "mode" in data:
            legacy = dict(cast(Mapping[str, Any], data))
            mode = legacy.pop("mode")
            if "structured" in legacy and legacy["structured"] != mode:
                raise ValueError("give structured (or its older name mode), not both")
            legacy["structured"] = "none" if mode == "text" else mode
            return legacy
        return data

    @property
    def mode(self) -> ResponseMode | None:
        """The structured-output mode as the client names it ("text" for none)."""
        return None if self.structured is None else _MODES[self.structured]

    @field_validator("spec")
    @classmethod
    def _valid_spec(cls, spec: str) -> str:
        parse_spec(spec)
        return spec

    def endpoint(self) -> Endpoint:
        """The endpoint with this config's overrides applied."""
        base = parse_spec(self.spec)
        return Endpoint(
            base.base_url,
            base.model,
            self.api_key_env or base.api_key_env,
            base.auth if (self.api_key_env or base.api_key_env) else "none",
            self.api_version or base.api_version,
            self.mode or base.mode,
            self.concurrency,
            self.timeout_s,
        )


class LLMSettings(BaseModel):
    """Everything about the LLMs of a run.

    Attributes:
        default: Endpoint for roles without an override (None: no LLM; twins play).
        roles: Per-role endpoints ("judge", "mediator", "negotiator", ...).
        temperature: Sampling temperature.
        seed: Sampling seed sent to endpoints that honour it.
        max_tokens: Cap on reply tokens: one number for every role, or a mapping from role name
            ("moderator", "negotiator") or output model name ("ThoughtsReply") to a cap, the model
            name winning; roles left out keep their own default (None: every role its own).
        max_attempts: Attempts per request (retries + 1).
        circuit_failures: Consecutive failed calls after which an endpoint is not called again
            this run (later calls fall back at once); 0 never opens the circuit.
        budget_seconds: Wall-clock seconds the run may spend calling endpoints (None: no limit).
        budget_tokens: Tokens (prompt + completion) the run may spend (None: no limit).
        strict: The first fallback to a twin ends the run with an error.
        allow_fallback: A run in which every decision of a role fell back still succeeds.
        cache: SQLite response cache file.
        record: Folder to record every exchange (failures included) to.
        replay: Folder to replay exchanges from (no endpoint is contacted).
        prices: Price overrides, model → {input, output} USD per million tokens.
        prices_file: JSON file of prices merged over the shipped table.
    """

    model_config = ConfigDict(extra="forbid")

    default: EndpointConfig | None = None
    roles: dict[str, EndpointConfig] = Field(default_factory=dict[str, EndpointConfig])
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    seed: int | None = None
    max_tokens: int | dict[str, int] | None = None
    max_attempts: int = Field(default=4, ge=1)
    circuit_failures: int = Field(default=5, ge=0)
    budget_seconds: float | None = Field(default=None, gt=0)
    budget_tokens: int | None = Field(default=None, ge=1)
    strict: bool = False
    allow_fallback: bool = False
    cache: Path | None = None
    record: Path | None = None
    replay: Path | None = None
    prices: dict[str, dict[str, float]] = Field(default_factory=dict[str, dict[str, float]])
    prices_file: Path | None = None

    @field_validator("max_tokens")
    @classmethod
    def _positive_caps(cls, value: int | dict[str, int] | None) -> int | dict[str, int] | None:
        caps = [value] if isinstance(value, int) else list((value or {}).values())
        if any(cap < 1 for cap in caps):
            raise ValueError("max_tokens must be at least 1")
        return value

    @model_validator(mode="after")
    def _record_or_replay(self) -> LLMSettings:
        if self.record is not None and self.replay is not None:
            raise ValueError("record and replay exclude each other")
        return self

    @property
    def enabled(self) -> bool:
        """Whether any LLM is configured (a default endpoint, a role endpoint or a replay)."""
        return self.default is not None or bool(self.roles) or self.replay is not None


def load_settings(path: str | Path, overrides: Mapping[str, Any] | None = None) -> LLMSettings:
    """Read and validate a YAML config file, with top-level keys replaced by overrides.

    Raises:
        ScenarioError: unreadable YAML or invalid settings (with the file and the field path).
    """
    source = str(path)
    try:
        data = yaml.safe_load(Path(path).read_text("utf-8")) or {}
    except UnicodeDecodeError:
        raise  # (worded by the caller: `parley.cli.llm.llm_options_from_cli`)
    except (OSError, yaml.YAMLError, ValueError) as error:  # ValueError: an integer too long to read
        raise ScenarioError(f"cannot read LLM config: {error}", source=source) from None
    if not isinstance(data, dict):
        raise ScenarioError("an LLM config must be a mapping", source=source)
    return settings_from_mapping({**data, **(overrides or {})}, source=source)


def settings_from_mapping(data: Mapping[str, Any], *, source: str | None = None) -> LLMSettings:
    """Validate settings given as a mapping.

    Raises:
        ScenarioError: with the dotted path of the first invalid field.
    """
    try:
        return LLMSettings.model_validate(dict(data))
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ScenarioError(
            str(first["msg"]).removeprefix("Value error, "), source=source, field=field
        ) from None


class LLMRuntime:
    """Builds and owns the clients of a run; hands each session an `LLMSession`.

    One client per distinct endpoint config, so concurrent sessions share connection pools,
    concurrency limits and circuit breakers; one usage ledger and one `RunBudget` for the run.
    Limits belong to the runtime: another runtime in the same process has its own.

    Args:
        settings: The run's settings.
        bridge: Event-loop thread (default: the process-wide one).
        environ: Where API keys are looked up (default os.environ).
        notify: Receives one-line notices (an endpoint's first failure, an open circuit); default:
            the client module's logger.
        transport, sleeper, clock: Test hooks passed to every `OpenAIClient` (clock also times the budget).
    """

    def __init__(
        self,
        settings: LLMSettings,
        *,
        bridge: EventLoopThread | None = None,
        environ: Mapping[str, str] | None = None,
        notify: Notify | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleeper: Sleeper | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self._bridge = bridge
        self._hooks: dict[str, Any] = {
            "environ": environ,
            "transport": transport,
            "sleeper": sleeper,
            "clock": clock,
            "notify": notify,
        }
        self.budget = RunBudget(settings.budget_seconds, settings.budget_tokens, clock)
        self.ledger = UsageLedger(load_prices(settings.prices, settings.prices_file))
        self._lock = threading.Lock()
        self._clients: dict[EndpointConfig | None, LLMClient] = {}
        self._http: list[OpenAIClient] = []
        self._cache = ResponseCache(settings.cache) if settings.cache and settings.replay is None else None

    def client(self, role: str = DEFAULT_ROLE) -> LLMClient:
        """The client for a role (its override, else the default).

        Raises:
            LLMError: no LLM is configured for that role.
        """
        config = self.settings.roles.get(role, self.settings.default)
        with self._lock:
            if config not in self._clients:
                self._clients[config] = self._build(config, role)
            return self._clients[config]

    def _build(self, config: EndpointConfig | None, role: str) -> LLMClient:
        if self.settings.replay is not None:
            return ReplayClient(self.settings.replay, config.endpoint().model if config else None)
        if config is None:
            raise LLMError(f"no LLM configured for role {role!r}; pass --llm SPEC or --llm-role {role}=SPEC")
        endpoint = config.endpoint()
        environ = self._hooks["environ"] if self._hooks["environ"] is not None else os.environ
        if endpoint.api_key_env and endpoint.auth != "none" and not environ.get(endpoint.api_key_env):
            # Fail at start-up, not as a fallback on every call: a missing key is a setup error.
            raise LLMError(
                f"{endpoint.api_key_env} is not set; {config.spec} (role {role}) needs an API key in it"
            )
        retry = RetryPolicy(max_attempts=self.settings.max_attempts)
        http = OpenAIClient(
            config.endpoint(),
            retry=retry,
            seed=self.settings.seed or 0,
            bridge=self._bridge,
            circuit_failures=self.settings.circuit_failures,
            budget=self.budget,
            **self._hooks,
        )
        self._http.append(http)
        client: LLMClient = http
        if self._cache is not None:
            client = CachedClient(client, self._cache)
        if self.settings.record is not None:
            client = RecordingClient(client, self.settings.record)
        return client

    def session(self, session_id: str = "session") -> LLMSession:
        """An `LLMSession` for one negotiation, sharing this runtime's clients and ledger.

        Raises:
            LLMError: no LLM is configured at all, or an endpoint's API key is missing.
        """
        settings = self.settings
        clients: dict[str, LLMClient] = {}
        if settings.default is not None or settings.replay is not None:
            clients[DEFAULT_ROLE] = self.client(DEFAULT_ROLE)
        clients.update({role: self.client(role) for role in settings.roles})
        return LLMSession(
            clients,
            session_id=session_id,
            ledger=self.ledger,
            bridge=self._bridge,
            temperature=settings.temperature,
            seed=settings.seed,
            max_tokens=settings.max_tokens,
            strict=settings.strict,
        )

    def downgrades(self) -> tuple[str, ...]:
        """Every structured-output downgrade of this run's endpoints, one line each (as announced)."""
        return tuple(line for http in self._http for line in http.downgrades)

    def close(self) -> None:
        """Close every HTTP client and the cache."""
        for http in self._http:
            http.close()
        self._http.clear()
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> LLMRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

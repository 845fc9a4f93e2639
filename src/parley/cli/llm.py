"""CLI helpers for the LLM flags of `parley run`: --llm, --llm-role, --llm-config, --record, --replay.

--llm SPEC            default endpoint, e.g. openai:gpt-4o-mini or http://localhost:11434/v1#qwen2.5:7b
--llm-role ROLE=SPEC  per-role override, repeatable (judge=openai:gpt-4o, mediator=ollama:llama3.1)
--llm-config FILE     YAML settings (flags win over the file)
--record DIR          save every LLM exchange (request + response, JSONL) to DIR
--replay DIR          answer every LLM request from DIR; no endpoint is contacted
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parley.errors import ScenarioError
from parley.llm.config import LLMRuntime, LLMSettings, load_settings, settings_from_mapping
from parley.llm.context import LLMSession
from parley.llm.judge import LLMJudge
from parley.llm.mediator import LLMOfferMediator

LLM_AGENTS = ("llm", "astra-llm")
"""Agents whose `create` options get the session's LLM side (``llm=...``)."""


def parse_role_override(text: str) -> tuple[str, str]:
    """Split ``ROLE=SPEC``.

    Raises:
        ScenarioError: no ``=`` or an empty side.
    """
    role, sep, spec = text.partition("=")
    if not sep or not role.strip() or not spec.strip():
        raise ScenarioError(f"--llm-role expects ROLE=SPEC (e.g. judge=openai:gpt-4o), got {text!r}")
    return role.strip(), spec.strip()


def llm_options_from_cli(
    llm: str | None,
    role_overrides: Sequence[str],
    config: Path | None,
    *,
    record: Path | None = None,
    replay: Path | None = None,
) -> LLMSettings:
    """Settings from the LLM flags of `parley run` (flags override the config file).

    Raises:
        ScenarioError: a bad spec, override, config file, or both --record and --replay.
    """
    overrides: dict[str, Any] = {}
    if llm is not None:
        overrides["default"] = llm
    if record is not None:
        overrides["record"] = record
    if replay is not None:
        overrides["replay"] = replay
    base = load_settings(config) if config is not None else LLMSettings()
    data = base.model_dump(exclude_unset=True, mode="json")
    data.update(overrides)
    roles = dict(data.get("roles", {}))
    for text in role_overrides:
        role, spec = parse_role_override(text)
        roles[role] = spec
    data["roles"] = roles
    return settings_from_mapping(data, source="command line")


@dataclass(frozen=True)
class LLMWiring:
    """The LLM pieces of one `parley run` session.

    Attributes:
        session: The session's LLM side; call ``session.finish(result.trajectory)`` after the run.
        agent_options: Per party, the options to pass to `create` (only parties playing an agent of
            `LLM_AGENTS`: ``llm`` or ``astra-llm``).
        judge: An `LLMJudge` when a ``judge`` role is configured, else None (the rule judge plays).
        mediator: An `LLMOfferMediator` when a ``mediator`` role is configured, else None.
    """

    session: LLMSession
    agent_options: Mapping[str, Mapping[str, Any]]
    judge: LLMJudge | None
    mediator: LLMOfferMediator | None


def wire_llm(runtime: LLMRuntime, session_id: str, agents: Mapping[str, str]) -> LLMWiring:
    """Everything `parley run` hands the session when LLM flags are given.

    Args:
        runtime: Built once per run from `llm_options_from_cli`'s settings (close it at the end).
        session_id: Name of the session in usage summaries.
        agents: Agent name per party.

    Raises:
        LLMError: an LLM role is needed but nothing is configured for it.
    """
    llm = runtime.session(session_id)
    options = {party: {"llm": llm} for party, agent in agents.items() if agent in LLM_AGENTS}
    roles = runtime.settings.roles
    judge = LLMJudge(llm) if "judge" in roles else None
    mediator = LLMOfferMediator(llm) if "mediator" in roles else None
    return LLMWiring(llm, options, judge, mediator)


LLM_FLAGS = ("llm", "llm_role", "llm_config", "record", "replay")
"""The names of the LLM flags every command that can use an LLM accepts."""


def any_llm_flag(flags: Mapping[str, Any]) -> bool:
    """Whether any LLM flag was given."""
    return any(flags.get(name) for name in LLM_FLAGS)


@contextmanager
def open_runtime(flags: Mapping[str, Any]) -> Generator[LLMRuntime]:
    """The run's LLM runtime built from the LLM flags (closed on exit).

    Raises:
        ScenarioError: a bad spec, override or config file, or both --record and --replay.
        LLMError: an endpoint's API key is missing from the environment.
    """
    settings = llm_options_from_cli(
        flags.get("llm"),
        flags.get("llm_role") or [],
        flags.get("llm_config"),
        record=flags.get("record"),
        replay=flags.get("replay"),
    )
    with LLMRuntime(settings) as runtime:
        yield runtime

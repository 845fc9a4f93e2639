"""What the experiments' LLM runs share: endpoint checks, the store header's LLM part, the models per
role, and the cells of the report's "LLM roles" table (`experiments/astra/llm.py`, `gaia/llm.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from parley.errors import ScenarioError

if TYPE_CHECKING:
    from parley.llm.config import EndpointConfig, LLMSettings


class ChosenRoles(Protocol):
    """The roles an experiment's LLM plays (each experiment's `RoleChoice`)."""

    @property
    def roles(self) -> tuple[str, ...]: ...


def check_endpoints(settings: LLMSettings, choice: ChosenRoles) -> None:
    """Every chosen role has an endpoint (its own, the default, or a replay).

    Raises:
        ScenarioError: a chosen role has none.
    """
    if settings.replay is not None or settings.default is not None:
        return
    missing = [role for role in choice.roles if role not in settings.roles]
    if missing:
        raise ScenarioError(
            f"no LLM endpoint for {', '.join(missing)}: pass --llm SPEC or --llm-role {missing[0]}=SPEC"
        )


def store_settings(settings: LLMSettings, choice: ChosenRoles) -> dict[str, Any]:
    """What the run store's header keeps of the LLM set-up (a store made with another is refused):
    the roles, each one's endpoint (URL without credentials, model, structured mode), the sampling
    settings and the replay folder."""
    endpoints = {role: _endpoint_text(settings.roles.get(role, settings.default)) for role in choice.roles}
    return {
        "roles": list(choice.roles),
        "endpoints": endpoints,
        "temperature": settings.temperature,
        "seed": settings.seed,
        "max_tokens": settings.max_tokens,
        "replay": str(settings.replay) if settings.replay is not None else None,
    }


def _endpoint_text(config: EndpointConfig | None) -> str | None:
    if config is None:
        return None
    endpoint = config.endpoint()
    url = httpx.URL(endpoint.base_url).copy_with(username=None, password=None)
    return f"{url}#{endpoint.model} ({endpoint.mode})"


def configured_models(settings: LLMSettings, choice: ChosenRoles) -> dict[str, str]:
    """The model each chosen role is configured with ("recorded" for a replay without a named model)."""
    models: dict[str, str] = {}
    for role in choice.roles:
        config = settings.roles.get(role, settings.default)
        models[role] = config.endpoint().model if config is not None else "recorded"
    return models


def causes_cell(causes: Mapping[str, int]) -> str:
    """Every fallback cause with its count, the most frequent first ("—" without fallbacks)."""
    ranked = sorted(causes.items(), key=lambda item: (-item[1], item[0]))
    return "; ".join(f"{table_cell(cause)} ({count})" for cause, count in ranked) or "—"


def share_cell(hits: int, total: int, low: float, high: float) -> str:
    """A fallback share with its interval and counts ("— (no decision)" without decisions)."""
    if total == 0:
        return "— (no decision)"
    return f"{hits / total:.3f} [{low:.3f}, {high:.3f}] ({hits} of {total})"


def table_cell(text: str) -> str:
    """Text safe in a markdown table cell (a model name comes from the endpoint)."""
    printable = "".join(ch if ch.isprintable() else " " for ch in text)
    return printable.replace("|", "\\|")[:120]

"""What the experiments' LLM runs share: endpoint checks, the store header's LLM part, the models per
role, the split of a run into rule-played and LLM-played sessions, the stored usage read back, and the
report's "LLM roles" table (`experiments/astra/llm.py`, `gaia/llm.py`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import httpx

from parley.errors import ScenarioError
from parley.experiments.astra.inference import wilson
from parley.experiments.batch import Row, TaskStore, map_specs
from parley.llm.accounting import UsageSummary, UsageTotals

if TYPE_CHECKING:
    from parley.llm.config import EndpointConfig, LLMSettings


SpecT = TypeVar("SpecT")


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


def run_split(
    specs: Sequence[SpecT],
    *,
    plays_llm: Callable[[SpecT], bool],
    rule_task: Callable[[SpecT], list[Row]],
    llm_task: Callable[[SpecT], list[Row]],
    llm_key: Callable[[SpecT], str],
    store: TaskStore | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[list[Row]]:
    """Every spec's stored rows, in spec order: the rule-played ones run by `map_specs` (jobs
    processes or a Dask scheduler), the LLM-played ones in this process one at a time (an LLM runtime
    holds its HTTP clients), each stored as soon as it ends under `llm_key`, so a stopped run loses at
    most the session under way and resumes.

    Raises:
        As `parley.experiments.batch.map_specs`, and whatever `llm_task` raises (stored rows are kept).
    """
    finished = 0

    def advance(count: int) -> None:
        nonlocal finished
        finished += count
        if progress is not None:
            progress(finished, len(specs))

    rule = [spec for spec in specs if not plays_llm(spec)]
    rule_rows = iter(map_specs(rule, rule_task, store, jobs=jobs, scheduler=scheduler, on_progress=advance))
    llm_rows = (
        map_specs([spec], llm_task, store, key=llm_key, on_progress=advance)[0]
        for spec in specs
        if plays_llm(spec)
    )
    return [next(llm_rows) if plays_llm(spec) else next(rule_rows) for spec in specs]


def stored_usage(stored: object) -> dict[str, UsageTotals]:
    """The usage by role an LLM task stored beside its record (`UsageTotals.to_json` per role).

    Raises:
        ValueError: stored is not what an LLM task writes (a store edited by hand); the message is
            short enough for a one-line error.
    """
    if not isinstance(stored, Mapping):
        raise ValueError(f"expected usage by role, got {type(stored).__name__}")
    by_role = cast("Mapping[object, Mapping[str, Any]]", stored)
    try:
        return {str(role): _totals(data) for role, data in by_role.items()}
    except (TypeError, KeyError, AttributeError) as error:
        raise ValueError(str(error)[:200]) from None


def _totals(data: Mapping[str, Any]) -> UsageTotals:
    counts = ("calls", "prompt_tokens", "completion_tokens", "unpriced_calls", "decisions", "fallbacks")
    values = {name: _count(data[name]) for name in counts}
    if values["fallbacks"] > values["decisions"]:
        raise ValueError("more fallbacks than decisions")
    causes = {str(cause): _count(n) for cause, n in dict(data["fallback_causes"]).items()}
    return UsageTotals(
        **values,
        latency_s=_amount(data["latency_s"]),
        cost_usd=_amount(data["cost_usd"]),
        fallback_causes=causes,
        models={str(model) for model in data["models"]},
    )


def _count(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"expected a count, got {value!r}"[:200])
    return value


def _amount(value: object) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < float("inf"):
        raise ValueError(f"expected a non-negative number, got {value!r}"[:200])
    return float(value)


def usage_table(summary: UsageSummary, roles: Sequence[str], models: Mapping[str, str]) -> list[str]:
    """The "LLM roles" table: per role its model (the configured one, marked, when it never
    replied), calls, tokens, latency, estimated cost, decisions, fallback share with a Wilson 95%
    interval, and the fallback causes."""
    lines = [
        "| role | model | calls | tokens in | tokens out | latency s (per call) | USD (est.) | decisions "
        "| fallback share [95% CI] | fallback causes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for role in roles:
        totals = summary.by_role.get(role, UsageTotals())
        model = ", ".join(sorted(totals.models)) or f"{models.get(role, '—')} (no reply)"
        per_call = totals.latency_s / totals.calls if totals.calls else 0.0
        cost = "— (no price)" if totals.unpriced_calls else f"{totals.cost_usd:.4f}"
        share = wilson(totals.fallbacks, totals.decisions)
        lines.append(
            f"| {role} | {table_cell(model)} | {totals.calls} | {totals.prompt_tokens} | "
            f"{totals.completion_tokens} | {totals.latency_s:.2f} ({per_call:.3f}) | {cost} | "
            f"{totals.decisions} | {share_cell(share.hits, share.total, share.low, share.high)} | "
            f"{causes_cell(totals.fallback_causes)} |"
        )
    return lines

"""What the experiments' LLM runs share: endpoint checks, the store header's LLM part, the models per
role, the split of a run into rule-played and LLM-played sessions, the stored usage read back and
summed, and the report's "LLM roles" section and table (`experiments/astra/llm.py`, `gaia/llm.py`,
`promediate_llm.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
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


def parse_role_entries(
    entries: Sequence[str], order: Sequence[str], resolve: Callable[[str], str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The roles and ``ROLE=SPEC`` endpoint overrides that --llm-role entries choose.

    Args:
        entries: ROLE or ROLE=SPEC, as given on the command line.
        order: Every role of the experiment, in its canonical order (the roles come back in it).
        resolve: The experiment's canonical role for a typed name; raises `ScenarioError` for an
            unknown one.

    Raises:
        ScenarioError: an unknown role, an empty spec, or a role given twice (one line, the entry cut
            to 120 characters).
    """
    chosen: dict[str, str | None] = {}
    for entry in entries:
        name, sep, spec = entry.partition("=")
        role = resolve(name)
        if sep and not spec.strip():
            raise ScenarioError(f"--llm-role expects ROLE or ROLE=SPEC, got {entry[:120]!r}")
        if role in chosen:
            raise ScenarioError(f"--llm-role names {role} twice")
        chosen[role] = spec.strip() if sep else None
    roles = tuple(role for role in order if role in chosen)
    overrides = tuple(f"{role}={spec}" for role, spec in chosen.items() if spec is not None)
    return roles, overrides


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


def row_usage(row: Row, seed: str) -> dict[str, UsageTotals] | None:
    """The usage by role a stored row of an LLM task holds (None: a rule-played row, without one).

    Args:
        row: A stored task row; an LLM task's has its usage under ``llm``.
        seed: The row's seed as the error names it.

    Raises:
        ScenarioError: the stored usage is not what an LLM task writes (a store edited by hand).
    """
    stored = row.get("llm")
    if stored is None:
        return None
    try:
        return stored_usage(stored)
    except ValueError as error:
        raise ScenarioError(
            f"the run store holds malformed LLM usage for seed {seed} ({error}); delete the store"
        ) from None


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


SessionUsage = tuple[str, Mapping[str, UsageTotals]]
"""An LLM-played session's name and its usage by role."""


class PlayedUsage(Protocol):
    """A played session as an experiment returns it (`gaia.llm.PlayedSession`, `astra.llm.PlayedRun`)."""

    @property
    def session(self) -> str:
        """The session's name in usage summaries."""
        ...

    @property
    def usage(self) -> Mapping[str, UsageTotals] | None:
        """Its usage by role (None: a rule-played session)."""
        ...


def llm_sessions(played: Iterable[PlayedUsage]) -> list[SessionUsage]:
    """The name and usage of every LLM-played session of played, in order (rule-played ones left out)."""
    return [(run.session, run.usage) for run in played if run.usage is not None]


def summarise(sessions: Iterable[SessionUsage]) -> UsageSummary:
    """Totals over the sessions, overall, by role and by session name (sessions of the same name add up)."""
    total, by_role, by_session = UsageTotals(), dict[str, UsageTotals](), dict[str, UsageTotals]()
    for name, usage in sessions:
        for role, totals in usage.items():
            total.add(totals)
            by_role.setdefault(role, UsageTotals()).add(totals)
            by_session.setdefault(name, UsageTotals()).add(totals)
    return UsageSummary(total, by_role, by_session)


def usage_lines(
    sessions: Sequence[SessionUsage],
    roles: Sequence[str],
    models: Mapping[str, str],
    *,
    unit: str = "Sessions",
    closing: str = "",
) -> list[str]:
    """The "LLM roles" table of the sessions (`usage_table`) and, below it, how many of them had any
    role fall back, with a Wilson 95% interval.

    Args:
        sessions: Every LLM-played session (none: a table of zeros and "0 of 0, —").
        roles: The table's rows, in order.
        models: The model configured per role (shown, marked, for a role that never got a reply).
        unit: What a session is called at the start of the last line ("Conversations").
        closing: Sentences after the last line's own (each with its leading space).
    """
    fell = wilson(sum(any(t.fallbacks for t in usage.values()) for _, usage in sessions), len(sessions))
    return [
        *usage_table(summarise(sessions), roles, models),
        "",
        f"{unit} in which any role fell back to its twin: {fell.hits} of {fell.total}, {fell.percent()} "
        f"(Wilson 95%).{closing}",
    ]


@dataclass(frozen=True, slots=True)
class SectionText:
    """An experiment's own words in its "LLM roles" section (`roles_section` writes the rest).

    Attributes:
        played: Which sessions a model played and as what, up to the list of the roles it played.
        role_text: What each of the experiment's LLM roles plays, in the order the section lists them.
        others: What played the roles no model did, before their list.
        setup: The sentences between the list of roles and the one on where the sessions ran.
        decider: What falls back to its rule twin, as the fallback paragraph calls it ("role", "stage").
        closing: Sentences after the any-fallback line's own (each with its leading space).
    """

    played: str
    role_text: Mapping[str, str]
    others: str
    setup: str
    decider: str = "role"
    closing: str = ""


def roles_section(
    sessions: Sequence[SessionUsage],
    text: SectionText,
    chosen: Sequence[str],
    models: Mapping[str, str],
    *,
    jobs: int = 1,
    scheduler: bool = False,
) -> list[str]:
    """Markdown "LLM roles" section of an experiment whose LLM-played sessions ran in this process:
    which roles a model played and which the rule twins did, where the sessions ran, how a fallback
    works, the usage table (`usage_lines`) and the share of sessions where any role fell back.

    Args:
        sessions: Every LLM-played session.
        text: The experiment's own words.
        chosen: The roles a model played (keys of ``text.role_text``), in its order.
        models: The model configured per role (shown, marked, for a role that never got a reply).
        jobs: The rule-played sessions' worker processes.
        scheduler: Whether a Dask scheduler ran the rule-played sessions instead.

    Raises:
        KeyError: a chosen role that ``text.role_text`` does not describe.
    """
    twins = [described for role, described in text.role_text.items() if role not in chosen]
    workers = "a Dask scheduler" if scheduler else f"{jobs} worker process(es)"
    return [
        "## LLM roles",
        "",
        f"{text.played}: "
        + "; ".join(text.role_text[role] for role in chosen)
        + ". "
        + (f"{text.others}: {'; '.join(twins)}. " if twins else "")
        + f"{text.setup} An LLM runtime holds its HTTP clients, so these sessions ran in this process, "
        f"one at a time ({workers} played the rule-based sessions); each was stored as it ended, so a "
        "stopped run resumes.",
        "",
        f"A {text.decider} whose reply is unusable after repair and one re-ask, or whose endpoint fails, "
        "is answered by its deterministic rule twin for that decision; the fallback share is the twins' "
        "share of a role's decisions (Wilson 95% interval, which treats decisions as independent; "
        "decisions within a session are not, so the session-level share below is the safer view). "
        "A live model's replies vary between runs: only a run recorded with --record and replayed "
        "with --replay reproduces this report exactly.",
        "",
        *usage_lines(sessions, chosen, models, closing=text.closing),
        "",
    ]

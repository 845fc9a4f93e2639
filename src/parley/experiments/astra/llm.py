"""ASTRA's LLM stages in the ASTRA experiment: which stages a model plays (`RoleChoice`), the `astra`
system's sessions played by agent ``astra-llm`` in this process (resumable through the batch store),
and the report's "LLM roles" section (per-role usage and fallback shares, with Wilson intervals)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from parley.errors import ScenarioError
from parley.experiments.astra.runs import (
    AgentOverride,
    ProgressCallback,
    RunRecord,
    RunSpec,
    run_one,
    run_task,
)
from parley.experiments.batch import Row, TaskStore, dataclass_key, record_from_row, record_row
from parley.experiments.llm_roles import (
    SectionText,
    llm_sessions,
    parse_role_entries,
    roles_section,
    row_usage,
    run_split,
    summarise,
)
from parley.llm.accounting import UsageSummary, UsageTotals
from parley.llm.roles.astra_common import INTERPRETER_ROLE, PARAMETERS_ROLE, PARTNER_ROLE, TACTIC_ROLE

if TYPE_CHECKING:
    from parley.llm.config import LLMRuntime
    from parley.protocol.session import SessionResult

LLM_SYSTEM = "astra"
"""The P1 system whose stages a model plays (the ablation and the time-based baseline have none)."""
LLM_AGENT = "astra-llm"
"""The registered agent that plays `LLM_SYSTEM` with LLM stages."""
ROLE_STAGES: dict[str, str] = {
    INTERPRETER_ROLE: "interpreter",
    PARAMETERS_ROLE: "parameters",
    PARTNER_ROLE: "virtual_partner",
    TACTIC_ROLE: "tactics",
}
"""ASTRA's LLM roles (usage and endpoint names) and the stage each plays, in the order they run."""
ROLE_TEXT: dict[str, str] = {
    INTERPRETER_ROLE: "preference interpreter (stage 1: the partner's priorities and offer)",
    PARAMETERS_ROLE: "parameter chooser (stage 2: λ and S_max)",
    PARTNER_ROLE: "virtual partner (stage 3: TS and SI per candidate)",
    TACTIC_ROLE: "tactic assessor (stage 3: the tactic and the candidates' ranking)",
}
KEY_PREFIX = "llm|"
"""Prefix of an LLM-played session's key in the store (never the key of a rule-played one)."""


@dataclass(frozen=True, slots=True)
class RoleChoice:
    """Which of ASTRA's LLM roles a model plays, and the endpoints given for some of them.

    Attributes:
        roles: The roles played by a model, in `ROLE_STAGES` order (the others are rule twins).
        overrides: ``ROLE=SPEC`` per-role endpoints, as `parley run`'s --llm-role takes them.
        explicit: Whether --llm-role chose the roles (else every role plays).
    """

    roles: tuple[str, ...]
    overrides: tuple[str, ...] = ()
    explicit: bool = False

    @property
    def stages(self) -> tuple[str, ...]:
        """The `astra-llm` stages of the chosen roles."""
        return tuple(ROLE_STAGES[role] for role in self.roles)


def choose_roles(entries: Sequence[str]) -> RoleChoice:
    """The roles --llm-role entries choose: each is ROLE or ROLE=SPEC, ROLE a role name
    (``astra_tactic``) or its stage's (``tactics``); no entry chooses every role.

    Raises:
        ScenarioError: an unknown role, an empty spec, or a role given twice.
    """
    if not entries:
        return RoleChoice(tuple(ROLE_STAGES))
    roles, overrides = parse_role_entries(entries, tuple(ROLE_STAGES), _role)
    return RoleChoice(roles, overrides, explicit=True)


def _role(name: str) -> str:
    key = name.strip().lower()
    for role, stage in ROLE_STAGES.items():
        if key in (role, stage):
            return role
    known = ", ".join(f"{role} ({stage})" for role, stage in ROLE_STAGES.items())
    raise ScenarioError(f"--llm-role: {name[:80]!r} is not one of ASTRA's LLM roles; expected one of {known}")


# -- playing ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayedRun:
    """One session's record and, when a model played ASTRA's stages, its usage by role.

    Attributes:
        record: The session's record.
        usage: Per LLM role, that session's totals (None: a rule-played session).
    """

    record: RunRecord
    usage: Mapping[str, UsageTotals] | None = None

    @property
    def fallback_share(self) -> float | None:
        """The rule twins' share of this session's LLM decisions (None: no LLM decision)."""
        if self.usage is None:
            return None
        decisions = sum(t.decisions for t in self.usage.values())
        return sum(t.fallbacks for t in self.usage.values()) / decisions if decisions else None

    @property
    def fell_back(self) -> bool:
        """Whether any role of this session fell back at least once."""
        return self.usage is not None and any(t.fallbacks for t in self.usage.values())

    @property
    def session(self) -> str:
        """The session's name in usage summaries: study-partner-scenario-seed."""
        return f"{self.record.study}-{self.record.partner}-{self.record.scenario}-{self.record.seed}"


def plays_llm(spec: RunSpec) -> bool:
    """Whether a model plays this session's evaluated agent (every session of `LLM_SYSTEM`)."""
    return spec.agent == LLM_SYSTEM


def llm_key(spec: RunSpec) -> str:
    """The store key of an LLM-played session."""
    return KEY_PREFIX + dataclass_key(spec)


@dataclass(frozen=True, slots=True)
class LLMTask:
    """One LLM-played session as a batch task: ``astra-llm`` with the spec's tuned options in the
    system's seat, on a fresh session of runtime; its row is the record plus its usage by role.

    It holds the runtime (and so its HTTP clients), so it runs in this process only.
    """

    runtime: LLMRuntime
    stages: tuple[str, ...]

    def __call__(self, spec: RunSpec) -> list[Row]:
        """Play spec and return its one row.

        Raises:
            LLMError: a replay miss, or a fallback under --llm-strict.
        """
        session = self.runtime.session(llm_key(spec))
        summaries: list[UsageSummary] = []

        def finish(result: SessionResult) -> None:
            summaries.append(session.finish(result.trajectory))

        options = {**dict(spec.options), "llm": session, "stages": list(self.stages)}
        record = run_one(spec, override=AgentOverride(LLM_AGENT, options), on_result=finish)
        by_role = {role: totals.to_json() for role, totals in sorted(summaries[0].by_role.items())}
        return [{**record_row(record), "llm": by_role}]


def run_with_llm(
    specs: Sequence[RunSpec],
    runtime: LLMRuntime,
    choice: RoleChoice,
    *,
    jobs: int = 1,
    progress: ProgressCallback | None = None,
    store: TaskStore | None = None,
    scheduler: str | None = None,
) -> list[PlayedRun]:
    """Play every spec not yet in store and return them in spec order, read back from the store.

    Rule-played sessions run as `run_experiment` runs them (jobs processes or a Dask scheduler);
    the `astra` system's sessions run with its LLM stages in this process, one at a time, each
    stored as soon as it ends (a stopped run loses at most the session under way).

    Raises:
        LLMError: a replay miss or a fallback under --llm-strict (every stored session is kept).
        As `parley.experiments.llm_roles.run_split`.
    """
    rows = run_split(
        specs,
        plays_llm=plays_llm,
        rule_task=run_task,
        llm_task=LLMTask(runtime, choice.stages),
        llm_key=llm_key,
        store=store,
        jobs=jobs,
        scheduler=scheduler,
        progress=progress,
    )
    return [_played(stored) for stored in rows]


def _played(rows: Sequence[Row]) -> PlayedRun:
    """A stored task's one row as a `PlayedRun`.

    Raises:
        ScenarioError: the stored usage is not what `LLMTask` writes (a store edited by hand).
    """
    (row,) = rows
    record = record_from_row(RunRecord, row)
    return PlayedRun(record, row_usage(row, str(record.seed)))


# -- summaries and the report ------------------------------------------------------------------------------


def usage_summary(played: Sequence[PlayedRun]) -> UsageSummary:
    """Totals over every LLM-played session, overall and by role (by_session: by record seed and
    partner), for the fallback lines at the end of the command."""
    return summarise(llm_sessions(played))


def csv_columns(played: Sequence[PlayedRun]) -> list[dict[str, object]]:
    """Per session, the runs CSV's LLM columns: decisions, fallbacks and the fallback share (empty
    for a rule-played session)."""
    columns: list[dict[str, object]] = []
    for run in played:
        usage = run.usage or {}
        share = run.fallback_share
        columns.append(
            {
                "llm_decisions": sum(t.decisions for t in usage.values()) if run.usage is not None else "",
                "llm_fallbacks": sum(t.fallbacks for t in usage.values()) if run.usage is not None else "",
                "llm_fallback_share": round(share, 6) if share is not None else "",
            }
        )
    return columns


@dataclass(frozen=True, slots=True)
class SectionContext:
    """What the "LLM roles" section says about how the run was set up.

    Attributes:
        choice: The roles a model played.
        models: The model configured per role (shown when a role never got a reply).
        jobs: --jobs of the command (the rule-played sessions' workers).
        scheduler: Whether a Dask scheduler ran the rule-played sessions.
    """

    choice: RoleChoice
    models: Mapping[str, str]
    jobs: int = 1
    scheduler: bool = False


def llm_section(played: Sequence[PlayedRun], context: SectionContext) -> list[str]:
    """Markdown: which stages a model played, and per role its model, calls, tokens, latency and
    fallback share with a Wilson 95% interval, and the share of sessions where any role fell back
    (`parley.experiments.llm_roles.roles_section`)."""
    sessions = llm_sessions(played)
    text = SectionText(
        played=f"In every session of the `{LLM_SYSTEM}` system ({len(sessions)} here: table 1 and, when "
        f"played, the tournament sessions where ASTRA is the evaluated agent) agent `{LLM_AGENT}` played "
        "ASTRA with a model in these stages",
        role_text=ROLE_TEXT,
        others="Rule twins played the others",
        setup="ASTRA's asking, acceptance, walk-away and BATNA-floor rules, its stage-2 optimiser and "
        "its tuned values are unchanged; the ablation, the time-based baseline and every partner "
        "(ASTRA's self-play partner included) are rule-based.",
        decider="stage",
        closing=" The per-session share is the `llm_fallback_share` column of the runs CSV.",
    )
    return roles_section(
        sessions, text, context.choice.roles, context.models, jobs=context.jobs, scheduler=context.scheduler
    )


def fallback_lines(played: Sequence[PlayedRun]) -> list[str]:
    """One line per role that fell back (as `parley run` prints them)."""
    return usage_summary(played).fallback_lines()


def all_fallback_roles(played: Sequence[PlayedRun]) -> list[str]:
    """Roles that decided something and never once with the model."""
    return usage_summary(played).all_fallback_roles()

"""The delegate's LLM roles in the GAIA experiment: which roles a model plays (`RoleChoice`), the
headline Table 1 sessions played with them in this process (resumable through the batch store), and
the report's "LLM roles" section (per-role usage and fallback shares, with Wilson intervals)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from parley.errors import ScenarioError
from parley.experiments.batch import Row, TaskStore, dataclass_key
from parley.experiments.gaia.runs import CONDITIONS, SessionSpec, run_one, run_session_task
from parley.experiments.llm_roles import (
    SectionText,
    llm_sessions,
    parse_role_entries,
    roles_section,
    row_usage,
    run_split,
    summarise,
)
from parley.governance.config import load_config
from parley.llm.accounting import UsageSummary, UsageTotals
from parley.llm.roles.gaia_common import CRITIC_ROLE, DRAFTER_ROLE, EXTRACTOR_ROLE, GAIA_ROLES, MODERATOR_ROLE

if TYPE_CHECKING:
    from parley.governance.config import DomainConfig
    from parley.governance.session import DelegateRoles
    from parley.llm.config import LLMRuntime

ROLE_TEXT: dict[str, str] = {
    DRAFTER_ROLE: "drafter (the delegate's messages; every draft still passes the preflight)",
    EXTRACTOR_ROLE: "extractor (field values, combined with the pattern extractor by the dual rule)",
    MODERATOR_ROLE: "moderator (the label of each counterparty message)",
    CRITIC_ROLE: "critic (clarity and persuasion tactics)",
}
"""The delegate's LLM roles (usage and endpoint names) and what each plays, in `GAIA_ROLES` order."""
KEY_PREFIX = "llm|"
"""Prefix of an LLM-played session's key in the store (never the key of a rule-played one)."""
HEADLINE = CONDITIONS[0]
"""The arm whose sessions a model plays (the ablations, baseline, share and sensitivity stay rule-based)."""


@dataclass(frozen=True, slots=True)
class RoleChoice:
    """Which of the delegate's LLM roles a model plays, and the endpoints given for some of them.

    Attributes:
        roles: The roles played by a model, in `GAIA_ROLES` order (the others stay rule-based).
        overrides: ``ROLE=SPEC`` per-role endpoints, as `parley run`'s --llm-role takes them.
        explicit: Whether --llm-role chose the roles (else every role plays).
    """

    roles: tuple[str, ...]
    overrides: tuple[str, ...] = ()
    explicit: bool = False


def choose_roles(entries: Sequence[str]) -> RoleChoice:
    """The roles --llm-role entries choose: each is ROLE or ROLE=SPEC (ROLE one of `GAIA_ROLES`);
    no entry chooses every role.

    Raises:
        ScenarioError: an unknown role, an empty spec, or a role given twice.
    """
    if not entries:
        return RoleChoice(GAIA_ROLES)
    roles, overrides = parse_role_entries(entries, GAIA_ROLES, _role)
    return RoleChoice(roles, overrides, explicit=True)


def _role(name: str) -> str:
    role = name.strip().lower()
    if role not in GAIA_ROLES:
        raise ScenarioError(
            f"--llm-role: {name[:80]!r} is not one of GAIA's LLM roles; "
            f"expected one of {', '.join(GAIA_ROLES)}"
        )
    return role


# -- playing ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayedSession:
    """One session's record and, when a model played the delegate's roles, its usage by role.

    Attributes:
        record: The session's record (as `run_session_task` returns it).
        usage: Per LLM role, that session's totals (None: a rule-played session).
    """

    record: dict[str, Any]
    usage: Mapping[str, UsageTotals] | None = None

    @property
    def fell_back(self) -> bool:
        """Whether any role of this session fell back at least once."""
        return self.usage is not None and any(t.fallbacks for t in self.usage.values())

    @property
    def session(self) -> str:
        """The session's name in usage summaries: domain-persona-seed."""
        return f"{self.record.get('domain')}-{self.record.get('persona')}-{self.record.get('seed')}"


def plays_llm(spec: SessionSpec, strategy: str) -> bool:
    """Whether a model plays this session's delegate roles: the headline Table 1 arm of strategy."""
    return spec.kind == "table1" and spec.condition == HEADLINE and spec.strategy == strategy


def llm_key(spec: SessionSpec) -> str:
    """The store key of an LLM-played session."""
    return KEY_PREFIX + dataclass_key(spec)


@dataclass(frozen=True, slots=True)
class LLMTask:
    """One LLM-played session as a batch task: `run_one` with the chosen roles LLM-backed on a fresh
    session of runtime; its row is the record plus its usage by role.

    It holds the runtime (and so its HTTP clients), so it runs in this process only.
    """

    runtime: LLMRuntime
    roles: tuple[str, ...]

    def __call__(self, spec: SessionSpec) -> list[Row]:
        """Play spec and return its one row.

        Raises:
            LLMError: a replay miss, or a fallback under --llm-strict.
        """
        from parley.llm.gaia import llm_delegate_roles
        from parley.protocol.events import Trajectory

        session = self.runtime.session(llm_key(spec))

        def plugged(config: DomainConfig, slip_rate: float) -> DelegateRoles:
            return llm_delegate_roles(config, session, self.roles, seed=spec.seed, slip_rate=slip_rate)

        record = run_one(
            load_config(spec.domain), spec.persona, spec.seed, spec.condition, spec.strategy, roles=plugged
        )
        summary = session.finish(Trajectory())
        by_role = {role: totals.to_json() for role, totals in sorted(summary.by_role.items())}
        return [{**record, "llm": by_role}]


def run_with_llm(
    specs: Sequence[SessionSpec],
    runtime: LLMRuntime,
    choice: RoleChoice,
    strategy: str,
    *,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    store: TaskStore | None = None,
    scheduler: str | None = None,
) -> list[PlayedSession]:
    """Play every spec not yet in store and return them in spec order, read back from the store.

    Rule-played sessions run as `run_sessions` runs them (jobs processes or a Dask scheduler); the
    headline arm's sessions run with the LLM roles in this process, one at a time, each stored as
    soon as it ends (a stopped run loses at most the session under way).

    Raises:
        LLMError: a replay miss or a fallback under --llm-strict (every stored session is kept).
        As `parley.experiments.llm_roles.run_split`.
    """
    rows = run_split(
        specs,
        plays_llm=lambda spec: plays_llm(spec, strategy),
        rule_task=run_session_task,
        llm_task=LLMTask(runtime, choice.roles),
        llm_key=llm_key,
        store=store,
        jobs=jobs,
        scheduler=scheduler,
        progress=progress,
    )
    return [_played(stored) for stored in rows]


def _played(rows: Sequence[Row]) -> PlayedSession:
    """A stored task's one row as a `PlayedSession`.

    Raises:
        ScenarioError: the stored usage is not what `LLMTask` writes (a store edited by hand).
    """
    (row,) = rows
    record = {key: value for key, value in row.items() if key != "llm"}
    return PlayedSession(record, row_usage(row, repr(record.get("seed"))))


# -- summaries and the report ------------------------------------------------------------------------------


def usage_summary(played: Sequence[PlayedSession]) -> UsageSummary:
    """Totals over every LLM-played session, overall, by role and by session (domain, persona, seed)."""
    return summarise(llm_sessions(played))


@dataclass(frozen=True, slots=True)
class SectionContext:
    """What the "LLM roles" section says about how the run was set up.

    Attributes:
        choice: The roles a model played.
        models: The model configured per role (shown when a role never got a reply).
        strategy: The delegate's strategy in the LLM-played sessions.
        jobs: --jobs of the command (the rule-played sessions' workers).
        scheduler: Whether a Dask scheduler ran the rule-played sessions.
    """

    choice: RoleChoice
    models: Mapping[str, str]
    strategy: str
    jobs: int = 1
    scheduler: bool = False


def llm_section(played: Sequence[PlayedSession], context: SectionContext) -> list[str]:
    """Markdown: which roles a model played, and per role its model, calls, tokens, latency and
    fallback share with a Wilson 95% interval, and the share of sessions where any role fell back
    (`parley.experiments.llm_roles.roles_section`)."""
    sessions = llm_sessions(played)
    text = SectionText(
        played=f"In every Table 1 session of the `{HEADLINE.name}` arm with the `{context.strategy}` "
        f"strategy ({len(sessions)} here) a model played these delegate roles",
        role_text=ROLE_TEXT,
        others="The rule-based ones played the others",
        setup="The LLM drafter does not slip on purpose as the experiment's simulated drafter does, so "
        "this arm's preflight figures measure the model's drafts, not the slip model. The ablations, "
        "the other strategy's baseline, the principal's-share and the sensitivity sessions are "
        "rule-based.",
    )
    return roles_section(
        sessions, text, context.choice.roles, context.models, jobs=context.jobs, scheduler=context.scheduler
    )


def fallback_lines(played: Sequence[PlayedSession]) -> list[str]:
    """One line per role that fell back (as `parley run` prints them)."""
    return usage_summary(played).fallback_lines()


def all_fallback_roles(played: Sequence[PlayedSession]) -> list[str]:
    """Roles that decided something and never once with the model."""
    return usage_summary(played).all_fallback_roles()

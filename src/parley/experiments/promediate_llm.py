"""ProMediate conversations with LLM-backed roles, for `parley mediate` and `parley experiment promediate`.

`ConversationRoles` says which roles an LLM plays; `play_conversation` builds them (each falls back
to its deterministic twin), plays, judges MI and scores; `run_llm_cells` plays a grid's LLM-backed
conversations on threads, writing each row to a resumable `RowStore`; `llm_section` reports usage per
condition and role (`parley.experiments.llm_roles.usage_lines`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parley.errors import ScenarioError
from parley.experiments.llm_roles import SessionUsage, stored_usage, table_cell, usage_lines
from parley.experiments.promediate import Cell, conversation_row, promediate_case, seed_list
from parley.llm.accounting import UsageSummary
from parley.llm.roles.promediate_common import (
    AGREEMENT_ROLE,
    ATTITUDE_ROLE,
    INTELLIGENCE_ROLE,
    MEDIATOR_ROLE,
    PARTICIPANT_ROLE,
)
from parley.mediation.mediators import create_mediator
from parley.metrics.consensus import (
    ConversationMetrics,
    conversation_metrics,
    read_record,
    recorded_series,
)
from parley.protocol.events import Event
from parley.scenarios.model import Scenario
from parley.simulation.conversation import ConversationResult, public_options, run_conversation
from parley.simulation.modes import ConflictMode

if TYPE_CHECKING:
    from parley.llm.config import LLMRuntime
    from parley.llm.context import LLMSession
    from parley.mediation.conversation import ConversationMediator
    from parley.metrics.consensus import InterventionScore
    from parley.simulation.consensus import AgreementScorer, AttitudeExtractor
    from parley.simulation.participants import Participant

logger = logging.getLogger(__name__)

RowKey = tuple[str, str, str, int]
"""(case, mode, mediator, run) of one conversation."""


def parse_participants(choice: str) -> tuple[str, ...] | None:
    """--participants: None for rule, () for all LLM-backed, else the named parties.

    Raises:
        ScenarioError: neither rule, llm nor llm:NAME,NAME.
    """
    kind, _, names = choice.strip().partition(":")
    if kind.lower() == "rule" and not names:
        return None
    if kind.lower() != "llm":
        raise ScenarioError(f"--participants expects rule, llm or llm:NAME,NAME; got {choice!r}")
    return tuple(n.strip() for n in names.split(",") if n.strip())


@dataclass(frozen=True, slots=True)
class ConversationRoles:
    """Which ProMediate roles besides the mediator an LLM plays.

    Attributes:
        participants: "rule", "llm" (every party) or "llm:NAME,NAME" (those parties only).
        consensus: "rule" or "llm" (attitude extraction and agreement scoring; CC, TLE, RL and ME
            are then computed on the consensus the LLM tracked).
        judge: MI by the "rubric" or an "llm" judge.
    """

    participants: str = "rule"
    consensus: str = "rule"
    judge: str = "rubric"

    def __post_init__(self) -> None:
        parse_participants(self.participants)
        if self.consensus not in ("rule", "llm"):
            raise ScenarioError(f"--consensus expects rule or llm, got {self.consensus!r}")
        if self.judge not in ("rubric", "llm"):
            raise ScenarioError(f"--judge expects rubric or llm, got {self.judge!r}")

    def uses_llm(self, mediator: str) -> bool:
        """Whether a conversation with this mediator needs an LLM."""
        return (
            is_llm_mediator(mediator)
            or parse_participants(self.participants) is not None
            or "llm" in (self.consensus, self.judge)
        )

    def to_json(self) -> dict[str, str]:
        """The choices, as the row store's header keeps them."""
        return {"participants": self.participants, "consensus": self.consensus, "judge": self.judge}


def is_llm_mediator(name: str) -> bool:
    """Whether name is an LLM-backed mediator ("llm-generic", "llm-social")."""
    return name.strip().lower().startswith("llm")


@dataclass(frozen=True, slots=True)
class PlayedConversation:
    """A finished conversation with its metrics and, when an LLM took part, its usage."""

    result: ConversationResult
    metrics: ConversationMetrics
    usage: UsageSummary | None


def play_conversation(
    case: Scenario,
    mediator: str,
    mode: ConflictMode,
    seed: int,
    roles: ConversationRoles,
    llm: LLMSession | None,
    *,
    on_event: Callable[[Event], None] | None = None,
) -> PlayedConversation:
    """Play one conversation with the LLM roles asked for, judge MI, and score it.

    Raises:
        ScenarioError: an LLM role is asked for but llm is None, or an unknown mediator or party.
        LLMError: a replay miss (raised once the conversation has ended).
    """
    names = parse_participants(roles.participants)
    extractor, scorer = _consensus_roles(roles.consensus, case, llm)
    result = run_conversation(
        case,
        _mediator(mediator, llm),
        mode=mode,
        seed=seed,
        participants=_participants(names, case, llm, mode, seed),
        on_event=on_event,
        extractor=extractor,
        scorer=scorer,
    )
    intelligence = _judged(result, llm) if roles.judge == "llm" else None
    usage = llm.finish(result.trajectory) if llm is not None else None
    series = recorded_series(result.trajectory) if roles.consensus == "llm" else None
    metrics = conversation_metrics(result.trajectory, series=series, intelligence=intelligence)
    return PlayedConversation(result, metrics, usage)


def _needs_llm(what: str) -> ScenarioError:
    return ScenarioError(f"{what} needs an LLM: pass --llm SPEC (or --replay DIR)")


def _mediator(name: str, llm: LLMSession | None) -> ConversationMediator:
    if not is_llm_mediator(name):
        return create_mediator(name)
    from parley.llm.promediate import create_llm_mediator

    if llm is None:
        raise _needs_llm(f"mediator {name!r}")
    return create_llm_mediator(name, llm)


def _consensus_roles(
    choice: str, case: Scenario, llm: LLMSession | None
) -> tuple[AttitudeExtractor | None, AgreementScorer | None]:
    if choice == "rule":
        return None, None
    if llm is None:
        raise _needs_llm("--consensus llm")
    from parley.llm.promediate import LLMAgreementScorer, LLMAttitudeExtractor

    return LLMAttitudeExtractor(llm, public_options(case)), LLMAgreementScorer(llm)


def _participants(
    names: tuple[str, ...] | None, case: Scenario, llm: LLMSession | None, mode: ConflictMode, seed: int
) -> dict[str, Participant] | None:
    if names is None:
        return None
    if llm is None:
        raise _needs_llm("LLM participants")
    from parley.llm.promediate import llm_participants

    return llm_participants(case, llm, mode=mode, seed=seed, names=names or None)


def _judged(result: ConversationResult, llm: LLMSession | None) -> list[InterventionScore]:
    if llm is None:
        raise _needs_llm("--judge llm")
    from parley.llm.promediate import LLMIntelligenceJudge

    return [j.score for j in LLMIntelligenceJudge(llm).judge_all(read_record(result.trajectory))]


# -- the experiment's LLM-backed conversations ----------------------------------------------------------


class RowStore:
    """Finished conversations, one JSON line each, appended as each completes (thread-safe).

    The first line records the role choices; reopening the file with the same choices resumes
    (its rows count as done), with other choices is an error.

    Raises:
        ScenarioError: the file was written with other role choices.
    """

    def __init__(self, path: Path, roles: ConversationRoles) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.rows: list[dict[str, Any]] = self._load(roles.to_json())

    def _load(self, settings: Mapping[str, str]) -> list[dict[str, Any]]:
        if not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"settings": settings}) + "\n", encoding="utf-8")
            return []
        header, *lines = self.path.read_text(encoding="utf-8").splitlines()
        found = json.loads(header).get("settings")
        if found != settings:
            raise ScenarioError(
                f"{self.path} holds conversations played with {found}, not {dict(settings)}; "
                "pass another --out or delete it"
            )
        rows: list[dict[str, Any]] = []
        for number, line in enumerate(lines, start=2):
            try:
                rows.append(json.loads(line))
            except ValueError:  # a line cut short by a crash: that conversation is played again
                logger.warning("%s:%d: unreadable row skipped", self.path, number)
        return rows

    def done(self) -> set[RowKey]:
        """Keys of the conversations already stored."""
        with self._lock:
            return {(r["case"], r["mode"], r["mediator"], int(r["run"])) for r in self.rows}

    def append(self, row: dict[str, Any]) -> None:
        """Write one finished conversation."""
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
            self.rows.append(row)


def run_llm_cells(
    cells: Sequence[Cell],
    runs: int | Sequence[int],
    runtime: LLMRuntime,
    roles: ConversationRoles,
    store: RowStore,
    *,
    concurrency: int = 4,
    on_row: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """Play every seed of cells (`runs`: a count 0..N-1 or the seeds) not yet in store on
    `concurrency` threads; returns every stored row.

    Raises:
        LLMError: a replay miss or an endpoint that cannot be used (rows finished so far are kept).
    """
    done = store.done()
    pending = [
        (cell, run)
        for cell in cells
        for run in seed_list(runs)
        if (cell.case, cell.mode, cell.mediator, run) not in done
    ]
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="promediate") as pool:
        futures = [pool.submit(_play_row, cell, run, runtime, roles, store) for cell, run in pending]
        _wait(futures, on_row)
    return list(store.rows)


def _wait(futures: Sequence[Future[None]], on_row: Callable[[], None] | None) -> None:
    try:
        for future in as_completed(futures):
            future.result()
            if on_row is not None:
                on_row()
    except BaseException:
        for future in futures:
            future.cancel()  # conversations under way finish and are stored; the rest never start
        raise


def _play_row(cell: Cell, run: int, runtime: LLMRuntime, roles: ConversationRoles, store: RowStore) -> None:
    started = time.perf_counter()
    llm = runtime.session(f"{cell.case}-{cell.mode}-{cell.mediator}-{run}")
    played = play_conversation(
        promediate_case(cell.case), cell.mediator, ConflictMode(cell.mode), run, roles, llm
    )
    row = conversation_row(cell, run, played.result, played.metrics, time.perf_counter() - started)
    assert played.usage is not None
    row["llm"] = played.usage.to_json()["by_role"]
    store.append(row)


# -- report -------------------------------------------------------------------------------------------

ROLE_ORDER = (MEDIATOR_ROLE, PARTICIPANT_ROLE, ATTITUDE_ROLE, AGREEMENT_ROLE, INTELLIGENCE_ROLE)
"""ProMediate's LLM roles (usage and --llm-role names), in the order the report lists them."""


@dataclass(frozen=True, slots=True)
class PlayedRoles:
    """The LLM roles a run plays (a `parley.experiments.llm_roles.ChosenRoles`)."""

    roles: tuple[str, ...]


def condition_roles(roles: ConversationRoles, mediator: str) -> tuple[str, ...]:
    """The LLM roles a conversation with this mediator plays, in `ROLE_ORDER`."""
    played = {
        MEDIATOR_ROLE: is_llm_mediator(mediator),
        PARTICIPANT_ROLE: parse_participants(roles.participants) is not None,
        ATTITUDE_ROLE: roles.consensus == "llm",
        AGREEMENT_ROLE: roles.consensus == "llm",
        INTELLIGENCE_ROLE: roles.judge == "llm",
    }
    return tuple(role for role in ROLE_ORDER if played[role])


def played_roles(roles: ConversationRoles, mediators: Sequence[str]) -> PlayedRoles:
    """Every LLM role some condition of mediators plays (for `llm_roles.configured_models`)."""
    chosen = {role for mediator in mediators for role in condition_roles(roles, mediator)}
    return PlayedRoles(tuple(role for role in ROLE_ORDER if role in chosen))


def llm_section(
    rows: Sequence[Mapping[str, Any]],
    roles: ConversationRoles,
    concurrency: int,
    models: Mapping[str, str] | None = None,
) -> list[str]:
    """Markdown: which roles an LLM played and, per condition (mediator) and role, its model, calls,
    tokens, latency, cost, decisions and fallback share with a Wilson 95% interval and the causes
    (`llm_roles.usage_lines`), and the share of conversations in which any role fell back.

    Args:
        rows: Every conversation's row; those with an ``llm`` entry (usage by role) were LLM-backed.
        models: The model configured per role (shown, marked, for a role that never got a reply).

    Raises:
        ScenarioError: a row's stored usage is not what `run_llm_cells` writes (a file edited by hand).
    """
    llm_rows = [r for r in rows if "llm" in r]
    played = [
        *(f"mediator ({m})" for m in dict.fromkeys(r["mediator"] for r in llm_rows) if is_llm_mediator(m)),
        *([f"participants ({roles.participants})"] if roles.participants != "rule" else []),
        *(["consensus (attitude extraction and agreement scoring)"] if roles.consensus == "llm" else []),
        *(["MI judge"] if roles.judge == "llm" else []),
    ]
    lines = [
        "## LLM roles and usage",
        "",
        f"LLM-backed here: {', '.join(played)}; {len(llm_rows)} LLM-backed conversations, up to "
        f"{concurrency} at a time. Every other role is its deterministic twin. An LLM role whose reply "
        "is unusable, or whose endpoint fails, is answered by its twin for that decision (a fallback). "
        + (
            "CC, TLE, RL and ME are computed on the consensus the LLM tracked. "
            if roles.consensus == "llm"
            else ""
        )
        + "Per condition and role, totals over every run: the fallback share is the twins' share of "
        "the role's decisions (Wilson 95% interval, which treats decisions as independent; decisions "
        "within a conversation are not, so the per-conversation share below each table is the safer "
        "view). A live model's replies vary between runs: only a run recorded with --record and "
        "replayed with --replay reproduces this section exactly.",
        "",
    ]
    for mediator in dict.fromkeys(r["mediator"] for r in llm_rows):
        usage = [_row_usage(r) for r in llm_rows if r["mediator"] == mediator]
        lines += _condition_lines(str(mediator), usage, condition_roles(roles, str(mediator)), models or {})
    return lines


def _condition_lines(
    mediator: str,
    usage: Sequence[SessionUsage],
    expected: Sequence[str],
    models: Mapping[str, str],
) -> list[str]:
    seen = {role for _, conversation in usage for role in conversation}
    listed = [role for role in ROLE_ORDER if role in expected or role in seen]
    listed += sorted(role for role in seen if role not in ROLE_ORDER)
    return [
        f"### Condition `{table_cell(mediator)}` ({len(usage)} conversations)",
        "",
        *usage_lines(usage, listed, models, unit="Conversations"),
        "",
    ]


def _row_usage(row: Mapping[str, Any]) -> SessionUsage:
    """A stored row's conversation (case-mode-mediator-run) and usage by role, role names made safe
    for a table cell.

    Raises:
        ScenarioError: the stored usage is malformed.
    """
    where = "-".join(str(row.get(key))[:40] for key in ("case", "mode", "mediator", "run"))
    try:
        usage = stored_usage(row["llm"])
    except ValueError as error:
        raise ScenarioError(
            f"the conversation store holds malformed LLM usage for {table_cell(where)} ({error}); delete it"
        ) from None
    return where, {table_cell(role): totals for role, totals in usage.items()}

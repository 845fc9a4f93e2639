"""`parley delegate run CONFIG --counterparty a,b,c [--parallel] [--json]`: several counterparties for one
principal (`parley.governance.portfolio`), with the comparison table and the recommendation."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from parley.cli.delegate import WallClock, console, fail, render_request
from parley.errors import ParleyError
from parley.governance.safe_text import printable

if TYPE_CHECKING:
    from parley.governance.config import DomainConfig
    from parley.governance.escalation import Principal
    from parley.governance.portfolio import PortfolioOutcome
    from parley.governance.session import DelegateRoles
    from parley.llm.context import LLMSession


def run_portfolio_command(
    domain: DomainConfig,
    config_source: str,
    spec: str,
    principal: Principal,
    db: Path,
    *,
    seed: int,
    parallel: bool,
    as_json: bool,
    flags: dict[str, Any],
) -> None:
    """Run one session per counterparty of spec (a comma list), compare them, show the recommendation."""
    from parley.governance.counterparties import SimulatedCounterparty
    from parley.governance.portfolio import member_seed, parse_counterparties, run_portfolio
    from parley.governance.store import SessionStore

    try:
        names = parse_counterparties(spec)
        parties = [SimulatedCounterparty(domain, n, member_seed(seed, i)) for i, n in enumerate(names)]
        with _member_roles(domain, flags, names, seed) as (roles, llm_sides):
            outcome = run_portfolio(
                domain, parties, principal, SessionStore(db), config_source=config_source, seed=seed,
                parallel=parallel, clock=WallClock(), on_message=None if as_json else _print_message,
                roles=roles,
            )  # fmt: skip
            _show(outcome, domain, db, parallel=parallel, as_json=as_json)
            for llm in () if as_json else llm_sides:
                _print_usage(llm)
    except ParleyError as error:
        fail(str(error))


def _print_message(session_id: str, speaker: str, text: str) -> None:
    style = "cyan" if speaker == "delegate" else "green"
    console.print(f"[dim]{escape(session_id)}[/] [bold {style}]{speaker}:[/] {escape(printable(text))}")


@contextmanager
def _member_roles(
    domain: DomainConfig, flags: dict[str, Any], names: Sequence[str], seed: int
) -> Generator[tuple[Callable[[int], DelegateRoles | None] | None, list[LLMSession]]]:
    """Per session, LLM-backed delegate roles of its own (one runtime, one LLM session each), so no
    model context is shared between counterparties; none without an LLM flag."""
    from parley.cli.llm import any_llm_flag, open_runtime

    if flags["roles"] is None and not any_llm_flag(flags):
        yield None, []
        return
    from parley.governance.portfolio import member_seed
    from parley.llm.gaia import GAIA_ROLES, llm_delegate_roles, parse_roles

    chosen = parse_roles(flags["roles"]) if flags["roles"] is not None else GAIA_ROLES
    with open_runtime(flags) as runtime:
        sides = [
            runtime.session(f"{domain.name}-{name}-s{member_seed(seed, i)}") for i, name in enumerate(names)
        ]
        yield (
            lambda i: llm_delegate_roles(domain, sides[i], chosen, seed=member_seed(seed, i)),
            sides,
        )


def _print_usage(llm: LLMSession) -> None:
    from parley.protocol.events import Trajectory

    usage = llm.finish(Trajectory())
    console.print(f"LLM usage ({llm.session_id}):", markup=False)
    console.print(usage.render(), markup=False, highlight=False)


def _show(
    outcome: PortfolioOutcome, domain: DomainConfig, db: Path, *, parallel: bool, as_json: bool
) -> None:
    if as_json:
        from parley.jsonio import dumps

        typer.echo(dumps({"config": domain.name, "parallel": parallel, **outcome.to_json()}))
        return
    how = "interleaved turn by turn" if parallel else "one after another"
    count = len(outcome.candidates)
    console.print(f"portfolio [bold]{escape(outcome.portfolio_id)}[/]: {count} sessions, {how}")
    console.print(comparison_table(outcome, domain), soft_wrap=False)
    _show_recommendation(outcome, db)


def comparison_table(outcome: PortfolioOutcome, domain: DomainConfig) -> Table:
    """One row per session (its id names the counterparty): rank among the held offers, state (or the
    request it awaits), turns, weighted TCI, terms, moderator flags and the principal's score of the terms."""
    from parley.governance.portfolio import position_text

    table = Table("#", "session", "state", "turns", "TCI", "terms", "flags", "score", box=box.SIMPLE_HEAD)
    for column in (table.columns[1], table.columns[6]):  # (ids and labels stay whole, folded if narrow)
        column.overflow = "fold"
    ranks = {session_id: str(i) for i, session_id in enumerate(outcome.ranking, 1)}
    for row in outcome.candidates:
        cells = (
            ranks.get(row.member.session_id, ""),
            row.member.session_id,
            row.state_text,
            str(row.turns),
            f"{row.tci_weighted:.2f}",
            position_text(domain, row),
            row.flags_text() or row.note,
            f"{row.score:.2f}" if row.score is not None else "",
        )
        table.add_row(*(escape(printable(cell)) for cell in cells))
    return table


def _show_recommendation(outcome: PortfolioOutcome, db: Path) -> None:
    pid, shown_db = escape(outcome.portfolio_id), escape(str(db))
    if outcome.pending is not None:
        render_request(outcome.pending)
        console.print(
            f"decide with: parley delegate decide {pid} --request {escape(outcome.pending.request_id)} "
            f"--option A --db {shown_db}"
        )
    elif outcome.decision is not None:
        decision = outcome.decision
        console.print(
            f"recommendation {escape(decision.request_id)}: {escape(printable(decision.decided_by))} chose "
            f"option {decision.option}",
        )
    elif outcome.state.value == "NO_DEAL":
        console.print("no offer to recommend: every session ended without one")
    else:
        console.print(
            "no offer waits for approval yet; see the open requests with: "
            f"parley delegate inbox --db {shown_db}"
        )
    if outcome.chosen is not None:
        console.print(f"portfolio [bold]{pid}[/]: {outcome.state.value} with {escape(outcome.chosen)}")
        from parley.jsonio import dumps

        console.print(f"terms: {dumps(outcome.terms)}", markup=False)
    elif outcome.decision is not None:
        console.print(f"portfolio [bold]{pid}[/]: {outcome.state.value}")

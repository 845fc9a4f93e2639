"""`parley run`: play one scenario live, with a readable transcript and the final artefact."""

from __future__ import annotations

import logging
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from parley.cli.app import app
from parley.cli.common import console, fail, load
from parley.cli.options import (
    MAX_COUNT,
    AllowFallbackOption,
    BudgetSecondsOption,
    BudgetTokensOption,
    LLMConfigOption,
    LLMOption,
    LLMStrictOption,
    RecordOption,
    ReplayOption,
)
from parley.cli.scenarios import SCENARIO_HELP, FormatOption
from parley.errors import ParleyError
from parley.jsonio import NO_VALUE_FIELDS, JSONValueError, dumps

if TYPE_CHECKING:  # the game's modules load when a game is played, not for `parley --help`
    from parley.cli.display import TraceFormatter
    from parley.cli.human import AdviceHook
    from parley.language import Vocabulary
    from parley.protocol.judge import TerminationJudge
    from parley.protocol.session import Negotiator, OfferMediator, SessionResult
    from parley.scenarios.model import Scenario

HUMAN = "human"


def _trace_formatter() -> TraceFormatter | None:
    try:
        from parley.agents.astra import format_trace
    except ImportError:
        return None
    return format_trace


def _coach_hook(vocabulary: Vocabulary) -> AdviceHook:
    from parley.cli.coaching import coach_hook  # ASTRA's advice in plain words, in the person's own points

    return coach_hook(vocabulary)


def _negotiators(
    scenario: Scenario,
    agents: list[str],
    seed: int,
    coach: bool,
    options: Mapping[str, Mapping[str, Any]],
) -> dict[str, Negotiator]:
    from parley.cli.human import HumanNegotiator
    from parley.experiments.runner import build_negotiators
    from parley.language import Vocabulary

    machine = [a if a != HUMAN else "hardliner" for a in agents]
    try:  # a human's seat is first filled by a machine agent (this validates the names), then replaced
        negotiators = build_negotiators(scenario, machine, seed, options)
    except (ParleyError, ValueError) as error:
        fail(str(error))
    vocabulary = Vocabulary.from_scenario(scenario)
    advise = _coach_hook(vocabulary) if coach else None
    for party, agent in zip(scenario.party_names, agents, strict=True):
        if agent == HUMAN:
            negotiators[party] = HumanNegotiator(
                vocabulary, console, lambda prompt: console.input(f"{escape(prompt)}: "), advise=advise
            )
    return negotiators


def _summary(scenario: Scenario, result: SessionResult, agents: Mapping[str, str]) -> dict[str, Any]:
    from parley.metrics.bargaining import outcomes

    rows = outcomes(scenario, result, dict(agents))
    parties = [
        {
            "party": r.party,
            "agent": r.agent,
            "utility": r.utility,
            "normalized_utility": r.normalized_utility,
            "discounted_utility": r.discounted_utility,
            "below_batna": r.below_batna,
        }
        for r in rows
    ]
    summary: dict[str, Any] = {
        "scenario": scenario.name,
        **result.ended,
        "rounds": result.rounds,
        "parties": parties,
        "pareto_distance": rows[0].pareto_distance if rows else None,
        "nash_distance": rows[0].nash_distance if rows else None,
    }
    coalition = _coalition(result)
    if coalition is not None:  # (only then: results of other deals read as they did)
        summary["coalition"] = coalition
    return summary


def _coalition(result: SessionResult) -> dict[str, Any] | None:
    """The coalition the deal came from (k-of-n coalition sub-protocol), or None."""
    from parley.protocol.payloads import CoalitionFormed

    if result.agreement is None:
        return None
    for event in result.trajectory.of_kind("coalition_formed"):
        formed = event.payload
        agreement = result.agreement
        if isinstance(formed, CoalitionFormed) and (event.party, dict(formed.package)) == (
            agreement.proposer,
            dict(agreement.terms),
        ):
            return {"proposer": event.party, "members": list(formed.members)}
    return None


class _LLMPieces:
    """What LLM flags add to a run: agent options, judge, mediator, the usage summary hook and the
    fallback report (run once the result is shown and saved)."""

    def __init__(
        self,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        judge: TerminationJudge | None = None,
        mediator: OfferMediator | None = None,
        finish: Any = None,
        report: Any = None,
    ) -> None:
        self.options = options or {}
        self.judge = judge
        self.mediator = mediator
        self.finish = finish
        self.report = report


@contextmanager
def _llm(
    agents: Mapping[str, str],
    flags: Mapping[str, Any],
    session_id: str,
    allocation: Mapping[str, Any] | None = None,
) -> Generator[_LLMPieces]:
    from parley.cli.llm import LLM_AGENTS, any_llm_flag, open_runtime, report_fallbacks, wire_llm

    if not any(agent in LLM_AGENTS for agent in agents.values()) and not any_llm_flag(flags):
        yield _LLMPieces()
        return
    try:
        with open_runtime(flags, report=False) as runtime:
            wiring = wire_llm(runtime, session_id, agents, allocation)
            yield _LLMPieces(
                wiring.agent_options,
                wiring.judge,
                wiring.mediator,
                wiring.session.finish,
                lambda: report_fallbacks(runtime),
            )
    except ParleyError as error:
        fail(str(error))


@app.command("run")
def run(
    scenario_name: Annotated[str, typer.Argument(metavar="SCENARIO", help=SCENARIO_HELP)],
    agent: Annotated[
        list[str], typer.Option("--agent", "-a", help="Agent per party, in party order ('human' to play).")
    ],
    seed: Annotated[int, typer.Option(help="Seed for every random choice.")] = 0,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show each agent's private decision trace.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON instead of a transcript.")
    ] = False,
    save: Annotated[
        Path | None, typer.Option(help="Folder to save trajectory.jsonl and result.json in.")
    ] = None,
    coach: Annotated[
        bool, typer.Option("--coach", help="Show ASTRA's advice before each of your moves.")
    ] = False,
    max_rounds: Annotated[
        int | None, typer.Option(max=MAX_COUNT, help="Override the scenario's round cap.")
    ] = None,
    llm: LLMOption = None,
    llm_role: Annotated[
        list[str] | None, typer.Option(help="Per-role endpoint ROLE=SPEC (repeatable).")
    ] = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
    llm_budget_seconds: BudgetSecondsOption = None,
    llm_budget_tokens: BudgetTokensOption = None,
    llm_strict: LLMStrictOption = False,
    allow_fallback: AllowFallbackOption = False,
    format: FormatOption = None,
) -> None:
    """Play SCENARIO once with the given agents and show the transcript and the outcome.

    Exits with 1 when the game cannot be played as set up (an agent cannot play a space this large)
    or ends in a protocol violation: the transcript and result are still shown (and saved).
    """
    from parley.cli.display import TranscriptPrinter
    from parley.experiments.runner import run_negotiation

    if seed < 0:
        fail(f"--seed must not be negative, got {seed}")
    if max_rounds is not None and max_rounds < 1:
        fail(f"--max-rounds must be at least 1, got {max_rounds}")
    if save is not None:  # before the game, not after it
        from parley.cli.common import check_writable

        check_writable(save, "save to", folder=True)
    scenario = load(scenario_name, format)
    if len(agent) != len(scenario.parties):
        fail(
            f"{scenario.name} has {len(scenario.parties)} parties ({', '.join(scenario.party_names)}); "
            f"give one --agent per party, got {len(agent)}"
        )
    if coach and HUMAN not in agent:
        fail("--coach advises a person: make one of the agents 'human'")
    agents = dict(zip(scenario.party_names, agent, strict=True))
    _check_space(scenario, agents)
    flags = {"llm": llm, "llm_role": llm_role, "llm_config": llm_config, "record": record, "replay": replay}
    flags |= {
        "llm_budget_seconds": llm_budget_seconds,
        "llm_budget_tokens": llm_budget_tokens,
        "llm_strict": llm_strict,
        "allow_fallback": allow_fallback,
    }
    with _llm(agents, flags, f"{scenario.name}-{seed}", scenario.metadata.get("allocation")) as pieces:
        negotiators = _negotiators(scenario, agent, seed, coach, pieces.options)
        printer = (
            None
            if as_json
            else TranscriptPrinter(console, scenario, explain=explain, trace_formatter=_trace_formatter())
        )
        if printer is not None:
            lineup = " vs ".join(f"{p}: {a}" for p, a in agents.items())
            console.rule(f"[bold]{escape(scenario.title)}[/] — {escape(lineup)}")
        rules = replace(scenario.rules, max_rounds=max_rounds) if max_rounds is not None else None
        if pieces.mediator is not None:
            rules = replace(rules or scenario.rules, on_stagnation="mediate")
        with _engine_log_quiet():  # (a move that raises is shown in the transcript and reported below)
            result = run_negotiation(
                scenario,
                negotiators,
                seed=seed,
                rules=rules,
                on_event=printer,
                agent_names=agents,
                judge=pieces.judge,
                mediator=pieces.mediator,
            )
        usage = pieces.finish(result.trajectory) if pieces.finish is not None else None
    _report(scenario, result, agents, as_json=as_json, save=save, usage=usage)
    if pieces.report is not None:
        pieces.report()
    ending = result.no_deal
    if ending is not None and ending.reason == "protocol_violation":
        who = ending.walker or "?"
        agent_name = f" ({agents[who]})" if who in agents else ""
        fail(f"the game ended in a protocol violation by {who}{agent_name}: {ending.detail}", code=1)


def _check_space(scenario: Scenario, agents: Mapping[str, str]) -> None:
    """Fail in one line when an agent cannot play an outcome space this large (it would break at its
    first move)."""
    from parley.agents.registry import space_problem

    for party in scenario.parties:
        name = agents[party.name]
        if name == HUMAN:
            continue
        problem = space_problem(name, party.name, scenario.space, party.utility)
        if problem is not None:
            fail(f"{problem}; see `parley scenarios validate`", code=1)


@contextmanager
def _engine_log_quiet() -> Generator[None]:
    """Keep the engine's warning about a move that raised off stderr while a game is shown: the
    transcript, the no-deal record and the one-line error already say it."""
    engine = logging.getLogger("parley.protocol.session")
    level = engine.level
    engine.setLevel(logging.ERROR)
    try:
        yield
    finally:
        engine.setLevel(level)


def _save(folder: Path, trajectory: str, result: str) -> None:
    """Write trajectory.jsonl and result.json into folder (created if needed), or fail in one line
    leaving neither file half-written."""
    from parley.cli.common import write_files

    write_files(folder, {"trajectory.jsonl": trajectory, "result.json": result + "\n"})


def _report(
    scenario: Scenario,
    result: SessionResult,
    agents: Mapping[str, str],
    *,
    as_json: bool,
    save: Path | None,
    usage: Any,
) -> None:
    from parley.api.tables import outcome_table, party_table

    summary = _summary(scenario, result, agents)
    if usage is not None:
        summary["llm_usage"] = usage.render()
        summary["llm_fallback"] = usage.fallback_json()
    # Strict JSON (docs/schemas/result.schema.json): a distance with no value (no deal) is null.
    try:
        text = dumps(summary, no_value=NO_VALUE_FIELDS, indent=2)
        events = result.trajectory.to_jsonl(versioned=True) if save is not None else ""
    except JSONValueError as error:
        fail(f"{error}; nothing was written", code=1)
    if save is not None:
        _save(save, events, text)
    if as_json:
        typer.echo(text)
        return
    console.print(outcome_table(scenario, result))
    console.print(party_table(scenario, result, agents))
    if result.agreement is not None:
        console.print(
            f"Distance to the Pareto frontier: {summary['pareto_distance']:.3f}   "
            f"to the Nash point: {summary['nash_distance']:.3f}   (normalised utility units)"
        )
    if usage is not None:
        console.print("LLM usage:", markup=False)
        console.print(usage.render(), markup=False, highlight=False)
    if save is not None:
        console.print(f"Saved to {save}/trajectory.jsonl and {save}/result.json", markup=False)

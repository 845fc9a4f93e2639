"""`parley run`: play one scenario live, with a readable transcript and the final artefact."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from parley.cli.app import app
from parley.cli.common import console, fail, load
from parley.cli.display import TraceFormatter, TranscriptPrinter, outcome_table, party_table
from parley.cli.human import AdviceHook
from parley.errors import ParleyError
from parley.experiments.runner import build_negotiators
from parley.protocol.session import Negotiator, SessionResult
from parley.protocol.view import PartyView
from parley.scenarios.model import Scenario

HUMAN = "human"


def _trace_formatter() -> TraceFormatter | None:
    try:
        from parley.agents.astra import format_trace
    except ImportError:
        return None
    return format_trace


def _coach_hook() -> AdviceHook:
    from parley.agents.astra import Coach, format_advice

    coach = Coach()

    def advise(view: PartyView) -> str:
        return format_advice(coach.advise(view))

    return advise


def _negotiators(scenario: Scenario, agents: list[str], seed: int, coach: bool) -> dict[str, Negotiator]:
    from parley.cli.human import HumanNegotiator
    from parley.language import Vocabulary

    machine = [a if a != HUMAN else "hardliner" for a in agents]
    try:  # a human's seat is first filled by a machine agent (this validates the names), then replaced
        negotiators = build_negotiators(scenario, machine, seed)
    except (ParleyError, ValueError) as error:
        fail(str(error))
    vocabulary = Vocabulary.from_scenario(scenario)
    advise = _coach_hook() if coach else None
    for party, agent in zip(scenario.party_names, agents, strict=True):
        if agent == HUMAN:
            negotiators[party] = HumanNegotiator(
                vocabulary, console, lambda prompt: console.input(f"{prompt}: "), advise=advise
            )
    return negotiators


def _summary(scenario: Scenario, result: SessionResult, agents: Mapping[str, str]) -> dict[str, Any]:
    from parley.metrics.bargaining import outcomes

    rows = outcomes(scenario, result, dict(agents))
    return {
        "scenario": scenario.name,
        **result.ended,
        "rounds": result.rounds,
        "parties": [
            {
                "party": r.party,
                "agent": r.agent,
                "utility": r.utility,
                "normalized_utility": r.normalized_utility,
                "below_batna": r.below_batna,
            }
            for r in rows
        ],
        "pareto_distance": rows[0].pareto_distance if rows else None,
        "nash_distance": rows[0].nash_distance if rows else None,
    }


@app.command("run")
def run(
    scenario_name: Annotated[
        str, typer.Argument(metavar="SCENARIO", help="Shipped scenario name or YAML path.")
    ],
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
    max_rounds: Annotated[int | None, typer.Option(help="Override the scenario's round cap.")] = None,
) -> None:
    """Play SCENARIO once with the given agents and show the transcript and the outcome."""
    scenario = load(scenario_name)
    if len(agent) != len(scenario.parties):
        fail(
            f"{scenario.name} has {len(scenario.parties)} parties ({', '.join(scenario.party_names)}); "
            f"give one --agent per party, got {len(agent)}"
        )
    if coach and HUMAN not in agent:
        fail("--coach advises a person: make one of the agents 'human'")
    negotiators = _negotiators(scenario, agent, seed, coach)
    agents = dict(zip(scenario.party_names, agent, strict=True))
    printer = (
        None
        if as_json
        else TranscriptPrinter(console, scenario, explain=explain, trace_formatter=_trace_formatter())
    )
    if printer is not None:
        console.rule(f"[bold]{scenario.title}[/] — " + " vs ".join(f"{p}: {a}" for p, a in agents.items()))
    result = _play(scenario, negotiators, agents, seed, max_rounds, printer)
    summary = _summary(scenario, result, agents)
    if save is not None:
        result.trajectory.save(save / "trajectory.jsonl")
        (save / "result.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(summary, indent=2, default=str))
        return
    console.print(outcome_table(scenario, result))
    console.print(party_table(scenario, result, agents))
    if result.agreement is not None:
        console.print(
            f"Distance to the Pareto frontier: {summary['pareto_distance']:.3f}   "
            f"to the Nash point: {summary['nash_distance']:.3f}   (normalised utility units)"
        )
    if save is not None:
        console.print(f"Saved to {save}/trajectory.jsonl and {save}/result.json")


def _play(
    scenario: Scenario,
    negotiators: dict[str, Negotiator],
    agents: dict[str, str],
    seed: int,
    max_rounds: int | None,
    printer: TranscriptPrinter | None,
) -> SessionResult:
    from dataclasses import replace

    from parley.experiments.runner import run_negotiation

    rules = replace(scenario.rules, max_rounds=max_rounds) if max_rounds else None
    return run_negotiation(
        scenario, negotiators, seed=seed, rules=rules, on_event=printer, agent_names=agents
    )

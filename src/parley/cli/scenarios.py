"""`parley scenarios list|show|validate`: what ships, what a scenario holds, whether a file is valid."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from parley.cli.app import app
from parley.cli.common import console, error_console, fail, load
from parley.errors import ParleyError

if TYPE_CHECKING:
    from parley.scenarios.model import Scenario

scenarios_app = typer.Typer(no_args_is_help=True, help="List, inspect and validate scenarios.")
app.add_typer(scenarios_app, name="scenarios")


@scenarios_app.command("list")
def list_command() -> None:
    """List the shipped scenarios."""
    from parley.scenarios import list_scenarios

    table = Table(title="Shipped scenarios")
    for column in ("name", "title", "parties", "issues", "outcomes"):
        table.add_column(
            column, justify="right" if column in ("issues", "outcomes") else "left", no_wrap=column == "name"
        )
    for info in list_scenarios():
        table.add_row(
            info.name, info.title, ", ".join(info.parties), str(len(info.issues)), f"{info.outcomes:,}"
        )
    console.print(table)


@scenarios_app.command("show")
def show_command(name: Annotated[str, typer.Argument(help="Shipped name or YAML path.")]) -> None:
    """Show a scenario's issues, parties and rules (utilities stay private: only their shape is shown).

    Every protocol setting is listed, with the ones the file leaves at their default marked.
    """
    scenario = load(name)
    # Scenario text is the author's: shown as plain text, never read as rich markup.
    console.rule(f"[bold]{escape(scenario.title)}[/] ({escape(scenario.name)})")
    console.print(scenario.description.strip(), markup=False)
    issues = Table(title="Issues")
    issues.add_column("issue")
    issues.add_column("options")
    for issue in scenario.space.issues:
        values = ", ".join(str(v) for v in issue.values)
        issues.add_row(Text(issue.name), Text(f"{values} {issue.unit}".strip()))
    console.print(issues)
    parties = Table(title="Parties")
    for column in ("party", "role", "utility", "BATNA", "persona"):
        parties.add_column(column)
    for party in scenario.parties:
        persona = ", ".join(f"{k}={v}" for k, v in party.persona.items()) or "—"
        parties.add_row(
            Text(party.name),
            Text(party.role),
            type(party.utility).__name__,
            f"{party.utility.reservation_value:g}",
            Text(persona),
        )
    console.print(parties)
    console.print(protocol_table(scenario))
    console.print(f"Outcomes: {scenario.space.size:,}.")


def protocol_table(scenario: Scenario) -> Table:
    """Every protocol setting as played, each marked when it is the format's default (FORMAT.md)."""
    from parley.protocol.rules import Rules

    rules = scenario.rules
    defaults = Rules()
    table = Table(title="Protocol")
    for column in ("setting", "value", "note"):
        table.add_column(column)

    def row(setting: str, value: object, is_default: bool, note: str = "default") -> None:
        table.add_row(setting, Text(str(value)), note if is_default else "")

    acceptance = rules.acceptance
    row("max_rounds", rules.max_rounds, rules.max_rounds == defaults.max_rounds)
    row("max_offers", rules.max_offers or "no cap", rules.max_offers is None)
    row("deadline_seconds", rules.deadline_seconds or "none", rules.deadline_seconds is None)
    row(
        "acceptance.required",
        "all parties" if acceptance.required is None else f"{acceptance.required} of {len(scenario.parties)}",
        acceptance.required is None,
    )
    row("acceptance.vetoes", ", ".join(acceptance.vetoes) or "none", not acceptance.vetoes)
    row(
        "stagnation.rounds",
        rules.stagnation_patience,
        rules.stagnation_rounds is None,
        "default: 2/3 of max_rounds (rounded up), at least 3",
    )
    row(
        "stagnation.epsilon",
        rules.stagnation_epsilon,
        rules.stagnation_epsilon == defaults.stagnation_epsilon,
    )
    row("stagnation.on_stagnation", rules.on_stagnation, rules.on_stagnation == defaults.on_stagnation)
    row("act_timeout", rules.act_timeout or "none", rules.act_timeout is None)
    row(
        "proposer_order",
        ", ".join(rules.proposer_order or scenario.party_names),
        rules.proposer_order is None,
        "default: the party order",
    )
    return table


@scenarios_app.command("validate")
def validate_command(
    path: Annotated[Path, typer.Argument(help="Scenario YAML file.")],
    agent: Annotated[
        list[str] | None,
        typer.Option("--agent", "-a", help="Agent per party, in party order: warn only about these."),
    ] = None,
) -> None:
    """Check a scenario file; prints OK or one line naming the problem.

    A valid file whose outcome space is larger than some agents can play gets a warning line on
    stderr per limit, naming the agents (with --agent: only the agents given, per party).
    """
    from parley.agents.registry import available, space_problem, space_warnings
    from parley.scenarios import validate_file

    try:
        scenario = validate_file(path)
    except ParleyError as error:
        fail(str(error), code=1)
    if agent:
        if len(agent) != len(scenario.parties):
            fail(
                f"{scenario.name} has {len(scenario.parties)} parties ({', '.join(scenario.party_names)}); "
                f"give one --agent per party, got {len(agent)}"
            )
        unknown = [name for name in agent if name not in available() and name != "human"]
        if unknown:
            fail(f"unknown agent {unknown[0]!r}; available: {', '.join(available())}")
    console.print(
        f"[green]OK[/] {escape(str(path))}: {escape(scenario.title)} — {len(scenario.parties)} parties, "
        f"{len(scenario.space.issues)} issues, {scenario.space.size:,} outcomes"
    )
    if agent:
        warnings = [
            problem
            for party, name in zip(scenario.parties, agent, strict=True)
            if (problem := space_problem(name, party.name, scenario.space, party.utility)) is not None
        ]
    else:
        warnings = space_warnings(scenario.space, scenario.utilities())
    for warning in warnings:
        error_console.print(f"warning: {warning}", markup=False, soft_wrap=True)

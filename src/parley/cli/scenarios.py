"""`parley scenarios list|show|validate`: what ships, what a scenario holds, whether a file is valid."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from parley.cli.app import app
from parley.cli.common import console, fail, load
from parley.errors import ParleyError

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
    """Show a scenario's issues, parties and rules (utilities stay private: only their shape is shown)."""
    scenario = load(name)
    console.rule(f"[bold]{scenario.title}[/] ({scenario.name})")
    console.print(scenario.description.strip())
    issues = Table(title="Issues")
    issues.add_column("issue")
    issues.add_column("options")
    for issue in scenario.space.issues:
        values = ", ".join(str(v) for v in issue.values)
        issues.add_row(issue.name, f"{values} {issue.unit}".strip())
    console.print(issues)
    parties = Table(title="Parties")
    for column in ("party", "role", "utility", "BATNA", "persona"):
        parties.add_column(column)
    for party in scenario.parties:
        persona = ", ".join(f"{k}={v}" for k, v in party.persona.items()) or "—"
        parties.add_row(
            party.name,
            party.role,
            type(party.utility).__name__,
            f"{party.utility.reservation_value:g}",
            persona,
        )
    console.print(parties)
    rules = scenario.rules
    acceptance = (
        "unanimous"
        if rules.acceptance.required is None
        else f"{rules.acceptance.required} of {len(scenario.parties)}"
    )
    if rules.acceptance.vetoes:
        acceptance += f", vetoes: {', '.join(rules.acceptance.vetoes)}"
    console.print(
        f"Rules: up to {rules.max_rounds} rounds, acceptance {acceptance}, stagnation after "
        f"{rules.stagnation_rounds} rounds → {rules.on_stagnation}. Outcomes: {scenario.space.size:,}."
    )


@scenarios_app.command("validate")
def validate_command(path: Annotated[Path, typer.Argument(help="Scenario YAML file.")]) -> None:
    """Check a scenario file; prints OK or one line naming the problem."""
    from parley.scenarios import validate_file

    try:
        scenario = validate_file(path)
    except ParleyError as error:
        fail(str(error), code=1)
    console.print(
        f"[green]OK[/] {path}: {scenario.title} — {len(scenario.parties)} parties, "
        f"{len(scenario.space.issues)} issues, {scenario.space.size:,} outcomes"
    )

"""`parley scenarios list|show|validate|import|export`: what ships, what a scenario holds, whether a file
is valid, and scenarios read from and written to other formats (GENIUS, GeniusWeb, game folders)."""

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
from parley.scenarios.sources import EXPORT_FORMATS, FORMATS

if TYPE_CHECKING:
    from parley.scenarios.model import Scenario

scenarios_app = typer.Typer(
    no_args_is_help=True, help="List, inspect, validate, import and export scenarios."
)
app.add_typer(scenarios_app, name="scenarios")


# -- scenario sources: the SCENARIO argument and --format, shared by every command that loads one ----


def check_format(value: str | None) -> str | None:
    """Typer callback for --format: one of the formats a scenario can be read from.

    Raises:
        typer.BadParameter: another value (a usage error: one line, exit code 2).
    """
    if value is not None and value not in FORMATS:
        raise typer.BadParameter(f"expected one of {', '.join(FORMATS)}")
    return value


def _check_export_format(value: str) -> str:
    if value not in EXPORT_FORMATS:
        raise typer.BadParameter(f"expected one of {', '.join(EXPORT_FORMATS)}")
    return value


SCENARIO_HELP = (
    "Shipped scenario name, or a scenario file or folder: parley YAML, GENIUS, GeniusWeb, "
    "LLM-Deliberation or TextArena game (format detected; FORMAT:PATH names it)."
)
FormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        help=f"Format of a SCENARIO path: {', '.join(FORMATS)} (default: detected).",
        callback=check_format,
    ),
]
"""--format: the format of a scenario path, when detection should not decide."""


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
def show_command(
    name: Annotated[str, typer.Argument(metavar="SCENARIO", help=SCENARIO_HELP)], format: FormatOption = None
) -> None:
    """Show a scenario's issues, parties and rules (utilities stay private: only their shape is shown).

    Every protocol setting is listed, with the ones the file leaves at their default marked.
    """
    scenario = load(name, format)
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
    counts = acceptable_counts(scenario)
    if counts is None:
        console.print(
            f"Outcomes: {scenario.space.size:,} (more than {COUNT_LIMIT:,}: the packages a deal could "
            "use are not counted)."
        )
        return
    passing, everyone = counts
    console.print(
        f"Outcomes: {scenario.space.size:,}; {passing:,} pass the acceptance rule with every accepting "
        f"party at or above its BATNA; {everyone:,} leave every party at or above its BATNA."
    )


COUNT_LIMIT = 1_000_000
"""Spaces up to this many outcomes are enumerated to count the packages a deal could use."""


def acceptable_counts(scenario: Scenario) -> tuple[int, int] | None:
    """`parley.scenarios.generate.acceptable_counts`, or None for a space over COUNT_LIMIT outcomes
    (not enumerated)."""
    from parley.scenarios.generate import acceptable_counts as counts

    return None if scenario.space.size > COUNT_LIMIT else counts(scenario)


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
    path: Annotated[str, typer.Argument(metavar="SCENARIO", help=SCENARIO_HELP)],
    agent: Annotated[
        list[str] | None,
        typer.Option("--agent", "-a", help="Agent per party, in party order: warn only about these."),
    ] = None,
    format: FormatOption = None,
) -> None:
    """Check a scenario file or folder; prints OK or one line naming the problem.

    A valid file whose outcome space is larger than some agents can play gets a warning line on
    stderr per limit, naming the agents (with --agent: only the agents given, per party).
    """
    from parley.agents.registry import check_names, space_problem, space_warnings
    from parley.scenarios import load_scenario

    try:
        scenario = load_scenario(path, format=format)
    except ParleyError as error:
        fail(str(error), code=1)
    except OSError as error:  # a name too long to be a path, a file that vanished while read
        fail(f"cannot read scenario {path}: {error.strerror or error}", code=1)
    if agent:
        if len(agent) != len(scenario.parties):
            fail(
                f"{scenario.name} has {len(scenario.parties)} parties ({', '.join(scenario.party_names)}); "
                f"give one --agent per party, got {len(agent)}"
            )
        try:  # names, plugins and package.module:factory specs, as `parley run` takes them
            check_names(name for name in agent if name != "human")
        except ParleyError as error:
            fail(str(error))
    console.print(
        f"[green]OK[/] {escape(path)}: {escape(scenario.title)} — {len(scenario.parties)} parties, "
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
    counts = acceptable_counts(scenario)
    if counts is not None and counts[0] == 0:
        warnings.append(
            "no package passes the acceptance rule with every accepting party at or above its BATNA: "
            "no deal can leave the parties it needs better off than walking away"
        )
    for warning in warnings:
        error_console.print(f"warning: {warning}", markup=False, soft_wrap=True)


# -- import and export: parley YAML from other formats, other formats from any scenario --------------


@scenarios_app.command("import")
def import_command(
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="A GENIUS or GeniusWeb file or folder, or an LLM-Deliberation or TextArena game folder.",
        ),
    ],
    format: FormatOption = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="The parley YAML file to write (default: print it).")
    ] = None,
) -> None:
    """Read a scenario in another format and write it as a parley YAML file.

    The YAML is read back before it is written, so what is written loads to the same scenario; the
    file is written whole or not at all.
    """
    from parley.cli.common import check_writable, write_files

    if out is not None:
        check_writable(out, "write", folder=False)
    scenario = load(source, format)
    text = _yaml_that_reads_back(scenario)
    if out is None:
        typer.echo(text, nl=False)
        return
    write_files(out.parent, {out.name: text}, "write")
    console.print(f"Wrote {out}: {_summary(scenario)}", markup=False, soft_wrap=True)


@scenarios_app.command("export")
def export_command(
    name: Annotated[str, typer.Argument(metavar="SCENARIO", help=SCENARIO_HELP)],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the files in (created if missing).")],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help=f"Format to write: {', '.join(EXPORT_FORMATS)}.",
            callback=_check_export_format,
        ),
    ] = "yaml",
) -> None:
    """Write a scenario as parley YAML, a GENIUS domain with its profiles, or GeniusWeb profiles.

    The files are written to a temporary folder beside --out and moved in only once all are written.
    A scenario path is read in its detected format (FORMAT:PATH names it).
    """
    from parley.cli.common import check_writable
    from parley.scenarios.sources import export_scenario

    check_writable(out, "write to", folder=True)
    scenario = load(name)
    try:
        written = export_scenario(scenario, format, out)
    except ParleyError as error:
        fail(str(error), code=1)
    shown = ", ".join(path.name for path in written)
    console.print(f"Wrote {len(written)} {format} file(s) to {out}: {shown}", markup=False, soft_wrap=True)


def _yaml_that_reads_back(scenario: Scenario) -> str:
    """scenario as parley YAML, checked to load again (else a one-line error naming what failed)."""
    from parley.scenarios.loader import scenario_from_yaml
    from parley.scenarios.writer import scenario_to_yaml

    try:
        text = scenario_to_yaml(scenario)
        scenario_from_yaml(text, source=scenario.source)
    except ParleyError as error:
        fail(f"cannot write {scenario.name} as parley YAML: {error}", code=1)
    return text


def _summary(scenario: Scenario) -> str:
    return (
        f"{scenario.title} — {len(scenario.parties)} parties, {len(scenario.space.issues)} issues, "
        f"{scenario.space.size:,} outcomes"
    )


from parley.cli.generate import generate_command  # noqa: E402 (registered on the group defined above)

scenarios_app.command("generate")(generate_command)

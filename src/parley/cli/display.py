"""Rich renderings shared by the CLI commands: transcripts, artefacts and summary tables.

Agent, LLM and human text (messages, walk reasons, violation details) and scenario text (party
names, options, units) are plain text: escaped before it is placed in markup, or given as `Text`,
so a message such as "[/]" is shown as it is and never aborts a session.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from parley.language import Vocabulary, render
from parley.protocol.actions import action_from_json
from parley.protocol.events import Event
from parley.protocol.session import SessionResult
from parley.scenarios.model import Scenario

PARTY_STYLES = ("cyan", "magenta", "green", "yellow", "blue", "red")

TraceFormatter = Callable[[Mapping[str, Any]], str]


def party_style(scenario: Scenario, party: str | None) -> str:
    """A stable colour per party."""
    if party is None or party not in scenario.party_names:
        return "white"
    return PARTY_STYLES[scenario.party_names.index(party) % len(PARTY_STYLES)]


def _listener(scenario: Scenario, speaker: str) -> str | None:
    others = [p for p in scenario.party_names if p != speaker]
    return others[0] if len(others) == 1 else None


def event_line(scenario: Scenario, vocabulary: Vocabulary, event: Event) -> str | None:
    """One transcript line (rich markup) for a public event, or None for events not shown.

    Every piece of text from an agent or the scenario is escaped: the markup is parley's own.
    """
    style = party_style(scenario, event.party)
    who = f"[bold {style}]{escape(str(event.party))}[/]"
    if event.kind == "action" and event.party is not None:
        action = action_from_json(event.data)
        text = render(action, vocabulary, speaker=event.party, listener=_listener(scenario, event.party))
        tag = f"[dim]({action.kind})[/]"
        return f"[dim]r{event.round:>2}[/] {who} {tag} {escape(text)}"
    prefix = f"[dim]r{event.round:>2}[/]"
    if event.kind == "mediator_proposal":
        from parley.language import describe_package

        package = describe_package(event.data["package"], vocabulary, speaker=scenario.party_names[0])
        return f"{prefix} [bold white]mediator[/] proposes: {escape(package)}"
    if event.kind == "stagnation":
        return f"{prefix} [yellow]stagnation detected[/] after {event.data['rounds']} rounds without movement"
    if event.kind == "violation":
        return f"{prefix} [red]protocol violation[/] by {who}: {escape(str(event.data['detail']))}"
    if event.kind == "batna_violation":
        utility, batna = event.data["utility"], event.data["reservation_value"]
        return f"[red]warning:[/] {who} accepted a deal below its BATNA ({utility:g} < {batna:g})"
    return None


class TranscriptPrinter:
    """An `on_event` callback that prints a live, readable transcript."""

    def __init__(
        self,
        console: Console,
        scenario: Scenario,
        *,
        explain: bool = False,
        trace_formatter: TraceFormatter | None = None,
    ) -> None:
        self._console = console
        self._scenario = scenario
        self._vocabulary = Vocabulary.from_scenario(scenario)
        self._explain = explain
        self._trace_formatter = trace_formatter

    def __call__(self, event: Event) -> None:
        if event.kind == "trace":
            if self._explain:
                self._print_trace(event)
            return
        if not event.is_public:
            return
        line = event_line(self._scenario, self._vocabulary, event)
        if line is not None:
            self._console.print(line, highlight=False)

    def _print_trace(self, event: Event) -> None:
        body = (
            self._trace_formatter(event.data)
            if self._trace_formatter is not None
            else json.dumps(event.data, indent=1, default=str)
        )
        self._console.print(Text(f"    ┆ {event.party} trace", style="dim"))
        for line in body.splitlines():
            self._console.print(Text.assemble(("    ┆ ", "dim"), line), highlight=False)


def outcome_table(scenario: Scenario, result: SessionResult) -> Table:
    """The agreement artefact (or no-deal record) with utilities and distances."""
    table = Table(title="Agreement" if result.agreement else "No deal", show_lines=False)
    if result.agreement is not None:
        allocation: Mapping[str, Mapping[str, Any]] = scenario.metadata.get("allocation", {})
        table.add_column("issue")
        if allocation and scenario.is_bilateral:
            for name in scenario.party_names:
                table.add_column(Text(f"{name} gets"), justify="right")
        else:
            table.add_column("agreed")
        for name, value in result.agreement.terms.items():
            unit = scenario.space.issue(name).unit
            share = allocation.get(name)
            if share is not None and scenario.is_bilateral and isinstance(value, int):
                owner_gets = {
                    p: value if p == share["owner"] else int(share["total"]) - value
                    for p in scenario.party_names
                }
                table.add_row(
                    Text(name), *(Text(f"{owner_gets[p]} {unit}".strip()) for p in scenario.party_names)
                )
            else:
                table.add_row(Text(name), Text(f"{value} {unit}".strip()))
        return table
    assert result.no_deal is not None
    table.add_column("reason")
    table.add_column("walker")
    table.add_column("round")
    table.add_column("detail")
    record = result.no_deal
    table.add_row(record.reason, Text(record.walker or "—"), str(record.round), Text(record.detail or ""))
    return table


def party_table(scenario: Scenario, result: SessionResult, agents: Mapping[str, str]) -> Table:
    """Each party's utility, BATNA and share of its best outcome."""
    from parley.metrics.bargaining import outcomes

    table = Table(title="Parties")
    for column in ("party", "agent", "utility", "BATNA", "normalised", "note"):
        table.add_column(column, justify="right" if column in ("utility", "BATNA", "normalised") else "left")
    for outcome in outcomes(scenario, result, dict(agents)):
        reservation = scenario.party(outcome.party).utility.reservation_value
        note = "[red]below BATNA[/]" if outcome.below_batna else ("walked" if outcome.walked else "")
        table.add_row(
            Text(outcome.party, style=party_style(scenario, outcome.party)),
            Text(outcome.agent),
            f"{outcome.utility:g}",
            f"{reservation:g}",
            f"{outcome.normalized_utility:.2f}",
            note,
        )
    return table

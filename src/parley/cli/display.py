"""Rich renderings shared by the CLI commands: live transcripts (result tables: `parley.api.tables`).

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
from rich.text import Text

from parley.api.tables import party_style
from parley.language import Vocabulary, render
from parley.protocol.actions import (
    Accept,
    DeclineCoalition,
    JoinCoalition,
    Propose,
    ProposeCoalition,
    Reject,
    Say,
    Walk,
)
from parley.protocol.events import Event
from parley.protocol.payloads import (
    BatnaBreach,
    CoalitionEnded,
    CoalitionFormed,
    MediatorProposal,
    Stagnation,
    Violation,
)
from parley.scenarios.model import Scenario

TraceFormatter = Callable[[Mapping[str, Any]], str]


def _listener(scenario: Scenario, speaker: str) -> str | None:
    others = [p for p in scenario.party_names if p != speaker]
    return others[0] if len(others) == 1 else None


def event_line(scenario: Scenario, vocabulary: Vocabulary, event: Event) -> str | None:
    """One transcript line (rich markup) for a public event, or None for events not shown.

    Every piece of text from an agent or the scenario is escaped: the markup is parley's own.
    """
    style = party_style(scenario, event.party)
    who = f"[bold {style}]{escape(str(event.party))}[/]"
    prefix = f"[dim]r{event.round:>2}[/]"
    match event.payload:
        case Propose() | Accept() | Reject() | Walk() | Say() as action if event.party is not None:
            text = render(action, vocabulary, speaker=event.party, listener=_listener(scenario, event.party))
            return f"{prefix} {who} [dim]({action.kind})[/] {escape(text)}"
        case ProposeCoalition(package=package, members=members) if event.party is not None:
            from parley.language import describe_package

            described = describe_package(package, vocabulary, speaker=event.party)
            asked = ", ".join(escape(str(m)) for m in members)
            return f"{prefix} {who} [dim](coalition)[/] asks {asked} to agree: {escape(described)}"
        case JoinCoalition() if event.party is not None:
            return f"{prefix} {who} [dim](coalition)[/] joins"
        case DeclineCoalition(reason=reason) if event.party is not None:
            because = f": {escape(reason)}" if reason else ""
            return f"{prefix} {who} [dim](coalition)[/] declines{because}"
        case CoalitionFormed(members=members):
            names = ", ".join(escape(str(m)) for m in members)
            return f"{prefix} [bold green]coalition formed[/] ({names}): its package is agreed by its members"
        case CoalitionEnded(reason=reason, parties=parties):
            names = ", ".join(escape(str(p)) for p in parties)
            return f"{prefix} [yellow]coalition attempt ended[/]: {reason} ({names})"
        case MediatorProposal(package=package):
            from parley.language import describe_package

            described = describe_package(package, vocabulary, speaker=scenario.party_names[0])
            return f"{prefix} [bold white]mediator[/] proposes: {escape(described)}"
        case Stagnation(rounds=rounds):
            return f"{prefix} [yellow]stagnation detected[/] after {rounds} rounds without movement"
        case Violation(detail=detail):
            return f"{prefix} [red]protocol violation[/] by {who}: {escape(detail)}"
        case BatnaBreach(utility=utility, reservation_value=batna):
            return f"[red]warning:[/] {who} accepted a deal below its BATNA ({utility:g} < {batna:g})"
        case _:
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

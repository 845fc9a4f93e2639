"""Rich tables of results: one session, a tournament's summary, a scenario's outcome analysis.

The CLI prints them and the result objects of `parley.api` render as them (`__rich__`), so a REPL,
a notebook and a terminal show the same tables. Scenario, agent and party text is plain text: placed
as `Text` or escaped before it goes into markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from parley.experiments.tournament import AgentSummary
    from parley.protocol.session import SessionResult
    from parley.scenarios.model import Scenario

PARTY_STYLES = ("cyan", "magenta", "green", "yellow", "blue", "red")

ANALYSIS_CONVENTION = (
    "Solutions are taken over the outcomes acceptable to every party; each party's utility is "
    "normalised to [0, 1], 0 at its BATNA and 1 at its best outcome (in brackets)."
)


def party_style(scenario: Scenario, party: str | None) -> str:
    """A stable colour per party."""
    if party is None or party not in scenario.party_names:
        return "white"
    return PARTY_STYLES[scenario.party_names.index(party) % len(PARTY_STYLES)]


# -- one session -------------------------------------------------------------------------------------


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


def distances_line(pareto_distance: float, nash_distance: float) -> Text:
    """How far an agreement lies from the Pareto frontier and the Nash point, as `parley run` says it."""
    return Text(
        f"Distance to the Pareto frontier: {pareto_distance:.3f}   "
        f"to the Nash point: {nash_distance:.3f}   (normalised utility units)"
    )


# -- a tournament ------------------------------------------------------------------------------------


def summary_table(summaries: Sequence[AgentSummary]) -> Table:
    """Mean ± 95% CI per agent over its played games; failed games counted in their own column."""
    table = Table(title="Tournament results (mean ± 95% CI per party-game; failed games left out)")
    discounted = any(s.discounted for s in summaries)  # a column only where some game discounts
    extra = ["discounted"] if discounted else []
    columns = ["agent", "games", "failed", "utility (norm.)", "utility", *extra, "agreement", "walk-away"]
    columns += ["rounds", "Pareto dist."]
    for column in columns:
        table.add_column(column, justify="left" if column == "agent" else "right", no_wrap=column == "agent")
    for s in summaries:
        cells = [escape(s.agent), str(s.games), f"[bold red]{s.failed}[/]" if s.failed else "0"]
        cells += [str(s.normalized_utility), str(s.utility)]
        cells += [str(s.discounted_utility)] if discounted else []
        cells += [str(s.agreement_rate), str(s.walk_rate), str(s.rounds), str(s.pareto_distance)]
        table.add_row(*cells)
    return table


# -- an outcome analysis -----------------------------------------------------------------------------


def analysis_renderables(scenario: Scenario) -> list[Text | Table]:
    """What `parley analyze` prints, in order: the outcome count (first line), how many outcomes every
    party accepts, the acceptance rule's count (k-of-n rules only), the convention, and the tables of
    bargaining solutions and of each party's utility at each.

    The analysis enumerates the outcome space: callers check `scenario.space.fits_in_memory()` first.
    """
    analysis = scenario.analysis
    names = scenario.party_names
    lines = [
        Text.from_markup(
            f"[bold]{escape(scenario.title)}[/]: {scenario.space.size:,} outcomes, "
            f"{analysis.frontier.size:,} on the Pareto frontier"
        )
    ]
    everyone = int(analysis.individually_rational.sum())
    lines.append(Text(f"{everyone:,} outcomes acceptable to every party (each at or above its BATNA)"))
    under_rule = _under_rule(scenario)
    if under_rule:
        lines.append(Text(under_rule))
    solutions = (
        ("Nash", analysis.nash),
        ("Kalai–Smorodinsky", analysis.kalai),
        ("max welfare", analysis.max_welfare),
    )
    if everyone == 0:
        lines.append(Text("No solution: no outcome is acceptable to every party."))
    lines.append(Text(ANALYSIS_CONVENTION))
    packages = Table(title="Bargaining solutions")
    packages.add_column("solution", no_wrap=True)
    packages.add_column("package")
    for label, index in solutions:
        text = "none" if index is None else ", ".join(f"{k}={v}" for k, v in analysis.outcome(index).items())
        packages.add_row(label, Text(text))
    utilities = Table(title="Utility at each solution (normalised)")
    utilities.add_column("party", no_wrap=True)
    utilities.add_column("BATNA", justify="right", no_wrap=True)
    utilities.add_column("best", justify="right", no_wrap=True)
    for label, _ in solutions:  # (the long name on two lines keeps 4 parties within 80 columns)
        utilities.add_column(label.replace("–", "–\n"), justify="right", no_wrap=True)
    per_solution = [_utility_cells(scenario, index) for _, index in solutions]
    for column, name in enumerate(names):
        utilities.add_row(
            Text(name),
            f"{analysis.reservation[column]:g}",
            f"{analysis.best[column]:g}",
            *(values[column] for values in per_solution),
        )
    return [*lines, packages, utilities]


def _utility_cells(scenario: Scenario, index: int | None) -> list[str]:
    """Each party's utility of one solution, its normalised utility in brackets ("none": no solution)."""
    if index is None:
        return ["none"] * len(scenario.parties)
    utilities = scenario.analysis.points[index]
    normalised = scenario.analysis.normalized(utilities)
    return [f"{u:g} ({n:.2f})" for u, n in zip(utilities, normalised, strict=True)]


def _under_rule(scenario: Scenario) -> str:
    """The outcomes that pass a k-of-n acceptance rule (nothing to add under unanimity)."""
    rule = scenario.rules.acceptance
    names = scenario.party_names
    if rule.required is None or rule.required >= len(names):
        return ""
    vetoes = [names.index(v) for v in rule.vetoes]
    passing = int(scenario.analysis.acceptable(rule.required, vetoes).sum())
    always = f", always including {', '.join(rule.vetoes)}" if rule.vetoes else ""
    return f"{passing:,} outcomes pass the acceptance rule ({rule.required} of {len(names)} parties{always})"

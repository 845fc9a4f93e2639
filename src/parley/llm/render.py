"""Plain-text renderings of negotiation state for prompts: issues, private utility, tracker, history.

Everything here is deterministic (stable ordering, fixed number formats) so identical states give
identical prompts, which is what makes caching and replay work.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility, RankedPreferenceUtility, UtilityFunction
from parley.protocol.events import Event
from parley.protocol.view import TableOffer


def number(value: float) -> str:
    """A number with at most four significant digits ("0.25", "12.5", "300")."""
    return f"{value:.4g}"


def package_text(package: Mapping[str, Value]) -> str:
    """A package as compact JSON with keys in the given order."""
    return json.dumps(dict(package), separators=(", ", ": "), ensure_ascii=False)


def issues_text(space: OutcomeSpace) -> str:
    """One line per issue with its options."""
    lines: list[str] = []
    for issue in space.issues:
        unit = f" ({issue.unit})" if issue.unit else ""
        lines.append(f"- {issue.name}{unit}: {', '.join(json.dumps(v) for v in issue.values)}")
    return "\n".join(lines)


def utility_text(utility: UtilityFunction) -> str:
    """How a party scores packages, for its own private prompt."""
    if isinstance(utility, LinearAdditiveUtility):
        lines = [
            "A package scores the sum of the points of its options (plus a constant of "
            f"{number(utility.offset)}):"
        ]
        for issue, table in zip(utility.space.issues, utility.weighted_tables, strict=True):
            points = ", ".join(
                f"{json.dumps(v)} = {number(float(p))}"
                for v, p in zip(issue.values, table.tolist(), strict=True)
            )
            lines.append(f"- {issue.name}: {points}")
        low, high = utility.bounds()
        lines.append(f"Scores range from {number(low)} to {number(high)}.")
        return "\n".join(lines)
    if isinstance(utility, RankedPreferenceUtility):
        lines = ["Your preferences, most preferred first (importance in brackets):"]
        for issue in utility.space.issues:
            ranked = ", ".join(json.dumps(v) for v in utility.rankings.get(issue.name, ()))
            bad = ", ".join(json.dumps(v) for v in utility.unacceptable.get(issue.name, ()))
            weight = number(float(utility.weights.get(issue.name, 1.0)))
            lines.append(
                f"- {issue.name} [{weight}]: {ranked or 'no preference'}"
                + (f"; unacceptable: {bad}" if bad else "")
            )
        return "\n".join(lines)
    low, high = utility.bounds()
    return (
        f"Scores are computed for you (range {number(low)} to {number(high)}); see the scores in each turn."
    )


def tracker_text(
    space: OutcomeSpace, table: TableOffer | None, latest: Mapping[str, Mapping[str, Value]]
) -> str:
    """The issue tracker: the package on the table and each party's latest package, per issue."""
    lines: list[str] = []
    if table is None:
        lines.append("On the table: nothing yet.")
    else:
        accepted = ", ".join(sorted(table.accepted_by)) or "nobody"
        lines.append(
            f"On the table (from {table.proposer}, accepted by {accepted}): {package_text(table.package)}"
        )
    if latest:
        parties = sorted(latest)
        lines.append("Latest package of each party, by issue:")
        for issue in space.issues:
            cells = "; ".join(f"{p}: {json.dumps(latest[p].get(issue.name))}" for p in parties)
            lines.append(f"- {issue.name}: {cells}")
    return "\n".join(lines)


def history_text(events: Iterable[Event], limit: int) -> str:
    """The last limit public moves, oldest first, one line each."""
    lines: list[str] = []
    for event in events:
        if event.kind == "action":
            lines.append(_move_line(event))
        elif event.kind == "mediator_proposal":
            lines.append(f"round {event.round}, mediator proposed {package_text(event.data['package'])}")
    if not lines:
        return "(no moves yet)"
    skipped = len(lines) - limit
    shown = lines[-limit:] if limit > 0 else []
    return "\n".join(([f"({skipped} earlier moves omitted)"] if skipped > 0 else []) + shown)


def _move_line(event: Event) -> str:
    data = event.data
    kind = str(data.get("kind", "?"))
    text = f"round {event.round}, {event.party} {_VERBS.get(kind, kind)}"
    if kind == "propose":
        text += f" {package_text(data['package'])}"
    if data.get("message"):
        text += f' — "{data["message"]}"'
    return text


_VERBS = {
    "propose": "proposed",
    "accept": "accepted",
    "reject": "rejected",
    "walk": "walked away",
    "say": "said",
}


def scores_text(
    utility: UtilityFunction, offers: Sequence[tuple[str, Mapping[str, Value]]], limit: int
) -> str:
    """The party's own score of the latest offers (private)."""
    shown = offers[-limit:]
    if not shown:
        return "(no offers yet)"
    return "\n".join(f"- {who}: {package_text(pkg)} → {number(utility.evaluate(pkg))}" for who, pkg in shown)

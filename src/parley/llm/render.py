"""Plain-text renderings of negotiation state for prompts: issues, private utility, tracker, history.

Offers in a division scenario are also said from the reader's side ("you would get 0 food, ...;
alice would get 3 food, ...") so a model playing either party can tell what a package gives it.
Other parties' messages appear only as quoted data (`parley.llm.untrusted.quoted`). Everything
here is deterministic (stable ordering, fixed number formats) so identical states give identical
prompts, which is what makes caching and replay work.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility, RankedPreferenceUtility, UtilityFunction
from parley.errors import ScenarioError
from parley.llm.untrusted import quoted
from parley.protocol.actions import Accept, Propose, Reject, Say, Walk
from parley.protocol.events import Event
from parley.protocol.payloads import MediatorProposal
from parley.protocol.view import TableOffer


def number(value: float) -> str:
    """A number with at most four significant digits ("0.25", "12.5", "300")."""
    return f"{value:.4g}"


def package_text(package: Mapping[str, Value]) -> str:
    """A package as compact JSON with keys in the given order."""
    return json.dumps(dict(package), separators=(", ", ": "), ensure_ascii=False)


Describe = Callable[[Mapping[str, Value]], str]
"""Renders a package for a prompt."""


@dataclass(frozen=True, slots=True)
class Allocation:
    """The division issues of a bilateral scenario: an issue's value counts the units its owner takes
    out of a total, and the other party gets the rest (a scenario's ``allocated_to``, kept as
    ``metadata["allocation"]``).

    Attributes:
        shares: Issue → (owner, total units).
        parties: The two parties, in scenario order (empty when there is no division issue).
    """

    shares: Mapping[str, tuple[str, int]]
    parties: tuple[str, ...] = ()

    @classmethod
    def read(cls, raw: Any, space: OutcomeSpace, parties: Sequence[str]) -> Allocation:
        """The allocation given as ``{issue: {"owner": party, "total": units}}`` (None: no division).

        Raises:
            ScenarioError: an unknown issue or owner, a non-integer total, or more than two parties.
        """
        if not raw:
            return cls({})
        if not isinstance(raw, Mapping) or len(parties) != 2:
            raise ScenarioError("an allocation maps issues to {owner, total} in a two-party scenario")
        shares: dict[str, tuple[str, int]] = {}
        for issue, entry in cast(Mapping[str, Any], raw).items():
            owner = entry.get("owner") if isinstance(entry, Mapping) else None
            total = entry.get("total") if isinstance(entry, Mapping) else None
            if issue not in space.names or owner not in parties or not isinstance(total, int):
                raise ScenarioError(
                    f"allocation.{issue}: expected an issue of the scenario with an owner among "
                    f"{list(parties)} and an integer total, got {entry!r}"
                )
            shares[str(issue)] = (str(owner), total)
        return cls(shares, tuple(parties))

    def other(self, party: str) -> str:
        """The party that gets what party does not take."""
        return self.parties[1] if party == self.parties[0] else self.parties[0]

    def gets(self, package: Mapping[str, Value], party: str) -> str:
        """What party would get of the division issues: "0 food, 1 water, 3 firewood"."""
        parts: list[str] = []
        for issue, (owner, total) in self.shares.items():
            value = package.get(issue)
            if isinstance(value, int | float) and not isinstance(value, bool):
                units = value if party == owner else total - value
                parts.append(f"{number(float(units))} {issue}")
        return ", ".join(parts)

    def describe(self, reader: str | None) -> Describe:
        """Renders packages as compact JSON plus who would get what, for reader (None: a neutral reader)."""

        def text(package: Mapping[str, Value]) -> str:
            plain = package_text(package)
            if not self.shares:
                return plain
            if reader is not None and reader in self.parties:
                other = self.other(reader)
                return (
                    f"{plain} → you would get {self.gets(package, reader)}; "
                    f"{other} would get {self.gets(package, other)}"
                )
            return f"{plain} → " + "; ".join(f"{p} would get {self.gets(package, p)}" for p in self.parties)

        return text


def issues_text(space: OutcomeSpace, allocation: Allocation | None = None, reader: str | None = None) -> str:
    """One line per issue with its options; a division issue says whose units its value counts.

    Args:
        space: The outcome space.
        allocation: The scenario's division issues, if any.
        reader: The party reading the prompt ("you"), or None for a neutral reader (a mediator).
    """
    lines: list[str] = []
    for issue in space.issues:
        unit = f" ({issue.unit})" if issue.unit else ""
        line = f"- {issue.name}{unit}: {', '.join(json.dumps(v) for v in issue.values)}"
        share = allocation.shares.get(issue.name) if allocation is not None else None
        if allocation is not None and share is not None:
            owner, total = share
            what = f"{issue.name} {issue.unit}".strip()
            rest = allocation.other(owner)
            taker = "you take" if owner == reader else f"{owner} takes"
            getter = "you get" if rest == reader else f"{rest} gets"
            line += f" = how many of the {total} {what} {taker}; {getter} the rest"
        lines.append(line)
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
        lines = ["Preferences, most preferred first (importance in brackets):"]
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
    return f"Scores range from {number(low)} to {number(high)}; each offer's score is given per turn."


def tracker_text(
    space: OutcomeSpace,
    table: TableOffer | None,
    latest: Mapping[str, Mapping[str, Value]],
    describe: Describe = package_text,
) -> str:
    """The issue tracker: the package on the table (rendered by describe) and each party's latest
    package, per issue."""
    lines: list[str] = []
    if table is None:
        lines.append("On the table: nothing yet.")
    else:
        accepted = ", ".join(sorted(table.accepted_by)) or "nobody"
        lines.append(
            f"On the table (from {table.proposer}, accepted by {accepted}): {describe(table.package)}"
        )
    if latest:
        parties = sorted(latest)
        lines.append("Latest package of each party, by issue:")
        for issue in space.issues:
            cells = "; ".join(f"{p}: {json.dumps(latest[p].get(issue.name))}" for p in parties)
            lines.append(f"- {issue.name}: {cells}")
    return "\n".join(lines)


def history_text(events: Iterable[Event], limit: int) -> str:
    """The last limit public moves, oldest first, one line each; messages as quoted data."""
    lines: list[str] = []
    for event in events:
        if event.kind == "action":
            lines.append(_move_line(event))
        elif event.kind == "mediator_proposal":
            package = event.typed(MediatorProposal).package
            lines.append(f"round {event.round}, mediator proposed {package_text(package)}")
    if not lines:
        return "(no moves yet)"
    skipped = len(lines) - limit
    shown = lines[-limit:] if limit > 0 else []
    return "\n".join(([f"({skipped} earlier moves omitted)"] if skipped > 0 else []) + shown)


def _move_line(event: Event) -> str:
    action = event.payload
    if not isinstance(action, Propose | Accept | Reject | Walk | Say):
        return f"round {event.round}, {event.party} ?"  # (a malformed record: nothing to quote)
    text = f"round {event.round}, {event.party} {_VERBS[action.kind]}"
    if isinstance(action, Propose):
        text += f" {package_text(action.package)}"
    if action.message:
        text += f" — {quoted(action.message)}"
    return text


_VERBS = {
    "propose": "proposed",
    "accept": "accepted",
    "reject": "rejected",
    "walk": "walked away",
    "say": "said",
}


def scores_text(
    utility: UtilityFunction,
    offers: Sequence[tuple[str, Mapping[str, Value]]],
    limit: int,
    describe: Describe = package_text,
) -> str:
    """The party's own score of the latest offers (private), each offer rendered by describe."""
    shown = offers[-limit:]
    if not shown:
        return "(no offers yet)"
    return "\n".join(
        f"- {who}: {describe(pkg)}; private score {number(utility.evaluate(pkg))}" for who, pkg in shown
    )

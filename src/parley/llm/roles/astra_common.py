"""Shared pieces of the LLM-backed ASTRA stages: role names, the per-move stage context, the tactic
table in words, prompt renderings and the strict matching of a model's issue and option names.

Every rendering reads the negotiator's own `PartyView` (public record, own utility) or the agent's
own estimates; stable ordering and fixed formats keep prompts identical for identical states, so
caching and replay work.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from parley.agents.astra.opponent import PartnerModel
from parley.agents.astra.selection import Tactic, TacticContext
from parley.agents.astra.signals import POINTS_SCALE, PointScale
from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import FloatArray
from parley.llm.render import history_text, number, package_text
from parley.protocol.view import PartyView

INTERPRETER_ROLE = "astra_interpreter"
"""Role name (client override, usage) of the preference interpreter."""
PARAMETERS_ROLE = "astra_parameters"
"""Role name of the λ and S_max chooser."""
PARTNER_ROLE = "astra_partner"
"""Role name of the virtual partner (TS and SI estimate)."""
TACTIC_ROLE = "astra_tactic"
"""Role name of the tactic choice and the strategy ranking."""

STAGES = ("interpreter", "parameters", "virtual_partner", "tactics")
"""The four ASTRA stages an LLM can play, in the order they run in a move."""

TACTIC_TEXT: dict[Tactic, str] = {
    Tactic.AGGRESSIVE_EARLY_OFFER: "aggressive early offer. When: the opening, before many offers have "
    "been traded. How: ask for a lot, so there is room to concede later.",
    Tactic.RESPONSE_TO_EXTREME_OFFER: "response to an extreme offer. When: the partner's offer keeps "
    "nearly everything for itself. How: answer with an equally self-favourable offer.",
    Tactic.NO_CONCESSION_RESPONSE: "no-concession response. When: the partner has not conceded in its "
    "last two offers. How: stop conceding and hold.",
    Tactic.REJECT_NEGATIVE_CONCESSION: "reject a negative concession. When: the partner's latest offers "
    "asked more for itself. How: keep your position, concede nothing.",
    Tactic.LARGE_INITIAL_CONCESSION: "large initial concession. When: early, before you have conceded. "
    "How: give a clear concession on something the partner values.",
    Tactic.CONTINUED_SMALLER_CONCESSIONS: "continued smaller concessions. When: after a big concession "
    "that the partner answered with a small one or none. How: concede less than last time.",
    Tactic.RECIPROCAL_CONCESSIONS: "reciprocal concession. When: the partner just made a significant "
    "concession. How: concede in return.",
    Tactic.LOGROLLING: "logrolling. When: any time. How: give what you value less in exchange for what "
    "you value more.",
    Tactic.MUTUAL_GAIN_FOCUS: "mutual gain focus. When: the partner's latest offer gives it more than "
    "you. How: move to a package that is better for both and more balanced.",
}
"""The nine turn-level tactics of the seed's table 7, in parley's words."""


class StageContext:
    """What the LLM stages of one ASTRA negotiator share during one move.

    The stage Protocols see only their own arguments; the negotiator sets the view here before each
    move so the stages can read the partner's messages, the round and the agent's own BATNA, and
    the interpreter leaves its partner model for the virtual partner.

    Args:
        party: The party the negotiator plays (stage fallbacks go to its private stream).

    Attributes:
        party: The party.
        view: The view of the move being planned (None before the first move).
        model: The inferred partner preferences (IPP) built in this move (None until built).
        sources: Per stage, who answered in this move: "llm", "twin" or "cached".
    """

    def __init__(self, party: str) -> None:
        self.party = party
        self.view: PartyView | None = None
        self.model: PartnerModel | None = None
        self.sources: dict[str, str] = {}

    def begin(self, view: PartyView) -> None:
        """Start a move."""
        self.view, self.model, self.sources = view, None, {}

    @property
    def round(self) -> int:
        """The round of the move (0 before the first)."""
        return self.view.round if self.view is not None else 0

    def mark(self, stage: str, source: str) -> None:
        """Record who answered a stage (a stage asked several times keeps a count per source)."""
        previous = self.sources.get(stage)
        self.sources[stage] = source if previous in (None, source) else "mixed"

    def reservation_points(self) -> float:
        """The agent's BATNA on its 0–36 points scale (0 before the first move)."""
        if self.view is None:
            return 0.0
        utility = self.view.utility
        points = PointScale(*utility.bounds()).points(utility.reservation_value)
        return float(min(POINTS_SCALE, max(0.0, points)))


def partner_moves_text(view: PartyView, limit: int) -> str:
    """The other parties' moves (offers, messages), oldest first, at most limit of them."""
    moves = [e for e in view.record if e.kind == "action" and e.party not in (None, view.party)]
    return history_text(moves, limit) if moves else ""


def issues_worth_text(space: OutcomeSpace, own_tables: Sequence[FloatArray]) -> str:
    """One line per issue with its options and which of them are best and worst for the agent.

    The worth tells the model which way the shared options point (in an allocation game, "3" may
    mean three packages for me), so it can write the counterpart's wishes in the same terms.
    """
    lines: list[str] = []
    for issue, table in zip(space.issues, own_tables, strict=True):
        unit = f" ({issue.unit})" if issue.unit else ""
        values = [float(v) for v in table]
        best, worst = values.index(max(values)), values.index(min(values))
        worth = (
            "all the same to me"
            if max(values) - min(values) <= 1e-12
            else f"for me {json.dumps(issue.values[best])} is best, {json.dumps(issue.values[worst])} worst"
        )
        options = ", ".join(json.dumps(v) for v in issue.values)
        lines.append(f"- {issue.name}{unit}: {options} ({worth})")
    return "\n".join(lines)


def row_text(space: OutcomeSpace, row: Sequence[int] | None) -> str:
    """A package given as option indices, as compact JSON ("none" for None)."""
    return "none" if row is None else package_text(space.from_indices(tuple(row)))


def partner_model_text(model: PartnerModel | None) -> str:
    """The IPP in words: the partner's issue order, weights and option values."""
    if model is None:
        return "unknown"
    lines = [f"Issues, most important first: {', '.join(model.order)}"]
    for issue, table in zip(model.space.issues, model.tables, strict=True):
        values = ", ".join(
            f"{json.dumps(v)} = {t:.2f}" for v, t in zip(issue.values, table.tolist(), strict=True)
        )
        lines.append(f"- {issue.name} (weight {number(model.weights[issue.name])}): {values}")
    return "\n".join(lines)


def tactic_context_text(context: TacticContext) -> str:
    """The tactic context as plain lines (points on the 0–36 scale)."""

    def points(value: float | None) -> str:
        return "none yet" if value is None else f"{value:.1f} points"

    concessions = ", ".join(f"{c:+.1f}" for c in context.partner_concessions) or "none yet"
    return "\n".join(
        [
            f"- phase: {context.phase.value}",
            f"- partner's fairness: {context.fairness.value}; stance: {context.stance.value}",
            f"- offers so far: partner {context.partner_offers}, me {context.own_offers}",
            f"- partner's concessions to me, offer by offer (my points): {concessions}",
            f"- my latest concession: {context.own_last_concession:.1f} points; "
            f"I have conceded before: {'yes' if context.own_conceded else 'no'}",
            f"- partner's latest offer: {points(context.partner_offer_agent_points)} for me, "
            f"{points(context.partner_offer_partner_points)} (estimated) for the partner",
            f"- my previous offer: {points(context.previous_agent_points)} for me",
            f"- my offers in a row without a concession: {context.own_hold_streak}",
        ]
    )


def tactics_menu() -> str:
    """The nine tactics, one per line, code first."""
    return "\n".join(f"- {t.value} ({t.strategy.value}): {TACTIC_TEXT[t]}" for t in Tactic)


def match_tactic(text: str) -> Tactic:
    """A tactic from its code ("LGR") or its name ("logrolling", "Mutual Gain Focus").

    Raises:
        ValueError: no tactic of the nine matches.
    """
    wanted = " ".join(text.replace("_", " ").replace("-", " ").split()).lower()
    for tactic in Tactic:
        names = {tactic.value.lower(), tactic.name.replace("_", " ").lower()}
        names.add(TACTIC_TEXT[tactic].split(".")[0].replace("-", " ").lower())
        if wanted in names:
            return tactic
    codes = ", ".join(t.value for t in Tactic)
    raise ValueError(f"tactic {text!r} is not one of the nine tactics; answer with a code: {codes}")


def match_issue(space: OutcomeSpace, name: str) -> str:
    """The issue named name (case and surrounding space ignored).

    Raises:
        ValueError: the space has no such issue.
    """
    by_lower = {n.lower(): n for n in space.names}
    found = by_lower.get(str(name).strip().lower())
    if found is None:
        raise ValueError(f"{name!r} is not an issue; the issues are {list(space.names)}")
    return found


def match_package(space: OutcomeSpace, package: Mapping[str, Any]) -> tuple[int, ...]:
    """A complete package named by the model, as option indices; nothing is guessed.

    Issue names match case-insensitively; options match exactly, by text, or by numeric value
    ("2" for 2). Unknown issues, unknown options and missing issues are refused.

    Raises:
        ValueError: naming what was wrong and what is allowed.
    """
    chosen: dict[str, Value] = {}
    for key, raw in package.items():
        name = match_issue(space, key)
        chosen[name] = _match_option(space, name, raw)
    missing = [n for n in space.names if n not in chosen]
    if missing:
        raise ValueError(f"the offer misses issue(s) {missing}; name an option for every issue or use null")
    return space.to_indices(chosen)


def _match_option(space: OutcomeSpace, name: str, raw: Any) -> Value:
    options = space.issues[space.names.index(name)].values
    if raw in options and type(raw) is not bool:
        return raw
    text = str(raw).strip().lower()
    for option in options:
        if str(option).strip().lower() == text:
            return option
        if isinstance(option, int | float) and _number(text) == float(option):
            return option
    raise ValueError(f"{raw!r} is not an option of issue {name!r} (options {list(options)})")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None

"""Why ASTRA made a move: a reason code with the figures behind it, beside the trace's wording.

The trace keeps its wording (`Reason.text`, what `--explain` and the saved trace show); readers that
speak to a person (the coach in the terminal and the browser) go by `Reason.code` and
`Reason.values`, never by parsing the wording. A reason from a pluggable stage (an LLM parameter
chooser or tactic assessor) carries its own free text under `Why.PARAMETERS` or `Why.TACTIC`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class Why(StrEnum):
    """The kinds of reason ASTRA gives; `values` names the figures each carries (points on 0-36)."""

    ASK_PRIORITIES = "ask_priorities"
    """No partner priorities known yet: ask."""
    ANSWER_PRIORITIES = "answer_priorities"
    """The partner asked for ASTRA's priorities."""
    OFFER_BELOW_MINE = "offer_below_mine"
    """The partner's offer gives it less than ASTRA's last offer did (theirs, mine)."""
    STATED_VS_OFFERS = "stated_vs_offers"
    """The partner says an issue matters most but keeps least of it (issue)."""
    STATED_VS_ESTIMATE = "stated_vs_estimate"
    """The partner's stated priorities differ from the estimate."""
    ACCEPT_AT_LEAST_LAST = "accept_at_least_last"
    """The offer is worth at least ASTRA's last offer (offered, latest)."""
    ACCEPT_AT_LEAST_PLANNED = "accept_at_least_planned"
    """The offer is worth at least what ASTRA would propose (offered, planned)."""
    ACCEPT_LAST_MOVE = "accept_last_move"
    """Last move before the deadline and the offer beats the BATNA (offered, reservation)."""
    NOTHING_TO_GAIN = "nothing_to_gain"
    """No package is worth the BATNA (reservation)."""
    NO_CONCESSION = "no_concession"
    """The partner made no concession in a row of offers (streak, limit)."""
    WARN_NOT_WALK = "warn_not_walk"
    """The offer beats the BATNA and a deal is reachable: warn rather than walk."""
    WARN_BELOW_BATNA = "warn_below_batna"
    """A sub-BATNA offer no better than the previous one: warn."""
    PARAMETERS = "parameters"
    """Stage 2's λ and S_max from the partner's signals (lambda, s_max; stance, fairness); the text
    also names the deadline ceiling when it lowered S_max."""
    DEADLINE_FLOOR = "deadline_floor"
    """Under the deadline ceiling: ask at most s_max now (s_max, floor)."""
    TIT_FOR_TAT = "tit_for_tat"
    """Concede at most cap points on the last offer (cap, floor)."""
    BEST_RECEIVED = "best_received"
    """Never ask less than the best offer received (received)."""
    DEADLINE_CURVE = "deadline_curve"
    """Concede no faster than the deadline curve allows (wanted, slack, floor)."""
    FLOORS_RELAXED = "floors_relaxed"
    """No offer met both floors: the partner's estimated floor was dropped."""
    NO_CANDIDATE = "no_candidate"
    """No feasible candidate: repeat the previous (or best) offer."""
    TACTIC = "tactic"
    """The stage-3 tactic (tactic, strategy) and its free-text reason."""
    PROPOSE_BACK = "propose_back"
    """A package offered earlier is worth at least the plan (best, planned)."""
    VARY = "vary"
    """Vary the offer rather than repeat it (points)."""
    TIME_TARGET = "time_target"
    """The ablation's time-based target (target, time)."""


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason for a move.

    Attributes:
        code: What kind of reason it is.
        text: The trace's wording (first person, ASTRA's 0-36 points).
        values: The figures (points on ASTRA's scale, counts, times) and names behind it, by name.
    """

    code: Why
    text: str
    values: Mapping[str, float | str] = field(default_factory=lambda: {})

    def __str__(self) -> str:
        return self.text

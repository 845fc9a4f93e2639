"""Shared machinery of the rule-based baselines: a frequency opponent model, the per-session memory
and the decision skeleton (accept, walk at the deadline, answer priority questions, propose); the
ranked space they all read is in `ranked.py`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from parley.agents.baselines.draws import Draws
from parley.agents.baselines.ranked import (
    ESTIMATE_CHUNK,
    PYTHON_BAND,
    PYTHON_SUM_TERMS,
    TOLERANCE,
    RankedSpace,
    ranked_space,
    slot_numerators,
)
from parley.domain.issues import Value
from parley.domain.utility import FloatArray
from parley.protocol.actions import (
    Accept,
    Action,
    CoalitionAnswer,
    DeclineCoalition,
    JoinCoalition,
    Propose,
    Say,
    Walk,
)
from parley.protocol.coalition import CoalitionInvitation, invitation_view
from parley.protocol.events import Event, PartyId
from parley.protocol.view import PartyView, Record

_NEGATIVE_INFINITY = float("-inf")


class OpponentModel:
    """A frequency model of one other party, seeded with "they want the opposite of me".

    The estimated value of an option is (prior + times offered) / (1 + offers), where the prior is
    the owner's own marginal value reversed and scaled to [0, 1]; issue weights follow the
    priorities the party stated (most important first), equal otherwise.

    Args:
        ranked: The owner's ranked space.
    """

    def __init__(self, ranked: RankedSpace) -> None:
        self._ranked = ranked
        self._priors = ranked.reversed_marginal_list
        self._counts: list[float] = [0.0] * len(self._priors)
        # Equal weights to start with: the ranking's shared list (weights are replaced, never changed).
        self._slot_weights: list[float] = ranked.equal_weights
        # weight · (prior + count) per slot, kept up to date as offers are counted: an estimate is
        # this over (1 + offers), so scoring a few packages divides only their own slots.
        self._numerators: list[float] = ranked.equal_weight_numerators.copy()
        # Option slots of the offers not counted yet: counting waits until an estimate is asked
        # for (many negotiators never ask), and clears the estimates computed before.
        self._uncounted: list[tuple[int, ...]] = []
        self.offers = 0
        self.offered_utilities: list[float] = []
        self.stated: tuple[str, ...] = ()
        self._values: list[float] | None = None
        self._table: FloatArray | None = None
        self._estimate: FloatArray | None = None

    def observe_offer(self, package: Mapping[str, Value]) -> float:
        """Note a package the party put forward.

        Returns:
            The package's worth to the owner (exactly `utility.evaluate`).
        """
        ranked = self._ranked
        worth, slots = ranked.assessments[ranked.values_of(package)]  # `ranked.assess`, inline
        self._uncounted.append(slots)
        self.offers += 1
        self.offered_utilities.append(worth)
        return worth

    def _count(self) -> None:
        """Count the offers observed since the last count, and forget the estimates made before."""
        counts, numerators = self._counts, self._numerators
        weights, priors = self._slot_weights, self._priors
        for slots in self._uncounted:
            for slot in slots:
                count = counts[slot] = counts[slot] + 1.0
                numerators[slot] = weights[slot] * (priors[slot] + count)  # as `slot_numerators` does
        self._uncounted.clear()
        self._values = self._table = self._estimate = None

    def observe_priorities(self, priorities: Sequence[str]) -> None:
        """Use an (unverified) statement of the party's issue priorities, most important first."""
        ranked = self._ranked
        names = ranked.space.names
        known = tuple(dict.fromkeys(p for p in priorities if p in names))
        if not known or known == self.stated:
            return
        self.stated = known
        levels = {name: len(names) - position for position, name in enumerate(known)}
        weights = np.array([float(levels.get(name, 1)) for name in names])
        self._count()
        self._slot_weights = np.repeat(weights / weights.sum(), ranked.cardinalities).tolist()
        self._numerators = slot_numerators(self._slot_weights, self._priors, self._counts)

    def values(self) -> list[float]:
        """`table()` as a Python list (the same floats, computed element by element)."""
        if self._uncounted:
            self._count()
        values = self._values
        if values is None:
            divisor = 1.0 + self.offers
            values = self._values = [numerator / divisor for numerator in self._numerators]
        return values

    def scores(self, rows: Iterable[tuple[int, ...]]) -> list[float]:
        """The estimate of each row of flat option slots: its `values()` added up, the same floats.

        Each row divides its own few numerators instead of reading a table, so scoring a narrow
        band never computes every option's value. Rows are added term by term, as numpy adds
        up to `PYTHON_SUM_TERMS` terms, so the floats equal numpy's. (Not `sum`: from Python 3.12
        it compensates rounding errors, so its floats differ.)
        """
        if self._uncounted:
            self._count()
        numerators = self._numerators
        divisor = 1.0 + self.offers
        scores: list[float] = []
        for row in rows:
            total = 0.0
            for slot in row:
                total += numerators[slot] / divisor
            scores.append(total)
        return scores

    def table(self) -> FloatArray:
        """Estimated weighted value of every option, in the ranked space's flat layout."""
        if self._uncounted:
            self._count()
        table = self._table
        if table is None:
            table = self._table = np.array(self.values(), dtype=np.float64)
        return table

    def estimate(self) -> FloatArray:
        """Estimated utility (in [0, 1]) of every outcome, in the owner's rank order."""
        if self._uncounted:
            self._count()
        estimate = self._estimate
        if estimate is None:
            estimate = self._estimate = self.estimate_ranks(range(self._ranked.size))
        return estimate

    def estimate_ranks(self, ranks: range) -> FloatArray:
        """Estimated utility of the outcomes at a contiguous range of ranks."""
        ranked, table = self._ranked, self.table()
        if not ranked.lean:
            return table[ranked.flat_indices[ranks.start : ranks.stop]].sum(axis=1)
        parts = [
            ranked.lean_estimate(table, start, min(start + ESTIMATE_CHUNK, ranks.stop))
            for start in range(ranks.start, ranks.stop, ESTIMATE_CHUNK)
        ]
        return parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.zeros(0)


class SessionMemory:
    """What a baseline remembers within one session, read incrementally from its record."""

    def __init__(self, record: Record, ranked: RankedSpace, opponents: Sequence[PartyId]) -> None:
        self.record: Sequence[Event] = record  # (as a Sequence: `read` slices it)
        self.ranked = ranked
        # What the ranking was built for, at hand for the check every move makes (see `act`).
        self.space = ranked.space
        self.utility = ranked.utility
        self.reservation = ranked.reservation
        self.models = {party: OpponentModel(ranked) for party in opponents}
        self.seen = 0
        # The last package read from another party, and its worth: usually what is on the table.
        self.last_offer: Mapping[str, Value] | None = None
        self.last_offer_worth = 0.0
        self.question_pending = False
        self.last_rank: int | None = None
        self.state: dict[str, Any] = {}

    def read(self, party: PartyId) -> None:
        """Fold the record's new events into the opponent models and the pending question."""
        seen = self.seen
        events = self.record[seen:]  # (a slice of the few new ones costs half an islice skipping the rest)
        models = self.models
        for event in events:
            if event.party == party or event.kind != "action":  # its own moves are most of the rest
                continue
            data = event.data
            kind = data.get("kind")
            if kind == "propose":
                model = models.get(event.party or "")
                if model is not None:
                    package = data["package"]
                    self.last_offer_worth = model.observe_offer(package)
                    self.last_offer = package
            elif kind == "say":
                self._hear(event.party or "", data)
        self.seen = seen + len(events)

    def _hear(self, speaker: PartyId, data: Mapping[str, Any]) -> None:
        if data.get("asks_priorities"):
            self.question_pending = True
        model = self.models.get(speaker)
        if model is not None and data.get("priorities"):
            model.observe_priorities([str(p) for p in data["priorities"]])

    def band_scores(self, candidates: range) -> list[float] | None:
        """`combined_estimate(candidates)` as a list, in pure Python: the same floats.

        None when numpy's way of adding does not allow it (more parties have made an offer than
        `PYTHON_SUM_TERMS`) or no party has made an offer yet.
        """
        rows = self.ranked.flat_rows[candidates.start : candidates.stop]
        models = self.models
        if len(models) == 1:  # two parties, the usual case: one model, nothing to add up
            (model,) = models.values()
            return model.scores(rows) if model.offers else None
        scores: list[float] | None = None
        terms = 0
        for model in models.values():
            if model.offers:
                terms += 1
                if scores is None:
                    scores = model.scores(rows)
                else:  # the parties' estimates are added one by one, like numpy's sum of a few
                    for position, score in enumerate(model.scores(rows)):
                        scores[position] += score
        return scores if terms <= PYTHON_SUM_TERMS else None

    def combined_estimate(self, ranks: range) -> FloatArray | None:
        """Summed estimate over ranks of every party that has made an offer (None before any has)."""
        estimates = [m.estimate_ranks(ranks) for m in self.models.values() if m.offers]
        if not estimates:
            return None
        return estimates[0] if len(estimates) == 1 else np.sum(estimates, axis=0)


def check_unit(**values: float) -> None:
    """Raise ValueError naming the first option that is not a share in [0, 1]."""
    for name, value in values.items():
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1], got {value}")


def is_final_round(view: PartyView) -> bool:
    """Whether this is the last round the rules allow."""
    return view.round >= view.rules.max_rounds


class BaselineNegotiator(ABC):
    """The decision skeleton shared by every baseline.

    Each move: accept an acceptable offer; at the last round walk rather than take an offer below
    the BATNA; answer a pending question about priorities; otherwise propose (or counter). The
    BATNA check lives here, so no subclass can accept below it.

    Args:
        party: The party this negotiator plays.
        seed: Seed of its random generator.
    """

    def __init__(self, party: PartyId, seed: int = 0) -> None:
        self.party = party
        self.seed = seed
        self._rng = Draws(seed)  # (a bad seed fails here)
        self._ranked: RankedSpace | None = None
        self._memory: SessionMemory | None = None
        self._custom_walk = self._custom_propose = True  # (set for each session: see `_session`)

    def act(self, view: PartyView) -> Action:
        """Choose a move (see the class docstring for the order of rules)."""
        memory = self._memory
        utility = view.utility
        if (  # a new session, a new ranking or a BATNA changed in place (checked inline: every move)
            memory is None
            or view.record is not memory.record
            or utility is not memory.utility
            or view.space is not memory.space
            or utility.reservation_value != memory.reservation
        ):
            memory = self._session(view)
        party = view.party
        memory.read(party)
        ranked = memory.ranked
        if ranked.hopeless:
            return Walk("no package is worth as much as my BATNA")
        table = view.table  # `view.offer`, inline: the package on the table, unless this party accepted it
        if table is not None and party not in table.accepted_by:
            package = table.package
            if package is memory.last_offer:  # usually: the offer was just read from the record
                worth = memory.last_offer_worth
            else:
                worth = ranked.assessments[ranked.values_of(package)][0]  # `ranked.assess`, inline
            if worth >= ranked.acceptable_from and self.accepts(view, worth):
                return Accept()
            # The default walk_reason walks only at the last round: before it, it need not be asked.
            if self._custom_walk or view.round >= view.rules.max_rounds:
                reason = self.walk_reason(view, worth)
                if reason:
                    return Walk(reason)
        if memory.question_pending:
            memory.question_pending = False
            return self.answer_priorities(ranked.priorities)
        if self._custom_propose:
            return self.propose(view)
        rank = memory.last_rank = self.choose_rank(view, ranked, memory)  # `propose`, inline
        return Propose(ranked.packages[rank].copy())  # `ranked.package(rank)`, inline

    def answer_coalition(self, view: PartyView, invitation: CoalitionInvitation) -> CoalitionAnswer:
        """Answer a coalition invitation (k-of-n games): join when the package, offered on the table,
        would be accepted by `act`'s rule (at least the BATNA and `accepts`)."""
        memory = self._memory
        if (
            memory is None
            or view.record is not memory.record
            or not memory.ranked.matches(view.space, view.utility)
        ):
            memory = self._session(view)
        memory.read(view.party)
        ranked = memory.ranked
        worth = float(ranked.assessments[ranked.values_of(invitation.package)][0])
        if worth >= ranked.acceptable_from and self.accepts(invitation_view(view, invitation), worth):
            return JoinCoalition()
        return DeclineCoalition("I would not accept this package as an offer")

    def _session(self, view: PartyView) -> SessionMemory:
        ranked = self._ranked
        if ranked is None or not ranked.matches(view.space, view.utility):
            ranked = self._ranked = ranked_space(view.space, view.utility)
            self._memory = None
        memory = self._memory
        if memory is None or memory.record is not view.record:
            memory = self._memory = SessionMemory(view.record, ranked, view.opponents)
            # act() runs the hooks a subclass (or instance) leaves at their defaults inline, a call
            # less per move (so a hook patched on an instance takes effect from its next session).
            self._custom_walk = _overrides(self.walk_reason, BaselineNegotiator.walk_reason)
            self._custom_propose = _overrides(self.propose, BaselineNegotiator.propose)
            self.start_session(ranked, memory)
        return memory

    def propose(self, view: PartyView) -> Action:
        """The move when nothing is accepted, walked or answered: a (counter-)proposal."""
        memory = self._memory
        assert memory is not None, "act() has not been called yet"
        ranked = memory.ranked
        rank = memory.last_rank = self.choose_rank(view, ranked, memory)
        return Propose(ranked.packages[rank].copy())  # `ranked.package(rank)`, inline

    @property
    def ranked(self) -> RankedSpace:
        """The ranked space of the current session."""
        assert self._ranked is not None, "act() has not been called yet"
        return self._ranked

    @property
    def memory(self) -> SessionMemory:
        """The memory of the current session."""
        assert self._memory is not None, "act() has not been called yet"
        return self._memory

    def start_session(self, ranked: RankedSpace, memory: SessionMemory) -> None:  # noqa: B027 (optional hook)
        """Hook: set up per-session state (called on the first move of each session)."""

    def walk_reason(self, view: PartyView, worth: float) -> str:
        """Why to walk away from an offer worth `worth` that was not accepted ("" to stay).

        The default walks only at the last round, and only from an offer below the BATNA.
        """
        if view.round >= view.rules.max_rounds and worth < self.ranked.acceptable_from:  # is_final_round
            return f"last round and the offer ({worth:g}) is below my BATNA ({self.ranked.reservation:g})"
        return ""

    def answer_priorities(self, priorities: tuple[str, ...]) -> Say:
        """State issue priorities (most important first); never the BATNA or the weights."""
        return Say(f"What matters most to me, in order: {', '.join(priorities)}.", priorities)

    @abstractmethod
    def accepts(self, view: PartyView, worth: float) -> bool:
        """Whether to accept an offer worth `worth` (already known to be at least the BATNA)."""

    @abstractmethod
    def choose_rank(self, view: PartyView, ranked: RankedSpace, memory: SessionMemory) -> int:
        """Rank (in the owner's order) of the package to propose."""

    def pick(self, candidates: range, memory: SessionMemory) -> int:
        """One rank from candidates: best for the others by the opponent model, else at random.

        The previous proposal is skipped when there is any alternative, so the agent keeps
        moving on issues instead of repeating one package.
        """
        if len(candidates) == 1:
            return candidates.start
        if memory.ranked.python_scoring and len(candidates) <= PYTHON_BAND:
            scores = memory.band_scores(candidates)
            if scores is not None:
                return candidates.start + self._pick_best(scores, memory, candidates)
        return self._pick_estimated(candidates, memory)

    def _pick_estimated(self, candidates: range, memory: SessionMemory) -> int:
        """`pick` with numpy (large spaces, wide bands, many parties) or, before any offer, at random."""
        estimate = memory.combined_estimate(candidates)
        if estimate is None:
            rank = candidates.start + self._rng.index(len(candidates))
            if rank == memory.last_rank:
                rank = candidates.start + (rank - candidates.start + 1) % len(candidates)
            return rank
        last = memory.last_rank
        if last is not None and last in candidates:
            estimate[last - candidates.start] = -np.inf
        best = np.flatnonzero(estimate >= estimate.max() - TOLERANCE)
        choice = best[0] if best.size == 1 else best[self._rng.index(best.size)]
        return candidates.start + int(choice)

    def _pick_best(self, scores: list[float], memory: SessionMemory, candidates: range) -> int:
        """`pick`'s choice among scored candidates, in pure Python (same draws as the numpy path)."""
        last = memory.last_rank
        if last is not None and last in candidates:
            scores[last - candidates.start] = _NEGATIVE_INFINITY
        # The best score (as max() finds it) and the runner-up, in one pass: the best is the only
        # one near the top, as usual, exactly when the runner-up falls short of it.
        top = runner_up = _NEGATIVE_INFINITY
        for score in scores:
            if score > top:
                top, runner_up = score, top
            elif score > runner_up:
                runner_up = score
        threshold = top - TOLERANCE
        if runner_up < threshold:
            return scores.index(top)
        best = [i for i, score in enumerate(scores) if score >= threshold]
        return best[self._rng.index(len(best))]


def _overrides(method: object, default: object) -> bool:
    """Whether a bound method is something other than the base class's default implementation."""
    return getattr(method, "__func__", None) is not default

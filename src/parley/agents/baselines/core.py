"""Shared machinery of the rule-based baselines: the per-session ranked space, a frequency opponent
model and the decision skeleton (accept, walk at the deadline, answer priority questions, propose).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cached_property
from itertools import islice
from operator import itemgetter
from typing import Any

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Issue, Value
from parley.domain.ranking import RankedOutcomes
from parley.domain.space import IndexArray, OutcomeSpace
from parley.domain.utility import FloatArray, UtilityFunction
from parley.protocol.actions import Accept, Action, Propose, Say, Walk
from parley.protocol.events import PartyId
from parley.protocol.view import PartyView, Record

TOLERANCE = 1e-9
"""Slack when comparing utilities, so rounding never turns an acceptable package into a rejection."""

SHARED_RANKING_LIMIT = 100_000
"""Rankings of spaces up to this size are shared between negotiators holding the same utility object."""
SHARED_RANKINGS = 64
"""How many shared rankings are kept (oldest dropped first)."""
ESTIMATE_CHUNK = 1 << 16
"""Large spaces estimate this many ranks at a time, so no (n, k) array is ever built."""
PYTHON_BAND = 64
"""Bands of up to this many candidates are scored in pure Python on small spaces (numpy beyond)."""
PYTHON_SUM_TERMS = 7
"""numpy adds up to this many terms one by one (more are summed pairwise), so the pure-Python
scoring path, which adds them one by one, is used only up to this many issues and opponents."""
KNOWN_PACKAGES = 4096
"""How many packages' worth and option slots a ranking remembers (all forgotten when full)."""
CURVES = 64
"""How many concession curves' plans a ranking keeps (all forgotten when full)."""
PLANS = 4096
"""How many rounds' plans one concession curve keeps per ranking (all forgotten when full)."""

Plan = tuple[float, range]
"""A concession target and the ranks of the packages a negotiator may propose for it."""
Assessment = tuple[float, tuple[int, ...]]
"""A package's worth to the owner (exactly `utility.evaluate`) and its flat option slot per issue."""
_NEGATIVE_INFINITY = float("-inf")


class RankedSpace:
    """Every outcome of a space sorted once by the owner's utility, best first.

    Built on a negotiator's first move of a session; afterwards every query is a bisection or a
    slice, so no move enumerates the space again.

    Spaces up to `SHARED_RANKING_LIMIT` outcomes keep their option-index rows (also as Python
    tuples, so a move on a small space scores a narrow band without numpy calls). Larger spaces
    hold only the memory-lean `RankedOutcomes` (16 bytes per outcome) and build the index rows of
    the few ranks a move looks at on demand. Both layouts give bit-identical results.

    A ranking is shared by every negotiator holding its utility object (see `ranked_space`), so
    it also keeps what moves would otherwise recompute: the worth and option slots of each
    package seen (`assess`) and the plans of each concession curve (`plans`).

    Args:
        space: The outcome space (must fit in memory).
        utility: The owner's utility function.

    Raises:
        ValueError: the space is too large to enumerate.
    """

    def __init__(self, space: OutcomeSpace, utility: UtilityFunction) -> None:
        if not space.fits_in_memory():
            raise ValueError(f"baselines need an enumerable space; this one has {space.size:,} outcomes")
        self.space = space
        self.utility = utility
        # Flat per-option layout: option j of issue i sits at offsets[i] + j, so an estimate over
        # many outcomes is one gather and one sum, whatever the number of issues.
        self.cardinalities = np.array(space.shape, dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.cardinalities)[:-1]]).astype(np.int64)
        self.issue_offsets = list(zip(space.issues, self.offsets.tolist(), strict=True))
        # Option → flat slot per issue, for counting offers without a method call per issue.
        self.option_slots: tuple[tuple[str, dict[Value, int]], ...] = tuple(
            (issue.name, {value: offset + j for j, value in enumerate(issue.values)})
            for issue, offset in self.issue_offsets
        )
        self.lean = space.size > SHARED_RANKING_LIMIT and utility.space == space
        if self.lean:
            ranking = self._ranking = RankedOutcomes.of(utility)
            self.order: NDArray[np.int64] = ranking.order
            self.utilities: FloatArray = ranking.utilities
            marginals = self._lean_marginal_values(ranking)
            self._negated: list[float] | None = None
        else:
            indices = space.enumerate_indices()
            utilities = utility.evaluate_indices(indices)
            order = np.argsort(-utilities, kind="stable")
            self.order = order.astype(np.int64, copy=False)
            self.utilities = utilities[order]
            self._negated = (-self.utilities).tolist()
            flat = indices + self.offsets
            self.__dict__["indices"] = indices[order]
            self.__dict__["flat_indices"] = flat[order]
            marginals = self._marginal_values(flat, utilities)
        self._size = int(self.utilities.shape[0])
        self.best = float(self.utilities[0])
        self.worst = float(self.utilities[-1])
        self.reservation = float(utility.reservation_value)
        self.acceptable_from = self.reservation - TOLERANCE
        """The least worth an acceptable offer may have (the BATNA, less the rounding slack)."""
        self.floor = max(self.reservation, self.worst)
        self.hopeless = self.best < self.reservation - TOLERANCE  # no package is worth the BATNA
        # Bands may be scored in pure Python (see `python_scores`).
        self.python_scoring = not self.lean and len(space.issues) <= PYTHON_SUM_TERMS
        self.priorities, self.reversed_marginals = self._digest(marginals)
        self.reversed_marginal_list: list[float] = self.reversed_marginals.tolist()
        # What moves look up by rank or by package, remembered; per-move paths index these
        # dicts directly (no call when the entry exists), other code goes through `package`
        # and `assess`.
        self.packages = _Packages(space, self.order)
        self.values_of = _values_getter(space.names)
        """A package's values in issue order: its key in `assessments`."""
        self.assessments = _Assessments(space.names, utility.evaluate, self.option_slots, self.issue_offsets)
        self._plans: dict[Hashable, dict[tuple[int, int], Plan]] = {}

    @cached_property
    def indices(self) -> IndexArray:
        """Option-index rows of every outcome, in rank order, shape (n, k) (built on first use)."""
        return self.space.indices_at(self.order)

    @cached_property
    def flat_indices(self) -> IndexArray:
        """Rank-ordered rows of flat option slots (option index + issue offset), shape (n, k)."""
        return self.indices + self.offsets

    @cached_property
    def flat_rows(self) -> list[tuple[int, ...]]:
        """The rows of `flat_indices` as Python tuples (small spaces' pure-Python fast path)."""
        return [tuple(row) for row in self.flat_indices.tolist()]

    def lean_estimate(self, table: FloatArray, start: int, stop: int) -> FloatArray:
        """`table[flat_indices[start:stop]].sum(axis=1)` without the rank-ordered index array.

        With few issues numpy adds each row's terms one by one, so adding one gathered column
        per issue gives the same floats; with more it sums pairwise, so the rows are built.
        """
        digits = np.unravel_index(self.order[start:stop], self.space.shape)
        if len(digits) > PYTHON_SUM_TERMS:
            return table[np.stack(digits, axis=-1) + self.offsets].sum(axis=1)
        total = np.zeros(stop - start, dtype=np.float64)
        for (issue, offset), column in zip(self.issue_offsets, digits, strict=True):
            total += table[offset : offset + issue.cardinality][column]
        return total

    @cached_property
    def unit_utilities(self) -> FloatArray:
        """The owner's utilities rescaled to [0, 1] over the space (worst 0, best 1), in rank order."""
        span = self.best - self.worst
        return (self.utilities - self.worst) / span if span > 0 else np.ones(self.size)

    @cached_property
    def acceptable(self) -> NDArray[np.bool_]:
        """Mask of the outcomes at or above the owner's BATNA, in rank order."""
        return self.utilities >= self.reservation - TOLERANCE

    @property
    def size(self) -> int:
        """Number of outcomes."""
        return self._size

    def matches(self, space: OutcomeSpace, utility: UtilityFunction) -> bool:
        """Whether this ranking was built for exactly this space and utility object."""
        return (
            space is self.space
            and utility is self.utility
            and utility.reservation_value == self.reservation  # a BATNA changed in place
        )

    def package(self, rank: int) -> dict[str, Value]:
        """The outcome at a rank (0 = best for the owner), as a fresh package."""
        return dict(self.packages[rank])

    def plans(self, curve: Hashable) -> dict[tuple[int, int], Plan]:
        """The plans of a concession curve by (round, round budget), shared by every negotiator.

        A plan is a pure function of this ranking, the curve and the round, so every session
        with this utility and curve can share it. The caller fills the dict (see `PLANS`).

        Args:
            curve: What the plans depend on besides the ranking (the negotiator's class and
                parameters, say).
        """
        plans = self._plans.get(curve)
        if plans is None:
            if len(self._plans) >= CURVES:
                self._plans.clear()
            plans = self._plans[curve] = {}
        return plans

    def assess(self, package: Mapping[str, Value]) -> Assessment:
        """The owner's utility of a package (exactly `utility.evaluate`) and its flat option slots.

        Remembered by the package's values, so a package seen before (common: offers repeat,
        and each is assessed when read and again when answered) costs one dict lookup.

        Raises:
            ValueError: an option is not one of its issue's.
            KeyError: an issue is missing.
            TypeError: an option is not hashable.
        """
        return self.assessments[self.values_of(package)]

    def utility_at(self, rank: int) -> float:
        """The owner's utility of the outcome at a rank."""
        negated = self._negated
        return -negated[rank] if negated is not None else float(self.utilities[rank])

    def ranks_between(self, low: float, high: float) -> range:
        """Ranks of the outcomes whose utility lies in [low, high]."""
        negated = self._negated
        if negated is not None:  # bisecting a short Python list beats a numpy call
            start = bisect_left(negated, -high - TOLERANCE)
            stop = bisect_right(negated, -low + TOLERANCE)
        else:  # -(high + TOLERANCE) is -high - TOLERANCE exactly, and likewise for low
            return self._ranking.ranks_between(low - TOLERANCE, high + TOLERANCE)
        return range(start, max(start, stop))

    def lowest_rank_at_least(self, low: float) -> int:
        """Rank of the worst outcome still worth at least low (rank 0 when none is)."""
        negated = self._negated
        if negated is not None:
            return max(bisect_right(negated, -low + TOLERANCE) - 1, 0)
        return max(self._ranking.count_at_least(low - TOLERANCE) - 1, 0)

    def _marginal_values(self, flat: IndexArray, utilities: FloatArray) -> FloatArray:
        """Per option (flat layout), the owner's mean utility of the outcomes holding it."""
        size, issues = flat.shape
        totals = np.bincount(
            flat.ravel(), weights=np.repeat(utilities, issues), minlength=int(self.cardinalities.sum())
        )
        # In a full product space every option of issue i appears size / cardinality_i times.
        return totals * np.repeat(self.cardinalities, self.cardinalities) / size

    def _lean_marginal_values(self, ranking: RankedOutcomes) -> FloatArray:
        """`_marginal_values` without any (n, k) array, bit for bit.

        bincount adds each option's utilities one by one in outcome index order; counting one
        issue at a time (its option index of every outcome, in index order) performs exactly the
        same additions, with one integer column of the space's size alive at a time.
        """
        values = np.empty(ranking.size, dtype=np.float64)
        values[ranking.order] = ranking.utilities
        shape = self.space.shape
        parts: list[FloatArray] = []
        before = 1
        for cardinality in shape:
            after = ranking.size // (before * cardinality)
            options = np.arange(cardinality, dtype=np.intp)[None, :, None]
            column = np.broadcast_to(options, (before, cardinality, after)).reshape(-1)
            parts.append(np.bincount(column, weights=values, minlength=cardinality).astype(np.float64))
            del column
            before *= cardinality
        del values
        totals = np.concatenate(parts)
        return totals * np.repeat(self.cardinalities, self.cardinalities) / ranking.size

    def _digest(self, marginals: FloatArray) -> tuple[tuple[str, ...], FloatArray]:
        """Issue names by importance (spread of marginal values), and the marginals reversed into [0, 1]."""
        high = np.maximum.reduceat(marginals, self.offsets)
        low = np.minimum.reduceat(marginals, self.offsets)
        spread = high - low
        names = self.space.names
        priorities = tuple(names[i] for i in np.argsort(-spread, kind="stable").tolist())
        spans = np.repeat(spread, self.cardinalities)
        flat_spans = np.where(spans > 0, spans, 1.0)
        reversed_unit = np.where(
            spans > 0, (np.repeat(high, self.cardinalities) - marginals) / flat_spans, 0.5
        )
        return priorities, reversed_unit

    def share(self, utility: float) -> float:
        """Where a utility lies between the floor (0) and the best outcome (1)."""
        span = self.best - self.floor
        return 1.0 if span <= 0 else (utility - self.floor) / span

    def at_share(self, share: float) -> float:
        """The utility lying at a share of the way from the floor to the best outcome."""
        return self.floor + share * (self.best - self.floor)


class _Packages(dict[int, dict[str, Value]]):
    """Packages by rank, each built on first use (a dict subclass: a hit is one C lookup)."""

    def __init__(self, space: OutcomeSpace, order: NDArray[np.int64]) -> None:
        super().__init__()
        self._space = space
        self._order = order

    def __missing__(self, rank: int) -> dict[str, Value]:
        package = self[rank] = self._space.outcome(int(self._order[rank]))
        return package


class _Assessments(dict[tuple[Value, ...], Assessment]):
    """Assessments by a package's values in issue order, each computed on first use.

    A dict subclass, so a package seen before costs one C lookup and no call. Equal values find
    the same entry (2.0 for 2, say) as they find the same option, so they assess alike.
    """

    def __init__(
        self,
        names: tuple[str, ...],
        evaluate: Callable[[Mapping[str, Value]], float],
        option_slots: tuple[tuple[str, dict[Value, int]], ...],
        issue_offsets: list[tuple[Issue, int]],
    ) -> None:
        super().__init__()
        self._names = names
        self._evaluate = evaluate
        self._option_slots = option_slots
        self._issue_offsets = issue_offsets

    def __missing__(self, values: tuple[Value, ...]) -> Assessment:
        package = dict(zip(self._names, values, strict=True))
        assessment = (self._evaluate(package), self._slots(package))
        if len(self) >= KNOWN_PACKAGES:
            self.clear()
        self[values] = assessment
        return assessment

    def _slots(self, package: Mapping[str, Value]) -> tuple[int, ...]:
        try:
            return tuple([slots[package[name]] for name, slots in self._option_slots])
        except KeyError:  # an option spelled differently (2.0 for 2 ...): the issue decides
            return tuple(
                [offset + issue.index_of(package[issue.name]) for issue, offset in self._issue_offsets]
            )


def _values_getter(names: tuple[str, ...]) -> Callable[[Mapping[str, Value]], tuple[Value, ...]]:
    """A package's values in issue order, as a tuple (looked up in C by `itemgetter`)."""
    if len(names) == 1:  # itemgetter of one name returns the bare value
        name = names[0]
        return lambda package: (package[name],)
    return itemgetter(*names)


_shared: dict[int, RankedSpace] = {}
_shared_lock = threading.Lock()


def ranked_space(space: OutcomeSpace, utility: UtilityFunction) -> RankedSpace:
    """The ranking of space by utility, reused when this very utility object was ranked before.

    A tournament plays one scenario many times with fresh negotiators; sharing the ranking (a pure
    function of the space and the utility object) saves re-sorting the space in every session.
    Entries hold their utility, so an id is never reused while its entry lives.
    """
    if space.size > SHARED_RANKING_LIMIT:
        return RankedSpace(space, utility)
    with _shared_lock:
        ranked = _shared.get(id(utility))
    if ranked is not None and ranked.matches(space, utility):
        return ranked
    ranked = RankedSpace(space, utility)
    with _shared_lock:
        if len(_shared) >= SHARED_RANKINGS:
            del _shared[next(iter(_shared))]
        _shared[id(utility)] = ranked
    return ranked


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
        slots = len(ranked.reversed_marginal_list)
        self._counts: list[float] = [0.0] * slots
        issues = len(ranked.cardinalities)
        self._slot_weights: list[float] = [1.0 / issues] * slots
        self.offers = 0
        self.offered_utilities: list[float] = []
        self.stated: tuple[str, ...] = ()
        self._values: list[float] | None = None
        self._table: FloatArray | None = None
        self._estimate: FloatArray | None = None

    def observe_offer(self, package: Mapping[str, Value]) -> None:
        """Count a package the party put forward."""
        ranked = self._ranked
        worth, slots = ranked.assessments[ranked.values_of(package)]  # `ranked.assess`, inline
        counts = self._counts
        for slot in slots:
            counts[slot] += 1.0
        self.offers += 1
        self.offered_utilities.append(worth)
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
        self._slot_weights = np.repeat(weights / weights.sum(), ranked.cardinalities).tolist()
        self._values = self._table = self._estimate = None

    def values(self) -> list[float]:
        """`table()` as a Python list (the same floats, computed element by element)."""
        values = self._values
        if values is None:
            divisor = 1.0 + self.offers
            # (zip without strict=True: the three lists are built the same length, and checking
            # costs about a tenth of this comprehension)
            values = self._values = [
                weight * (prior + count) / divisor
                for weight, prior, count in zip(  # noqa: B905
                    self._slot_weights, self._ranked.reversed_marginal_list, self._counts
                )
            ]
        return values

    def table(self) -> FloatArray:
        """Estimated weighted value of every option, in the ranked space's flat layout."""
        table = self._table
        if table is None:
            table = self._table = np.array(self.values(), dtype=np.float64)
        return table

    def estimate(self) -> FloatArray:
        """Estimated utility (in [0, 1]) of every outcome, in the owner's rank order."""
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
        self.record = record
        self.ranked = ranked
        self.models = {party: OpponentModel(ranked) for party in opponents}
        self.seen = 0
        self.question_pending = False
        self.last_rank: int | None = None
        self.state: dict[str, Any] = {}

    def read(self, party: PartyId) -> None:
        """Fold the record's new events into the opponent models and the pending question."""
        models = self.models
        seen = self.seen
        for event in islice(self.record, seen, None):  # counting as it goes saves asking len()
            seen += 1
            if event.party == party or event.kind != "action":  # its own moves are most of the rest
                continue
            data = event.data
            kind = data.get("kind")
            if kind == "propose":
                model = models.get(event.party or "")
                if model is not None:
                    model.observe_offer(data["package"])
            elif kind == "say":
                self._hear(event.party or "", data)
        self.seen = seen

    def _hear(self, speaker: PartyId, data: Mapping[str, Any]) -> None:
        if data.get("asks_priorities"):
            self.question_pending = True
        model = self.models.get(speaker)
        if model is not None and data.get("priorities"):
            model.observe_priorities([str(p) for p in data["priorities"]])

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


class _SeedStates(np.random.SeedSequence):
    """`np.random.SeedSequence(seed)` that generates each state once, then hands out copies.

    Hashing a seed's entropy into a state is most of the cost of seeding a generator, which a
    tournament does for thousands of fresh negotiators with a few seeds. A bit generator takes
    its state from `generate_state`, so a generator seeded from this sequence draws exactly
    what `np.random.default_rng(seed)` draws.
    """

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self._states: dict[tuple[int, object], NDArray[np.uint32 | np.uint64]] = {}

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> NDArray[np.uint32 | np.uint64]:
        key = (n_words, dtype)
        try:
            state = self._states.get(key)
        except TypeError:  # an unhashable dtype spelling: nothing to remember it by
            return super().generate_state(n_words, dtype)
        if state is None:
            state = self._states[key] = super().generate_state(n_words, dtype)
        return state.copy()


_seed_states: dict[int, _SeedStates] = {}
SEED_SEQUENCES = 4096
"""How many seeds' generated states are kept (a tournament reuses a few seeds many times)."""


def _seeded(seed: int) -> np.random.Generator:
    """`np.random.default_rng(seed)` (the same stream), reusing the seed's generated state."""
    states = _seed_states.get(seed)
    if states is None:
        states = _SeedStates(seed)
        if len(_seed_states) >= SEED_SEQUENCES:
            _seed_states.clear()
        _seed_states[seed] = states
    return np.random.Generator(np.random.PCG64(states))


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
        # Seeding a generator costs more than a whole move on a small space, and many sessions
        # never draw: it is created on first use (same seed, so the same draws).
        self._generator: np.random.Generator | None = None
        if type(seed) is not int or seed < 0:  # let a bad seed fail here, as it always did
            self._generator = np.random.default_rng(seed)
        self._ranked: RankedSpace | None = None
        self._memory: SessionMemory | None = None

    @property
    def _rng(self) -> np.random.Generator:
        """This negotiator's random generator (seeded with `seed`)."""
        generator = self._generator
        if generator is None:
            generator = self._generator = _seeded(self.seed)
        return generator

    def act(self, view: PartyView) -> Action:
        """Choose a move (see the class docstring for the order of rules)."""
        memory = self._memory
        utility = view.utility
        if (  # a new session, a new ranking or a BATNA changed in place (checked inline: every move)
            memory is None
            or view.record is not memory.record
            or utility is not memory.ranked.utility
            or view.space is not memory.ranked.space
            or utility.reservation_value != memory.ranked.reservation
        ):
            memory = self._session(view)
        memory.read(view.party)
        ranked = memory.ranked
        if ranked.hopeless:
            return Walk("no package is worth as much as my BATNA")
        offer = view.offer
        if offer is not None:
            worth = ranked.assessments[ranked.values_of(offer)][0]  # `ranked.assess`, inline
            if worth >= ranked.acceptable_from and self.accepts(view, worth):
                return Accept()
            reason = self.walk_reason(view, worth)
            if reason:
                return Walk(reason)
        if memory.question_pending:
            memory.question_pending = False
            return self.answer_priorities(ranked.priorities)
        return self.propose(view)

    def _session(self, view: PartyView) -> SessionMemory:
        ranked = self._ranked
        if ranked is None or not ranked.matches(view.space, view.utility):
            ranked = self._ranked = ranked_space(view.space, view.utility)
            self._memory = None
        memory = self._memory
        if memory is None or memory.record is not view.record:
            memory = self._memory = SessionMemory(view.record, ranked, view.opponents)
            self.start_session(ranked, memory)
        return memory

    def propose(self, view: PartyView) -> Action:
        """The move when nothing is accepted, walked or answered: a (counter-)proposal."""
        memory = self._memory
        assert memory is not None, "act() has not been called yet"
        ranked = memory.ranked
        rank = memory.last_rank = self.choose_rank(view, ranked, memory)
        return Propose(dict(ranked.packages[rank]))  # `ranked.package(rank)`, inline

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
        ranked = memory.ranked
        if ranked.python_scoring and len(candidates) <= PYTHON_BAND:
            tables: list[list[float]] = []
            for model in memory.models.values():
                if model.offers:
                    tables.append(model.values())
            if tables and len(tables) <= PYTHON_SUM_TERMS:
                scores = python_scores(ranked, candidates, tables)
                return candidates.start + self._pick_best(scores, memory, candidates)
        estimate = memory.combined_estimate(candidates)
        if estimate is None:
            rank = candidates.start + int(self._rng.integers(len(candidates)))
            if rank == memory.last_rank:
                rank = candidates.start + (rank - candidates.start + 1) % len(candidates)
            return rank
        last = memory.last_rank
        if last is not None and last in candidates:
            estimate[last - candidates.start] = -np.inf
        best = np.flatnonzero(estimate >= estimate.max() - TOLERANCE)
        choice = best[0] if best.size == 1 else best[int(self._rng.integers(best.size))]
        return candidates.start + int(choice)

    def _pick_best(self, scores: list[float], memory: SessionMemory, candidates: range) -> int:
        """`pick`'s choice among scored candidates, in pure Python (same draws as the numpy path)."""
        last = memory.last_rank
        if last is not None and last in candidates:
            scores[last - candidates.start] = _NEGATIVE_INFINITY
        top = max(scores)
        threshold = top - TOLERANCE
        near_top = 0
        for score in scores:
            if score >= threshold:
                near_top += 1
        if near_top == 1:  # the usual case, found without building a list
            return scores.index(top)
        best = [i for i, score in enumerate(scores) if score >= threshold]
        return best[int(self._rng.integers(len(best)))]


def python_scores(ranked: RankedSpace, candidates: range, tables: Sequence[list[float]]) -> list[float]:
    """Summed opponent estimates of the candidates, adding in numpy's order (see `pick`).

    numpy sums each row's at most `PYTHON_SUM_TERMS` option values one by one, and the parties'
    estimates one by one, so the same additions in the same order give the same floats. (Not
    `sum`: from Python 3.12 it compensates rounding errors, so its floats differ.)
    """
    rows = ranked.flat_rows[candidates.start : candidates.stop]
    scores: list[float] = []
    first = tables[0]
    for row in rows:
        total = 0.0
        for slot in row:
            total += first[slot]
        scores.append(total)
    for table in tables[1:]:
        for position, row in enumerate(rows):
            total = 0.0
            for slot in row:
                total += table[slot]
            scores[position] += total
    return scores

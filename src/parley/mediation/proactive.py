"""A proactive offer mediator: it decides from public signals when to table a package, before talks stall.

`ParetoMediator` is asked only when the engine's stagnation detector fires, which never happens with
parties that move every round (the time-based conceders). This mediator is asked after every round
(its ``proactive`` attribute; see `parley.protocol.session.OfferMediator`) and intervenes when the
public record says so:

- **asked**: the stagnation detector fired (the engine asks every offer mediator then);
- **holdout**: a deal is forming (the table was accepted by all but one of the parties it needs)
  and the same party kept rejecting such tables in ``holdout`` of the latest rounds;
- **converging**: the parties' latest offers differ on at most a ``spread`` share of the issues;
- **deadline**: the session is past ``deadline`` of its rounds;

and only once ``start`` of the rounds have passed, ``gap`` rounds after its previous package, and
before ``stop`` of the rounds (after that only when the stagnation detector asks). It steps back,
letting the parties' own offers be answered, when the public record says its packages are not
being taken up:

- **failing**: none of its latest ``trial`` packages was accepted by all but one of the parties the
  rule needs; the time and spread signals then no longer count (a holdout, or the stagnation
  detector, still brings it in, and a package that forms again lifts the rule).

(``exposed`` = 1 is a second, rule-based way to step back, off by default: the time and spread
signals count only while the acceptance rule lets a deal pass without some present party.
``pool`` = 1, off by default, changes what it tables under such a rule: only packages some party
revealed, never a new text.)

The defaults were tuned on tuning seeds only (docs/results/generalisation.md): first on generated
multi-party games (stepping in every round from a tenth of the rounds on, ``deadline`` = ``start``
= 0.1, ``gap`` = 1, so the time signal decides; changing at most two issues of the table a deal was
forming around, ``reach`` = 2; stepping back for the last fifth of the rounds, ``stop`` = 0.8), then
on those games and the shipped multi-party scenarios together, on their own tuning seeds:
``trial`` = 5 had the best worst-case of the two deal rates over ``linear``, ``base`` and
``conceder`` in every seat. A party's counter still becomes the next table; the mediator's package
then replaces it, so while it steps in the parties answer a single text the mediator revises every
round from what they reveal. That text can crowd out the parties' own convergence. Near the
deadline: on 100 generated tuning games the sessions without a deal rose from 4 to 11 (time-based
conceders in every seat) and fell back once the last rounds answered the parties' own offers
again (``stop``; an oracle that tabled from the true utilities did no better, so the crowding-out,
not the estimate, cost those deals). And from the start: on the shipped scenarios that need every
party (20 rounds), ``base`` in every seat reaches unanimity on its own by round 9-12, but a mediator
tabling every round from round 2 on (at most two of its 14 packages a game accepted by all but one
party) left 13 of 72 tuning games without a deal; with ``trial`` it steps back after five packages
nobody took up, and loses 2 games while gaining 7.

What it tables is estimated from what the parties revealed, never from utilities (`MediatorView`
carries none): a package every party revealed it would accept (its own offers, the tables it
accepted, the coalitions it joined; `parley.protocol.coalition.revealed_acceptable`) when there is
one; otherwise the package that maximises the smallest estimated gain over each party's own current
demand (the lower of its latest offer and the latest table it accepted), among packages it has not
tabled before that change at most ``reach`` issues of the latest table a deal was forming around.
A party's estimated value of a package comes from the options of the packages it revealed (earlier
ones weigh more: openings reveal the most; on numeric issues an option's neighbours count too)
weighted by its stated priorities or, without them, by how firmly it held each issue (``match`` = 1
uses instead the likeness to the nearest package it revealed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.errors import ScenarioError
from parley.protocol.coalition import MEDIATOR_PARTY, AnsweredTable, read_record
from parley.protocol.events import Event, PartyId
from parley.protocol.rules import AcceptanceRule, Rules
from parley.protocol.session import MediatorView

FloatArray = NDArray[np.float64]
IndexArray = NDArray[np.int64]

NAME = "proactive"
"""The name tournaments and `parley tournament --mediator` know this mediator by."""
MAX_SPEC = 200
"""Longest mediator name with options that is parsed (a longer one is refused in one line)."""
_SPEC = re.compile(r"^proactive(?:\((?P<options>[^()]*)\))?$")


@dataclass(frozen=True, slots=True)
class Signals:
    """What the mediator read from the public record before deciding whether to intervene.

    Attributes:
        progress: Round over the round bound (0 when the bound is unknown).
        asked: Whether the stagnation detector just fired.
        holdout: A party that kept rejecting tables a deal was forming around (None: none did).
        spread: Mean share of issues on which two parties' latest offers differ (1 before offers).
        since_last: Rounds since the mediator's previous package (None: it has tabled none).
        tabled: Packages it has tabled so far.
        exposed: Whether the public acceptance rule lets a deal pass without some present party (k of
            n with fewer than all present needed and a non-vetoer among them): only then can a deal
            leave a party out.
        failing: Whether none of its latest ``trial`` packages was accepted by all but one of the
            parties the rule needs (False before it tabled that many, or with ``trial`` = 0).
    """

    progress: float
    asked: bool
    holdout: PartyId | None
    spread: float
    since_last: int | None
    tabled: int
    exposed: bool = True
    failing: bool = False


@dataclass
class ProactiveMediator:
    """Tables packages estimated from revealed offers and acceptances, when public signals call for it.

    Attributes:
        start: Share of the round bound before which it never intervenes unasked, in [0, 1].
        gap: Rounds it waits after tabling before it intervenes unasked again (at least 1).
        holdout: Rounds in which the same party rejected a forming deal before it steps in (at least
            1; 0 turns the signal off).
        spread: It steps in when the parties' latest offers differ on at most this share of the
            issues, in [0, 1] (0: only when they all offer the same package).
        deadline: Share of the round bound after which it steps in every ``gap`` rounds, in [0, 1]
            (1: never for this reason).
        decay: Weight of each later revealed package relative to the one before, in (0, 1].
        match: 1: a party's estimated value of a package is its issue-weighted likeness to the
            nearest package the party revealed it would accept; 0: a frequency model of the
            options it revealed, minus its current demand.
        reach: How many issues its package may change from the latest table a deal was forming
            around (0: any package; at least 0).
        max_interventions: Most packages it tables unasked in one session (at least 0).
        max_outcomes: Largest space it enumerates; above this it stays silent.
        stop: Share of the round bound from which it no longer intervenes unasked, in [0, 1] (1:
            never stops); the parties' own offers are then answered again.
        exposed: 1: the time and spread signals (``deadline``, ``spread``) count only while a deal
            can pass without some present party (`Signals.exposed`); when every present party must
            accept, it steps in only when asked or on a holdout. 0: they count under every rule.
        trial: When none of its latest ``trial`` packages was accepted by all but one of the parties
            the rule needs (`Signals.failing`), the time and spread signals no longer count: it
            leaves the table to the parties' own offers and steps in only when asked or on a holdout
            (at least 0; 0 turns the rule off).
        pool: 1: under a rule that lets a deal pass without some present party (`Signals.exposed`),
            its compromise is chosen only among packages some party revealed it would accept (its
            own offers, tables it accepted, coalitions it joined), by the same maximin estimate and
            whatever ``reach``, instead of a new text near the forming table; 0: off (the default;
            unanimous and bilateral sessions never use it). On the tuning sets it raised the spent
            held-out scenarios and lowered the generated games (docs/results/generalisation.md).
    """

    start: float = 0.1
    gap: int = 1
    holdout: int = 2
    spread: float = 0.5
    deadline: float = 0.1
    decay: float = 0.8
    reach: int = 2
    match: int = 0
    max_interventions: int = 60
    max_outcomes: int = 2_000_000
    stop: float = 0.8
    exposed: int = 0
    trial: int = 5
    pool: int = 0
    name: str = NAME
    proactive: bool = field(default=True, init=False)
    last_signals: Signals | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        checks = {
            "start": 0.0 <= self.start <= 1.0,
            "gap": self.gap >= 1,
            "holdout": self.holdout >= 0,
            "spread": 0.0 <= self.spread <= 1.0,
            "deadline": 0.0 <= self.deadline <= 1.0,
            "decay": 0.0 < self.decay <= 1.0,
            "reach": self.reach >= 0,
            "match": self.match in (0, 1),
            "max_interventions": self.max_interventions >= 0,
            "max_outcomes": self.max_outcomes >= 1,
            "stop": 0.0 <= self.stop <= 1.0,
            "exposed": self.exposed in (0, 1),
            "trial": self.trial >= 0,
            "pool": self.pool in (0, 1),
        }
        for option, ok in checks.items():
            value = getattr(self, option)
            if not ok or (isinstance(value, float) and not math.isfinite(value)):
                raise ScenarioError(
                    f"proactive mediator: {option} = {value!r} is out of range ({_RANGES[option]})"
                )

    # -- when ---------------------------------------------------------------------------------------

    def read(self, view: MediatorView) -> Signals:
        """The public signals of a view (what `propose` decides on)."""
        rules = _rules(view)
        record = list(view.record)
        answered = read_record(record, view.parties, rules or Rules())[1]
        max_rounds = rules.max_rounds if rules is not None else None
        progress = min(1.0, view.round / max_rounds) if max_rounds else 0.0
        asked = bool(record) and record[-1].kind == "stagnation"
        mediated = [e.round for e in record if e.kind == "mediator_proposal"]
        since_last = view.round - mediated[-1] if mediated else None
        acceptance = rules.acceptance if rules is not None else AcceptanceRule()
        present = _present(view, record)
        return Signals(
            progress=progress,
            asked=asked,
            holdout=_holdout(answered, present, acceptance, self.holdout) if self.holdout else None,
            spread=_spread(view.space, record, present),
            since_last=since_last,
            tabled=len(mediated),
            exposed=_exposed(acceptance, present),
            failing=_failing(answered, present, acceptance, self.trial) if self.trial else False,
        )

    def intervenes(self, signals: Signals) -> bool:
        """Whether these signals call for a package."""
        if signals.asked:
            return True
        if signals.progress < self.start or signals.tabled >= self.max_interventions:
            return False
        if signals.progress >= self.stop:
            return False
        if signals.since_last is not None and signals.since_last < self.gap:
            return False
        if signals.holdout is not None:
            return True
        if (self.exposed and not signals.exposed) or signals.failing:
            return False
        return signals.spread <= self.spread or signals.progress >= self.deadline

    # -- what ---------------------------------------------------------------------------------------

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        """A package to table when the public signals call for one, else None."""
        signals = self.last_signals = self.read(view)
        if not self.intervenes(signals) or view.space.size > self.max_outcomes:
            return None
        return self.package(view)

    def package(self, view: MediatorView) -> Mapping[str, Value] | None:
        """The package it would table now (whatever the signals say), or None when it has none."""
        space = view.space
        record = list(view.record)
        present = _present(view, record)
        rules = _rules(view) or Rules()
        revealed, answered = read_record(record, view.parties, rules)
        tabled = {space.to_indices(dict(p)) for who, p in view.record.offers() if who == MEDIATOR_PARTY}
        allowed_rows = self._allowed(view)
        # 1. A package every party at the table revealed it would accept, not tabled before.
        for row in _common(space, [revealed[p] for p in present]):
            if row not in tabled and allowed_rows(np.array([row], dtype=np.int64))[0]:
                return space.from_indices(row)
        # 2. The best estimated compromise over each party's own latest demand.
        informed = [p for p in present if revealed[p]]
        if not informed:
            return None
        indices = space.enumerate_indices(limit=max(self.max_outcomes, space.size))
        base = _forming(answered, present, rules.acceptance)
        gains = np.stack([self._gain(view, party, revealed[party], answered, indices) for party in informed])
        worst = gains.min(axis=0)
        keep = allowed_rows(indices)
        for row in tabled:
            keep[space.index(space.from_indices(row))] = False
        if self.pool and _exposed(rules.acceptance, present):
            # k of n: only packages some party revealed it would accept (never a new text), any reach.
            keep &= _pooled(space, indices.shape[0], [revealed[p] for p in present])
        elif self.reach and base is not None:
            changed = (indices != np.array(space.to_indices(dict(base.package)))).sum(axis=1)
            keep &= (changed >= 1) & (changed <= self.reach)
        worst = np.where(keep, worst, -np.inf)
        best = int(np.lexsort((-gains.sum(axis=0), -worst))[0])
        if not np.isfinite(worst[best]):
            return None
        return space.outcome(best)

    def _gain(
        self,
        view: MediatorView,
        party: PartyId,
        packages: Sequence[Mapping[str, Value]],
        answered: Sequence[AnsweredTable],
        indices: IndexArray,
    ) -> FloatArray:
        """Estimated value of every package to party, minus that of its current demand: the lower of
        its own latest offer and the latest table it accepted."""
        space = view.space
        tables = _estimated_tables(space, packages, self.decay)
        weights = np.array(_weights(space, view.signals.get(party, {}), tables))
        weights = weights / (weights.sum() or 1.0)
        if self.match:
            # Likeness to the nearest package the party revealed it would accept (issue-weighted).
            rows = np.array([space.to_indices(dict(p)) for p in packages])
            values = np.zeros(indices.shape[0])
            for row in rows:
                values = np.maximum(values, ((indices == row) * weights).sum(axis=1))
            return values
        values = np.zeros(indices.shape[0])
        for column, (table, weight) in enumerate(zip(tables, weights, strict=True)):
            values += weight * table[indices[:, column]]

        def worth(package: Mapping[str, Value]) -> float:
            row = space.to_indices(dict(package))
            return sum(
                float(w) * float(t[row[c]]) for c, (t, w) in enumerate(zip(tables, weights, strict=True))
            )

        demands = [worth(latest)] if (latest := _latest_offer(view.record, party)) is not None else []
        accepted = [t.package for t in answered if party in t.accepted]
        if accepted:
            demands.append(worth(accepted[-1]))
        return values - (min(demands) if demands else worth(packages[-1]))

    @staticmethod
    def _allowed(view: MediatorView) -> Any:
        """A function of option-index rows: which honour every stated must-have."""
        constraints: list[tuple[int, list[int]]] = []
        for signals in view.signals.values():
            for issue_name, options in dict(signals.get("must_haves", {})).items():
                if issue_name not in view.space.names:
                    continue
                column = view.space.names.index(issue_name)
                issue = view.space.issues[column]
                constraints.append((column, [issue.index_of(v) for v in options if issue.contains(v)]))

        def allowed(indices: IndexArray) -> NDArray[np.bool_]:
            ok = np.ones(indices.shape[0], dtype=bool)
            for column, positions in constraints:
                ok &= np.isin(indices[:, column], positions)
            return ok

        return allowed


_RANGES = {
    "start": "a share in [0, 1]",
    "gap": "at least 1 round",
    "holdout": "0 or more rounds",
    "spread": "a share in [0, 1]",
    "deadline": "a share in [0, 1]",
    "decay": "in (0, 1]",
    "reach": "0 or more issues",
    "match": "0 or 1",
    "max_interventions": "0 or more",
    "max_outcomes": "at least 1",
    "stop": "a share in [0, 1]",
    "exposed": "0 or 1",
    "trial": "0 or more packages",
    "pool": "0 or 1",
}


def create_proactive(spec: str = NAME) -> ProactiveMediator:
    """The mediator a name gives: "proactive", or "proactive(KEY=VALUE,...)" with its options.

    Raises:
        ScenarioError: a malformed name, an unknown option or a value out of range (one line).
    """
    text = spec.strip()
    if len(text) > MAX_SPEC:
        raise ScenarioError(f"proactive mediator: the name is longer than {MAX_SPEC} characters")
    match = _SPEC.match(text.lower())
    if match is None:
        raise ScenarioError(
            f"proactive mediator: cannot read {text[:60]!r}; expected proactive or proactive(KEY=VALUE,...)"
        )
    known = {f.name: f.type for f in fields(ProactiveMediator) if f.init and f.name != "name"}
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in (match.group("options") or "").split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in known:
            raise ScenarioError(
                f"proactive mediator: unknown option {key[:40]!r}; expected KEY=VALUE with KEY one of "
                f"{sorted(known)}"
            )
        try:
            options[key] = int(value) if known[key] == "int" else float(value)
        except ValueError:
            raise ScenarioError(
                f"proactive mediator: {key} = {value.strip()[:40]!r} is not a {known[key]}"
            ) from None
    return ProactiveMediator(**options)


# -- reading the record ------------------------------------------------------------------------------


def _rules(view: MediatorView) -> Rules | None:
    """The public rules: the view's, else None."""
    return view.rules


def _present(view: MediatorView, record: Sequence[Event]) -> list[PartyId]:
    gone = {e.party for e in record if e.kind == "withdrawal"}
    return [p for p in view.parties if p not in gone]


def _latest_offer(record: Sequence[Event], party: PartyId) -> Mapping[str, Value] | None:
    for event in reversed(record):
        if (
            event.kind == "action"
            and event.party == party
            and event.data.get("kind") in ("propose", "propose_coalition")
            and isinstance(event.data.get("package"), dict)
        ):
            return dict(event.data["package"])
    return None


def _exposed(acceptance: AcceptanceRule, present: Sequence[PartyId]) -> bool:
    """Whether a deal can pass without some present party: fewer than all of them are needed and one
    of them holds no veto."""
    needed = acceptance.required or len(present)
    return needed < len(present) and any(p not in acceptance.vetoes for p in present)


def _failing(
    answered: Sequence[AnsweredTable], present: Sequence[PartyId], acceptance: AcceptanceRule, trial: int
) -> bool:
    """Whether none of the mediator's latest `trial` packages was accepted by all but one of the parties
    the rule needs (False before it tabled that many)."""
    needed = acceptance.required or len(present)
    mine = [t for t in answered if t.proposer == MEDIATOR_PARTY][-trial:]
    return len(mine) == trial and all(_supporters(t) < needed - 1 for t in mine)


def _supporters(table: AnsweredTable) -> int:
    """How many parties accepted a table (its proposer counting, a mediator not)."""
    return len(table.accepted) + (table.proposer != MEDIATOR_PARTY)


def _forming(
    answered: Sequence[AnsweredTable], present: Sequence[PartyId], acceptance: AcceptanceRule
) -> AnsweredTable | None:
    """The latest table a deal was forming around: accepted by all but one of the parties the rule
    needs (its proposer counting); else the latest table with answers; None before any."""
    needed = acceptance.required or len(present)
    for table in reversed(answered):
        if _supporters(table) >= needed - 1 and table.dissented:
            return table
    return answered[-1] if answered else None


def _holdout(
    answered: Sequence[AnsweredTable], present: Sequence[PartyId], acceptance: AcceptanceRule, rounds: int
) -> PartyId | None:
    """The party that dissented from a forming deal in at least `rounds` of the latest rounds.

    A deal is forming around a table accepted by all but one of the parties the rule needs (its
    proposer counting); the parties that rejected it or countered dissented.
    """
    needed = acceptance.required or len(present)
    latest = sorted({t.round for t in answered})[-2 * rounds :]
    dissent: dict[PartyId, int] = {}
    for table in answered:
        if table.round in latest and _supporters(table) >= needed - 1:
            for party in table.dissented:
                if party in present:
                    dissent[party] = dissent.get(party, 0) + 1
    if not dissent:
        return None
    party, count = max(dissent.items(), key=lambda item: (item[1], item[0]))
    return party if count >= rounds else None


def _spread(space: OutcomeSpace, record: Sequence[Event], present: Sequence[PartyId]) -> float:
    """Mean share of issues on which two present parties' latest offers differ (1 before two offered)."""
    rows = [
        space.to_indices(dict(package))
        for party in present
        if (package := _latest_offer(record, party)) is not None
    ]
    if len(rows) < 2:
        return 1.0
    matrix = np.array(rows)
    pairs = [
        float(np.mean(matrix[i] != matrix[j])) for i in range(len(rows)) for j in range(i + 1, len(rows))
    ]
    return float(np.mean(pairs))


def _common(space: OutcomeSpace, revealed: Sequence[Sequence[Mapping[str, Value]]]) -> list[tuple[int, ...]]:
    """Packages in every party's revealed list, newest first by the first party's order."""
    if not revealed or any(not packages for packages in revealed):
        return []
    sets = [{space.to_indices(dict(p)) for p in packages} for packages in revealed[1:]]
    found: list[tuple[int, ...]] = []
    for package in reversed(revealed[0]):
        row = space.to_indices(dict(package))
        if all(row in other for other in sets) and row not in found:
            found.append(row)
    return found


def _pooled(
    space: OutcomeSpace, size: int, revealed: Sequence[Sequence[Mapping[str, Value]]]
) -> NDArray[np.bool_]:
    """Which outcomes (by flat index) some party revealed it would accept."""
    pooled = np.zeros(size, dtype=bool)
    for packages in revealed:
        for package in packages:
            pooled[space.index(dict(package))] = True
    return pooled


def _estimated_tables(
    space: OutcomeSpace, packages: Sequence[Mapping[str, Value]], decay: float
) -> list[FloatArray]:
    """Per issue, a party's estimated value of each option in [0, 1], from the packages it revealed."""
    tables = [np.zeros(issue.cardinality) for issue in space.issues]
    for age, package in enumerate(packages):
        weight = decay**age
        for column, position in enumerate(space.to_indices(dict(package))):
            issue = space.issues[column]
            if issue.is_numeric:  # ordered options: an offer at one says its neighbours beat far ones
                span = max(1, issue.cardinality - 1)
                tables[column] += weight * (1.0 - np.abs(np.arange(issue.cardinality) - position) / span)
            else:
                tables[column][position] += weight
    return [t / t.max() if t.max() > 0 else t for t in tables]


def _weights(space: OutcomeSpace, signals: Mapping[str, Any], tables: Sequence[FloatArray]) -> list[float]:
    """Issue weights: the stated priorities (most important first), else how firmly each issue was held."""
    stated = signals.get("priorities", ())
    priorities = [p for p in stated if p in space.names] if isinstance(stated, list | tuple) else []
    if priorities:
        rank = {name: i for i, name in enumerate(priorities)}
        return [float(len(priorities) - rank[n]) if n in rank else 0.5 for n in space.names]
    return [float(t.max() / t.sum()) if t.sum() > 0 else 0.0 for t in tables]

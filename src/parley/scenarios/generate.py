"""Seeded random multi-issue games: bilateral or multi-party (k of n with vetoers), linear-additive
utilities with a controllable opposition, and an acceptable set checked non-empty by enumeration.

The generator is the test bed of issue 20 ("agents that reach deals in games they have never
seen"): the same seed, party count, issue count and opposition always give the same `Scenario`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Issue, Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import FloatArray, LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.protocol.rules import AcceptanceRule, Rules
from parley.scenarios.model import Party, Scenario

MAX_PARTIES = 8
"""Most parties a generated game has."""
MAX_ISSUES = 12
"""Most issues a generated game has."""
MIN_OPTIONS, MAX_OPTIONS = 2, 12
"""Options per issue."""
MAX_OUTCOMES = 200_000
"""Upper bound accepted for `GameSpec.max_outcomes` (every game is enumerated to check it)."""
UTILITY_SCALE = 100.0
"""A party's best outcome is worth at most this much (its worst at least 0)."""
RESERVATION_QUANTILES = (0.3, 0.75)
"""Each party's BATNA is the utility at a quantile of its outcomes drawn from this range."""
OPPOSITION_RANGE = (0.3, 0.9)
"""Where the opposition is drawn from when the spec leaves it open."""
ADJUST_MARGIN = 1e-6
"""How far below an outcome's utility a lowered BATNA is set, so that outcome stays acceptable."""
PARTY_NAMES = ("ash", "birch", "cedar", "elm", "fir", "hazel", "larch", "maple")
"""Party ids, in order (neutral names: a generated game has no roles)."""


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What to generate.

    Attributes:
        seed: Seed of the game (with the other fields it fixes every draw).
        parties: Number of parties (2 to `MAX_PARTIES`).
        issues: Number of issues (1 to `MAX_ISSUES`).
        opposition: 0 = everybody wants the same options, 1 = each issue splits the parties into two
            camps with opposite values; None draws it from `OPPOSITION_RANGE`.
        min_outcomes: Smallest outcome space aimed for (as far as the issue count allows).
        max_outcomes: Largest outcome space aimed for.
        max_rounds: Round bound of the game.

    Raises:
        ScenarioError: a field is out of range.
    """

    seed: int
    parties: int = 2
    issues: int = 4
    opposition: float | None = None
    min_outcomes: int = 200
    max_outcomes: int = 5_000
    max_rounds: int = 40

    def __post_init__(self) -> None:
        checks = (
            ("seed", self.seed >= 0, "a non-negative integer"),
            ("parties", 2 <= self.parties <= MAX_PARTIES, f"from 2 to {MAX_PARTIES}"),
            ("issues", 1 <= self.issues <= MAX_ISSUES, f"from 1 to {MAX_ISSUES}"),
            (
                "opposition",
                self.opposition is None or 0.0 <= self.opposition <= 1.0,
                "between 0 and 1",
            ),
            (
                "min_outcomes",
                2 <= self.min_outcomes <= self.max_outcomes <= MAX_OUTCOMES,
                f"at least 2 and at most max_outcomes (at most {MAX_OUTCOMES:,})",
            ),
            ("max_rounds", 1 <= self.max_rounds <= 10_000, "from 1 to 10,000"),
        )
        for name, ok, rule in checks:
            if not ok:
                raise ScenarioError(f"{name} must be {rule}, got {getattr(self, name)!r}", field=name)

    @property
    def name(self) -> str:
        """The generated scenario's name (unique per spec)."""
        base = f"generated_p{self.parties}_i{self.issues}_s{self.seed}"
        return base if self.opposition is None else f"{base}_o{round(self.opposition * 100):03d}"


@dataclass(frozen=True, slots=True)
class Acceptability:
    """Which outcomes the required coalition accepts (every party at or above its BATNA where needed).

    Attributes:
        mask: Per outcome (space order), whether enough parties, every vetoer among them, are at
            or above their BATNA.
        bilateral_mask: Per outcome, whether every party is at or above its BATNA.
    """

    mask: NDArray[np.bool_]
    bilateral_mask: NDArray[np.bool_]

    @property
    def count(self) -> int:
        """Acceptable outcomes."""
        return int(self.mask.sum())


def generate_game(spec: GameSpec) -> Scenario:
    """One random game; the same spec always gives the same scenario.

    Raises:
        ScenarioError: the spec is invalid.
    """
    rng = np.random.default_rng([spec.seed, spec.parties, spec.issues, _opposition_key(spec)])
    opposition = spec.opposition if spec.opposition is not None else float(rng.uniform(*OPPOSITION_RANGE))
    space = OutcomeSpace.of(_issues(rng, spec))
    names = PARTY_NAMES[: spec.parties]
    tables, weights = _preferences(rng, space, spec.parties, opposition)
    rule = _acceptance(rng, names)
    utilities = _utilities(space, tables, weights)
    quantiles = rng.uniform(*RESERVATION_QUANTILES, size=spec.parties)
    values = space_utilities(utilities)
    reservations = [round(float(np.quantile(row, q)), 4) for row, q in zip(values, quantiles, strict=True)]
    reservations, adjusted = ensure_acceptable(values, reservations, rule, names)
    parties = tuple(
        Party(name, f"party {name}", utility.with_reservation(reservation), signals=_signals(space, utility))
        for name, utility, reservation in zip(names, utilities, reservations, strict=True)
    )
    found = acceptability(values, reservations, rule, names)
    metadata = _metadata(spec, opposition, quantiles, found, adjusted, space.size)
    return Scenario(
        name=spec.name,
        title=f"Generated game: {spec.parties} parties, {spec.issues} issues (seed {spec.seed})",
        description=_description(spec, rule, space.size),
        space=space,
        parties=parties,
        rules=Rules(max_rounds=spec.max_rounds, acceptance=rule),
        source=None,
        metadata=metadata,
    )


def generate_games(spec: GameSpec, count: int) -> list[Scenario]:
    """count games with seeds spec.seed, spec.seed + 1, ... (other fields as in spec).

    Raises:
        ScenarioError: count is not positive, or the spec is invalid.
    """
    if count < 1:
        raise ScenarioError(f"count must be at least 1, got {count}", field="count")
    return [generate_game(replace(spec, seed=spec.seed + offset)) for offset in range(count)]


def _opposition_key(spec: GameSpec) -> int:
    return 0 if spec.opposition is None else 1 + round(spec.opposition * 1_000_000)


# -- the outcome space -----------------------------------------------------------------------------


def option_counts(rng: np.random.Generator, issues: int, low: int, high: int) -> list[int]:
    """Options per issue, their product within [low, high] as far as `MIN_OPTIONS`..`MAX_OPTIONS` allow."""
    target = math.exp(rng.uniform(math.log(low), math.log(high)))
    base = target ** (1.0 / issues)
    noise = rng.normal(0.0, 0.3, size=issues)
    counts = [int(np.clip(round(base * math.exp(n)), MIN_OPTIONS, MAX_OPTIONS)) for n in noise]
    for _ in range(issues * MAX_OPTIONS):
        size = math.prod(counts)
        if size < low and min(counts) < MAX_OPTIONS:
            counts[counts.index(min(counts))] += 1
        elif size > high and max(counts) > MIN_OPTIONS:
            counts[counts.index(max(counts))] -= 1
        else:
            break
    return counts


def _issues(rng: np.random.Generator, spec: GameSpec) -> list[Issue]:
    found: list[Issue] = []
    for number, count in enumerate(option_counts(rng, spec.issues, spec.min_outcomes, spec.max_outcomes), 1):
        name = f"issue_{number}"
        if rng.random() < 0.5:
            step = int(rng.choice([1, 5, 10]))
            found.append(Issue.integer_range(name, 0, (count - 1) * step, step=step, unit="units"))
        else:
            values: list[Value] = [f"option_{chr(ord('a') + i)}" for i in range(count)]
            found.append(Issue.options(name, values))
    return found


# -- preferences -----------------------------------------------------------------------------------


def _unit(values: FloatArray) -> FloatArray:
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.full(values.shape, 0.5)


def camps(rng: np.random.Generator, parties: int) -> NDArray[np.bool_]:
    """Per party, which of an issue's two camps it sits in (both camps non-empty; party 0 in camp A)."""
    if parties == 2:
        return np.array([True, False])
    while True:
        side = rng.random(parties) < 0.5
        side[0] = True
        if not side.all():
            return side


def _preferences(
    rng: np.random.Generator, space: OutcomeSpace, parties: int, opposition: float
) -> tuple[list[list[FloatArray]], list[FloatArray]]:
    """Per party and issue, option values in [0, 1]; per party, issue weights summing to 1.

    On each issue a shared value vector (what everybody wants) is blended with a conflict vector
    that one camp wants and the other wants reversed: value = (1 - o)·shared + o·(conflict or
    1 - conflict), rescaled to [0, 1]. On numeric issues the conflict is monotone (more is better
    for one camp). Weights are drawn per party (Dirichlet(1)), so parties trade across issues.
    """
    tables: list[list[FloatArray]] = [[] for _ in range(parties)]
    for issue in space.issues:
        shared = _unit(rng.random(issue.cardinality))
        conflict = _unit(rng.random(issue.cardinality))
        if issue.is_numeric:
            conflict = np.sort(conflict)
        side = camps(rng, parties)
        for party in range(parties):
            wanted = conflict if side[party] else 1.0 - conflict
            tables[party].append(_unit((1.0 - opposition) * shared + opposition * wanted))
    weights = [rng.dirichlet(np.ones(len(space.issues))) for _ in range(parties)]
    return tables, weights


def _utilities(
    space: OutcomeSpace, tables: list[list[FloatArray]], weights: list[FloatArray]
) -> list[LinearAdditiveUtility]:
    return [
        LinearAdditiveUtility(
            space,
            {issue.name: round(float(w), 6) for issue, w in zip(space.issues, party_weights, strict=True)},
            {
                issue.name: [round(float(v) * UTILITY_SCALE, 4) for v in table]
                for issue, table in zip(space.issues, party_tables, strict=True)
            },
        )
        for party_tables, party_weights in zip(tables, weights, strict=True)
    ]


def space_utilities(utilities: list[LinearAdditiveUtility]) -> FloatArray:
    """Every party's utility of every outcome, shape (parties, outcomes), in space order."""
    rows = utilities[0].space.enumerate_indices()
    return np.vstack([u.evaluate_indices(rows) for u in utilities])


def _signals(space: OutcomeSpace, utility: LinearAdditiveUtility) -> dict[str, Any]:
    spans = [float(np.ptp(t)) for t in utility.weighted_tables]
    order = sorted(range(len(spans)), key=lambda i: (-spans[i], i))
    return {"priorities": [space.names[i] for i in order]}


# -- acceptance ------------------------------------------------------------------------------------


def _acceptance(rng: np.random.Generator, names: tuple[str, ...]) -> AcceptanceRule:
    """Unanimity for two parties; else k of n (a majority at least) with up to two vetoers."""
    count = len(names)
    if count == 2:
        return AcceptanceRule()
    required = int(rng.integers(count // 2 + 1, count + 1))
    vetoes = int(rng.integers(0, min(2, required - 1) + 1))
    chosen = sorted(rng.choice(count, size=vetoes, replace=False).tolist())
    return AcceptanceRule(None if required == count else required, tuple(names[i] for i in chosen))


def acceptability(
    values: FloatArray, reservations: list[float], rule: AcceptanceRule, names: tuple[str, ...]
) -> Acceptability:
    """Which outcomes pass under rule with every accepting party at or above its BATNA.

    Args:
        values: Utilities, shape (parties, outcomes).
        reservations: Each party's BATNA.
        rule: The acceptance rule.
        names: Party ids, in the rows' order.
    """
    ok = values >= np.asarray(reservations)[:, None] - 1e-9
    needed = len(names) if rule.required is None else rule.required
    mask = ok.sum(axis=0) >= needed
    for veto in rule.vetoes:
        mask &= ok[names.index(veto)]
    return Acceptability(mask, np.asarray(ok.all(axis=0), dtype=np.bool_))


def acceptable_counts(scenario: Scenario) -> tuple[int, int]:
    """How many packages of a scenario pass its acceptance rule (each accepting party at or above its
    BATNA), and how many leave every party at or above its BATNA (enumerates the space once)."""
    analysis = scenario.analysis
    acceptance = scenario.rules.acceptance
    vetoes = [scenario.party_names.index(v) for v in acceptance.vetoes]
    passing = analysis.acceptable(acceptance.required, vetoes)
    return int(passing.sum()), int(analysis.individually_rational.sum())


def ensure_acceptable(
    values: FloatArray, reservations: list[float], rule: AcceptanceRule, names: tuple[str, ...]
) -> tuple[list[float], bool]:
    """The BATNAs, lowered just enough that some outcome passes when none does.

    The outcome kept is the one whose weakest required coalition member falls least short (in
    shares of each party's utility range): the vetoers plus the non-vetoers closest to their BATNA.
    Only that coalition's BATNAs that are above the outcome's utility are lowered.

    Returns:
        The BATNAs and whether any was lowered.
    """
    if acceptability(values, reservations, rule, names).count:
        return reservations, False
    spans = np.ptp(values, axis=1)
    slack = (values - np.asarray(reservations)[:, None]) / np.where(spans > 0, spans, 1.0)[:, None]
    members = coalition(slack, rule, names)
    weakest = np.take_along_axis(slack, members, axis=0).min(axis=0)
    best = int(np.argmax(weakest))
    lowered = list(reservations)
    for party in members[:, best].tolist():
        lowered[party] = min(lowered[party], float(values[party, best]) - ADJUST_MARGIN)
    return lowered, True


def coalition(slack: FloatArray, rule: AcceptanceRule, names: tuple[str, ...]) -> NDArray[np.intp]:
    """Per outcome, the rows of the parties that make up its most willing passing coalition.

    Returns:
        Shape (coalition size, outcomes): the vetoers, then the non-vetoers with the most slack.
    """
    parties, outcomes = slack.shape
    needed = parties if rule.required is None else rule.required
    vetoes = [names.index(v) for v in rule.vetoes]
    others = np.array([p for p in range(parties) if p not in vetoes], dtype=np.intp)
    rest = needed - len(vetoes)
    ranked = others[np.argsort(-slack[others], axis=0, kind="stable")[:rest]]
    fixed = np.repeat(np.array(vetoes, dtype=np.intp)[:, None], outcomes, axis=1)
    return np.vstack([fixed, ranked]) if vetoes else ranked


# -- text and metadata -----------------------------------------------------------------------------


def _metadata(
    spec: GameSpec,
    opposition: float,
    quantiles: FloatArray,
    found: Acceptability,
    adjusted: bool,
    size: int,
) -> dict[str, Any]:
    return {
        "kind": "generated, bilateral" if spec.parties == 2 else "generated, multi-party",
        "generator": {
            "seed": spec.seed,
            "parties": spec.parties,
            "issues": spec.issues,
            "opposition": round(opposition, 6),
            "reservation_quantiles": [round(float(q), 6) for q in quantiles],
            "acceptable_outcomes": found.count,
            "acceptable_share": round(found.count / size, 6),
            "unanimously_acceptable_outcomes": int(found.bilateral_mask.sum()),
            "batna_lowered": adjusted,
        },
    }


def _description(spec: GameSpec, rule: AcceptanceRule, size: int) -> str:
    needed = "all parties" if rule.required is None else f"{rule.required} of {spec.parties} parties"
    vetoes = f", including {' and '.join(rule.vetoes)}" if rule.vetoes else ""
    return (
        f"A random game generated by `parley scenarios generate` (seed {spec.seed}): {spec.issues} "
        f"issues, {size:,} possible packages. A package passes when {needed}{vetoes} accept it. "
        "Each party's preferences and walk-away value are private."
    )

"""`check_negotiator`: the conformance checks every negotiator (built-in or yours) should pass.

Like Gymnasium's `check_env`, it plays short sessions and fails with a one-line explanation when a
negotiator makes an illegal move, accepts below its BATNA, changes (or tries to change) the view it
was given, peeks at hidden information, depends on anything but its seed, fails to terminate, or
breaks on an unusual opponent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass, field, replace
from typing import Any

import numpy as np

from parley.agents.registry import NegotiatorFactory
from parley.domain.utility import TableUtility
from parley.protocol.actions import Accept, Action, Propose, Reject, Say, Walk, action_to_json
from parley.protocol.events import PartyId
from parley.protocol.payloads import Violation
from parley.protocol.session import Negotiator, PartySetup, Session, SessionResult
from parley.protocol.view import PartyView
from parley.scenarios.model import Scenario
from parley.testing.negotiators import ScriptedNegotiator, ScriptStep, accept_or
from parley.testing.scenarios import conformance_scenarios

CHECKS = (
    "legal_moves",
    "batna_floor",
    "view_unchanged",
    "no_peeking",
    "deterministic",
    "terminates",
    "tolerates_odd_opponents",
)
"""The names of the checks, in the order they are reported."""


@dataclass(frozen=True, slots=True)
class ConformanceReport:
    """What `check_negotiator` ran (it raises on the first failure, so a report means all passed).

    Attributes:
        checks: Names of the checks that passed.
        scenarios: Names of the scenarios played.
        seeds: Seeds used.
        sessions: Sessions played.
        moves: Moves made by the checked negotiator.
        endings: How sessions ended ("agreement" or a no-deal reason) and how often.
    """

    checks: tuple[str, ...]
    scenarios: tuple[str, ...]
    seeds: tuple[int, ...]
    sessions: int
    moves: int
    endings: Mapping[str, int]


@dataclass
class _Tally:
    sessions: int = 0
    moves: int = 0
    endings: Counter[str] = field(default_factory=Counter[str])


class _Fail(Exception):
    def __init__(self, check: str, detail: str) -> None:
        self.check = check
        self.detail = detail
        super().__init__(f"{check}: {detail}")


class _Recorder:
    """Wraps the negotiator under test, checking every move against the view it was given."""

    def __init__(self, inner: Negotiator) -> None:
        self.inner = inner
        self.moves: list[dict[str, Any]] = []
        self.problems: list[tuple[str, str]] = []
        self._explain: Callable[[], Mapping[str, Any] | None] | None = getattr(inner, "explain", None)

    def act(self, view: PartyView) -> Action:
        before = _ViewState.of(view)
        try:
            action = self.inner.act(view)
        except Exception as error:
            if _is_mutation_error(error):
                self.problems.append(
                    (
                        "view_unchanged",
                        f"{_where(view)}: tried to change its view: {type(error).__name__}: {error}",
                    )
                )
            raise
        changed = before.changed(view)
        if changed is not None:
            self.problems.append(("view_unchanged", f"{_where(view)}: changed its view: {changed}"))
        self._inspect(view, action)
        return action

    def explain(self) -> Mapping[str, Any] | None:
        return self._explain() if self._explain is not None else None

    def _inspect(self, view: PartyView, action: object) -> None:
        where = _where(view)
        if not isinstance(action, Propose | Accept | Reject | Walk | Say):
            self.problems.append(("legal_moves", f"{where}: returned {type(action).__name__}, not an Action"))
            return
        self.moves.append(action_to_json(action))
        if isinstance(action, Propose):
            try:
                view.space.validate(action.package)
            except (ValueError, TypeError, KeyError) as error:
                self.problems.append(("legal_moves", f"{where}: proposed an illegal package: {error}"))
        elif isinstance(action, Reject) and view.table is None:
            self.problems.append(("legal_moves", f"{where}: rejected with nothing on the table"))
        elif isinstance(action, Accept):
            self._inspect_accept(view, where)

    def _inspect_accept(self, view: PartyView, where: str) -> None:
        offer = view.offer
        if offer is None:
            self.problems.append(("legal_moves", f"{where}: accepted with no offer from another party"))
            return
        worth = view.utility.evaluate(offer)
        if worth < view.reservation_value - 1e-9:
            self.problems.append(
                (
                    "batna_floor",
                    f"{where}: accepted {dict(offer)} worth {worth:g} < BATNA {view.reservation_value:g}",
                )
            )


FINGERPRINT_OUTCOMES = 4096
"""Outcomes whose utility is compared before and after each move (the whole space when smaller)."""


def _where(view: PartyView) -> str:
    return f"round {view.round} ({view.phase.value})"


def _is_mutation_error(error: Exception) -> bool:
    """Whether error is what a frozen utility, a read-only array or a read-only mapping raises."""
    if isinstance(error, FrozenInstanceError):
        return True
    text = str(error)
    if isinstance(error, ValueError):
        return "read-only" in text
    if isinstance(error, TypeError):
        return "does not support item assignment" in text or "does not support item deletion" in text
    if isinstance(error, AttributeError):  # e.g. .pop() or .update() on a read-only mapping
        return text.startswith("'mappingproxy' object has no attribute")
    return False


@dataclass(frozen=True, slots=True)
class _ViewState:
    """What a move must leave as it found it: the party's utility and BATNA, persona, table, record."""

    reservation_value: float
    utilities: tuple[float, ...]
    persona: str
    table: str
    record: tuple[str, ...]

    @classmethod
    def of(cls, view: PartyView) -> _ViewState:
        utility, space = view.utility, view.space
        if space.size <= FINGERPRINT_OUTCOMES:
            utilities = utility.evaluate_space()
        else:  # evenly spread outcomes (the first and the last included)
            rows = np.linspace(0, space.size - 1, FINGERPRINT_OUTCOMES, dtype=np.int64)
            utilities = utility.evaluate_indices(space.indices_at(rows))
        table = view.table
        return cls(
            float(utility.reservation_value),
            tuple(utilities.tolist()),
            repr(view.persona),
            "" if table is None else repr((dict(table.package), sorted(table.accepted_by))),
            tuple(repr(event) for event in view.record),
        )

    def changed(self, view: PartyView) -> str | None:
        """What the move changed, in words, or None."""
        after = _ViewState.of(view)
        if after.reservation_value != self.reservation_value:
            return f"its BATNA ({self.reservation_value:g} → {after.reservation_value:g})"
        if after.utilities != self.utilities:
            return "its utility function"
        if after.persona != self.persona:
            return "its persona"
        if after.table != self.table:
            return "the package on the table"
        for seq, (old, new) in enumerate(zip(self.record, after.record, strict=False)):
            if old != new:
                return f"event {seq} of its record"
        return None


def check_negotiator(
    factory: NegotiatorFactory,
    *,
    scenarios: Sequence[Scenario] | None = None,
    seeds: Iterable[int] = (0, 1, 2),
    act_timeout: float | None = 30.0,
) -> ConformanceReport:
    """Play short sessions with fresh negotiators from factory and check that they behave.

    Checks: only legal moves (valid packages, accept/reject only when something is on the table);
    never accepts a package worth less than its BATNA; leaves its view as it found it (neither
    changes nor tries to change its utility, BATNA, persona, the table or the record); no peeking
    (its moves do not change when another party's hidden utility does); deterministic by seed
    (byte-identical trajectories);
    sessions terminate within the round cap, in self-play on bilateral and three-party scenarios;
    and it tolerates scripted opponents that walk, accept everything, or say odd things.

    Args:
        factory: Builds a fresh negotiator, called as ``factory(party=..., seed=...)``: the one
            factory signature (`parley.agents.registry.NegotiatorFactory`) the registry uses too, so
            a registered agent's factory is checked as it is, and a negotiator class whose
            ``__init__`` takes ``party`` and ``seed`` is a factory.
        scenarios: Scenarios to play (default: `parley.testing.scenarios.conformance_scenarios()`).
        seeds: Seeds; each scenario is played once per seed and per check.
        act_timeout: Seconds one move may take (None: unbounded), so a hanging negotiator fails
            the "terminates" check instead of hanging the check.

    Returns:
        What was run, when every check passed.

    Raises:
        AssertionError: naming the failed check, the scenario, the seed and what went wrong.
        ValueError: no scenarios or no seeds were given.
    """
    played = tuple(scenarios) if scenarios is not None else conformance_scenarios()
    seed_list = tuple(seeds)
    if not played or not seed_list:
        raise ValueError(
            f"check_negotiator needs scenarios and seeds; got {len(played)} and {len(seed_list)}"
        )
    played = tuple(replace(s, rules=replace(s.rules, act_timeout=act_timeout)) for s in played)
    tally = _Tally()
    for scenario in played:
        for seed in seed_list:
            try:
                _check_one(factory, scenario, seed, tally)
            except _Fail as failure:
                raise AssertionError(
                    f"check_negotiator: {failure.check} failed on scenario {scenario.name!r}, "
                    f"seed {seed}: {failure.detail}"
                ) from None
    return ConformanceReport(
        CHECKS, tuple(s.name for s in played), seed_list, tally.sessions, tally.moves, dict(tally.endings)
    )


def _check_one(factory: NegotiatorFactory, scenario: Scenario, seed: int, tally: _Tally) -> None:
    first = _self_play(factory, scenario, seed, tally)
    second = _self_play(factory, scenario, seed, tally)
    if first.trajectory.to_jsonl() != second.trajectory.to_jsonl():
        raise _Fail(
            "deterministic", f"two runs with the same seed differ: {_first_difference(first, second)}"
        )
    for name, script in _odd_scripts(scenario, seed).items():
        _against_scripts(factory, scenario, seed, tally, script, label=name, check="tolerates_odd_opponents")
    _check_no_peeking(factory, scenario, seed, tally)


def _party_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def _self_play(factory: NegotiatorFactory, scenario: Scenario, seed: int, tally: _Tally) -> SessionResult:
    recorders = {
        party.name: _Recorder(factory(party=party.name, seed=_party_seed(seed, i)))
        for i, party in enumerate(scenario.parties)
    }
    return _run(scenario, scenario.setups(), recorders, recorders, tally, label="self-play")


def _run(
    scenario: Scenario,
    setups: Sequence[PartySetup],
    negotiators: Mapping[PartyId, Negotiator],
    checked: Mapping[PartyId, _Recorder],
    tally: _Tally,
    *,
    label: str,
    check: str = "legal_moves",
) -> SessionResult:
    try:
        result = Session(scenario.space, setups, negotiators, scenario.rules).run()
    except Exception as error:
        raise _Fail("terminates", f"{label}: the session raised {type(error).__name__}: {error}") from error
    tally.sessions += 1
    for party, recorder in checked.items():
        tally.moves += len(recorder.moves)
        if recorder.problems:
            failed, detail = recorder.problems[0]
            raise _Fail(failed, f"{label}, party {party!r}: {detail}")
    _check_ending(result, scenario, checked, label, check)
    ending = (
        "agreement" if result.agreement is not None else (result.no_deal.reason if result.no_deal else "")
    )
    tally.endings[ending] += 1
    return result


def _check_ending(
    result: SessionResult, scenario: Scenario, checked: Mapping[PartyId, _Recorder], label: str, check: str
) -> None:
    for event in result.trajectory.of_kind("violation"):
        if event.party in checked:
            detail = event.typed(Violation).detail
            slow = "took longer than" in detail
            raise _Fail(
                "terminates" if slow else check,
                f"{label}: the engine flagged {event.party!r}: {detail}",
            )
    if (result.agreement is None) == (result.no_deal is None):
        raise _Fail("terminates", f"{label}: the session ended with neither (or both) agreement and no-deal")
    if result.rounds > scenario.rules.max_rounds:
        raise _Fail(
            "terminates", f"{label}: ended in round {result.rounds} > max_rounds {scenario.rules.max_rounds}"
        )
    if result.agreement is not None:
        for violation in result.agreement.violations:
            if violation.party in checked:
                raise _Fail(
                    "batna_floor",
                    f"{label}: {violation.party!r} agreed to a package worth {violation.utility:g} "
                    f"< BATNA {violation.reservation_value:g}",
                )


def _odd_scripts(scenario: Scenario, seed: int) -> dict[str, list[ScriptStep]]:
    """Opponent scripts: walk at once, accept anything, and talk nonsense between random offers."""
    space = scenario.space
    rng = np.random.default_rng(seed)
    packages = [space.outcome(int(rng.integers(space.size))) for _ in range(scenario.rules.max_rounds)]
    odd: list[ScriptStep] = [
        Say("What do you care about most?", asks_priorities=True),
        Say("", priorities=("no-such-issue", space.names[0], space.names[0])),
        Say("\u00bfy ahora? \U0001f937 ACCEPT ACCEPT"),
    ]
    talk: list[ScriptStep] = []
    for i, package in enumerate(packages):
        talk.append(odd[i % len(odd)])
        talk.append(Propose(package, message="take it or leave it" if i % 2 else ""))
    return {
        "walks at once": [Walk("no thanks")],
        "accepts anything": [accept_or(Propose(p)) for p in packages],
        "says odd things": talk,
    }


def _against_scripts(
    factory: NegotiatorFactory,
    scenario: Scenario,
    seed: int,
    tally: _Tally,
    script: Sequence[ScriptStep],
    *,
    label: str,
    check: str = "legal_moves",
    setups: Sequence[PartySetup] | None = None,
) -> _Recorder:
    """The negotiator under test plays the first party; every other party follows script."""
    checked_party = scenario.parties[0].name
    recorder = _Recorder(factory(party=checked_party, seed=_party_seed(seed, 0)))
    negotiators: dict[PartyId, Negotiator] = {checked_party: recorder}
    for party in scenario.parties[1:]:
        negotiators[party.name] = ScriptedNegotiator(script)
    _run(
        scenario,
        setups or scenario.setups(),
        negotiators,
        {checked_party: recorder},
        tally,
        label=label,
        check=check,
    )
    return recorder


def _check_no_peeking(factory: NegotiatorFactory, scenario: Scenario, seed: int, tally: _Tally) -> None:
    """Same scripted opponents, different hidden opponent utilities: the moves must not change."""
    script = _odd_scripts(scenario, seed)["says odd things"]
    plain = _against_scripts(factory, scenario, seed, tally, script, label="no-peeking (original)")
    swapped = _against_scripts(
        factory,
        scenario,
        seed,
        tally,
        script,
        label="no-peeking (opponents' utilities swapped)",
        setups=_swap_opponent_utilities(scenario, seed),
    )
    if plain.moves != swapped.moves:
        step = next(
            (i for i, (a, b) in enumerate(zip(plain.moves, swapped.moves, strict=False)) if a != b),
            min(len(plain.moves), len(swapped.moves)),
        )
        raise _Fail(
            "no_peeking",
            f"its moves changed when only another party's hidden utility changed (first at move {step + 1})",
        )


def _swap_opponent_utilities(scenario: Scenario, seed: int) -> list[PartySetup]:
    rng = np.random.default_rng(seed + 7919)
    setups = scenario.setups()
    swapped = [setups[0]]
    for setup in setups[1:]:
        table = rng.normal(size=scenario.space.size)
        utility = TableUtility(scenario.space, table, float(np.quantile(table, rng.uniform(0.1, 0.9))))
        swapped.append(replace(setup, utility=utility))
    return swapped


def _first_difference(first: SessionResult, second: SessionResult) -> str:
    for a, b in zip(
        first.trajectory.to_jsonl().splitlines(), second.trajectory.to_jsonl().splitlines(), strict=False
    ):
        if a != b:
            return f"first run {a[:160]} vs second run {b[:160]}"
    return f"lengths differ: {len(first.trajectory)} vs {len(second.trajectory)} events"

"""Built-in conversation mediators: NoAgent, Generic (simple rules) and Socially Intelligent.

All three read only the public `ConversationView`. The generic mediator follows the seed's simple
engagement rules (stall, confusion, disagreement, drift; never twice in a row). The social mediator
detects the four breakdown kinds, scores their urgency, drafts three candidate interventions from
the four strategies, scores each against the breakdowns and delivers the best.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, cast

import numpy as np
import yaml

from parley._plugins import Plugin, cause, discover, is_spec, load_spec, non_ascii_note, quoted
from parley.errors import ScenarioError
from parley.mediation.breakdowns import DEFAULT_RUBRIC, BreakdownRubric, detect_breakdowns
from parley.mediation.conversation import (
    MEDIATOR,
    ActKind,
    Assessment,
    Breakdown,
    BreakdownKind,
    ConversationMediator,
    ConversationView,
    Strategy,
    Utterance,
)

DEFAULT_THRESHOLD = 3.8
"""Motivation a mediator needs to speak (the ProMediate cases' mediator `im_threshold`)."""

STRATEGY_FIT: Mapping[Strategy, Mapping[BreakdownKind, float]] = {
    Strategy.FACILITATIVE: {
        BreakdownKind.COMMUNICATION: 1.0,
        BreakdownKind.PERCEPTUAL: 0.7,
        BreakdownKind.EMOTIONAL: 0.4,
        BreakdownKind.COGNITIVE: 0.2,
    },
    Strategy.EVALUATIVE: {BreakdownKind.COGNITIVE: 0.9, BreakdownKind.PERCEPTUAL: 0.6},
    Strategy.TRANSFORMATIVE: {BreakdownKind.EMOTIONAL: 1.0, BreakdownKind.COMMUNICATION: 0.5},
    Strategy.PROBLEM_SOLVING: {
        BreakdownKind.COGNITIVE: 0.8,
        BreakdownKind.PERCEPTUAL: 0.7,
        BreakdownKind.COMMUNICATION: 0.3,
    },
}
"""How well each strategy answers each breakdown kind (from the strategy descriptions in appendix D)."""


@cache
def _templates() -> Mapping[str, Any]:
    path = resources.files("parley.mediation") / "data" / "interventions.yaml"
    return cast(Mapping[str, Any], yaml.safe_load(path.read_text(encoding="utf-8")))


def _phrase(family: str, key: str, turn: int, **fields: str) -> str:
    variants = cast(Sequence[str], _templates()[family][key])
    return variants[turn % len(variants)].format(**fields)


def _focus_topic(view: ConversationView) -> str:
    for utterance in reversed(view.utterances):
        if utterance.topic:
            return utterance.topic
    return view.topics[0]


def _names(parties: Sequence[str]) -> str:
    names = list(parties)
    if len(names) <= 1:
        return names[0] if names else "everyone"
    return ", ".join(names[:-1]) + " and " + names[-1]


def _spoke_last(view: ConversationView) -> bool:
    return view.last is not None and view.last.is_intervention


class NoAgentMediator:
    """The NoAgent baseline: never intervenes."""

    name = "none"
    no_consecutive = True

    def assess(self, view: ConversationView) -> Assessment:
        """Always stays silent."""
        return Assessment(False, 1.0, ("no mediator",))

    def intervene(self, view: ConversationView, assessment: Assessment) -> Utterance:
        """Never called by the conversation loop; returns a neutral facilitative remark."""
        topic = _focus_topic(view)
        text = _phrase("generic", "stall", view.turn, topic=topic)
        return Utterance(
            view.turn, MEDIATOR, ActKind.INTERVENE, topic, tone=0.3, strategy=Strategy.FACILITATIVE, text=text
        )


@dataclass
class GenericMediator:
    """The seed's generic mediator: engage on stall, confusion, disagreement or drift.

    Attributes:
        threshold: Motivation needed to speak.
    """

    threshold: float = DEFAULT_THRESHOLD
    name: str = "generic"
    no_consecutive: bool = True

    def assess(self, view: ConversationView) -> Assessment:
        """Check the engagement rules; never speak right after itself."""
        if _spoke_last(view):
            return Assessment(False, 1.0, ("the last message was mine",))
        reasons = [reason for check in _GENERIC_RULES if (reason := check(view))]
        motivation = 4.0 if reasons else 1.0
        return Assessment(motivation >= self.threshold, motivation, tuple(reasons))

    def intervene(self, view: ConversationView, assessment: Assessment) -> Utterance:
        """A short, general remark answering the first rule that fired."""
        rule = assessment.reasons[0].split(":")[0] if assessment.reasons else "stall"
        topic = _focus_topic(view)
        if rule == "drift":
            topic = _least_settled_topic(view)
        options = "; ".join(f"{k}: {v}" for k, v in view.options.get(topic, {}).items())
        text = _phrase("generic", rule, view.turn, topic=topic, options=options)
        strategy = Strategy.EVALUATIVE if rule == "confusion" else Strategy.FACILITATIVE
        return Utterance(
            view.turn, MEDIATOR, ActKind.INTERVENE, topic, tone=0.3, strategy=strategy, text=text
        )


def _rule_stall(view: ConversationView) -> str:
    recent = [t for t in view.silent_turns if t >= view.turn - 3]
    return "stall: nobody has spoken for a while" if len(recent) >= 2 else ""


def _rule_confusion(view: ConversationView) -> str:
    for utterance in view.recent(2):
        if utterance.act is ActKind.ASK and utterance.addressee:
            answered = any(
                u.speaker == utterance.addressee and u.turn > utterance.turn for u in view.utterances
            )
            if not answered:
                return f"confusion: a question to {utterance.addressee} is open"
    return ""


def _rule_disagreement(view: ConversationView) -> str:
    objections = [u for u in view.recent(4) if u.act is ActKind.OBJECT]
    return f"disagreement: {len(objections)} objections in the last turns" if len(objections) >= 2 else ""


def _rule_drift(view: ConversationView) -> str:
    recent = [u for u in view.recent(4) if not u.is_intervention]
    topics = {u.topic for u in recent if u.topic}
    if len(recent) == 4 and len(topics) >= 3:
        return "drift: the conversation hops between topics"
    return ""


_GENERIC_RULES: tuple[Callable[[ConversationView], str], ...] = (
    _rule_stall,
    _rule_confusion,
    _rule_disagreement,
    _rule_drift,
)


def _least_settled_topic(view: ConversationView) -> str:
    positions = view.positions()
    spread = {t: len({held[t] for held in positions.values() if t in held}) for t in view.topics}
    return max(view.topics, key=lambda t: (spread[t], -view.topics.index(t)))


def public_support(view: ConversationView) -> dict[str, dict[str, dict[str, float]]]:
    """Per party, topic and option: +1 where it stands, -1 where it objected, 0 otherwise (public only)."""
    positions, objections = view.positions(), view.objections()
    table: dict[str, dict[str, dict[str, float]]] = {}
    for party in view.parties:
        table[party] = {}
        for topic in view.topics:
            scores = dict.fromkeys(view.options.get(topic, {}), 0.0)
            for option in objections[party].get(topic, set()):
                scores[option] = -1.0
            if topic in positions[party]:
                scores[positions[party][topic]] = 1.0
            table[party][topic] = scores
    return table


def consensus_option(view: ConversationView, topic: str) -> str:
    """The option on topic with the most public support net of objections (earliest on ties)."""
    support = public_support(view)
    options = list(view.options.get(topic, {}))
    return max(options, key=lambda o: (sum(support[p][topic][o] for p in view.parties), -options.index(o)))


def worst_off_package(view: ConversationView) -> dict[str, str] | None:
    """A package raising the worst-off party's publicly stated position above the current majority package.

    A party's standing on a package is the sum over topics of its public support (+1 its position,
    -1 an option it objected to). Among packages whose worst standing beats the majority package's,
    the one with the best (worst standing, total standing) wins; None when none beats it.
    """
    support = public_support(view)
    topics = list(view.topics)
    options = [list(view.options[t]) for t in topics]
    grids = np.meshgrid(*[np.arange(len(o)) for o in options], indexing="ij")
    flat = [g.ravel() for g in grids]
    standing = np.zeros((len(view.parties), flat[0].size))
    for row, party in enumerate(view.parties):
        for column, topic in enumerate(topics):
            table = np.array([support[party][topic][o] for o in options[column]])
            standing[row] += table[flat[column]]
    worst, total = standing.min(axis=0), standing.sum(axis=0)
    current = [options[c].index(consensus_option(view, t)) for c, t in enumerate(topics)]
    current_index = int(np.ravel_multi_index(tuple(current), tuple(len(o) for o in options)))
    better = np.flatnonzero(worst > worst[current_index] + 1e-9)
    if better.size == 0:
        return None
    best = better[np.lexsort((-total[better], -worst[better]))[0]]
    return {t: options[c][int(flat[c][best])] for c, t in enumerate(topics)}


@dataclass
class SocialMediator:
    """The socially intelligent mediator: breakdown-driven timing, strategy-scored interventions.

    Attributes:
        threshold: Motivation needed to speak.
        rubric: Breakdown-detection thresholds.
        cooldown: Participant utterances required since its last intervention.
        rhythm: Extra motivation per participant utterance beyond five since its last
            intervention (the seed's "ideally every 5–7 turns").
    """

    threshold: float = DEFAULT_THRESHOLD
    rubric: BreakdownRubric = DEFAULT_RUBRIC
    cooldown: int = 3
    rhythm: float = 0.15
    name: str = "social"
    no_consecutive: bool = True

    def assess(self, view: ConversationView) -> Assessment:
        """Detect breakdowns, score urgency, and speak above the threshold."""
        if _spoke_last(view):
            return Assessment(False, 1.0, ("the last message was mine",))
        since = _utterances_since_intervention(view)
        breakdowns = tuple(detect_breakdowns(view, self.rubric))
        reasons = tuple(b.evidence for b in breakdowns)
        if since < self.cooldown:
            return Assessment(False, 1.0, ("let everyone respond first", *reasons), breakdowns)
        urgency = sum(b.severity for b in breakdowns[:3])
        motivation = min(5.0, 1.0 + 2.0 * urgency + self.rhythm * max(0, since - 5))
        intervene = motivation >= self.threshold and bool(breakdowns)
        return Assessment(intervene, round(motivation, 4), reasons, breakdowns)

    def intervene(self, view: ConversationView, assessment: Assessment) -> Utterance:
        """Draft three candidate interventions, score each against the breakdowns, deliver the best."""
        candidates = [
            self._draft(strategy, view, assessment.breakdowns) for strategy in self.candidates(assessment)
        ]
        scored = [(self._score(c, assessment.breakdowns, view), i, c) for i, c in enumerate(candidates)]
        return max(scored, key=lambda item: (item[0], -item[1]))[2]

    def candidates(self, assessment: Assessment) -> list[Strategy]:
        """The three strategies that best fit the detected breakdowns."""
        fit = {
            s: sum(STRATEGY_FIT[s].get(b.kind, 0.0) * b.severity for b in assessment.breakdowns)
            for s in Strategy
        }
        order = list(Strategy)
        return sorted(order, key=lambda s: (-fit[s], order.index(s)))[:3]

    def _score(self, candidate: Utterance, breakdowns: Sequence[Breakdown], view: ConversationView) -> float:
        assert candidate.strategy is not None
        fit = sum(STRATEGY_FIT[candidate.strategy].get(b.kind, 0.0) * b.severity for b in breakdowns)
        named = sum(1 for b in breakdowns for p in b.parties if p in candidate.text) / max(1, len(breakdowns))
        concrete = 0.3 if candidate.package or candidate.option else 0.0
        return fit + 0.2 * named + concrete - self._stale(candidate.strategy, view)

    @staticmethod
    def _stale(strategy: Strategy, view: ConversationView) -> float:
        """Penalty for repeating a strategy that produced no movement (no support or concession since)."""
        previous = next((u for u in reversed(view.utterances) if u.is_intervention), None)
        if previous is None or previous.strategy is not strategy:
            return 0.0
        since = [u for u in view.utterances if u.turn > previous.turn]
        moved = any(u.act in (ActKind.SUPPORT, ActKind.CONCEDE, ActKind.PROPOSE) for u in since)
        return 0.0 if moved else 0.6

    def _draft(
        self, strategy: Strategy, view: ConversationView, breakdowns: Sequence[Breakdown]
    ) -> Utterance:
        relevant = [b for b in breakdowns if STRATEGY_FIT[strategy].get(b.kind, 0.0) > 0] or list(breakdowns)
        topic = next((b.topic for b in relevant if b.topic), None) or _focus_topic(view)
        parties = _involved(relevant) or list(view.parties)
        fields = {"topic": topic, "parties": _names(parties), "option": "", "description": "", "package": ""}
        option: str | None = None
        package: dict[str, str] | None = None
        if strategy is Strategy.EVALUATIVE:
            option = consensus_option(view, topic)
            fields |= {"option": option, "description": view.options[topic][option]}
        if strategy is Strategy.PROBLEM_SOLVING:
            package = worst_off_package(view)
            if package is None:
                strategy, fields["parties"] = Strategy.FACILITATIVE, _names(parties)
            else:
                fields["package"] = "; ".join(f"{t}: {o} ({view.options[t][o]})" for t, o in package.items())
        text = _phrase("social", strategy.value, view.turn, **fields)
        addressee = parties[0] if len(parties) == 1 else None
        return Utterance(
            view.turn, MEDIATOR, ActKind.INTERVENE, topic, option, package, addressee, 0.6, strategy, text
        )


def _involved(breakdowns: Sequence[Breakdown], limit: int = 3) -> list[str]:
    """Up to limit parties named by the most severe breakdowns, in order of appearance."""
    named: list[str] = []
    for breakdown in breakdowns:
        for party in breakdown.parties:
            if party not in named:
                named.append(party)
    return sorted(named[:limit])


def _utterances_since_intervention(view: ConversationView) -> int:
    count = 0
    for utterance in reversed(view.utterances):
        if utterance.is_intervention:
            return count
        count += 1
    return count + 100


MEDIATORS: Mapping[str, Callable[[], ConversationMediator]] = {
    "none": NoAgentMediator,
    "generic": GenericMediator,
    "social": SocialMediator,
}
"""Built-in conversation mediators by name."""

MEDIATOR_GROUP = "parley.mediators"
"""The entry-point group other distributions declare conversation mediators in: each names a factory
called with no arguments (``threshold=`` added when the caller sets one) that returns a
`ConversationMediator`."""

_plugins: dict[str, Plugin] | None = None


def _discovered() -> dict[str, Plugin]:
    global _plugins
    if _plugins is None:
        _plugins = discover(MEDIATOR_GROUP, "mediator", reserved=set(MEDIATORS))
    return _plugins


def mediator_names() -> list[str]:
    """The built-in mediators, then the installed plugins' (nothing is imported)."""
    return [*MEDIATORS, *sorted(_discovered())]


def create_mediator(name: str, *, threshold: float | None = None) -> ConversationMediator:
    """Build a conversation mediator: a built-in ("none", "generic", "social"), a `parley.mediators`
    plugin, or a "package.module:factory" spec.

    Args:
        name: Which one (built-in names in any case; "noagent" means "none").
        threshold: Motivation needed to speak (default `DEFAULT_THRESHOLD`); passed to a plugin's
            factory as ``threshold=`` only when given.

    Raises:
        ScenarioError: unknown name; a plugin or module that cannot be imported; a factory that raises
            or returns no mediator (one line each).
    """
    key = name.lower().replace("noagent", "none")
    if key == "generic":
        return GenericMediator(threshold if threshold is not None else DEFAULT_THRESHOLD)
    if key == "social":
        return SocialMediator(threshold if threshold is not None else DEFAULT_THRESHOLD)
    if key == "none":
        return NoAgentMediator()
    plugin = _discovered().get(name)
    if plugin is not None:
        return _build(plugin.load(), plugin.label, threshold)
    if is_spec(name):
        return _build(load_spec("mediator", name), f"mediator {quoted(name)}", threshold)
    raise ScenarioError(
        f"unknown mediator {quoted(name)}{non_ascii_note(name)}; expected one of {mediator_names()} "
        "(or package.module:factory)"
    )


def _build(factory: object, label: str, threshold: float | None) -> ConversationMediator:
    if not callable(factory):
        raise ScenarioError(f"{label} is a {type(factory).__name__}, not a mediator factory")
    try:
        mediator = factory() if threshold is None else factory(threshold=threshold)
    except ScenarioError:
        raise
    except Exception as error:  # the plugin's bug: one line naming it
        raise ScenarioError(f"{label} failed to build a mediator: {cause(error)}") from None
    if not all(callable(getattr(mediator, method, None)) for method in ("assess", "intervene")):
        raise ScenarioError(
            f"{label}: its factory returned a {type(mediator).__name__}, not a conversation mediator "
            "(an object with assess(view) and intervene(view, assessment))"
        )
    return cast(ConversationMediator, mediator)

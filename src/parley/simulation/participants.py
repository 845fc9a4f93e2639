"""Simulated participants: preference profile + conflict mode + inner-thought speaking motivation.

Each turn every participant forms candidate thoughts about unresolved topics, each with a
motivation score (1–5); the conversation lets the most motivated one speak (appendix B.2). The
deterministic `SimulatedParticipant` is the default; anything implementing `Participant` (for
example an LLM-backed one) plugs into the same loop.

Topics are argued one at a time, so positions, concessions and per-topic reactions use the
additive part of a party's utility (`additive_part`). A whole package put forward is judged with
the party's true utility, whatever it rewards beyond the sum of its topics (`judge_package`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import (
    AdditiveBonusUtility,
    LinearAdditiveUtility,
    RankedPreferenceUtility,
    UtilityFunction,
)
from parley.errors import ScenarioError
from parley.mediation.conversation import ActKind, ConversationView, Utterance
from parley.simulation.behaviour import DEFAULT_BEHAVIOUR, ParticipantBehaviour, perceive_intervention
from parley.simulation.modes import MODE_PROFILES, ConflictMode, ModeProfile
from parley.simulation.rendering import render_utterance


@dataclass(frozen=True, slots=True)
class Thought:
    """A candidate utterance with the motivation to say it.

    Attributes:
        speaker: Who thinks it.
        act: The act it would perform.
        topic: Topic it concerns (None for a summary).
        option: Option it names, if any.
        motivation: Speaking motivation, 1 (none) to 5 (must speak).
        addressee: Participant it answers or asks, if any.
        reason: Why (one line, for the audit trail).
    """

    speaker: str
    act: ActKind
    topic: str | None
    option: str | None
    motivation: float
    addressee: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class SpeakingSettings:
    """A participant's speaking-motivation settings (the case file's `config`).

    Attributes:
        im_threshold: Motivation needed to speak.
        system1_prob: Chance that a quick, reactive (System-1) thought gets a boost.
        interrupt_threshold: Motivation needed to break a silence (lower bar after a silent turn).
    """

    im_threshold: float = 3.0
    system1_prob: float = 0.0
    interrupt_threshold: float = 2.5

    @classmethod
    def from_mapping(cls, data: Mapping[str, float]) -> SpeakingSettings:
        """From a case file's config entry (missing keys keep their defaults)."""
        return cls(
            float(data.get("im_threshold", 3.0)),
            float(data.get("system1_prob", 0.0)),
            float(data.get("interrupt_threshold", 2.5)),
        )


class Participant(Protocol):
    """A conversation participant: thinks, speaks when selected, and hears everything said."""

    @property
    def name(self) -> str:
        """Participant name."""
        ...

    @property
    def speaking(self) -> SpeakingSettings:
        """Its speaking-motivation settings."""
        ...

    def think(self, view: ConversationView) -> Thought | None:
        """Its most motivated candidate thought this turn (None: nothing to say)."""
        ...

    def speak(self, thought: Thought, view: ConversationView) -> Utterance:
        """Turn the selected thought into an utterance for turn view.turn."""
        ...

    def observe(self, utterance: Utterance) -> None:
        """Hear an utterance (its own included)."""
        ...


@dataclass(frozen=True, slots=True)
class PackageVerdict:
    """A participant's judgement of a whole package.

    Attributes:
        acceptable: With its true utility (a bonus included), the package is worth at least its BATNA.
        acceptable_by_topics: With the additive part alone (the sum of its topics), it is.
    """

    acceptable: bool
    acceptable_by_topics: bool

    @property
    def decided_beyond_topics(self) -> bool:
        """Whether what the utility rewards beyond its topics (a bonus) changes the verdict."""
        return self.acceptable != self.acceptable_by_topics


def additive_part(utility: UtilityFunction) -> LinearAdditiveUtility:
    """The part of a utility that adds up topic by topic: ranked preferences' equivalent linear
    utility, a bonus utility's linear-additive part (without the bonus), a linear-additive one itself.

    Raises:
        ScenarioError: the utility has no additive part (a table of outcomes, a user's own class).
    """
    if isinstance(utility, RankedPreferenceUtility):
        return utility.linear
    if isinstance(utility, AdditiveBonusUtility):
        return utility.additive
    if isinstance(utility, LinearAdditiveUtility):
        return utility
    raise ScenarioError(
        f"simulated participants argue topic by topic and need a utility with an additive part "
        f"(linear-additive, ranked, or additive with a bonus), got {type(utility).__name__}"
    )


def topic_values(
    utility: UtilityFunction, space: OutcomeSpace
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Per topic, each option's worth scaled so the first choice is 1; and each topic's weight.

    Read from the utility's additive part: a bonus on whole packages has no per-topic worth.

    Raises:
        ScenarioError: the utility has no additive part.
    """
    linear = additive_part(utility)
    values: dict[str, dict[str, float]] = {}
    weights: dict[str, float] = {}
    for issue, table in zip(space.issues, linear.weighted_tables, strict=True):
        top = float(np.max(table))
        scale = top if top > 1e-12 else 1.0
        values[issue.name] = {str(v): float(x) / scale for v, x in zip(issue.values, table, strict=True)}
        weights[issue.name] = max(top, 0.0)
    heaviest = max(weights.values()) or 1.0
    return values, {t: w / heaviest for t, w in weights.items()}


@dataclass
class SimulatedParticipant:
    """A deterministic, rule-driven participant.

    Per-topic reasoning (its positions, concessions, and its reaction to one option) uses `values`
    and `weights`, read from the additive part of its utility. A full package the mediator tables is
    judged with `utility`, its true utility (a bonus included), and that verdict overrides the
    per-topic answer where the two disagree: a package the bonus lifts to its BATNA draws support
    for its options, one that something beyond its topics pushes below draws objections where it
    departs from the participant's positions. (For a utility that is additive through and through,
    such as ranked preferences, the two never disagree.) Without `utility` every package is judged
    topic by topic.

    Attributes:
        name: Participant name.
        values: Per topic, option worth (first choice 1, unranked 0, unacceptable < 0).
        weights: Per topic importance, 0–1.
        mode: Conflict mode.
        speaking: Speaking-motivation settings.
        rng: Its own random generator (noise in motivation, phrasing variants).
        utility: Its true utility, private to it (None: judge packages topic by topic).
        behaviour: Its behavioural parameters (documented in `ParticipantBehaviour`).
        mode_profile: Override of its conflict mode's profile (None: `MODE_PROFILES[mode]`).
    """

    name: str
    values: Mapping[str, Mapping[str, float]]
    weights: Mapping[str, float]
    mode: ConflictMode
    speaking: SpeakingSettings
    rng: np.random.Generator
    utility: UtilityFunction | None = None
    behaviour: ParticipantBehaviour = DEFAULT_BEHAVIOUR
    mode_profile: ModeProfile | None = None
    profile: ModeProfile = field(init=False)
    concession: dict[str, float] = field(init=False)
    frustration: float = field(init=False, default=0.0)
    position: dict[str, str] = field(init=False)
    suggestion: dict[str, str] = field(init=False)
    stated: set[str] = field(init=False)
    heard: dict[str, dict[str, str]] = field(init=False)
    public: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.profile = self.mode_profile or MODE_PROFILES[self.mode]
        self.concession = dict.fromkeys(self.values, 0.0)
        self.position = {t: max(opts, key=lambda o: opts[o]) for t, opts in self.values.items()}
        self.suggestion = {}
        self.stated = set()
        self.heard = {}
        self.public = {}

    def judge_package(self, package: Mapping[str, str]) -> PackageVerdict | None:
        """Its verdict on a package with its true utility; None without one, or when the package
        does not settle every issue of its utility (options are given as their public labels)."""
        if self.utility is None:
            return None
        outcome = _outcome(self.utility.space, package)
        if outcome is None:
            return None
        batna = self.utility.reservation_value - 1e-9
        summed = additive_part(self.utility).evaluate(outcome)
        return PackageVerdict(self.utility.evaluate(outcome) >= batna, summed >= batna)

    def acceptable(self, topic: str, option: str) -> bool:
        """Whether it could currently live with option on topic."""
        worth = self.values[topic].get(option, -1.0)
        return worth >= 0.0 and worth >= 1.0 - self.concession[topic] - 1e-9

    def tone(self, act: ActKind) -> float:
        """Tone of its next utterance."""
        b = self.behaviour
        shifts = {
            ActKind.OBJECT: b.tone_object,
            ActKind.SUPPORT: b.tone_support,
            ActKind.CONCEDE: b.tone_concede,
        }
        shift = shifts.get(act, 0.0)
        return float(np.clip(self.profile.base_tone - self.frustration + shift, -1.0, 1.0))

    def think(self, view: ConversationView) -> Thought | None:
        """Score candidate thoughts on unresolved topics and return the most motivated one."""
        positions = view.positions()
        candidates = [*self._topic_thoughts(view, positions), *self._summary_thought(view, positions)]
        if not candidates:
            return None
        bonus = self._presence_bonus(view)
        noisy = [
            Thought(
                c.speaker,
                c.act,
                c.topic,
                c.option,
                round(
                    float(
                        np.clip(
                            c.motivation + bonus + self.rng.normal(0, self.behaviour.motivation_noise), 1, 5
                        )
                    ),
                    4,
                ),
                c.addressee,
                c.reason,
            )
            for c in candidates
        ]
        return max(noisy, key=lambda t: t.motivation)

    def speak(self, thought: Thought, view: ConversationView) -> Utterance:
        """Render the thought for this turn."""
        tone = self.tone(thought.act)
        package = dict(view.positions().get(self.name, {})) if thought.act is ActKind.SUMMARISE else None
        if package is not None:
            package.update(self.position)
        draft = Utterance(
            view.turn, self.name, thought.act, thought.topic, thought.option, package, thought.addressee, tone
        )
        text = render_utterance(draft, view.options, int(self.rng.integers(0, 1 << 30)))
        return Utterance(
            draft.turn,
            draft.speaker,
            draft.act,
            draft.topic,
            draft.option,
            package,
            draft.addressee,
            tone,
            None,
            text,
        )

    def observe(self, utterance: Utterance) -> None:
        """Update concession, frustration and position from what was said."""
        self.frustration = max(0.0, self.frustration - self.behaviour.frustration_decay)
        if utterance.is_intervention:
            self._hear_mediator(utterance)
        elif utterance.speaker == self.name:
            self._hear_self(utterance)
        else:
            self._hear_other(utterance)
        self.frustration = float(np.clip(self.frustration, 0.0, 1.0))
        for topic in self.values:
            self.position[topic] = self._best_position(topic)

    # -- thinking -------------------------------------------------------------------------

    def _topic_thoughts(
        self, view: ConversationView, positions: Mapping[str, Mapping[str, str]]
    ) -> list[Thought]:
        focus, b = _focus(view), self.behaviour
        objected = view.objections()
        thoughts: list[Thought] = []
        for topic in view.topics:
            held = {p: pos[topic] for p, pos in positions.items() if topic in pos}
            disagreement = (len(set(held.values())) - 1) / max(1, len(view.parties) - 1)
            resolved = len(held) == len(view.parties) and disagreement == 0
            if resolved:
                continue
            base = (
                b.base_motivation
                + b.weight_motivation * self.weights.get(topic, 0.5)
                - self.profile.contention_aversion * disagreement
            )
            if topic == focus:
                base += b.focus_bonus - b.focus_run_decay * _run_length(view, topic)
            thoughts.extend(self._thoughts_on(topic, base, held, view, objected))
        return thoughts

    def _thoughts_on(
        self,
        topic: str,
        base: float,
        held: Mapping[str, str],
        view: ConversationView,
        objected: Mapping[str, Mapping[str, set[str]]],
    ) -> list[Thought]:
        profile, mine, b = self.profile, self.position[topic], self.behaviour
        public = held.get(self.name)
        thoughts: list[Thought] = []
        if topic not in self.stated:
            thoughts.append(
                self._thought(
                    ActKind.STATE,
                    topic,
                    mine,
                    base + b.state_bonus + b.state_assertiveness * profile.assertiveness,
                    None,
                    "not yet stated",
                )
            )
        thoughts.extend(t for t in self._reactions(topic, base, view) if not _redundant(t, public))
        others = {p: o for p, o in held.items() if p != self.name}
        share = sum(1 for o in others.values() if o == mine) / max(1, len(others))
        if others and share < b.isolation_share:
            popular = self._popular_acceptable(topic, others)
            if popular is not None and popular not in (mine, public):
                motivation = base + profile.cooperativeness + b.concede_pull * self.concession[topic]
                thoughts.append(
                    self._thought(
                        ActKind.CONCEDE, topic, popular, motivation, None, "my position is isolated"
                    )
                )
            elif topic in self.stated:
                thoughts.append(
                    self._thought(
                        ActKind.STATE,
                        topic,
                        mine,
                        base + profile.assertiveness + b.restate_offset,
                        None,
                        "restate",
                    )
                )
        if len(set(held.values())) >= 2:
            compromise = self._compromise(topic, held, objected)
            if compromise is not None:
                thoughts.append(
                    self._thought(
                        ActKind.PROPOSE,
                        topic,
                        compromise,
                        base + b.propose_bonus + b.propose_cooperativeness * profile.cooperativeness,
                        None,
                        "bridge the gap",
                    )
                )
        silent = [p for p in view.parties if p not in held and p != self.name]
        if silent and topic in self.stated:
            thoughts.append(
                self._thought(
                    ActKind.ASK, topic, None, base + b.ask_offset, silent[0], "hear from a quiet party"
                )
            )
        return thoughts

    def _reactions(self, topic: str, base: float, view: ConversationView) -> list[Thought]:
        last = next(
            (u for u in reversed(view.utterances) if u.topic == topic and u.speaker != self.name), None
        )
        answered = any(
            u.speaker == self.name and u.topic == topic and last is not None and u.turn > last.turn
            for u in view.recent(6)
        )
        if answered:
            return []
        if last is None or last.is_intervention:
            return self._answer_mediator(topic, base, last)
        b = self.behaviour
        boost = b.system1_boost if self.rng.random() < self.speaking.system1_prob else 0.0
        if last.act is ActKind.ASK and last.addressee == self.name:
            return [
                self._thought(
                    ActKind.STATE,
                    topic,
                    self.position[topic],
                    base + b.asked_bonus,
                    last.speaker,
                    "asked directly",
                )
            ]
        option = last.option
        if option is None or last.act is ActKind.OBJECT:
            return []
        if self.values[topic].get(option, -1.0) < 0 or not self.acceptable(topic, option):
            motivation = base + b.object_bonus + self.profile.assertiveness + self.frustration + boost
            return [self._thought(ActKind.OBJECT, topic, option, motivation, last.speaker, "cannot accept")]
        motivation = (
            base
            + b.support_bonus
            + self.profile.cooperativeness
            + boost
            + (b.own_support_offset if option == self.position[topic] else 0.0)
        )
        return [self._thought(ActKind.SUPPORT, topic, option, motivation, last.speaker, "can live with it")]

    def _answer_mediator(self, topic: str, base: float, last: Utterance | None) -> list[Thought]:
        if last is None or not last.is_intervention:
            return []
        option = last.option or (last.package or {}).get(topic)
        verdict = self.judge_package(last.package) if last.package else None
        if option is not None and verdict is not None:
            answer = self._answer_package(topic, option, base, verdict)
            if answer is not None:
                return [answer]
        if option is not None and self.acceptable(topic, option):
            return [
                self._thought(
                    ActKind.SUPPORT,
                    topic,
                    option,
                    base + self.behaviour.mediator_support_bonus + self.profile.cooperativeness,
                    None,
                    "mediator's suggestion works",
                )
            ]
        if option is not None and self.values[topic].get(option, -1.0) < 0:
            return [
                self._thought(
                    ActKind.OBJECT,
                    topic,
                    option,
                    base + self.behaviour.mediator_object_bonus + self.profile.assertiveness,
                    None,
                    "mediator's suggestion fails me",
                )
            ]
        return [
            self._thought(
                ActKind.STATE,
                topic,
                self.position[topic],
                base + self.behaviour.mediator_answer_bonus,
                None,
                "answer the mediator",
            )
        ]

    def _answer_package(
        self, topic: str, option: str, base: float, verdict: PackageVerdict
    ) -> Thought | None:
        """Its answer on topic to a tabled package its true utility judges differently from the
        sum of its topics (None: the per-topic answer stands)."""
        if not verdict.decided_beyond_topics:
            return None
        if verdict.acceptable and self.values[topic].get(option, -1.0) >= 0:
            motivation = base + self.behaviour.mediator_support_bonus + self.profile.cooperativeness
            return self._thought(
                ActKind.SUPPORT, topic, option, motivation, None, "the package as a whole pays"
            )
        if not verdict.acceptable and option != self.position[topic]:
            motivation = base + self.behaviour.mediator_object_bonus + self.profile.assertiveness
            return self._thought(
                ActKind.OBJECT, topic, option, motivation, None, "the package as a whole fails me"
            )
        return None

    def _summary_thought(
        self, view: ConversationView, positions: Mapping[str, Mapping[str, str]]
    ) -> list[Thought]:
        stated_everywhere = sum(1 for t in view.topics if all(t in held for held in positions.values()))
        if stated_everywhere * 2 < len(view.topics):
            return []
        return [
            self._thought(
                ActKind.SUMMARISE,
                None,
                None,
                self.behaviour.base_motivation + self.profile.cooperativeness,
                None,
                "take stock",
            )
        ]

    def _thought(
        self,
        act: ActKind,
        topic: str | None,
        option: str | None,
        motivation: float,
        addressee: str | None,
        reason: str,
    ) -> Thought:
        return Thought(self.name, act, topic, option, motivation, addressee, reason)

    def _presence_bonus(self, view: ConversationView) -> float:
        b, recent = self.behaviour, [u.speaker for u in view.recent(2)]
        penalty = (
            b.spoke_last_penalty
            if recent[-1:] == [self.name]
            else (b.spoke_recently_penalty if self.name in recent else 0.0)
        )
        return min(b.presence_cap, b.presence_per_turn * view.turns_since_spoke(self.name)) - penalty

    def _popular_acceptable(self, topic: str, others: Mapping[str, str]) -> str | None:
        counts: dict[str, int] = {}
        for option in others.values():
            if self.acceptable(topic, option):
                counts[option] = counts.get(option, 0) + 1
        return max(counts, key=lambda o: (counts[o], self.values[topic][o])) if counts else None

    def _compromise(
        self, topic: str, held: Mapping[str, str], objections: Mapping[str, Mapping[str, set[str]]]
    ) -> str | None:
        objected = {o for opts in objections.values() for o in opts.get(topic, set())}
        options = [o for o in self.values[topic] if self.acceptable(topic, o) and o not in objected]
        support = {o: sum(1 for h in held.values() if h == o) for o in options}
        ranked = sorted(options, key=lambda o: (-support[o], -self.values[topic][o]))
        return ranked[0] if ranked and ranked[0] != self.position[topic] else None

    # -- listening ------------------------------------------------------------------------

    def _hear_self(self, utterance: Utterance) -> None:
        if utterance.topic is None:
            return
        self.stated.add(utterance.topic)
        self.concession[utterance.topic] += self.behaviour.self_concession * self.profile.concession_rate
        if utterance.act in _POSITION_ACTS and utterance.option:
            self.public[utterance.topic] = utterance.option

    def _hear_other(self, utterance: Utterance) -> None:
        topic, option, profile, b = utterance.topic, utterance.option, self.profile, self.behaviour
        if topic is None or topic not in self.values:
            return
        if utterance.act in _POSITION_ACTS and option is not None:
            self.heard.setdefault(utterance.speaker, {})[topic] = option
        # Hearing the topic argued wears positions down; frustration slows that, never stops it.
        calm = 1.0 - b.frustration_drag * self.frustration
        self.concession[topic] += profile.concession_rate * (
            b.hearing_concession * calm + profile.social_weight
        )
        if utterance.act is ActKind.OBJECT and option == self.position[topic]:
            named = utterance.addressee == self.name
            self.frustration += profile.irritability * (b.addressed_attack if named else 1.0)
        if utterance.tone <= b.hostile_tone:
            self.frustration += b.hostile_frustration * profile.irritability
        if utterance.act is ActKind.SUPPORT and option == self.position[topic]:
            self.frustration -= b.support_soothing

    def _hear_mediator(self, utterance: Utterance) -> None:
        """React to an intervention's content alone: who produced it, and its strategy label, are
        not heard (`perceive_intervention`)."""
        b, heard = self.behaviour, perceive_intervention(utterance, self.name)
        relief = (
            b.base_relief
            + (b.acknowledgement_relief if heard.acknowledges else 0.0)
            + (b.question_relief if heard.asks else 0.0)
        )
        self.frustration -= relief * (b.naming_relief if heard.addressed else 1.0)
        step = self.profile.concession_rate * b.mediator_concession
        for topic in heard.topics:
            if topic in self.concession:
                self.concession[topic] += step * (b.naming_concession if heard.addressed else 1.0)
        self.suggestion.update(heard.suggestion)

    def _best_position(self, topic: str) -> str:
        options = self.values[topic]
        acceptable = [o for o in options if self.acceptable(topic, o)] or [self.position[topic]]
        pull, b = self.profile.social_weight, self.behaviour
        held = [h[topic] for h in self.heard.values() if topic in h]

        def appeal(option: str) -> float:
            share = sum(1 for h in held if h == option) / max(1, len(held))
            suggested = b.suggestion_pull * pull if self.suggestion.get(topic) == option else 0.0
            consistent = b.consistency if self.public.get(topic) == option else 0.0
            return options[option] + pull * share + suggested + consistent

        return max(acceptable, key=lambda o: (appeal(o), -list(options).index(o)))


_POSITION_ACTS = frozenset({ActKind.STATE, ActKind.PROPOSE, ActKind.SUPPORT, ActKind.CONCEDE})


def _outcome(space: OutcomeSpace, package: Mapping[str, str]) -> dict[str, Value] | None:
    """The outcome a package of public option labels names (None: an issue unsettled or unknown)."""
    outcome: dict[str, Value] = {}
    for issue in space.issues:
        label = package.get(issue.name)
        value = next((v for v in issue.values if str(v) == label), None) if label is not None else None
        if value is None:
            return None
        outcome[issue.name] = value
    return outcome


def _redundant(thought: Thought, public: str | None) -> bool:
    """Supporting the option one already stands for in public adds nothing."""
    return thought.act is ActKind.SUPPORT and thought.option == public


def _run_length(view: ConversationView, topic: str) -> int:
    """How many of the latest utterances in a row were about topic."""
    count = 0
    for utterance in reversed(view.utterances):
        if utterance.topic != topic:
            break
        count += 1
    return count


def _focus(view: ConversationView) -> str | None:
    for utterance in reversed(view.recent(3)):
        if utterance.topic:
            return utterance.topic
    return None

"""The simulated participants' behavioural parameters, and what they perceive in a mediator's words.

Every number that shapes how a `SimulatedParticipant` reacts is a field of `ParticipantBehaviour`,
with its meaning and origin in the field's metadata (the ProMediate report prints them as a table and
varies each one). A participant reacts to an intervention's *content* only: `perceive_intervention`
reads the features a listener can hear (named, a concrete option or package, an acknowledgement of
concerns, a question) and never the mediator's identity or its own label for the strategy it used.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

from parley.mediation.conversation import Utterance

HAND_SET = "hand-set for the deterministic testbed; not fitted to data"
"""Where most defaults come from."""


def _param(default: float, meaning: str, source: str = HAND_SET) -> Any:
    return field(default=default, metadata={"meaning": meaning, "source": source})


@dataclass(frozen=True, slots=True)
class ParticipantBehaviour:
    """Every behavioural parameter of a simulated participant besides its conflict-mode profile
    (`parley.simulation.modes.ModeProfile`) and its speaking thresholds (`SpeakingSettings`).

    Units: motivation is on the 1–5 inner-thought scale, concession and frustration on 0–1, tone on
    -1…1. Each field's metadata holds its meaning and where its default comes from.
    """

    motivation_noise: float = _param(
        0.35, "standard deviation of the noise added to each thought's motivation"
    )
    base_motivation: float = _param(2.0, "motivation of any thought on an unresolved topic before offsets")
    weight_motivation: float = _param(1.2, "motivation added per unit of the topic's importance to it")
    focus_bonus: float = _param(0.8, "motivation added for the topic under discussion")
    focus_run_decay: float = _param(0.2, "motivation lost per consecutive utterance already on that topic")
    state_bonus: float = _param(0.6, "motivation added to stating a position not yet stated")
    state_assertiveness: float = _param(0.5, "share of the mode's assertiveness added to stating a position")
    propose_cooperativeness: float = _param(0.6, "share of the mode's cooperativeness added to proposing")
    isolation_share: float = _param(
        0.34, "share of others holding its position below which it feels isolated"
    )
    concede_pull: float = _param(0.3, "motivation added to conceding per unit of accumulated concession")
    restate_offset: float = _param(-0.3, "motivation offset for restating an isolated position")
    propose_bonus: float = _param(0.2, "motivation added to proposing a compromise")
    ask_offset: float = _param(-0.3, "motivation offset for asking a quiet party")
    asked_bonus: float = _param(1.2, "motivation added to answering a question put to it")
    object_bonus: float = _param(0.6, "motivation added to objecting to an option it cannot accept")
    support_bonus: float = _param(0.4, "motivation added to supporting an option it can live with")
    own_support_offset: float = _param(-0.3, "offset when the option supported is already its own")
    system1_boost: float = _param(
        0.5, "boost of a quick reactive thought (taken with the case's system1_prob)"
    )
    presence_per_turn: float = _param(0.1, "motivation gained per turn since it last spoke")
    presence_cap: float = _param(1.5, "cap on that gain")
    spoke_last_penalty: float = _param(1.2, "motivation lost right after speaking")
    spoke_recently_penalty: float = _param(0.4, "motivation lost when it spoke in the last two turns")
    self_concession: float = _param(0.5, "concession per own utterance, as a share of the mode's rate")
    hearing_concession: float = _param(
        0.5, "concession per utterance heard on a topic, as a share of the rate"
    )
    frustration_drag: float = _param(
        0.5, "how much frustration slows concession (share lost at frustration 1)"
    )
    frustration_decay: float = _param(0.02, "frustration that fades with every utterance heard")
    addressed_attack: float = _param(1.5, "multiplier on frustration when an objection to it names it")
    hostile_tone: float = _param(-0.3, "tone at or below which a remark heard counts as hostile")
    hostile_frustration: float = _param(0.5, "frustration from a hostile remark, as a share of irritability")
    support_soothing: float = _param(0.05, "frustration removed when someone supports its position")
    tone_object: float = _param(-0.25, "tone shift of its own objections")
    tone_support: float = _param(0.2, "tone shift of its own support")
    tone_concede: float = _param(0.1, "tone shift of its own concessions")
    consistency: float = _param(0.45, "appeal of the option it already stands for in public (commitment)")
    suggestion_pull: float = _param(
        0.5, "appeal of a mediator's suggested option, as a share of social weight"
    )
    mediator_support_bonus: float = _param(0.8, "motivation to support a mediator's suggestion it can accept")
    mediator_object_bonus: float = _param(0.6, "motivation to object to a mediator's suggestion it rules out")
    mediator_answer_bonus: float = _param(0.5, "motivation to answer a mediator by restating its position")
    mediator_concession: float = _param(
        1.0, "concession on each topic a mediator's intervention covers, × rate"
    )
    naming_concession: float = _param(
        2.0,
        "multiplier on that concession when the intervention names it (any mediator)",
        "the earlier social-only doubling, kept as the default and now applied to every mediator",
    )
    base_relief: float = _param(0.05, "frustration any intervention removes")
    acknowledgement_relief: float = _param(
        0.25,
        "extra relief when the intervention acknowledges feelings or concerns",
        "set so a transformative-sounding text relieves 0.30, as the old strategy-keyed value",
    )
    question_relief: float = _param(
        0.1,
        "extra relief when the intervention asks the parties a question",
        "set so a facilitative-sounding question relieves about 0.15, as the old strategy-keyed value",
    )
    naming_relief: float = _param(1.5, "multiplier on relief when the intervention names it (any mediator)")


DEFAULT_BEHAVIOUR = ParticipantBehaviour()


def behaviour_parameters() -> list[tuple[str, float, str, str]]:
    """(name, default, meaning, source) of every `ParticipantBehaviour` field, in declaration order."""
    return [
        (
            f.name,
            float(getattr(DEFAULT_BEHAVIOUR, f.name)),
            str(f.metadata["meaning"]),
            str(f.metadata["source"]),
        )
        for f in fields(ParticipantBehaviour)
    ]


ACKNOWLEDGEMENT_CUES: tuple[str, ...] = (
    "acknowledg",
    "recognis",
    "recogniz",
    "appreciate",
    "frustrat",
    "concern",
    "important to",
    "comfortable",
    "what matters",
    "understand each other",
    "real interests",
)
"""Word stems a listener hears as acknowledging its feelings or concerns (the participant's own
perception, written for the simulator; no mediator reads it)."""

_INVISIBLE = {"Cf", "Cc", "Co", "Cs"}


@lru_cache(maxsize=4096)
def normalised(text: str) -> str:
    """NFKC-folded, case-folded text without format or control characters (zero-width joiners,
    bidi marks), so a name hidden behind them still reads as the name."""
    folded = unicodedata.normalize("NFKC", text)
    visible = "".join(ch if unicodedata.category(ch) not in _INVISIBLE else "" for ch in folded)
    return " ".join(visible.casefold().split())


@dataclass(frozen=True, slots=True)
class InterventionContent:
    """What a participant perceives in an intervention: content only, whoever said it.

    Attributes:
        addressed: It is named (as a whole word) or is the addressee.
        topics: The topics the intervention covers (its package's, else its topic).
        suggestion: Per topic, the option it puts forward.
        acknowledges: It acknowledges feelings or concerns (`ACKNOWLEDGEMENT_CUES`).
        asks: It asks the parties a question.
    """

    addressed: bool
    topics: tuple[str, ...]
    suggestion: dict[str, str]
    acknowledges: bool
    asks: bool


def names_party(text: str, name: str) -> bool:
    """Whether text names party as a whole word (after `normalised`; an empty name never matches)."""
    wanted = normalised(name)
    if not wanted:
        return False
    return re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", normalised(text)) is not None


def perceive_intervention(utterance: Utterance, listener: str) -> InterventionContent:
    """The content features listener hears in utterance (its speaker and strategy label are ignored)."""
    text = normalised(utterance.text)
    suggestion = {utterance.topic: utterance.option} if utterance.topic and utterance.option else {}
    suggestion.update(utterance.package or {})
    topics = tuple(utterance.package or {}) or ((utterance.topic,) if utterance.topic else ())
    return InterventionContent(
        addressed=utterance.addressee == listener or names_party(utterance.text, listener),
        topics=topics,
        suggestion=suggestion,
        acknowledges=any(cue in text for cue in ACKNOWLEDGEMENT_CUES),
        asks="?" in text,
    )

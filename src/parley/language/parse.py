"""Parsing free text into a move: a deterministic reading over the scenario's vocabulary, no model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from parley.domain.issues import Value
from parley.language.cues import Cues, find_cues
from parley.language.offers import OfferReading, read_offer
from parley.language.priorities import PriorityReading, read_priorities
from parley.language.vocabulary import Vocabulary, normalize
from parley.protocol.actions import Accept, Action, Propose, Reject, Say, Walk

MAX_TEXT_CHARS = 4000
"""Longer texts are read up to this many characters (a chat message, not a document)."""


class Intent(StrEnum):
    """What a message does."""

    OFFER = "offer"
    ACCEPT = "accept"
    REJECT = "reject"
    WALK = "walk"
    PRIORITIES = "priorities"
    ASK_PRIORITIES = "ask_priorities"
    QUESTION = "question"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """The reading of one message.

    Attributes:
        text: The message as typed.
        speaker: Who said it.
        intent: What the message does.
        package: The full package proposed (every issue fixed), or None.
        partial: The issues the text fixes, even when incomplete.
        priorities: Issue names the speaker ranks, most important first (a prefix, or the full order
            when it can be inferred).
        least_important: Issues stated as least important.
        asks_priorities: The message asks the listener's priorities.
        confidence: How sure the parser is of intent and content, in [0, 1].
        missing: Issues an offer leaves open.
        notes: What could not be understood, in plain words.
    """

    text: str
    speaker: str
    intent: Intent
    package: Mapping[str, Value] | None = None
    partial: Mapping[str, Value] = field(default_factory=lambda: {})
    priorities: tuple[str, ...] = ()
    least_important: tuple[str, ...] = ()
    asks_priorities: bool = False
    confidence: float = 0.0
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def parse(
    text: str, vocabulary: Vocabulary, *, speaker: str, context: Mapping[str, Value] | None = None
) -> ParsedMessage:
    """Read a message as a move.

    Args:
        text: Free text from a person or an agent.
        vocabulary: The scenario's words.
        speaker: The party who wrote it (quantities like "I'll take 2" are read from its side).
        context: The package currently on the table, if any; fills terms the text leaves open and
            lets "deal" with a restated package count as acceptance.

    Returns:
        The reading; never raises on any text.
    """
    normalized = normalize(text[:MAX_TEXT_CHARS])
    offer = read_offer(normalized, vocabulary, speaker=speaker, context=context)
    priorities = read_priorities(normalized, vocabulary)
    cues = find_cues(normalized, vocabulary.lexicon, ranking_stated=priorities.stated)
    intent = _intent(offer, priorities, cues, context)
    package = dict(offer.partial) if offer.complete else None
    return ParsedMessage(
        text=text,
        speaker=speaker,
        intent=intent,
        package=package if intent in (Intent.OFFER, Intent.ACCEPT) else None,
        partial=dict(offer.partial),
        priorities=priorities.ranking,
        least_important=priorities.least,
        asks_priorities=cues.asks_priorities,
        confidence=_confidence(intent, offer, cues),
        missing=offer.missing if offer.stated else (),
        notes=_notes(intent, offer),
    )


def _intent(
    offer: OfferReading, priorities: PriorityReading, cues: Cues, context: Mapping[str, Value] | None
) -> Intent:
    if cues.walk:
        return Intent.WALK
    if offer.complete:
        same_as_table = context is not None and dict(offer.partial) == dict(context)
        return Intent.ACCEPT if cues.accept and same_as_table else Intent.OFFER
    if offer.stated and cues.accept and not cues.reject:
        # "I'd accept 110k" proposes; only restating the table accepts it.
        on_table = context is not None and all(context.get(k) == v for k, v in offer.partial.items())
        return Intent.ACCEPT if on_table else Intent.OFFER
    if offer.stated and not cues.reject:
        return Intent.OFFER
    if cues.reject:
        return Intent.REJECT
    if cues.accept:
        return Intent.ACCEPT
    if priorities.stated:
        return Intent.PRIORITIES
    if cues.asks_priorities:
        return Intent.ASK_PRIORITIES
    if cues.question:
        return Intent.QUESTION
    return Intent.OTHER


def _confidence(intent: Intent, offer: OfferReading, cues: Cues) -> float:
    if intent is Intent.OFFER:
        base = 0.9 if offer.complete else 0.5
        return max(
            0.1, base - 0.2 * offer.uncertain - 0.1 * len(offer.notes) - 0.05 * len(offer.from_context)
        )
    if intent in (Intent.ACCEPT, Intent.REJECT, Intent.WALK):
        return 0.6 if cues.accept and cues.reject else 0.85
    if intent in (Intent.PRIORITIES, Intent.ASK_PRIORITIES):
        return 0.8
    if intent is Intent.QUESTION:
        return 0.5
    return 0.2


def _notes(intent: Intent, offer: OfferReading) -> tuple[str, ...]:
    notes = list(offer.notes)
    if offer.from_context:
        notes.append(f"kept from the offer on the table: {', '.join(offer.from_context)}")
    if intent is Intent.OFFER and not offer.complete:
        notes.append(f"the offer does not say: {', '.join(offer.missing)}")
    return tuple(notes)


def to_action(parsed: ParsedMessage) -> Action | None:
    """The move a reading stands for, or None when no legal move can be built (ask again).

    An incomplete offer gives None; a question or other text becomes a `Say` carrying the text.
    """
    message = parsed.text
    match parsed.intent:
        case Intent.OFFER:
            return Propose(dict(parsed.package), message) if parsed.package is not None else None
        case Intent.ACCEPT:
            return Accept(message)
        case Intent.REJECT:
            return Reject(message)
        case Intent.WALK:
            return Walk(reason=message, message=message)
        case Intent.PRIORITIES | Intent.ASK_PRIORITIES | Intent.QUESTION | Intent.OTHER:
            if not message.strip():
                return None
            return Say(message, parsed.priorities, parsed.asks_priorities)

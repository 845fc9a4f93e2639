"""Rendering moves as natural-language text from packaged templates, chosen deterministically."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from parley.domain.issues import Value
from parley.errors import ScenarioError
from parley.language.parse import ParsedMessage
from parley.language.vocabulary import IssueTerms, Vocabulary
from parley.protocol.actions import (
    Accept,
    Action,
    DeclineCoalition,
    JoinCoalition,
    Propose,
    ProposeCoalition,
    Reject,
    Say,
    Walk,
    action_to_json,
)

TEMPLATES_FILE = "en.yaml"
_CURRENCY_SYMBOLS = {"usd": "$", "eur": "€", "gbp": "£"}


class _TemplateFile(BaseModel):
    """Schema of templates/en.yaml."""

    model_config = ConfigDict(extra="forbid")
    propose_division: list[str]
    counter_division: list[str]
    propose_terms: list[str]
    counter_terms: list[str]
    propose_mixed: list[str]
    counter_mixed: list[str]
    accept: list[str]
    reject: list[str]
    walk: list[str]
    walk_reason: list[str]
    priorities: list[str]
    ask_priorities: list[str]
    clarify_missing: list[str]
    clarify_unclear: list[str]
    clarify_empty: list[str]
    list_and: str
    list_comma: str
    then: str
    nothing: str


@dataclass(frozen=True, slots=True)
class Templates:
    """Phrasings per kind of move ("propose_division", "accept", ...) and list joiners."""

    phrasings: Mapping[str, tuple[str, ...]]
    list_and: str
    list_comma: str
    then: str
    nothing: str

    def kinds(self) -> tuple[str, ...]:
        """Names of the phrasing groups."""
        return tuple(self.phrasings)


@cache
def load_templates() -> Templates:
    """The packaged English templates (parsed once per process).

    Raises:
        ScenarioError: the packaged file is malformed (a packaging bug).
    """
    source = resources.files("parley.language").joinpath("templates", TEMPLATES_FILE)
    try:
        data = _TemplateFile.model_validate(yaml.safe_load(source.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as error:
        raise ScenarioError(f"invalid templates: {str(error).splitlines()[0]}", source=str(source)) from error
    raw = data.model_dump()
    phrasings = {key: tuple(value) for key, value in raw.items() if isinstance(value, list)}
    for key, options in phrasings.items():
        if not options:
            raise ScenarioError("expected at least one phrasing", source=str(source), field=key)
    return Templates(phrasings, data.list_and, data.list_comma, data.then, data.nothing)


def render(
    action: Action,
    vocabulary: Vocabulary,
    *,
    speaker: str,
    listener: str | None = None,
    rng: np.random.Generator | None = None,
    counter: bool = False,
    regenerate: bool = False,
    variant: int | None = None,
) -> str:
    """Text for a move, as the speaker would say it to the listener.

    Args:
        action: The move.
        vocabulary: The scenario's words.
        speaker: The party making the move.
        listener: The party addressed (default: the other party).
        rng: Picks the phrasing when given; otherwise a hash of the move picks it, so the same
            move always reads the same.
        counter: Phrase a `Propose` as a counter-offer (rejecting the one on the table).
        regenerate: Ignore a message the action already carries.
        variant: Force phrasing number variant (modulo the number of phrasings), for tests.

    Returns:
        The text; the action's own message unchanged when it has one and regenerate is False.
    """
    existing = action.message
    if existing and not regenerate:
        return existing
    listener = listener or vocabulary.listener_of(speaker)
    kind, slots = _kind_and_slots(action, vocabulary, speaker, listener, counter)
    if not kind:
        return ""
    parts = kind.split("+")
    texts: list[str] = []
    for part in parts:
        options = load_templates().phrasings[part]
        texts.append(options[_choose(len(options), action, speaker, rng, variant)].format(**slots))
    return " ".join(texts)


def clarify(parsed: ParsedMessage, vocabulary: Vocabulary) -> str:
    """A polite request to say it again, for a message `to_action` could not turn into a move.

    Names the issues an offer left open, else the first thing the parser could not understand.
    """
    templates = load_templates()
    if parsed.missing:
        labels = [vocabulary.terms(name).label for name in parsed.missing]
        return templates.phrasings["clarify_missing"][0].format(missing=_join(labels))
    if parsed.notes:
        return templates.phrasings["clarify_unclear"][0].format(first_note=parsed.notes[0])
    return templates.phrasings["clarify_empty"][0]


def phrasings(kind: str) -> tuple[str, ...]:
    """The phrasings of one kind of move (for tests and tooling).

    Raises:
        KeyError: unknown kind.
    """
    return load_templates().phrasings[kind]


def describe_package(package: Mapping[str, Value], vocabulary: Vocabulary, *, speaker: str) -> str:
    """A package in plain words from the speaker's side ("I get 2 firewood; you get 1 firewood, ...").

    Raises:
        ValueError: the package is not a valid outcome of the space.
    """
    vocabulary.space.validate(package)
    listener = vocabulary.listener_of(speaker)
    parts: list[str] = []
    if vocabulary.division_issues:
        mine, yours = _division_slots(package, vocabulary, speaker, listener)
        parts.append(f"I get {mine}; you get {yours}")
    if vocabulary.terms_issues:
        parts.append(_terms_slot(package, vocabulary))
    return "; ".join(parts)


def _kind_and_slots(
    action: Action, vocabulary: Vocabulary, speaker: str, listener: str, counter: bool
) -> tuple[str, dict[str, str]]:
    match action:
        case Propose(package=package):
            return _propose_slots(package, vocabulary, speaker, listener, counter)
        case Accept():
            return "accept", {}
        case Reject():
            return "reject", {}
        case Walk(reason=reason):
            return ("walk_reason", {"reason": _sentence(reason)}) if reason.strip() else ("walk", {})
        case Say(priorities=priorities, asks_priorities=asks):
            return _say_slots(priorities, asks, vocabulary)
        case ProposeCoalition() | JoinCoalition() | DeclineCoalition():
            return "", {}  # (coalition moves have no phrasings: transcripts describe them; see cli.display)


def _propose_slots(
    package: Mapping[str, Value], vocabulary: Vocabulary, speaker: str, listener: str, counter: bool
) -> tuple[str, dict[str, str]]:
    vocabulary.space.validate(package)
    slots: dict[str, str] = {}
    if vocabulary.division_issues:
        slots["mine"], slots["yours"] = _division_slots(package, vocabulary, speaker, listener)
    if vocabulary.terms_issues:
        slots["terms"] = _terms_slot(package, vocabulary)
    style = "mixed" if len(slots) == 3 else ("division" if "mine" in slots else "terms")
    return f"{'counter' if counter else 'propose'}_{style}", slots


def _say_slots(priorities: Sequence[str], asks: bool, vocabulary: Vocabulary) -> tuple[str, dict[str, str]]:
    """Say has two optional parts; "priorities+ask_priorities" renders one phrasing of each."""
    if priorities:
        labels = [vocabulary.terms(name).label for name in priorities]
        then = "".join(load_templates().then + label for label in labels[1:])
        slots = {"first": labels[0], "First": labels[0][:1].upper() + labels[0][1:], "then": then}
        return ("priorities+ask_priorities" if asks else "priorities"), slots
    return ("ask_priorities", {}) if asks else ("", {})


def _division_slots(
    package: Mapping[str, Value], vocabulary: Vocabulary, speaker: str, listener: str
) -> tuple[str, str]:
    mine = [(vocabulary.count_for(t, package[t.name], speaker), t) for t in vocabulary.division_issues]
    yours = [(vocabulary.count_for(t, package[t.name], listener), t) for t in vocabulary.division_issues]
    return _item_list(mine), _item_list(yours)


def _item_list(counts: Sequence[tuple[int, IssueTerms]]) -> str:
    templates = load_templates()
    items = [
        f"{count} {singular(terms.label) if count == 1 else terms.label}"
        for count, terms in counts
        if count > 0
    ]
    return _join(items) if items else templates.nothing


def _sentence(text: str) -> str:
    """Text as a sentence: capital first letter, final punctuation."""
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text[-1:] in ".!?" else f"{text}."


def singular(label: str) -> str:
    """The singular of a plural item label ("quuxberries" -> "quuxberry"); other labels unchanged."""
    head, _, last = label.rpartition(" ")
    if last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith("s") and not last.endswith(("ss", "us", "is")) and len(last) > 3:
        last = last[:-1]
    return f"{head} {last}" if head else last


def _join(items: Sequence[str]) -> str:
    templates = load_templates()
    if len(items) <= 1:
        return "".join(items)
    return templates.list_comma.join(items[:-1]) + templates.list_and + items[-1]


def _terms_slot(package: Mapping[str, Value], vocabulary: Vocabulary) -> str:
    return _join([describe_term(terms, package[terms.name]) for terms in vocabulary.terms_issues])


def describe_term(terms: IssueTerms, value: Value) -> str:
    """One term in words ("a price of $42", "payment terms of net-60", or the scenario's own phrase)."""
    amount = format_value(terms, value)
    if terms.phrase:
        return terms.phrase.format(value=amount)
    label = terms.label
    plural = label.endswith("s") and not label.endswith(("ss", "us", "is"))
    article = "" if plural else ("an " if label[:1] in "aeio" else "a ")
    return f"{article}{label} of {amount}"


def format_value(terms: IssueTerms, value: Value) -> str:
    """An option as written in text: "$42", "€3,750 per month", "5,000 units", "1 day per week", "net-60"."""
    if isinstance(value, str):
        return value
    number = f"{value:,}" if abs(value) >= 10_000 else f"{value:g}"
    words = terms.unit_label.split()
    if terms.unit in _CURRENCY_SYMBOLS:
        rest = " ".join(words[1:])
        return f"{_CURRENCY_SYMBOLS[terms.unit]}{number}" + (f" {rest}" if rest else "")
    if not words:
        return number
    if value == 1:
        words[0] = singular(words[0])
    unit = " ".join(words)
    return f"{number}{unit}" if unit == "%" else f"{number} {unit}"


def _choose(
    count: int, action: Action, speaker: str, rng: np.random.Generator | None, variant: int | None
) -> int:
    if variant is not None:
        return variant % count
    if rng is not None:
        return int(rng.integers(count))
    payload = json.dumps([speaker, action_to_json(action)], sort_keys=True, default=str)
    return int.from_bytes(hashlib.sha256(payload.encode()).digest()[:4], "big") % count

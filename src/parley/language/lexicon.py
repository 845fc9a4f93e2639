"""The parser's word lists (numbers, units, synonyms, intent cues), loaded from package data."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from parley.errors import ScenarioError

LEXICON_FILE = "lexicon.yaml"


class _AcceptCues(BaseModel):
    model_config = ConfigDict(extra="forbid")
    strong: list[str]
    weak: list[str]


class _LexiconFile(BaseModel):
    """Schema of templates/lexicon.yaml (validated once at load)."""

    model_config = ConfigDict(extra="forbid")
    numbers: dict[str, int]
    quantity_words: dict[str, int]
    multipliers: dict[str, int]
    units: dict[str, list[str]]
    currencies: list[str]
    synonyms: dict[str, list[str]]
    generic_words: list[str]
    common_labels: list[str]
    item_fillers: list[str]
    remainder: list[str]
    item_remainder: list[str]
    everything: list[str]
    nothing: list[str]
    accept: _AcceptCues
    reject: list[str]
    walk: list[str]
    negations: list[str]
    ask_priorities: list[str]
    priority_top: list[str]
    priority_need: list[str]
    priority_second: list[str]
    priority_least: list[str]
    priority_next: list[str]


@dataclass(frozen=True, slots=True, eq=False)
class Lexicon:
    """Word lists the parser matches against, all lower case (compared by identity, so hashable).

    Attributes:
        numbers: Cardinal number words to their values ("two" -> 2).
        quantity_words: Words that count only right before an item ("no" -> 0, "a couple" -> 2).
        multipliers: Scale words and suffixes ("k" -> 1000).
        units: Unit key to the words and symbols that name it.
        currencies: Unit keys that are currencies (rendered with a symbol).
        synonyms: Issue name to extra names for it.
        generic_words: Words of multi-word issue names too vague to name the issue alone.
        common_labels: Option labels that need their issue named nearby to count.
        item_fillers: Words allowed between a quantity and its item.
        remainder: Phrases naming the rest of a division.
        item_remainder: Words before an item meaning whatever of it is left.
        everything: Words for all of the items, read only right after a taking or giving verb.
        nothing: Phrases meaning no items at all.
        accept_strong: Phrases that accept on their own.
        accept_weak: Words that accept only in a short message.
        reject: Phrases that reject.
        walk: Phrases that leave the negotiation.
        negations: Words that negate the cue that follows them.
        ask_priorities: Questions about the listener's priorities.
        priority_top: Cues that the issue nearby is the speaker's top priority.
        priority_need: Weaker cues that the speaker needs the issue nearby ("I really need firewood").
        priority_second: Cues for the second priority.
        priority_least: Cues for the least important issue.
        priority_next: Words that continue a ranking.
    """

    numbers: Mapping[str, int]
    quantity_words: Mapping[str, int]
    multipliers: Mapping[str, int]
    units: Mapping[str, tuple[str, ...]]
    currencies: frozenset[str]
    synonyms: Mapping[str, tuple[str, ...]]
    generic_words: frozenset[str]
    common_labels: frozenset[str]
    item_fillers: tuple[str, ...]
    remainder: tuple[str, ...]
    item_remainder: tuple[str, ...]
    everything: tuple[str, ...]
    nothing: tuple[str, ...]
    accept_strong: tuple[str, ...]
    accept_weak: tuple[str, ...]
    reject: tuple[str, ...]
    walk: tuple[str, ...]
    negations: tuple[str, ...]
    ask_priorities: tuple[str, ...]
    priority_top: tuple[str, ...]
    priority_need: tuple[str, ...]
    priority_second: tuple[str, ...]
    priority_least: tuple[str, ...]
    priority_next: tuple[str, ...]

    def unit_key(self, unit: str) -> str:
        """The lexicon key for a unit label as written on an issue ("USD", "days"), or the label."""
        label = unit.strip().lower()
        for key, words in self.units.items():
            if label == key or label in words:
                return key
        return label

    def unit_words(self, key: str) -> tuple[str, ...]:
        """Words and symbols naming a unit key (the key itself and simple plurals if unknown)."""
        if key in self.units:
            return self.units[key]
        return tuple(sorted({key, *inflections(key)}))


def inflections(word: str) -> set[str]:
    """Simple singular and plural forms of the last word of a phrase ("box" -> "boxes")."""
    head, _, last = word.rpartition(" ")
    prefix = f"{head} " if head else ""
    forms = {last}
    if last.endswith("ies") and len(last) > 4:
        forms.add(last[:-3] + "y")
    elif last.endswith(("ses", "xes", "ches", "shes")):
        forms.add(last[:-2])
    elif last.endswith("s") and not last.endswith(("ss", "us", "is")) and len(last) > 3:
        forms.add(last[:-1])
    elif last.endswith("y") and len(last) > 2 and last[-2] not in "aeiou":
        forms.add(last[:-1] + "ies")
    elif last.endswith(("s", "x", "ch", "sh")):
        forms.add(last + "es")
    elif last and last[-1].isalpha():
        forms.add(last + "s")
    return {prefix + form for form in forms}


def phrase_pattern(phrases: Iterable[str]) -> re.Pattern[str]:
    """One regex matching any of the phrases as whole words, longest first, spaces flexible."""
    unique = sorted({p.strip().lower() for p in phrases if p.strip()}, key=len, reverse=True)
    if not unique:
        return re.compile(r"(?!x)x")
    parts = [r"[\s\-]*".join(re.escape(word) for word in phrase.split()) for phrase in unique]
    return re.compile(r"(?<![\w$€£#])(?:" + "|".join(parts) + r")(?![\w%])")


@cache
def load_lexicon() -> Lexicon:
    """The packaged lexicon (parsed once per process).

    Raises:
        ScenarioError: the packaged file is malformed (a packaging bug).
    """
    source = resources.files("parley.language").joinpath("templates", LEXICON_FILE)
    try:
        data = _LexiconFile.model_validate(yaml.safe_load(source.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as error:
        first = str(error).splitlines()[0]
        raise ScenarioError(f"invalid lexicon: {first}", source=str(source)) from error
    return Lexicon(
        numbers=dict(data.numbers),
        quantity_words=dict(data.quantity_words),
        multipliers=dict(data.multipliers),
        units={key.lower(): tuple(w.lower() for w in words) for key, words in data.units.items()},
        currencies=frozenset(c.lower() for c in data.currencies),
        synonyms={key.lower(): tuple(w.lower() for w in words) for key, words in data.synonyms.items()},
        generic_words=frozenset(data.generic_words),
        common_labels=frozenset(data.common_labels),
        item_fillers=tuple(data.item_fillers),
        remainder=tuple(data.remainder),
        item_remainder=tuple(data.item_remainder),
        everything=tuple(data.everything),
        nothing=tuple(data.nothing),
        accept_strong=tuple(data.accept.strong),
        accept_weak=tuple(data.accept.weak),
        reject=tuple(data.reject),
        walk=tuple(data.walk),
        negations=tuple(data.negations),
        ask_priorities=tuple(data.ask_priorities),
        priority_top=tuple(data.priority_top),
        priority_need=tuple(data.priority_need),
        priority_second=tuple(data.priority_second),
        priority_least=tuple(data.priority_least),
        priority_next=tuple(data.priority_next),
    )

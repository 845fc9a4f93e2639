"""Field extraction: the term reader's extractor, a pattern extractor, an option-lexicon extractor
and the dual-extraction rule.

Extractors are pluggable through the `Extractor` protocol (an embedding or LLM extractor can be
added later); `DualExtractor` accepts a value when both agree or one is highly confident. The default
pairs `TermExtractor` (values the counterparty states as its own, read by `governance.terms`) with the
option lexicon. Whatever the extractor, `apply_reading` squares its readings with the term reading of
the same message: a field the message names only in a competing offer, a question about the
principal's position, a hypothesis or a value it takes back gets no reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from parley.governance.config import DomainConfig, FieldSpec
from parley.governance.terms import StatedTerm, TermReader, TermReading, reader_for
from parley.governance.text import find_phrases, is_negated, keyword_distance, sentences
from parley.governance.values import Mention, convert_days, find_mentions

FieldValue = str | float
_NEAR = 60
_LETTER_ANSWER = re.compile(r"^\s*(?:option\s+)?\(?([a-e])\)?(?:[\s.,:;!)-]|$)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class FieldReading:
    """One candidate value for a field.

    Attributes:
        field: Field name.
        value: Canonical value (an option name, a number in the field's unit, a band label).
        confidence: In [0, 1].
        source: Which extractor produced it ("pattern", "lexicon", "dual", ...).
        evidence: The text it came from.
    """

    field: str
    value: FieldValue
    confidence: float
    source: str
    evidence: str


@dataclass(frozen=True, slots=True)
class ExtractionContext:
    """What the delegate just asked: fields and, for multiple-choice questions, the band labels offered."""

    asked: tuple[str, ...] = ()
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: {})


class Extractor(Protocol):
    """Anything that reads field values out of one counterparty message."""

    name: str

    def covers(self, spec: FieldSpec) -> bool:
        """Whether this extractor can produce readings for spec."""
        ...

    def extract(self, message: str, context: ExtractionContext) -> list[FieldReading]:
        """Candidate readings found in message (any number per field)."""
        ...


def _confidence(distance: int | None, asked: bool) -> float:
    if distance is not None and distance <= _NEAR:
        return 0.9
    if asked:
        return 0.85
    return 0.8 if distance is not None else 0.65


def _money_units(config: DomainConfig, spec: FieldSpec) -> set[str]:
    units = {spec.unit} if spec.unit else set[str]()
    units.update(t.unit for t in config.boundary.terms if t.field == spec.name and t.unit)
    return units


def _plausible_money(mention: Mention, units: set[str]) -> bool:
    if mention.unit is not None:
        return mention.unit in units
    large = mention.low >= 1000
    return ("year" in units or "month" in units) if large else bool(units & {"hour", "unit"})


def _money_value(mention: Mention) -> FieldValue:
    unit = f"/{mention.unit}" if mention.unit else ""
    if mention.low == mention.high:
        return f"{mention.low:g}{unit}"
    return f"{mention.low:g}-{mention.high:g}{unit}"


class PatternExtractor:
    """Typed value parsers (money, quantity, duration, date, time zone) plus the config's regex patterns."""

    name = "pattern"

    def __init__(self, config: DomainConfig) -> None:
        self._config = config
        self._compiled = {
            spec.name: {option: re.compile(regex, re.IGNORECASE) for option, regex in spec.patterns.items()}
            for spec in config.fields
        }

    def covers(self, spec: FieldSpec) -> bool:
        return spec.kind not in ("enum", "text") or bool(spec.patterns)

    def extract(self, message: str, context: ExtractionContext) -> list[FieldReading]:
        readings: list[FieldReading] = []
        for sentence in sentences(message):
            readings.extend(self._typed(sentence, context))
            readings.extend(self._regex(sentence, context))
        return readings

    def _candidates(self, mention: Mention) -> list[FieldSpec]:
        fitting: list[FieldSpec] = []
        for spec in self._config.fields:
            if mention.kind == "money" and spec.kind == "money":
                if _plausible_money(mention, _money_units(self._config, spec)):
                    fitting.append(spec)
            elif (mention.kind == "quantity" and spec.kind == "quantity" and spec.unit == mention.unit) or (
                mention.kind == spec.kind and mention.kind in ("duration", "date", "timezone")
            ):
                fitting.append(spec)
        return fitting

    def _typed(self, sentence: str, context: ExtractionContext) -> list[FieldReading]:
        readings: list[FieldReading] = []
        for mention in find_mentions(sentence, self._reference_zone()):
            scored = [
                (keyword_distance(sentence, mention.start, spec.keywords), spec)
                for spec in self._candidates(mention)
            ]
            chosen = self._choose(scored, context)
            if chosen is not None:
                distance, spec = chosen
                confidence = _confidence(distance, spec.name in context.asked)
                readings.append(
                    FieldReading(spec.name, self._value(spec, mention), confidence, self.name, sentence)
                )
        return readings

    def _reference_zone(self) -> str | None:
        zones = [spec.unit for spec in self._config.fields if spec.kind == "timezone"]
        return zones[0] if zones else None

    @staticmethod
    def _choose(
        scored: list[tuple[int | None, FieldSpec]], context: ExtractionContext
    ) -> tuple[int | None, FieldSpec] | None:
        near = [(d, s) for d, s in scored if d is not None]
        if near:
            distance, spec = min(near, key=lambda item: item[0])
            return distance, spec
        asked = [(d, s) for d, s in scored if s.name in context.asked]
        if asked:
            return asked[0]
        return scored[0] if len(scored) == 1 else None

    @staticmethod
    def _value(spec: FieldSpec, mention: Mention) -> FieldValue:
        if mention.kind == "money":
            return _money_value(mention)
        if mention.kind == "duration":
            return convert_days(mention.low, spec.unit)
        if mention.kind == "date":
            return mention.label
        return mention.low

    def _regex(self, sentence: str, context: ExtractionContext) -> list[FieldReading]:
        readings: list[FieldReading] = []
        for spec in self._config.fields:
            for option, pattern in self._compiled[spec.name].items():
                match = pattern.search(sentence)
                if match is not None and not is_negated(sentence, match.start()):
                    distance = keyword_distance(sentence, match.start(), spec.keywords)
                    confidence = _confidence(distance, spec.name in context.asked)
                    readings.append(FieldReading(spec.name, option, confidence, self.name, sentence))
        return readings


class LexiconExtractor:
    """Option lexicons for enumerated and free-text fields, plus answers to multiple-choice questions."""

    name = "lexicon"

    def __init__(self, config: DomainConfig) -> None:
        self._config = config

    def covers(self, spec: FieldSpec) -> bool:
        return spec.kind in ("enum", "text") or bool(spec.bands)

    def extract(self, message: str, context: ExtractionContext) -> list[FieldReading]:
        readings = self._choice_answers(message, context)
        for sentence in sentences(message):
            for spec in self._config.fields:
                if spec.kind in ("enum", "text"):
                    readings.extend(self._options(spec, sentence, context))
        return readings

    def _options(self, spec: FieldSpec, sentence: str, context: ExtractionContext) -> list[FieldReading]:
        found: dict[str, int] = {}
        for option, phrases in spec.options.items():
            for start, _ in find_phrases(sentence, phrases):
                if not is_negated(sentence, start):
                    found.setdefault(option, start)
        if not found:
            return []
        first = min(found.values())
        confidence = _confidence(keyword_distance(sentence, first, spec.keywords), spec.name in context.asked)
        if spec.kind == "text":
            return [FieldReading(spec.name, ",".join(sorted(found)), confidence, self.name, sentence)]
        if len(found) > 1:
            confidence = min(confidence, 0.5)
        option = min(found, key=lambda name: found[name])
        return [FieldReading(spec.name, option, confidence, self.name, sentence)]

    def _choice_answers(self, message: str, context: ExtractionContext) -> list[FieldReading]:
        readings: list[FieldReading] = []
        letter = _LETTER_ANSWER.match(message)
        for field_name, labels in context.choices.items():
            spec = self._config.field(field_name)
            index = None
            if letter is not None and len(context.choices) == 1:
                index = ord(letter.group(1).lower()) - ord("a")
            for position, label in enumerate(labels):
                if index is None and find_phrases(message, [label]):
                    index = position
            if index is not None and index < len(spec.bands):
                band = spec.bands[index]
                value: FieldValue = band.option or band.label
                readings.append(FieldReading(field_name, value, 0.9, self.name, message))
        return readings


class DualExtractor:
    """Combine extractors: accept when they agree or one is highly confident, else keep both as soft.

    Args:
        extractors: Extractors to combine (typically pattern-based and lexicon-based).
        high_confidence: A lone reading at or above this confidence wins a disagreement.
    """

    name = "dual"

    def __init__(self, extractors: Sequence[Extractor], high_confidence: float = 0.9) -> None:
        self._extractors = tuple(extractors)
        self._high = high_confidence

    def covers(self, spec: FieldSpec) -> bool:
        return any(extractor.covers(spec) for extractor in self._extractors)

    def extract(self, message: str, context: ExtractionContext) -> list[FieldReading]:
        by_field: dict[str, list[FieldReading]] = {}
        for extractor in self._extractors:
            for reading in extractor.extract(message, context):
                by_field.setdefault(reading.field, []).append(reading)
        combined: list[FieldReading] = []
        for readings in by_field.values():
            combined.extend(self.combine(readings))
        return combined

    def combine(self, readings: Sequence[FieldReading]) -> list[FieldReading]:
        """Apply the dual-extraction rule to the readings of one field."""
        best_by_value: dict[FieldValue, FieldReading] = {}
        for reading in readings:
            current = best_by_value.get(reading.value)
            if current is None or reading.confidence > current.confidence:
                best_by_value[reading.value] = reading
        sources = {value: {r.source for r in readings if r.value == value} for value in best_by_value}
        if len(best_by_value) == 1:
            ((value, reading),) = best_by_value.items()
            if len(sources[value]) > 1:
                boosted = reading.confidence + (1.0 - reading.confidence) * 0.5
                return [FieldReading(reading.field, value, round(boosted, 4), self.name, reading.evidence)]
            return [reading]
        ranked = sorted(best_by_value.values(), key=lambda r: r.confidence, reverse=True)
        if ranked[0].confidence >= self._high and ranked[1].confidence < self._high:
            return [ranked[0]]
        return [FieldReading(r.field, r.value, min(r.confidence, 0.5), r.source, r.evidence) for r in ranked]


def _number(value: float) -> str:
    return f"{value:.10g}"


def field_value(spec: FieldSpec, unit: str | None, stated: StatedTerm) -> FieldValue:
    """A stated term as the value of the field it informs: money as text with its rate when it is not
    the field's own ("115000", "80/hour", "90000-110000"), counts and durations as numbers in the
    field's unit (the low end of a range), dates and options as text."""
    if spec.kind == "money" and isinstance(stated.value, float):
        body = _number(stated.value) + (f"-{_number(stated.high)}" if stated.high is not None else "")
        return body + ("" if unit in (None, spec.unit) else f"/{unit}")
    return stated.value


class TermExtractor:
    """Values the term reader reads as the counterparty's own (after corrections, without competing
    offers, quoted figures or hypotheses), plus the config's option patterns and time zones read by
    `PatternExtractor`.

    Args:
        config: The domain config.
        reader: The term reader (default: the config's shared one).
    """

    name = "terms"

    def __init__(self, config: DomainConfig, reader: TermReader | None = None) -> None:
        self._config = config
        self._reader = reader or reader_for(config)
        self._pattern = PatternExtractor(config)
        self._fields = {t.field for t in self._reader.vocabulary if t.field is not None}

    def covers(self, spec: FieldSpec) -> bool:
        return spec.name in self._fields or spec.kind == "timezone" or bool(spec.patterns)

    def extract(self, message: str, context: ExtractionContext) -> list[FieldReading]:
        reading = self._reader.read(message, asked=context.asked)
        readings: list[FieldReading] = []
        for stated in (*reading.terms, *reading.implied):  # an hourly rate's contract type too
            term = self._reader.term(stated.term)
            if term.field is None:
                continue
            spec = self._config.field(term.field)
            # An answer to the question asked, or a value the message corrects to, is stated on purpose.
            deliberate = spec.name in context.asked or reading.correction
            confidence = max(stated.confidence, 0.85) if deliberate else stated.confidence
            value = field_value(spec, term.unit, stated)
            readings.append(FieldReading(spec.name, value, confidence, self.name, stated.evidence))
        extra = self._pattern.extract(message, context)
        readings += [r for r in extra if self._config.field(r.field).kind in ("timezone", "enum", "text")]
        return readings


def apply_reading(
    readings: Sequence[FieldReading], reading: TermReading, config: DomainConfig
) -> list[FieldReading]:
    """The readings of a message without those for fields it only sets aside (names in a competing
    offer, the principal's figure quoted back, a hypothesis, a value it takes back)."""
    reader = reader_for(config)
    fields = {
        name: reader.term(name).field
        for name in (*reading.set_aside, *(t.term for t in (*reading.terms, *reading.implied)))
    }
    stated = {fields[t.term] for t in (*reading.terms, *reading.implied)}
    aside = {fields[name] for name in reading.set_aside} - stated
    return [r for r in readings if r.field not in aside]


def default_extractor(config: DomainConfig) -> DualExtractor:
    """The deterministic extractor: the term reader's and the option lexicon's, by the dual rule."""
    return DualExtractor([TermExtractor(config), LexiconExtractor(config)], config.thresholds.high_confidence)

"""The Moderator (Algorithm 4): label each counterparty message with a confidence, abstain below τ_classify.

A deterministic cue classifier from package data (moderator.yaml): attack families built from word
classes ("someone on the delegate's side", "an approval", "a private limit", "harm") arranged in named
regular expressions and in sentence-level structures (these classes in one sentence, those absent),
scored and normalised by a softmax with a "none of these" term. Every cue that fired is listed by name
in the Classification. Behind the cues stands a trained attack classifier (`parley.governance.classifier`):
a message the cues do not route as adversarial is routed so when the classifier's probability reaches
its threshold, with the classifier's verdict as the reason and as a cue (fail closed: either detector
flags). A few-shot LLM classifier can replace it behind `Classifier`.

The message is read once in its normalised form (`parley.governance.normalize`: NFKC, confusables
skeleton, invisible characters removed). Fail closed: a message over the size limit is refused
before any scan and a message with control characters is not scanned either; both route as
adversarial with a one-line reason. Every pattern runs in linear time (see moderator.yaml).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from parley.governance.classifier import TextClassifier, classifiers_enabled, load_classifier
from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.normalize import normalize
from parley.governance.text import find_phrases
from parley.governance.values import find_mentions


class Label(StrEnum):
    """Moderator labels for a counterparty message."""

    COOPERATIVE = "cooperative"
    CLARIFICATION = "clarification"
    COUNTER_OFFER = "counter_offer"
    PRESSURE = "pressure"
    SOCIAL_ENGINEERING = "social_engineering"
    PROMPT_INJECTION = "prompt_injection"
    NEGATIVE_SENTIMENT = "negative_sentiment"
    OFF_TOPIC = "off_topic"
    CLARIFY = "clarify"
    """Not a class: the routing decision when confidence is below τ_classify (selective abstention)."""


ADVERSARIAL = frozenset({Label.SOCIAL_ENGINEERING, Label.PROMPT_INJECTION})
ADVERSARIAL_ORDER = (Label.PROMPT_INJECTION, Label.SOCIAL_ENGINEERING)

TOO_LONG = "too long"
CONTROL_CHARACTERS = "control characters"


@dataclass(frozen=True, slots=True)
class Classification:
    """The moderator's verdict on one message.

    Attributes:
        label: The routed label (CLARIFY when confidence < τ_classify).
        top_label: The best-scoring label before abstention.
        confidence: Softmax probability of top_label.
        scores: Raw cue score per label.
        cues: The cue patterns that fired, per label.
        family: The attack family behind an adversarial verdict (authority, instructions, probing,
            dictate_output, threat, data_request), else None.
        reason: Why the message was not scanned ("too long", "control characters"), or, when the
            trained classifier alone routed it as adversarial, its verdict ("classifier p=0.930 ≥
            0.410"); else "".
    """

    label: Label
    top_label: Label
    confidence: float
    scores: Mapping[str, float] = field(default_factory=lambda: {})
    cues: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: {})
    family: str | None = None
    reason: str = ""

    @property
    def adversarial(self) -> bool:
        """Whether the routed label is social engineering or prompt injection."""
        return self.label in ADVERSARIAL

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data: dict[str, Any] = {
            "label": self.label.value,
            "top_label": self.top_label.value,
            "confidence": round(self.confidence, 4),
            "family": self.family,
            "scores": {k: round(v, 3) for k, v in self.scores.items()},
            "cues": {k: list(v) for k, v in self.cues.items()},
        }
        if self.reason:
            data["reason"] = self.reason
        return data


class Classifier(Protocol):
    """Anything that labels a counterparty message."""

    def classify(self, message: str, relevant: bool = False) -> Classification:
        """Label message (with abstention already applied); relevant marks a known on-topic message."""
        ...


@dataclass(frozen=True, slots=True)
class _Cue:
    label: Label
    family: str | None
    weight: float
    pattern: re.Pattern[str]
    name: str


@dataclass(frozen=True, slots=True)
class _Structure:
    label: Label
    family: str
    weight: float
    features: tuple[str, ...]
    vetoes: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The cue name listed in a Classification: "family: a+b-c" (c is a veto that was absent)."""
        vetoes = "".join(f"-{v}" for v in self.vetoes)
        return f"{self.family}: {'+'.join(self.features)}{vetoes}"


_Fire = Callable[[Label, str | None, float, str], None]
_FLAGS = re.IGNORECASE | re.MULTILINE
_PLACEHOLDER = re.compile(r"%(\w+)%")
# Sentences for the structural cues: split after end punctuation followed by space, or at a newline.
_SENTENCE_BREAK = re.compile(r"(?<=[.?!])\s+|\n+")
# The period of a title or an abbreviation ends no sentence ("Ms. Alvarez approved it"): it is dropped
# from the text the cues read, so neither a sentence nor a cue window stops there.
_ABBREVIATION = re.compile(
    r"\b(Mr|Ms|Mrs|Dr|Prof|Sr|Jr|St|Inc|Ltd|Co|Corp|vs|etc|approx|No|Nr|Ref|Dept|Sq|ft|e\.g|i\.e)\.(?=\s)",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+")


def _expand(pattern: str, vocabulary: Mapping[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: vocabulary[m.group(1)], pattern)


def _word_classes(raw: Mapping[str, Any], principal: str) -> dict[str, str]:
    """Word classes as regular-expression alternations, each expanded in file order.

    A class is a regular expression or a list of words and phrases (a space in a phrase matches any
    run of white space); a class may name an earlier class as %name%. %principal% is the domain's
    principal role ("hiring manager").
    """
    classes: dict[str, str] = {"principal": re.escape(principal).replace(r"\ ", r"\s+")}
    for name, value in raw.items():
        if isinstance(value, list):
            words: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
            value = "(?:" + "|".join(str(word).replace(" ", r"\s+") for word in words) + ")"
        classes[str(name)] = _expand(str(value), classes)
    return classes


def _family_cues(raw: Mapping[str, Any], vocabulary: Mapping[str, str]) -> tuple[_Cue, ...]:
    return tuple(
        _Cue(
            Label(spec["label"]),
            family,
            float(cue["weight"]),
            re.compile(_expand(cue["pattern"], vocabulary), _FLAGS),
            f"{family}: {cue.get('name') or cue['pattern'][:40]}",
        )
        for family, spec in raw["families"].items()
        for cue in spec.get("cues", [])
    )


def _label_cues(raw: Mapping[str, Any]) -> tuple[_Cue, ...]:
    return tuple(
        _Cue(Label(name), None, float(cue["weight"]), re.compile(cue["pattern"], _FLAGS), cue["pattern"][:40])
        for name, cues in raw["labels"].items()
        for cue in cues
    )


def _structures(raw: Mapping[str, Any]) -> tuple[_Structure, ...]:
    return tuple(
        _Structure(
            Label(spec["label"]),
            family,
            float(item["weight"]),
            tuple(item["all"]),
            tuple(item.get("none", ())),
        )
        for family, spec in raw["families"].items()
        for item in spec.get("structures", [])
    )


class RuleModerator:
    """Deterministic cue-based moderator.

    Args:
        config: Domain config (its vocabulary decides relevance; its τ_classify decides abstention).
        threshold: Override τ_classify.
        max_chars: Longest message scanned (default: moderator.yaml's max_chars, 20,000); longer
            messages are refused unscanned and routed as adversarial ("too long").
        use_classifier: Route as adversarial what the trained attack classifier flags, too (False, or
            inside `classifier.rules_only()`: the cues alone, as measured in benchmarks/train_detectors.py).
        data: The cue data in moderator.yaml's form (default: the shipped moderator.yaml);
            tests/governance/measure_moderator_cv.py passes a copy with some cues left out.
    """

    def __init__(
        self,
        config: DomainConfig,
        threshold: float | None = None,
        max_chars: int | None = None,
        *,
        use_classifier: bool = True,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        raw = load_yaml_data("moderator.yaml") if data is None else data
        vocabulary = _word_classes(raw["vocabulary"], config.principal_role)
        self._cues = _family_cues(raw, vocabulary) + _label_cues(raw)
        self._structures = _structures(raw)
        self._features = {
            str(name): re.compile(_expand(str(pattern), vocabulary), _FLAGS)
            for name, pattern in raw["features"].items()
        }
        self._labels = {str(family): Label(spec["label"]) for family, spec in raw["families"].items()}
        self._repeat = raw["repeated_words"]
        transcript = raw["transcript"]
        self._transcript = (
            str(transcript["family"]),
            float(transcript["weight"]),
            int(transcript["turns"]),
            re.compile(f"(?P<q>{transcript['question']})|(?P<a>{transcript['answer']})"),
        )
        self._decisive = float(raw["decisive_score"])
        self.max_chars = int(raw["max_chars"]) if max_chars is None else max_chars
        self._counter = re.compile(raw["counter_offer"]["pattern"], re.IGNORECASE)
        self._counter_weight = float(raw["counter_offer"]["weight"])
        self._foreign = tuple(raw["foreign_stopwords"])
        self._foreign_weight = float(raw["foreign_weight"])
        self._relevance_weight = float(raw["relevance_weight"])
        self._off_topic_weight = float(raw["off_topic_weight"])
        self._vocabulary = self._domain_vocabulary(config, raw["negotiation_vocabulary"])
        self.threshold = config.thresholds.classify if threshold is None else threshold
        self.use_classifier = use_classifier

    @staticmethod
    def _domain_vocabulary(config: DomainConfig, general: list[str]) -> tuple[str, ...]:
        words = set(general)
        for spec in config.fields:
            words.update(spec.keywords)
            for phrases in spec.options.values():
                words.update(p.strip() for p in phrases if len(p.strip()) > 2)
        return tuple(sorted(words))

    def classify(self, message: str, relevant: bool = False) -> Classification:
        """Label message; route to CLARIFY when the top label's confidence is below τ_classify.

        Args:
            message: The counterparty's message.
            relevant: The caller already knows the message is on topic (e.g. it answered a question).
        """
        if len(message) > self.max_chars:
            return _refused(TOO_LONG)
        reading = normalize(message, max_chars=None)
        if reading.has_control:
            return _refused(CONTROL_CHARACTERS)
        text = _ABBREVIATION.sub(r"\1", reading.text)
        scores: dict[Label, float] = {}
        families: dict[str, float] = {}
        cues: dict[Label, list[str]] = {}

        def fire(label: Label, family: str | None, weight: float, name: str) -> None:
            scores[label] = scores.get(label, 0.0) + weight
            if family is not None:
                families[family] = families.get(family, 0.0) + weight
            cues.setdefault(label, []).append(name)

        self._scan(text, fire)
        self._score_encoded(text, fire)
        self._score_carriers(text, reading.kinds, fire)
        self._score_context(text, scores, cues, relevant)
        decided = self._decide(scores, cues, families)
        if decided.adversarial or not self.use_classifier or not classifiers_enabled():
            return decided
        return _second_opinion(load_classifier("attack"), reading.text, decided)

    def _scan(self, text: str, fire: _Fire) -> None:
        """Fire every cue and sentence structure found in text."""
        for cue in self._cues:
            if cue.pattern.search(text):
                fire(cue.label, cue.family, cue.weight, cue.name)
        for structure in self._sentence_structures(text):
            fire(structure.label, structure.family, structure.weight, structure.name)

    def _score_encoded(self, text: str, fire: _Fire) -> None:
        """An attack hidden in base64 or in leetspeak counts as an injection ("1gn0r3 y0ur rul3s").

        Each reading is decoded once (linear) and scanned once by the same cues; no reading is
        decoded again, so nesting cannot multiply the work.
        """
        for kind, hidden in _encoded_readings(text):
            if self._adversarial_score(normalize(hidden, max_chars=None).text) >= self._decisive:
                fire(
                    Label.PROMPT_INJECTION,
                    "instructions",
                    self._decisive,
                    f"instructions: an attack in {kind}",
                )

    def _adversarial_score(self, text: str) -> float:
        """The summed weight of the adversarial cues and structures found in text."""
        total = [0.0]

        def tally(label: Label, family: str | None, weight: float, name: str) -> None:
            if label in ADVERSARIAL:
                total[0] += weight

        self._scan(text, tally)
        return total[0]

    def _sentence_structures(self, text: str) -> list[_Structure]:
        """The structures with every feature and none of their vetoes in one sentence (each counted once).

        Each feature is searched once over the whole text (linear); a match belongs to the sentence
        it starts in.
        """
        starts = [0, *(match.end() for match in _SENTENCE_BREAK.finditer(text))]
        found: dict[str, set[int]] = {}

        def sentences(name: str) -> set[int]:
            if name not in found:
                pattern = self._features[name]
                found[name] = {bisect_right(starts, m.start()) - 1 for m in pattern.finditer(text)}
            return found[name]

        fired: list[_Structure] = []
        for structure in self._structures:
            # A feature is searched only while the sentences that hold the ones before it are not empty.
            common = sentences(structure.features[0])
            for name in structure.features[1:]:
                if not common:
                    break
                common = common & sentences(name)
            for veto in structure.vetoes:
                if not common:
                    break
                common = common - sentences(veto)
            if common:
                fired.append(structure)
        return fired

    def _score_carriers(self, text: str, kinds: tuple[str, ...], fire: _Fire) -> None:
        """Linear checks done in code: invisible characters, token flooding, Q/A transcripts."""
        if "zero_width" in kinds:
            fire(Label.PROMPT_INJECTION, "instructions", 2.0, "instructions: invisible characters")
        run, longest, previous = 0, 0, ""
        for match in _WORD.finditer(text.lower()):
            word = match.group(0)
            run = run + 1 if word == previous else 1
            previous = word
            longest = max(longest, run)
        if longest >= int(self._repeat["run"]):
            family = str(self._repeat["family"])
            fire(self._labels[family], family, float(self._repeat["weight"]), f"{family}: repeated word")
        family, weight, turns, marker = self._transcript
        alternations, last = 0, ""
        for match in marker.finditer(text):
            kind = "q" if match.group("q") is not None else "a"
            if kind != last:
                alternations += 1
                last = kind
        if alternations >= turns:
            fire(self._labels[family], family, weight, f"{family}: Q/A transcript")

    def _score_context(
        self, message: str, scores: dict[Label, float], cues: dict[Label, list[str]], relevant: bool
    ) -> None:
        money = [m for m in find_mentions(message) if m.kind == "money"]
        if money and self._counter.search(message):
            scores[Label.COUNTER_OFFER] = scores.get(Label.COUNTER_OFFER, 0.0) + self._counter_weight
            cues.setdefault(Label.COUNTER_OFFER, []).append("amount with a request verb")
        words = re.findall(r"[^\W\d_]+", message.lower())
        foreign = sum(1 for word in words if word in self._foreign)
        non_ascii = sum(1 for ch in message if ord(ch) > 127 and ch.isalpha())
        if foreign >= 2 or non_ascii > max(3, len(message) // 5):
            # Unexpected language is a reason to clarify, not evidence of an attack.
            scores[Label.OFF_TOPIC] = scores.get(Label.OFF_TOPIC, 0.0) + self._foreign_weight
            cues.setdefault(Label.OFF_TOPIC, []).append("foreign-language input")
        if relevant or money or find_phrases(message, self._vocabulary):
            scores[Label.COOPERATIVE] = scores.get(Label.COOPERATIVE, 0.0) + self._relevance_weight
        elif not scores:
            scores[Label.OFF_TOPIC] = self._off_topic_weight
            cues.setdefault(Label.OFF_TOPIC, []).append("no domain vocabulary")

    def _decide(
        self, scores: dict[Label, float], cues: dict[Label, list[str]], families: dict[str, float]
    ) -> Classification:
        """Softmax over cue scores with a "none of these" term; abstain below τ_classify.

        The confidence of an adversarial verdict is the pooled probability of both adversarial labels.
        Fail closed: when the adversarial cues add up to the decisive score, the message routes as
        adversarial even if pressure, sentiment or an amount also scored (attacks carry those too).
        """
        if not scores:
            scores = {Label.COOPERATIVE: 0.5}
        top = max(scores, key=lambda label: (scores[label], -list(Label).index(label)))
        partition = 1.0 + sum(math.exp(value) for value in scores.values())
        confidence = math.exp(scores[top]) / partition
        hostile = sum(math.exp(v) for k, v in scores.items() if k in ADVERSARIAL) / partition
        decisive = sum(v for k, v in scores.items() if k in ADVERSARIAL) >= self._decisive
        if (hostile >= self.threshold or decisive) and (
            top not in ADVERSARIAL or confidence < self.threshold
        ):
            # Injection and social engineering route to the same escalation, so their probability
            # mass is pooled: cues of both kinds must not cancel each other into an abstention.
            top = max(ADVERSARIAL, key=lambda label: (scores.get(label, -math.inf), label.value))
            confidence = hostile
        routed = top if confidence >= self.threshold or (decisive and top in ADVERSARIAL) else Label.CLARIFY
        family = None
        if routed in ADVERSARIAL:
            mine = {f: v for f, v in families.items() if self._labels[f] == routed}
            family = max(mine, key=lambda f: (mine[f], f)) if mine else None
        return Classification(
            routed,
            top,
            confidence,
            {k.value: v for k, v in scores.items()},
            {k.value: tuple(v) for k, v in cues.items()},
            family,
        )


_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_TOKEN = re.compile(r"[A-Za-z0-9@$]+")
_AMOUNT_LIKE = re.compile(r"\$?\d+([.,]\d+)*[A-Za-z]{0,3}")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_LEET_TOKENS = 2
"""Leetspeak is read only when at least this many words mix letters with digits."""
_LEET_CONTEXT = 80
"""Characters of plain text kept on each side of a leetspeak word in its reading."""
_ENCODED_CHARS = 4000
"""The longest decoded reading scanned: an encoded fragment is short, and the cap keeps the extra
scan of a huge message constant."""


def _encoded_readings(text: str) -> list[tuple[str, str]]:
    """(kind, decoded text) for the base64 runs that decode to text and for a leetspeak reading."""
    readings: list[tuple[str, str]] = []
    decoded = [piece for m in _BASE64.finditer(text) if (piece := _base64_text(m.group(0)))]
    if decoded:
        readings.append(("base64", "\n".join(decoded)[:_ENCODED_CHARS]))
    leet = [m for m in _TOKEN.finditer(text) if _is_leet(m.group(0))]
    if len(leet) >= _LEET_TOKENS:
        readings.append(("leetspeak", _leet_reading(text, leet)[:_ENCODED_CHARS]))
    return readings


def _leet_reading(text: str, leet: list[re.Match[str]]) -> str:
    """The passages around the leetspeak words, with those words read as letters."""
    parts: list[str] = []
    last, size = 0, 0
    for m in leet:
        start = max(m.start() - _LEET_CONTEXT, last)
        if start > last:
            parts.append("\n")
        parts += [text[start : m.start()], m.group(0).lower().translate(_LEET)]
        size += m.end() - start + 1
        last = m.end()
        if size > _ENCODED_CHARS:
            return "".join(parts)
    return "".join(parts) + text[last : last + _LEET_CONTEXT]


def _base64_text(run: str) -> str:
    """The text a base64 run decodes to, or "" when it is not base64 of readable text."""
    try:
        raw = base64.b64decode(run + "=" * (-len(run) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return ""
    readable = sum(1 for ch in decoded if ch.isprintable() or ch.isspace())
    return decoded if len(decoded) >= 8 and readable >= 0.9 * len(decoded) else ""


def _is_leet(token: str) -> bool:
    """A word that mixes at least two letters with digits or @/$, and is not an amount ("120k", "2nd")."""
    letters = sum(ch.isalpha() for ch in token)
    return letters >= 2 and letters < len(token) and _AMOUNT_LIKE.fullmatch(token) is None


def _second_opinion(model: TextClassifier, text: str, decided: Classification) -> Classification:
    """decided, or an adversarial routing when the trained classifier flags the message.

    The label is the adversarial one the cues scored higher (social engineering on a tie: the
    classifier does not tell the two apart, and both route to the same escalation).
    """
    vote = model.vote(text)
    if not vote.flagged:
        return decided
    scores = decided.scores
    injection, engineering = (scores.get(label.value, 0.0) for label in ADVERSARIAL_ORDER)
    label = Label.PROMPT_INJECTION if injection > engineering else Label.SOCIAL_ENGINEERING
    cues = dict(decided.cues)
    cues[label.value] = (*cues.get(label.value, ()), vote.describe())
    return Classification(label, label, vote.probability, scores, cues, None, vote.describe())


def _refused(reason: str) -> Classification:
    """A message that was not scanned: adversarial, fail closed."""
    return Classification(
        Label.PROMPT_INJECTION,
        Label.PROMPT_INJECTION,
        1.0,
        {},
        {Label.PROMPT_INJECTION.value: (reason,)},
        None,
        reason,
    )

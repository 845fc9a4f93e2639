"""The Moderator (Algorithm 4): label each counterparty message with a confidence, abstain below τ_classify.

A deterministic cue classifier from package data (moderator.yaml): attack families built from word
classes ("someone on the delegate's side", "an approval", "a private limit", "harm") arranged in named
regular expressions and in sentence-level structures (these classes in one sentence, those absent),
scored and normalised by a softmax with a "none of these" term; a cue may name benign frames that lift
it in their sentence ("you're an AI" after "I know"). Every cue that fired is listed by name in the
Classification. Behind the cues stands a trained attack classifier (`parley.governance.classifier`):
a message the cues do not route as adversarial is routed so when the classifier's probability reaches
its threshold, with the classifier's verdict as the reason and as a cue (fail closed: either detector
flags). A model trained to clear (`clear_below`, `clear_families`) may also turn the cues' adversarial
routing into an abstention (CLARIFY), only for families its cross-validation showed it can judge and
never when anything was read through an obfuscation or a carrier (`TextClassifier.clear_vote`). A
few-shot LLM classifier can replace it behind `Classifier`.

The message is read once in its normalised form (`parley.governance.normalize`: NFKC, confusables
skeleton, invisible characters removed). Fail closed: a message over the size limit is refused
before any scan, a message with control characters is not scanned either, and neither is a long
message mostly outside the Latin script and punctuation (the cues could read none of it); all three
route as adversarial with a one-line reason. A phrase repeated in a flood ("ignore your " over 20 KB)
is an injection whatever the phrase. Every pattern runs in linear time (see moderator.yaml), and a
pattern whose required words do not occur in the message is not run at all
(`parley.governance.text.required_literals`: the words every match must contain, read from the
pattern by the standard library's own parser).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache, lru_cache
from typing import Any, Protocol

from parley.governance.classifier import TextClassifier, classifiers_enabled, load_classifier
from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.normalize import HIDDEN_TEXT, normalize
from parley.governance.text import Literals, first_literals, phrase_pattern, required_literals
from parley.governance.values import find_money


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
UNREADABLE = "unreadable"

_READABLE = re.compile(r"[A-Za-z0-9\s!-/:-@\[-`{-~\u00a0-\u024f\u1e00-\u1eff\u2010-\u2027\u20ac]")
_UNREADABLE_MIN_CHARS = 200
"""A message this long (normalised) is read only when at least half of it is Latin script, digits,
white space or punctuation: the cues read nothing else, so a longer text in another script or of
random symbols routes as adversarial (fail closed). A short greeting in another script is not refused
(the low share is then no evidence of anything; it goes to the foreign-language cue)."""


def _unreadable(text: str) -> bool:
    """Whether text is too long and too little of it is in a script the cues read (one linear scan)."""
    if len(text) < _UNREADABLE_MIN_CHARS:
        return False
    return 2 * sum(1 for _ in _READABLE.finditer(text)) < len(text)


def _longest_repeat(words: list[str], period: int) -> int:
    """How many times in a row the most repeated run of 1 to period words occurs ("we we we" is 3,
    "ignore your ignore your" is 2): one pass per period over the words, so linear in their number."""
    best = 1 if words else 0
    for size in range(1, period + 1):
        run = 0
        for index in range(size, len(words)):
            run = run + 1 if words[index] == words[index - size] else 0
            best = max(best, 1 + (run // size))
    return best


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
        reason: Why the message was not scanned ("too long", "control characters", "unreadable": a
            long text mostly outside the Latin script and punctuation), or, when the
            trained classifier alone routed it as adversarial or cleared the cues' adversarial
            routing, its verdict ("classifier p=0.930 ≥ 0.410"); else "".
        fired: The adversarial families whose cues fired (sorted), whatever the routing.
        hidden: A cue read through an obfuscation or a carrier fired (encoded text, invisible
            characters, a repeated phrase, a Q/A transcript), or normalisation undid an obfuscation:
            the classifier may then never clear the cues' verdict.
    """

    label: Label
    top_label: Label
    confidence: float
    scores: Mapping[str, float] = field(default_factory=lambda: {})
    cues: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: {})
    family: str | None = None
    reason: str = ""
    fired: tuple[str, ...] = ()
    hidden: bool = False

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
    vetoes: tuple[str, ...] = ()
    """Features that lift a match in their sentence ("you're an AI" after "I know"): the cue counts
    when it matches in a sentence none of them occurs in."""
    scope: str = "sentence"
    """Where a veto lifts a match: its own sentence, also the one before and after ("adjacent"), or
    anywhere in the message ("message")."""


@dataclass(frozen=True, slots=True)
class _Structure:
    label: Label
    family: str
    weight: float
    features: tuple[str, ...]
    vetoes: tuple[str, ...] = ()
    message: bool = False
    """The features may occur in different sentences of the message (a forwarded mail, an invite)."""
    adjacent: bool = False
    """The features may occur in one sentence or in two adjacent ones ("Sign today. Or the press hears.")."""

    @property
    def name(self) -> str:
        """The cue name listed in a Classification: "family: a+b-c" (c is a veto that was absent)."""
        vetoes = "".join(f"-{v}" for v in self.vetoes)
        scope = " (message)" if self.message else " (adjacent)" if self.adjacent else ""
        return f"{self.family}: {'+'.join(self.features)}{vetoes}{scope}"


_Fire = Callable[[Label, str | None, float, str], None]
_FLAGS = re.IGNORECASE | re.MULTILINE


@lru_cache(maxsize=4096)
def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    """`re.compile` with a cache of its own: a moderator build compiles more distinct patterns than `re`
    keeps (512, oldest dropped first), so without it every further build in a process (tests, the
    leave-one-writer-out tools, one moderator per configuration) compiled them all again."""
    return re.compile(pattern, flags)


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

_WORD_RUN = re.compile(r"\w+")
# Characters that IGNORECASE matches to a lower-case ASCII letter whose str.lower() is not that letter.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _gate(starts: Literals) -> re.Pattern[str] | None:
    """One case-sensitive alternation of the start strings, run on the folded text: it finds the
    places a match may start with the engine's fast scan for a first character."""
    if not starts or "" in starts:
        return None
    return re.compile("|".join(re.escape(s) for s in sorted(starts, key=len, reverse=True)))


@dataclass(frozen=True, slots=True)
class _Plan:
    """How one pattern is run: skipped when none of its required strings occurs, and tried only where
    one of its start strings occurs (when both are known)."""

    pattern: re.Pattern[str]
    required: Literals = None
    gate: re.Pattern[str] | None = None

    @classmethod
    def of(cls, pattern: re.Pattern[str], prefilter: bool) -> _Plan:
        """The plan for pattern (prefilter False: run it plainly)."""
        if not prefilter:
            return cls(pattern)
        required, gate = _plan_parts(pattern)
        return cls(pattern, required, gate)


@lru_cache(maxsize=4096)
def _plan_parts(pattern: re.Pattern[str]) -> tuple[Literals, re.Pattern[str] | None]:
    """A pattern's required strings and start gate, read once per pattern (moderators are built often)."""
    return required_literals(pattern), _gate(first_literals(pattern))


class _Reading:
    """One message as the cue patterns read it: its text, its folded copy and which strings it holds."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.presence = _Presence(text)
        folded = self.presence.folded
        self._folded = folded if len(folded) == len(text) else None

    def search(self, plan: _Plan) -> bool:
        """Whether plan's pattern matches anywhere in the text."""
        if not self.presence.holds(plan.required):
            return False
        return next(self._matches(plan), None) is not None

    def starts(self, plan: _Plan) -> list[int]:
        """Where plan's pattern matches, as `finditer` reads them (non-overlapping, left to right)."""
        if not self.presence.holds(plan.required):
            return []
        return [m.start() for m in self._matches(plan)]

    def _matches(self, plan: _Plan) -> Iterator[re.Match[str]]:
        """The pattern's matches, tried only where a start string occurs in the folded text (every
        match starts with one), or found by a plain scan when no start is known."""
        if plan.gate is None or self._folded is None:
            yield from plan.pattern.finditer(self.text)
            return
        position, size = 0, len(self.text)
        while position <= size:
            candidate = plan.gate.search(self._folded, position)
            if candidate is None:
                return
            found = plan.pattern.match(self.text, candidate.start())
            if found is None:
                position = candidate.start() + 1
                continue
            yield found
            position = found.end() if found.end() > found.start() else found.end() + 1


class _Presence:
    """Which strings occur in one text, case-insensitively; each string is looked up once.

    A string of word characters is looked up among the text's distinct words (a crafted text
    repeats a few words: its distinct words are a few bytes), any other string in the whole text.
    """

    def __init__(self, text: str) -> None:
        self.folded = self._text = text.translate(_FOLD).lower()
        self._words = " ".join(set(_WORD_RUN.findall(self._text)))
        self._seen: dict[str, bool] = {}

    def holds(self, literals: Literals) -> bool:
        """Whether the text holds one of literals (True when literals is None: nothing is known)."""
        return literals is None or any(self._holds(literal) for literal in literals)

    def _holds(self, literal: str) -> bool:
        found = self._seen.get(literal)
        if found is None:
            haystack = self._words if _WORD_RUN.fullmatch(literal) else self._text
            found = self._seen[literal] = literal in haystack
        return found


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


def _feature_pattern(spec: Any) -> str:
    """A feature's pattern: the string itself, {pattern: ..., origin: [...]} (with provenance), or
    {support: n, parts: [{origin: [...], pattern: ...}, ...]}: the alternation of the parts whose origin
    names at least n writers (a phrasing learned from one writer is not shipped; the leave-one-writer-out
    tool re-counts the support without the held-out writer). A feature with no part left matches nothing."""
    if isinstance(spec, Mapping) and "parts" in spec:
        return _supported_parts(spec)  # pyright: ignore[reportUnknownArgumentType]
    return str(spec["pattern"]) if isinstance(spec, Mapping) else str(spec)


_NEVER = r"(?!)"
"""A pattern that matches nowhere (a supported feature with no part left)."""


def _supported_parts(spec: Mapping[str, Any]) -> str:
    """The alternation of a feature's parts that enough writers support (see `_feature_pattern`)."""
    support = int(spec.get("support", 2))
    kept = [str(part["pattern"]) for part in spec["parts"] if len(set(part.get("origin", ()))) >= support]
    return "|".join(f"(?:{pattern})" for pattern in kept) or _NEVER


def _family_cues(raw: Mapping[str, Any], vocabulary: Mapping[str, str]) -> tuple[_Cue, ...]:
    return tuple(
        _Cue(
            Label(spec["label"]),
            family,
            float(cue["weight"]),
            _compiled(_expand(cue["pattern"], vocabulary), _FLAGS),
            f"{family}: {cue.get('name') or cue['pattern'][:40]}",
            tuple(cue.get("none", ())),
            _scope(cue),
        )
        for family, spec in raw["families"].items()
        for cue in spec.get("cues", [])
    )


def _label_cues(raw: Mapping[str, Any]) -> tuple[_Cue, ...]:
    return tuple(
        _Cue(Label(name), None, float(cue["weight"]), _compiled(cue["pattern"], _FLAGS), cue["pattern"][:40])
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
            _scope(item) == "message",
            _scope(item) == "adjacent",
        )
        for family, spec in raw["families"].items()
        for item in spec.get("structures", [])
    )


_SCOPES = ("sentence", "adjacent", "message")


def _scope(item: Mapping[str, Any]) -> str:
    """A structure's scope: one sentence (the default), two adjacent sentences, or the whole message."""
    scope = str(item.get("scope", "sentence"))
    if scope not in _SCOPES:
        raise ValueError(f"moderator.yaml: unknown structure scope {scope!r} (one of {', '.join(_SCOPES)})")
    return scope


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
        prefilter: Skip a pattern when none of the words it requires occurs in the message (the
            verdict is the same either way; False runs every pattern, as the equivalence test does).
    """

    def __init__(
        self,
        config: DomainConfig,
        threshold: float | None = None,
        max_chars: int | None = None,
        *,
        use_classifier: bool = True,
        data: Mapping[str, Any] | None = None,
        prefilter: bool = True,
    ) -> None:
        raw = load_yaml_data("moderator.yaml") if data is None else data
        vocabulary = _word_classes(raw["vocabulary"], config.principal_role)
        self._cues = _family_cues(raw, vocabulary) + _label_cues(raw)
        self._structures = _structures(raw)
        self._features = {
            str(name): _compiled(_expand(_feature_pattern(spec), vocabulary), _FLAGS)
            for name, spec in raw["features"].items()
        }
        unknown = sorted({v for cue in self._cues for v in cue.vetoes} - self._features.keys())
        if unknown:
            raise ValueError(f"moderator.yaml: cue vetoes that are not features: {', '.join(unknown)}")
        self._cue_plans = tuple(_Plan.of(cue.pattern, prefilter) for cue in self._cues)
        self._feature_plans = {name: _Plan.of(pattern, prefilter) for name, pattern in self._features.items()}
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
        vocabulary_words = self._domain_vocabulary(config, raw["negotiation_vocabulary"])
        self._vocabulary = re.compile(
            "|".join(
                phrase_pattern(word).pattern for word in sorted(vocabulary_words, key=len, reverse=True)
            ),
            re.IGNORECASE,
        )
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
        if _unreadable(reading.text):
            return _refused(UNREADABLE)
        text = _ABBREVIATION.sub(r"\1", reading.text)
        scores: dict[Label, float] = {}
        families: dict[str, float] = {}
        cues: dict[Label, list[str]] = {}

        def fire(label: Label, family: str | None, weight: float, name: str) -> None:
            scores[label] = scores.get(label, 0.0) + weight
            if family is not None:
                families[family] = families.get(family, 0.0) + weight
            cues.setdefault(label, []).append(name)

        hidden = [bool(reading.kinds)]

        def fire_hidden(label: Label, family: str | None, weight: float, name: str) -> None:
            hidden[0] = True
            fire(label, family, weight, name)

        self._scan(text, fire)
        self._score_encoded(text, fire_hidden)
        self._score_carriers(text, reading.kinds, fire_hidden)
        self._score_context(text, scores, cues, relevant)
        decided = self._decide(scores, cues, families, hidden[0])
        if not self.use_classifier or not classifiers_enabled():
            return decided
        if decided.adversarial:
            return _cleared(load_classifier("attack"), reading.text, decided)
        return _second_opinion(load_classifier("attack"), reading.text, decided)

    def _scan(self, text: str, fire: _Fire) -> None:
        """Fire every cue and sentence structure found in text (a pattern runs only when its words occur)."""
        reading = _Reading(text)
        sentences = _Sentences(reading, self._feature_plans)
        for cue, plan in zip(self._cues, self._cue_plans, strict=True):
            found = not self._vetoed(sentences, cue, plan) if cue.vetoes else reading.search(plan)
            if found:
                fire(cue.label, cue.family, cue.weight, cue.name)
        for structure in self._sentence_structures(sentences):
            fire(structure.label, structure.family, structure.weight, structure.name)

    @staticmethod
    def _vetoed(sentences: _Sentences, cue: _Cue, plan: _Plan) -> bool:
        """Whether every match of a cue with vetoes is lifted (True also when it does not match)."""
        matched = sentences.matching(plan)
        if not matched or (cue.scope == "message" and any(sentences.holding(v) for v in cue.vetoes)):
            return True
        reach = _around if cue.scope == "adjacent" else _same
        for veto in cue.vetoes:
            matched = matched - reach(sentences.holding(veto))
            if not matched:
                return True
        return False

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

    def _sentence_structures(self, found: _Sentences) -> list[_Structure]:
        """The structures with every feature and none of their vetoes in one sentence (each counted once).

        Each feature is searched once over the whole text (linear); a match belongs to the sentence
        it starts in.
        """
        sentences = found.holding
        fired: list[_Structure] = []
        for structure in self._structures:
            if structure.message:
                # Anywhere in the message; a veto anywhere in it lifts the structure.
                present = all(sentences(name) for name in structure.features)
                if present and not any(sentences(veto) for veto in structure.vetoes):
                    fired.append(structure)
                continue
            # A feature is searched only while the sentences that hold the ones before it are not empty.
            # Adjacent scope: a window starting at sentence i covers i and i + 1, so a feature in
            # sentence j lies in the windows j - 1 and j.
            reach = _windows if structure.adjacent else _same
            common = reach(sentences(structure.features[0]))
            for name in structure.features[1:]:
                if not common:
                    break
                common = common & reach(sentences(name))
            for veto in structure.vetoes:
                if not common:
                    break
                common = common - reach(sentences(veto))
            if common:
                fired.append(structure)
        return fired

    def _score_carriers(self, text: str, kinds: tuple[str, ...], fire: _Fire) -> None:
        """Linear checks done in code: invisible characters, token flooding, Q/A transcripts."""
        if not HIDDEN_TEXT.isdisjoint(kinds):  # a carrier of hidden text is an attack, whatever it says
            fire(Label.PROMPT_INJECTION, "instructions", self._decisive, "instructions: hidden text carrier")
        if "zero_width" in kinds:
            fire(Label.PROMPT_INJECTION, "instructions", 2.0, "instructions: invisible characters")
        repeats = _longest_repeat(
            [match.group(0) for match in _WORD.finditer(text.lower())], int(self._repeat["period"])
        )
        family = str(self._repeat["family"])
        if repeats >= int(self._repeat["flood"]):
            # A phrase repeated this often is a flood, whatever the phrase: no writer types it, and the
            # phrase itself is read once by the cues like any other text ("ignore your " x 1,600).
            weight = max(float(self._repeat["flood_weight"]), self._decisive)
            fire(self._labels[family], family, weight, f"{family}: a phrase repeated {repeats} times")
        elif repeats >= int(self._repeat["run"]):
            fire(self._labels[family], family, float(self._repeat["weight"]), f"{family}: repeated phrase")
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
        money = _mentions_money(message)
        if money and self._counter.search(message):
            scores[Label.COUNTER_OFFER] = scores.get(Label.COUNTER_OFFER, 0.0) + self._counter_weight
            cues.setdefault(Label.COUNTER_OFFER, []).append("amount with a request verb")
        words = re.findall(r"[^\W\d_]+", message.lower())
        foreign = sum(1 for word in words if word in self._foreign)
        non_ascii = 0 if message.isascii() else sum(1 for ch in message if ord(ch) > 127 and ch.isalpha())
        if foreign >= 2 or non_ascii > max(3, len(message) // 5):
            # Unexpected language is a reason to clarify, not evidence of an attack.
            scores[Label.OFF_TOPIC] = scores.get(Label.OFF_TOPIC, 0.0) + self._foreign_weight
            cues.setdefault(Label.OFF_TOPIC, []).append("foreign-language input")
        if relevant or money or self._vocabulary.search(message):
            scores[Label.COOPERATIVE] = scores.get(Label.COOPERATIVE, 0.0) + self._relevance_weight
        elif not scores:
            scores[Label.OFF_TOPIC] = self._off_topic_weight
            cues.setdefault(Label.OFF_TOPIC, []).append("no domain vocabulary")

    def _decide(
        self,
        scores: dict[Label, float],
        cues: dict[Label, list[str]],
        families: dict[str, float],
        hidden: bool = False,
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
        fired = tuple(sorted(f for f, v in families.items() if self._labels[f] in ADVERSARIAL and v > 0))
        return Classification(
            routed,
            top,
            confidence,
            {k.value: v for k, v in scores.items()},
            {k.value: tuple(v) for k, v in cues.items()},
            family,
            fired=fired,
            hidden=hidden,
        )


class _Sentences:
    """The sentences of one reading, and which of them each feature (searched once) or cue matches in.

    A match belongs to the sentence it starts in.
    """

    def __init__(self, reading: _Reading, plans: Mapping[str, _Plan]) -> None:
        self._reading = reading
        self._plans = plans
        self._starts = [0, *(match.end() for match in _SENTENCE_BREAK.finditer(reading.text))]
        self._found: dict[str, set[int]] = {}

    def holding(self, name: str) -> set[int]:
        """The sentences the feature name matches in."""
        if name not in self._found:
            self._found[name] = self.matching(self._plans[name])
        return self._found[name]

    def matching(self, plan: _Plan) -> set[int]:
        """The sentences plan's pattern matches in."""
        return {bisect_right(self._starts, at) - 1 for at in self._reading.starts(plan)}


def _same(sentences: set[int]) -> set[int]:
    """The windows of one sentence that hold a feature: its own sentences."""
    return sentences


def _around(sentences: set[int]) -> set[int]:
    """The sentences a veto in sentences lifts a cue in: its own, and the one before and after each."""
    return {index + step for index in sentences for step in (-1, 0, 1)}


def _windows(sentences: set[int]) -> set[int]:
    """The two-sentence windows (named by their first sentence) that hold a feature."""
    return sentences | {index - 1 for index in sentences}


_MONEY_PIECE = 600
"""Characters read at a time when looking for an amount: the reading stops at the first piece that
holds one, so a crafted run of figures ("$1,$1,...") is not read in full."""
_SENTENCE_END = re.compile(r"[.?!\n]\s")
_SPACE = re.compile(r"\s")


def _mentions_money(text: str) -> bool:
    """Whether text mentions an amount of money, read piece by piece: each piece ends at the last
    sentence end (else the last space) in its second half, or is cut at _MONEY_PIECE characters."""
    start = 0
    while start < len(text):
        end = min(len(text), start + _MONEY_PIECE)
        if end < len(text):
            end = _last_break(text, start + _MONEY_PIECE // 2, end)
        if find_money(text[start:end]):
            return True
        start = end
    return False


def _last_break(text: str, low: int, high: int) -> int:
    """Where a piece in text[low:high] may end: after its last sentence end, else last space, else high."""
    for pattern in (_SENTENCE_END, _SPACE):
        last = max((m.end() for m in pattern.finditer(text, low, high)), default=None)
        if last is not None:
            return last
    return high


_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_TOKEN = re.compile(r"[A-Za-z0-9@$]+")
_AMOUNT_LIKE = re.compile(r"\$?\d+([.,]\d+)*[A-Za-z]{0,3}")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_LEET_TOKENS = 2
_LEET_L = re.compile(r"(?<=[aeiou034])1(?=[aeiou034])")
"""A 1 between two vowels reads as an l ("ru1es", "sa1ary"); elsewhere as an i ("1gn0re", "c0nf1rm")."""
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
    """The passages around the leetspeak words, read as letters (the short words between them too:
    "0r 1'll" is "or i'll")."""
    parts: list[str] = []
    last, size = 0, 0
    for m in leet:
        start = max(m.start() - _LEET_CONTEXT, last)
        if start > last:
            parts.append("\n")
        parts.append(text[start : m.end()])
        size += m.end() - start + 1
        last = m.end()
        if size > _ENCODED_CHARS:
            break
    else:
        parts.append(text[last : last + _LEET_CONTEXT])
    return _LEET_L.sub("l", "".join(parts).lower()).translate(_LEET)


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


def message_sentences(normalized_text: str) -> list[str]:
    """The sentences of a normalised message as the cues split them (an abbreviation's period ends none),
    for scoring each alone (one linear split)."""
    text = _ABBREVIATION.sub(r"\1", normalized_text)
    return [part for part in _SENTENCE_BREAK.split(text) if part.strip()]


def _cleared(model: TextClassifier, text: str, decided: Classification) -> Classification:
    """decided, or an abstention (CLARIFY) when the trained classifier clears the cues' adversarial routing.

    Fail closed: only a model that clears (`clear_below`), only when nothing was hidden (`hidden`), every
    adversarial family that fired is one the model's cross-validation says it can judge
    (`clear_families`), and the message scores below `clear_below`. A cleared message is not treated as
    cooperative either: it abstains, and the cues stay listed.
    """
    if model.clear_below is None or decided.hidden:
        return decided  # a model that never clears (the shipped one): no scoring on the hot path
    vote = model.clear_vote(text, message_sentences(text), decided.fired, decided.hidden)
    if not vote.cleared:
        return decided
    return Classification(
        Label.CLARIFY,
        decided.top_label,
        decided.confidence,
        decided.scores,
        decided.cues,
        None,
        vote.describe(),
        decided.fired,
        decided.hidden,
    )


@cache
def max_message_chars() -> int:
    """The configured longest counterparty message (moderator.yaml's max_chars): a longer one is
    refused before any scan, by `session.reply` and by the delegate's screening (issue 14)."""
    return int(load_yaml_data("moderator.yaml")["max_chars"])


def refused_too_long() -> Classification:
    """The verdict on a message over the size limit, refused unscanned (adversarial, fail closed)."""
    return _refused(TOO_LONG)


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

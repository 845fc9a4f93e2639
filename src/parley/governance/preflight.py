"""PreflightCommitmentCheck (Algorithm 5): every outgoing draft is checked before it may be sent.

Checks binding language (with a non-binding rewrite), every amount, quantity, duration and
enumerated term against the authorization boundary, prohibited topics and PII disclosure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from parley.governance.commitment import CommitmentFinding, find_commitments, rewrite_non_binding
from parley.governance.config import BoundaryTerm, DomainConfig, Severity
from parley.governance.text import find_phrases, is_negated, keyword_distance, sentences
from parley.governance.values import Mention, convert_days, find_mentions

Limits = Mapping[str, tuple[float | None, float | None]]
"""Approved overrides of a term's (minimum, maximum), by term name."""

_QUOTED = re.compile(
    r"\byou('ve| have)?\s+(requested|asked|mentioned|proposed|quoted|said|need|prefer|expect|want)\b"
    r"|\byour\s*$|\byour\s+(request|ask|quote|proposal|expectation)\b|\brequests?\s*$|\bthey\s+(asked|quoted)\b"
    r"|\bi\s+(noted|heard)\b",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")
_PHONE = re.compile(r"(?<![\d$,.])(?:\+\d{1,3}[\s.-]?)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b")
_NATIONAL_ID = re.compile(r"\b\d{3}-\d{2}-\d{4}\b")


@dataclass(frozen=True, slots=True)
class BoundaryFinding:
    """An amount or term in a draft measured against the boundary.

    Attributes:
        term: Boundary term name.
        value: The value found (in the term's unit), or the option name for enumerated terms.
        limit: The limit it breaches or approaches.
        kind: "above_maximum", "below_minimum", "not_allowed" or "approaching".
        text: The text it came from.
    """

    term: str
    value: float | str
    limit: float | str
    kind: str
    text: str

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "term": self.term,
            "value": self.value,
            "limit": self.limit,
            "kind": self.kind,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class TopicFinding:
    """A prohibited topic or PII found in a draft."""

    topic: str
    phrase: str
    severity: Severity


@dataclass(frozen=True, slots=True)
class PreflightResult:
    """Outcome of Algorithm 5 for one draft.

    Attributes:
        draft: The text checked.
        commitments: Binding sentences found.
        breaches: Boundary breaches.
        approaching: Values within the approach margin of a limit (a warning, not a breach).
        topics: Prohibited topics and PII disclosures.
        rewrite: The non-binding rewrite (when binding language was found).
        requires_approval: Whether the draft may not be sent as is.
    """

    draft: str
    commitments: tuple[CommitmentFinding, ...] = ()
    breaches: tuple[BoundaryFinding, ...] = ()
    approaching: tuple[BoundaryFinding, ...] = ()
    topics: tuple[TopicFinding, ...] = ()
    rewrite: str | None = None
    requires_approval: bool = False
    checked: tuple[str, ...] = field(default_factory=lambda: ())

    @property
    def binding(self) -> bool:
        """Whether the draft contains binding language."""
        return bool(self.commitments)

    @property
    def sendable(self) -> str | None:
        """Text that may be sent without approval: the draft, its rewrite if only binding, else None."""
        if not self.requires_approval:
            return self.draft
        if self.rewrite is not None and not self.breaches and not self.topics:
            return self.rewrite
        return None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "draft": self.draft,
            "binding": self.binding,
            "commitments": [{"sentence": c.sentence, "cue": c.cue} for c in self.commitments],
            "breaches": [b.to_json() for b in self.breaches],
            "approaching": [b.to_json() for b in self.approaching],
            "prohibited": [
                {"topic": t.topic, "phrase": t.phrase, "severity": t.severity} for t in self.topics
            ],
            "rewrite": self.rewrite,
            "requires_approval": self.requires_approval,
            "sendable": self.sendable,
        }


def _plausible(term: BoundaryTerm, mention: Mention) -> bool:
    if mention.unit is not None:
        return mention.unit == term.unit
    large = mention.low >= 1000
    return term.unit in ("year", "month") if large else term.unit in ("hour", "unit")


def _candidate_terms(config: DomainConfig, mention: Mention) -> list[BoundaryTerm]:
    terms: list[BoundaryTerm] = []
    for term in config.boundary.terms:
        if (
            (mention.kind == "money" and term.kind == "money" and _plausible(term, mention))
            or (mention.kind == "quantity" and term.kind == "quantity" and term.unit == mention.unit)
            or (mention.kind == "duration" and term.kind == "duration")
        ):
            terms.append(term)
    return terms


def match_term(config: DomainConfig, sentence: str, mention: Mention) -> BoundaryTerm | None:
    """The boundary term a money, quantity or duration mention in sentence refers to, if any."""
    candidates = _candidate_terms(config, mention)
    scored = [(keyword_distance(sentence, mention.start, t.keywords), t) for t in candidates]
    near = [(d, t) for d, t in scored if d is not None]
    if near:
        return min(near, key=lambda item: item[0])[1]
    if mention.kind == "duration":
        return None  # durations are too common to attribute without a keyword
    return candidates[0] if len(candidates) == 1 else None


def _limits(term: BoundaryTerm, overrides: Limits) -> tuple[float | None, float | None]:
    return overrides.get(term.name, (term.minimum, term.maximum))


def _judge(term: BoundaryTerm, value: float, text: str, overrides: Limits) -> BoundaryFinding | None:
    minimum, maximum = _limits(term, overrides)
    if maximum is not None and value > maximum + 1e-9:
        return BoundaryFinding(term.name, value, maximum, "above_maximum", text)
    if minimum is not None and value < minimum - 1e-9:
        return BoundaryFinding(term.name, value, minimum, "below_minimum", text)
    if maximum is not None:
        span = (maximum - minimum) if minimum is not None else abs(maximum)
        if value >= maximum - term.approach_margin * span:
            return BoundaryFinding(term.name, value, maximum, "approaching", text)
    return None


def _numeric_findings(config: DomainConfig, text: str, overrides: Limits) -> list[BoundaryFinding]:
    findings: list[BoundaryFinding] = []
    for sentence in sentences(text):
        for mention in find_mentions(sentence, None):
            if mention.kind not in ("money", "quantity", "duration") or _QUOTED.search(
                sentence[: mention.start]
            ):
                continue
            term = match_term(config, sentence, mention)
            if term is None:
                continue
            for raw in {mention.low, mention.high}:
                value = convert_days(raw, term.unit) if mention.kind == "duration" else raw
                finding = _judge(term, value, mention.text, overrides)
                if finding is not None:
                    findings.append(finding)
    return findings


def _enum_findings(config: DomainConfig, text: str) -> list[BoundaryFinding]:
    findings: list[BoundaryFinding] = []
    for term in config.boundary.terms:
        if term.kind != "enum" or term.field is None:
            continue
        for option, phrases in config.field(term.field).options.items():
            for start, phrase in find_phrases(text, phrases):
                quoted = _QUOTED.search(text[max(0, start - 60) : start])
                if option not in term.allowed and not is_negated(text, start) and not quoted:
                    findings.append(
                        BoundaryFinding(term.name, option, ",".join(term.allowed), "not_allowed", phrase)
                    )
    return findings


def _topic_findings(config: DomainConfig, text: str) -> list[TopicFinding]:
    findings = [
        TopicFinding(p.topic, phrase, p.severity)
        for p in config.boundary.prohibited_topics
        for start, phrase in find_phrases(text, p.phrases)
        if not is_negated(text, start)
    ]
    if config.boundary.forbid_pii_disclosure:
        for pattern, topic in (
            (_EMAIL, "email address"),
            (_PHONE, "phone number"),
            (_NATIONAL_ID, "national id"),
        ):
            findings.extend(TopicFinding(f"PII: {topic}", m.group(0), "high") for m in pattern.finditer(text))
    return findings


def preflight(
    draft: str, config: DomainConfig, *, overrides: Limits | None = None, allow_binding: bool = False
) -> PreflightResult:
    """Algorithm 5: check one outgoing draft against the authorization boundary.

    Args:
        draft: The outgoing text.
        config: Domain config (boundary, non-binding lexicon).
        overrides: Limits the principal has approved beyond the configured band.
        allow_binding: The principal approved binding language for this message (final terms).
    """
    limits = overrides or {}
    commitments = () if allow_binding else tuple(find_commitments(draft, config.non_binding_phrases))
    numeric = _numeric_findings(config, draft, limits)
    breaches = tuple(f for f in (*numeric, *_enum_findings(config, draft)) if f.kind != "approaching")
    approaching = tuple(f for f in numeric if f.kind == "approaching")
    topics = tuple(_topic_findings(config, draft))
    binding_blocks = bool(commitments) and config.boundary.forbid_binding_language
    rewrite = rewrite_non_binding(draft, config.non_binding_phrases) if binding_blocks else None
    return PreflightResult(
        draft,
        commitments,
        breaches,
        approaching,
        topics,
        rewrite,
        requires_approval=binding_blocks or bool(breaches) or bool(topics),
        checked=("binding_language", "boundary", "prohibited_topics", "pii"),
    )

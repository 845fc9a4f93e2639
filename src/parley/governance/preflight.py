"""PreflightCommitmentCheck (Algorithm 5): every outgoing draft is checked before it may be sent.

Checks binding language (with a non-binding rewrite), every amount, quantity, duration and
enumerated term against the authorization boundary, prohibited topics, PII disclosure and the
disclosure of the principal's private limits (information hiding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from parley.governance.attribution import Limits, enum_mentions, match_term, quotes_counterparty
from parley.governance.commitment import CommitmentFinding, find_commitments, rewrite_non_binding
from parley.governance.config import BoundaryTerm, DomainConfig, Severity
from parley.governance.disclosure import DisclosureFinding, find_disclosures
from parley.governance.text import find_phrases, is_negated, sentences
from parley.governance.values import convert_days, find_mentions

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
        checked: The checks that ran.
        disclosures: Sentences that state one of the principal's private limits (never rewritten:
            a disclosure always needs the principal's approval).
    """

    draft: str
    commitments: tuple[CommitmentFinding, ...] = ()
    breaches: tuple[BoundaryFinding, ...] = ()
    approaching: tuple[BoundaryFinding, ...] = ()
    topics: tuple[TopicFinding, ...] = ()
    rewrite: str | None = None
    requires_approval: bool = False
    checked: tuple[str, ...] = field(default_factory=lambda: ())
    disclosures: tuple[DisclosureFinding, ...] = ()

    @property
    def binding(self) -> bool:
        """Whether the draft contains binding language."""
        return bool(self.commitments)

    @property
    def sendable(self) -> str | None:
        """Text that may be sent without approval: the draft, its rewrite if only binding, else None."""
        if not self.requires_approval:
            return self.draft
        if self.rewrite is not None and not (self.breaches or self.topics or self.disclosures):
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
            "disclosures": [d.to_json() for d in self.disclosures],
            "rewrite": self.rewrite,
            "requires_approval": self.requires_approval,
            "sendable": self.sendable,
        }


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
            if mention.kind not in ("money", "quantity", "duration") or quotes_counterparty(
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
    return [
        BoundaryFinding(term.name, option, ",".join(term.allowed), "not_allowed", phrase)
        for term, option, start, phrase in enum_mentions(config, text)
        if option not in term.allowed and not is_negated(text, start)
    ]


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
    disclosures = tuple(find_disclosures(draft, config, limits))
    binding_blocks = bool(commitments) and config.boundary.forbid_binding_language
    rewrite = rewrite_non_binding(draft, config.non_binding_phrases) if binding_blocks else None
    return PreflightResult(
        draft,
        commitments,
        breaches,
        approaching,
        topics,
        rewrite,
        requires_approval=binding_blocks or bool(breaches) or bool(topics) or bool(disclosures),
        checked=("binding_language", "boundary", "prohibited_topics", "pii", "limit_disclosure"),
        disclosures=disclosures,
    )

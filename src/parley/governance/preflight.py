"""PreflightCommitmentCheck (Algorithm 5): every outgoing draft is checked before it may be sent.

The draft is normalised and parsed once (`draft.parse`); every check reads that object and none
re-splits the text: binding language (with a non-binding rewrite), every amount, quantity, duration and
enumerated term against the authorization boundary, prohibited topics, PII disclosure, the disclosure
of the principal's private limits (information hiding), and -- for a drafter that declares what it
meant to write -- the text against its declared intent and terms.

It fails closed: a draft over the size limit is refused before any scan, a draft holding control
characters or hidden text (TAG characters, variation selector runs) is never sendable, and a
mismatch between the text and the drafter's declaration goes to
the principal. Behind the binding rules stands a trained classifier (`classifier.binding_vote`): a
draft is binding when the rules say so or the classifier's probability reaches its threshold, and a
non-binding rewrite is sent only if the classifier does not flag it either. The classifier clears a
rule flag only where `binding_vote` allows it (the rules' fallback alone, nothing obfuscated, every
flagged sentence scored very low); each such decision is named in the result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, get_args

from parley.governance.amounts import TermAmount, unreadable_or_glued_figures
from parley.governance.attribution import Limits, enum_mentions, quotes_counterparty
from parley.governance.classifier import Vote, binding_vote, classifiers_enabled, load_classifier
from parley.governance.commitment import CommitmentFinding, read_commitments, rewrite_draft
from parley.governance.config import BoundaryTerm, DomainConfig, Severity
from parley.governance.disclosure import DisclosureFinding, find_disclosures_in
from parley.governance.draft import (
    LONGEST_CLAUSE,
    MAX_CLAUSES,
    MAX_FIGURES,
    Draft,
    attribute_amounts,
    parse_normalized,
)
from parley.governance.normalize import DEFAULT_MAX_CHARS, TextRefused, normalize

__all__ = [
    "CLASSIFIER",
    "CONTROL_CHARACTERS",
    "ECHOED_CHARS",
    "HIDDEN_TEXT",
    "NOT_TEXT",
    "DeclaredIntent",
    "DeclaredTerm",
    "DraftIntent",
    "PreflightResult",
    "preflight",
    "preflight_draft",
]

DraftIntent = Literal["ask", "explore", "counter", "summarise", "close"]
"""What a drafter says its message does."""
CONTROL_CHARACTERS = "contains control characters"
"""The reason a draft holding control characters (NUL included) goes to the principal."""
UNREADABLE = "could not be read as non-binding"
"""The reason a draft with no readable text (only control or invisible characters) counts as binding."""
ECHOED_CHARS = 300
"""Characters of a refused (over-limit) draft echoed in its JSON: a 5 MB draft is not copied whole."""
HIDDEN_TEXT = "carries hidden text in invisible characters (TAG characters or variation selectors)"
"""The reason a draft carrying invisible text (read decoded by the checks) goes to the principal."""
NOT_TEXT = "contains characters that are not text (a lone UTF-16 surrogate or U+FFFD)"
"""The reason a draft holding what a decoder could not read goes to the principal."""
CLASSIFIER = "classifier"
"""The reason of a binding finding made by the trained classifier rather than the rules."""

_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")
_PHONE = re.compile(r"(?<![\d$,.])(?:\+\d{1,3}[\s.-]?)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b")
_DIGIT_RUN = re.compile(r"\d{3,}")
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
class DeclaredTerm:
    """A term a drafter says its message mentions.

    Attributes:
        term: Boundary term name ("annual_salary").
        value: The value in the term's unit, when the message states one.
    """

    term: str
    value: float | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"term": self.term, "value": self.value}


@dataclass(frozen=True, slots=True)
class DeclaredIntent:
    """What a drafter says its message does and which terms it mentions (its structured output).

    Attributes:
        intent: "ask", "explore", "counter", "summarise" or "close".
        terms: The terms (and values) the message mentions.
    """

    intent: DraftIntent
    terms: tuple[DeclaredTerm, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"intent": self.intent, "terms": [t.to_json() for t in self.terms]}

    @classmethod
    def from_json(cls, data: Any) -> DeclaredIntent:
        """Inverse of to_json.

        Raises:
            ValueError: an unknown intent or a malformed term.
        """
        intent = str(data["intent"])
        if intent not in get_args(DraftIntent):
            raise ValueError(f"unknown intent {intent!r}; expected one of {', '.join(get_args(DraftIntent))}")
        terms = tuple(
            DeclaredTerm(str(t["term"]), None if t.get("value") is None else float(t["value"]))
            for t in data.get("terms", [])
        )
        return cls(intent, terms)  # type: ignore[arg-type]


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
        problems: Other reasons the draft needs the principal, one line each: refused (too long),
            control characters, a mismatch with the drafter's declared intent or terms, too many
            figures to check.
        normalization: What normalisation undid or found (homoglyph, zero_width, soft_hyphen, control,
            split_word, compatibility).
        refused: The draft was refused before analysis (it counts as binding: it could not be read).
        classifier: The trained classifier's vote (None when it was not consulted: binding language
            approved, or the classifier turned off); when it flagged the draft, `commitments` holds a
            finding with the reason "classifier".
        cleared: Cues the rules discounted, kept for the audit: those whose clause reads as an
            allow-listed non-binding form (the reason names the form: "quoted", "past report", ...; see
            `clause_mood.FORMS`) and rule findings the classifier cleared (see `classifier.binding_vote`).
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
    problems: tuple[str, ...] = ()
    normalization: tuple[str, ...] = ()
    refused: bool = False
    classifier: Vote | None = None
    cleared: tuple[CommitmentFinding, ...] = ()

    @property
    def binding(self) -> bool:
        """Whether the draft contains binding language (a refused draft could not be read: it counts)."""
        return bool(self.commitments) or self.refused

    @property
    def sendable(self) -> str | None:
        """Text that may be sent without approval: the draft, its rewrite if only binding, else None."""
        if not self.requires_approval:
            return self.draft
        blocked = self.breaches or self.topics or self.disclosures or self.problems
        if self.rewrite is not None and not blocked:
            return self.rewrite
        return None

    @property
    def reasons(self) -> tuple[str, ...]:
        """One line per reason the draft needs the principal's approval."""
        lines = [f"binding language: {c.cue!r} ({c.reason})" for c in self.commitments]
        lines += [f"boundary: {b.term} {b.value} ({b.kind}, limit {b.limit})" for b in self.breaches]
        lines += [f"prohibited: {t.topic} ({t.phrase!r})" for t in self.topics]
        lines += [f"limit disclosure: {d.describe()}" for d in self.disclosures]
        return (*self.problems, *lines)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        echoed = {"draft": self.draft[:ECHOED_CHARS], "draft_chars": len(self.draft)}
        return {
            **(echoed if self.refused else {"draft": self.draft}),
            "binding": self.binding,
            "commitments": [
                {"sentence": c.sentence, "cue": c.cue, "reason": c.reason} for c in self.commitments
            ],
            "breaches": [b.to_json() for b in self.breaches],
            "approaching": [b.to_json() for b in self.approaching],
            "prohibited": [
                {"topic": t.topic, "phrase": t.phrase, "severity": t.severity} for t in self.topics
            ],
            "disclosures": [d.to_json() for d in self.disclosures],
            "rewrite": self.rewrite,
            "requires_approval": self.requires_approval,
            "sendable": self.sendable,
            "problems": list(self.problems),
            "normalization": list(self.normalization),
            "refused": self.refused,
            "classifier": None if self.classifier is None else self.classifier.to_json(),
            "cleared": [{"sentence": c.sentence, "cue": c.cue, "reason": c.reason} for c in self.cleared],
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


def _counterparty_figure(draft: Draft, start: int) -> bool:
    """Whether the value at start is the counterparty's: quoted, reported, or introduced as theirs."""
    if draft.quoted(start):
        return True
    clause = draft.clause_at(start)
    if clause is None:
        return False
    if clause.mood == "quotation":
        return True
    return quotes_counterparty(draft.text[max(clause.start, start - 80) : start])


def _numeric_findings(
    config: DomainConfig, draft: Draft, attributed: Sequence[TermAmount], overrides: Limits
) -> list[BoundaryFinding]:
    terms = {term.name: term for term in config.boundary.terms}
    findings: list[BoundaryFinding] = []
    for found in attributed:
        if _counterparty_figure(draft, found.start):
            continue
        term = terms[found.term]
        for value in dict.fromkeys((found.low, found.high)):
            finding = _judge(term, value, found.mention.text, overrides)
            if finding is not None:
                findings.append(finding)
    return findings


def _enum_findings(config: DomainConfig, draft: Draft) -> list[BoundaryFinding]:
    return [
        BoundaryFinding(term.name, option, ",".join(term.allowed), "not_allowed", phrase)
        for term, option, start, phrase in enum_mentions(config, draft.text)
        if option not in term.allowed and not draft.negated_at(start) and not draft.quoted(start)
    ]


def _emails(text: str) -> list[str]:
    """Email addresses: each "@" is read with at most 64 characters before it and 254 after (linear)."""
    found: list[str] = []
    position = text.find("@")
    while position >= 0:
        window_start = max(0, position - 64)
        match = _EMAIL.search(text, window_start, min(len(text), position + 255))
        inside = match is not None and match.start() <= position < match.end()
        if match is not None and inside and (not found or found[-1] != match.group(0)):
            found.append(match.group(0))
        position = text.find("@", position + 1)
    return found


@cache
def _phrases_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """One lower-case pattern for a list of phrases on word boundaries (one pass over the text)."""
    parts = sorted({p.strip().lower() for p in phrases if p.strip()}, key=len, reverse=True)
    return re.compile(
        "|".join(
            (r"\b" if p[:1].isalnum() else "") + re.escape(p) + (r"\b" if p[-1:].isalnum() else "")
            for p in parts
        )
        or r"(?!)"
    )


def _topic_findings(config: DomainConfig, draft: Draft) -> list[TopicFinding]:
    text, lowered = draft.text, draft.text.lower()
    findings: list[TopicFinding] = []
    for topic in config.boundary.prohibited_topics:
        for match in _phrases_pattern(tuple(topic.phrases)).finditer(lowered):
            if not draft.negated_at(match.start()):
                findings.append(TopicFinding(topic.topic, text[match.start() : match.end()], topic.severity))
    if config.boundary.forbid_pii_disclosure:
        findings.extend(TopicFinding("PII: email address", e, "high") for e in _emails(text))
        for pattern, topic in ((_PHONE, "phone number"), (_NATIONAL_ID, "national id")):
            findings.extend(TopicFinding(f"PII: {topic}", f, "high") for f in _near_digits(pattern, text))
    return findings


def _near_digits(pattern: re.Pattern[str], text: str) -> list[str]:
    """Matches of a number pattern, searched only around runs of three or more digits (linear)."""
    found: list[str] = []
    reach = 0
    for run in _DIGIT_RUN.finditer(text):
        if run.start() < reach:
            continue
        start, end = max(0, run.start() - 8), min(len(text), run.end() + 16)
        for match in pattern.finditer(text, start, end):
            if match.start() >= reach:
                found.append(match.group(0))
                reach = match.end()
    return found


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= max(0.005 * max(abs(a), abs(b)), 1e-6)


def _declaration_problems(
    declared: DeclaredIntent,
    draft: Draft,
    attributed: Sequence[TermAmount],
    binding: bool,
    allow_binding: bool,
) -> list[str]:
    """Where the text departs from what the drafter declared (each one line)."""
    problems: list[str] = []
    intent = declared.intent
    if binding and intent != "close":
        problems.append(f"declared intent {intent!r} but the text is binding")
    if intent == "close" and not allow_binding:
        problems.append("declared intent 'close' needs the principal's approval")
    if intent == "ask" and not any(c.mood == "question" for c in draft.clauses()):
        problems.append("declared intent 'ask' but the text asks nothing")
    declared_values = [(t.term, t.value) for t in declared.terms]
    for found in attributed:
        if _counterparty_figure(draft, found.start):
            continue
        matches = [
            v
            for name, v in declared_values
            if name == found.term and (v is None or _close(v, found.high) or _close(v, found.low))
        ]
        if not matches:
            problems.append(
                f"{found.term} {found.high:g} ({found.mention.text!r}) is not among the declared terms"
            )
    return list(dict.fromkeys(problems))


def _refused(draft: str, error: TextRefused) -> PreflightResult:
    return PreflightResult(
        draft, requires_approval=True, checked=("size",), problems=(str(error),), refused=True
    )


def preflight(
    draft: str,
    config: DomainConfig,
    *,
    overrides: Limits | None = None,
    allow_binding: bool = False,
    declared: DeclaredIntent | None = None,
    max_chars: int | None = DEFAULT_MAX_CHARS,
    use_classifier: bool = True,
) -> PreflightResult:
    """Algorithm 5: check one outgoing draft against the authorization boundary.

    Args:
        draft: The outgoing text.
        config: Domain config (boundary, non-binding lexicon).
        overrides: Limits the principal has approved beyond the configured band.
        allow_binding: The principal approved binding language for this message (final terms).
        declared: The drafter's declared intent and terms, when it gives them; a mismatch with the
            text needs the principal's approval.
        max_chars: Longest draft analysed (None: no limit); a longer one is refused (needs approval).
        use_classifier: Consult the trained binding classifier beside the rules (False, or inside
            `classifier.rules_only()`: the rules alone, as measured in benchmarks/train_detectors.py).
    """
    try:
        normalized = normalize(draft, max_chars=max_chars)
    except TextRefused as error:
        return _refused(draft, error)
    return preflight_draft(
        parse_normalized(normalized, config.non_binding_phrases),
        config,
        overrides=overrides,
        allow_binding=allow_binding,
        declared=declared,
        use_classifier=use_classifier,
    )


def preflight_draft(
    parsed: Draft,
    config: DomainConfig,
    *,
    overrides: Limits | None = None,
    allow_binding: bool = False,
    declared: DeclaredIntent | None = None,
    use_classifier: bool = True,
) -> PreflightResult:
    """Algorithm 5 on a draft already parsed (`draft.parse` with the domain's non-binding phrases)."""
    limits = overrides or {}
    problems: list[str] = []
    if parsed.normalized.has_hidden_text:
        problems.append(HIDDEN_TEXT)
    if parsed.normalized.has_control:
        problems.append(CONTROL_CHARACTERS)
    if parsed.normalized.has_non_text:
        problems.append(NOT_TEXT)
    # one walk of the amount reader's: figures glued to a non-Latin letter ("Ж150,000"), and figures it
    # cannot read (separators that fit no convention, digits past a float's precision)
    problems += [
        f"a figure the boundary check cannot read: {f!r}"
        for f in unreadable_or_glued_figures(parsed.normalized.text)[:1]
    ]
    reading = read_commitments(parsed)
    found = list(reading.findings)
    consult = use_classifier and classifiers_enabled() and not allow_binding
    vote = _binding_vote(parsed, found) if consult else None
    by_classifier = tuple(found) if vote is not None and vote.cleared else ()
    if by_classifier:
        found = []
    cleared = (*reading.cleared, *by_classifier)
    flagged = [CommitmentFinding(parsed.text, vote.describe(), CLASSIFIER)] if vote and vote.flagged else []
    if not parsed.text.strip() and parsed.original.strip():  # only control or invisible characters
        found.append(CommitmentFinding(parsed.original, "", UNREADABLE))
    commitments = () if allow_binding else (*found, *flagged)
    unread = parsed.too_many_figures
    if unread:
        problems.append(f"too many figures to check ({parsed.figures:,}; at most {MAX_FIGURES})")
    if parsed.unread:
        problems.append(f"too many clauses to read (more than {MAX_CLAUSES:,})")
        unread = True
    longest = max((c.end - c.start for c in parsed.clauses()), default=0)
    if longest > LONGEST_CLAUSE:
        problems.append(
            f"a clause of {longest:,} characters is too long to read (at most {LONGEST_CLAUSE:,})"
        )
        unread = True
    attributed = [] if unread else attribute_amounts(parsed, config)
    numeric = _numeric_findings(config, parsed, attributed, limits)
    breaches = tuple(f for f in (*numeric, *_enum_findings(config, parsed)) if f.kind != "approaching")
    approaching = tuple(f for f in numeric if f.kind == "approaching")
    topics = tuple(_topic_findings(config, parsed))
    disclosures = () if unread else tuple(find_disclosures_in(parsed, config, limits, attributed))
    if declared is not None and not unread:
        binding = bool(found) or bool(flagged)
        problems += _declaration_problems(declared, parsed, attributed, binding, allow_binding)
    binding_blocks = bool(commitments) and config.boundary.forbid_binding_language
    readable = bool(parsed.text.strip())
    rewrite = rewrite_draft(parsed, found) if binding_blocks and found and readable else None
    if rewrite is not None and vote is not None and _flags_rewrite(rewrite):
        rewrite = None  # the rewrite would still read as binding to the classifier: the principal decides
    blocked = binding_blocks or bool(breaches or topics or disclosures or problems)
    return PreflightResult(
        parsed.original,
        commitments,
        breaches,
        approaching,
        topics,
        rewrite,
        requires_approval=blocked,
        checked=(
            "normalization",
            "binding_language",
            "boundary",
            "prohibited_topics",
            "pii",
            "limit_disclosure",
            *(("binding_classifier",) if vote is not None else ()),
            *(("declared_intent",) if declared is not None else ()),
        ),
        disclosures=disclosures,
        problems=tuple(problems),
        normalization=parsed.normalized.kinds,
        classifier=vote,
        cleared=cleared,
    )


def _binding_vote(parsed: Draft, found: Sequence[CommitmentFinding]) -> Vote:
    """The trained classifier's vote on a parsed draft, given the rules' findings."""
    return binding_vote(
        load_classifier("binding"),
        parsed.text,
        [f.reason for f in found],
        [f.sentence for f in found],
        parsed.normalized.kinds,
    )


def _flags_rewrite(rewrite: str) -> bool:
    """Whether the classifier flags a non-binding rewrite (it is then not sent without approval)."""
    model = load_classifier("binding")
    return model.vote(normalize(rewrite, max_chars=None).text).flagged

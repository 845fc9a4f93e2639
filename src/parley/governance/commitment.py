"""Binding-language detection and the non-binding rewrite (the heart of Algorithm 5's first check).

Not one keyword list: a sentence commits the principal when a commitment predicate (performative
verb, definite future or capability with a transfer verb, or a fixed deal expression) has the
principal's side as its agent, is not negated in its clause, is not softened by a tentative modal,
is not a question, and the sentence carries no hedge from the non-binding lexicon.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from parley.governance.text import clause_start, find_phrases, is_negated, sentences

_I = re.IGNORECASE
_PERFORMATIVE = re.compile(
    r"\b(agree|agrees|agreed|accept|accepts|accepted|commit|commits|committed|guarantee|guarantees|"
    r"promise|promises|confirm|confirms|confirmed|approve|approves|approved|authori[sz]e|authori[sz]ed|"
    r"undertake|pledge|honou?r)\b",
    _I,
)
_FUTURE = re.compile(
    r"\b(will|shall|'ll|are going to|am going to|'re going to|'m going to|can|are able to|am able to|"
    r"'m able to|'re able to)\s+(?:\w+\s+){0,2}?(pay|offer|provide|deliver|order|purchase|buy|sign|hire|give|"
    r"extend|honou?r|cover|guarantee|commit|accept|do|match|meet|take|lock|book|reserve|start|proceed|"
    r"go with|go ahead with|settle on|close at|close the deal|"
    r"send over|send the signed|approve|confirm)\b",
    _I,
)
_FIXED = tuple(
    re.compile(p, _I)
    for p in (
        r"\bit'?s a deal\b",
        r"\b(you|we) have a deal\b",
        r"^\W*deal\W*$",
        r"^\W*done\W*$",
        r"\bconsider it done\b",
        r"\bdone deal\b",
        r"\b(job|contract|position|role|space|lease|order|unit|offer) is "
        r"(yours|confirmed|accepted|approved)\b",
        r"\bwelcome aboard\b",
        r"\b(settled|locked in)\b",
        r"\block in\b",
        r"\b(firm|final|binding) (offer|commitment|agreement)\b",
        r"(?<!non-)(?<!non )\bbinding\b",
        r"\b(offer|request|proposal|quote)\s+(is\s+)?(accepted|approved|confirmed)\b",
        r"\byou'?ve got (the|a|it)\b",
        r"\bwe'?ll take it\b",
        r"\bhappy to (accept|go with|take|agree|pay|sign)\b",
        r"^\W*let'?s (lock|finalize|finalise|sign|close|go with|do it|shake)\b",
        r"\b(is|are|has been|have been|was)\s+(now\s+)?"
        r"(confirmed|approved|accepted|agreed|finalized|finalised|signed)\b",
    )
)
_FIRST_PERSON = re.compile(
    r"\b(we|i|us|our (company|team|side|firm|client|organisation|organization)|my team|the company)\b|"
    r"\b(we|i)('ve|'ll|'re|'m|'d)",
    _I,
)
_OTHER_SUBJECT = re.compile(r"\b(you|they|he|she|the (landlord|supplier|candidate|contractor|tenant))\b", _I)
_NEGATION_INSIDE = re.compile(r"\b(not|never)\b|n't\b", _I)
_ADJECTIVAL = re.compile(r"\b(our|the|an?|your|their|its|this|that|pre)\W*$", _I)
_TENTATIVE = re.compile(r"\b(would|could|might|may|should)\b|'d\b", _I)
_GENERAL_HEDGES = (
    "subject to",
    "for discussion",
    "exploring",
    "explore",
    "considering",
    "could consider",
    "tentative",
    "tentatively",
    "might",
    "may be able",
    "could potentially",
    "would need",
    "needs sign-off",
    "need sign-off",
    "pending",
    "indicative",
    "non-binding",
    "nothing is final",
    "not final",
    "check with",
    "before agreeing",
    "for review",
    "open to exploring",
)
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, _I), r)
    for p, r in (
        (r"^\W*(deal|done)\W*$", "That could work for us"),
        (
            r"\b(we|i)\s+(hereby\s+)?(agree|accept|commit|confirm|guarantee|promise|approve|authori[sz]e)\w*\s+(to\s+)?",
            "we're exploring ",
        ),
        (
            r"\b(we|i)\s*('ve|have)\s+(agreed|accepted|approved|committed|confirmed)\s+(to\s+)?",
            "we're exploring ",
        ),
        (
            r"\b(we|i)\s*(will|shall|'ll|can|are able to|am able to|'m able to|'re able to|"
            r"are going to|'re going to)\s+",
            "we're exploring whether we could ",
        ),
        (
            r"\b(it'?s a deal|you have a deal|we have a deal|consider it done|done deal)\b",
            "that could work for us",
        ),
        (r"\b(the )?(job|contract|position|role|space|lease|order) is yours\b", "the \\2 could be a fit"),
        (r"\blet'?s (lock in|lock|finalize|finalise|sign|close|go with)\b", "we're exploring"),
        (r"\bhappy to (accept|go with|take|agree to|pay|sign)\b", "open to exploring"),
        (r"\b(firm|final|binding) (offer|commitment|agreement)\b", "proposal for discussion"),
        (r"\b(is|are|has been|have been)\s+(confirmed|approved|accepted|agreed)\b", "is under discussion"),
    )
)


@dataclass(frozen=True, slots=True)
class CommitmentFinding:
    """One sentence judged binding, with the cue that made it so."""

    sentence: str
    cue: str


def _hedged(sentence: str, hedges: Sequence[str]) -> bool:
    return any(not is_negated(sentence, start) for start, _ in find_phrases(sentence, hedges))


def _agent_is_ours(sentence: str, position: int) -> bool:
    clause = sentence[clause_start(sentence, position) : position]
    ours = [m.end() for m in _FIRST_PERSON.finditer(clause)]
    theirs = [m.end() for m in _OTHER_SUBJECT.finditer(clause)]
    if not ours and not theirs:
        return True  # elliptical first person ("Happy to accept", "Confirmed.")
    return bool(ours) and (not theirs or max(ours) > max(theirs))


def _tentative(sentence: str, position: int) -> bool:
    before = sentence[clause_start(sentence, position) : position].split()[-4:]
    return _TENTATIVE.search(" ".join(before)) is not None


def _predicate_cue(sentence: str) -> str | None:
    for pattern in (_PERFORMATIVE, _FUTURE):
        for match in pattern.finditer(sentence):
            position = match.start()
            if is_negated(sentence, position) or _NEGATION_INSIDE.search(match.group(0)):
                continue
            if _tentative(sentence, position) or _ADJECTIVAL.search(sentence[:position]):
                continue
            if _agent_is_ours(sentence, position):
                return match.group(0)
    return None


def _fixed_cue(sentence: str) -> str | None:
    for pattern in _FIXED:
        match = pattern.search(sentence)
        if match is not None and not is_negated(sentence, match.start()):
            return match.group(0)
    return None


def binding_cue(sentence: str, hedges: Sequence[str] = ()) -> str | None:
    """The cue that makes sentence binding, or None if it is not binding."""
    if sentence.rstrip().endswith("?"):
        return None
    if _hedged(sentence, (*hedges, *_GENERAL_HEDGES)):
        return None
    return _fixed_cue(sentence) or _predicate_cue(sentence)


def find_commitments(text: str, hedges: Sequence[str] = ()) -> list[CommitmentFinding]:
    """Sentences of text that would commit the principal."""
    findings: list[CommitmentFinding] = []
    for sentence in sentences(text):
        cue = binding_cue(sentence, hedges)
        if cue is not None:
            findings.append(CommitmentFinding(sentence, cue))
    return findings


def contains_binding_language(text: str, hedges: Sequence[str] = ()) -> bool:
    """containsBindingLanguage(draftReply) of Algorithm 5."""
    return bool(find_commitments(text, hedges))


def _rewrite_sentence(sentence: str, hedges: Sequence[str]) -> str:
    rewritten = sentence
    for pattern, replacement in _REWRITES:
        rewritten = pattern.sub(replacement, rewritten)
    rewritten = re.sub(r"(we're exploring\s+)+(?=we're exploring)", "", rewritten, flags=_I)
    rewritten = rewritten[:1].upper() + rewritten[1:]
    if binding_cue(rewritten, hedges) is None and _hedged(rewritten, (*hedges, *_GENERAL_HEDGES)):
        return rewritten
    body = rewritten.rstrip(" .!")
    return f"{body}, subject to approval."


def rewrite_non_binding(text: str, hedges: Sequence[str] = ()) -> str:
    """rewriteNonBinding(draftReply): binding sentences become tentative, hedged phrasing.

    Every rewritten sentence carries a hedge ("we're exploring", "subject to approval"), so the
    result never contains binding language by the detector's own rules.
    """
    parts: list[str] = []
    for sentence in sentences(text):
        parts.append(_rewrite_sentence(sentence, hedges) if binding_cue(sentence, hedges) else sentence)
    return " ".join(parts)

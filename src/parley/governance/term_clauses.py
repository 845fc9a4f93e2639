"""Clause-level conditions for the term reader (`governance.terms`): which stretch of a message is a
condition, whether that condition names a term, and which terms an anaphoric condition points back to.

The parse (`governance.draft`) opens a conditional clause at "if", "provided", "as long as", "unless"
and their kin, and `term_roles` makes a value inside such a clause a condition. This module reads on
top of that, one clause at a time:

- the condition forms the parse has no frame for (`condition_forms` in data/term_cues.yaml: "but only
  at $5.10 a unit", "the lead time assumes drawings are frozen", "we need a PO by the 15th to hold
  the price", "throw in parking and we'll sign", "105 and we have a deal", "with relocation
  included", "for tenants with good credit"): the values inside are conditions, and a form with no
  value is a condition on no term with its text;
- a value inside a condition is the condition's term only when the condition names that term: a
  figure that counts something else ("six months of rent", "two years of financial statements"),
  a stretch of time it qualifies ("the first two years"), a date with no word of its term ("if the
  lease is signed by December 18"), or an option only partly stated ("pay half up front") is no
  term's value, and the condition is kept as text on no term;
- an anaphoric condition ("If this is possible I am ready to sign", "if you can do that") conditions
  the terms asked for just before it (after the last "but" of the sentence before, when it has one);
  one pointing back to several things ("if you can accept these") is also quoted as written;
- a fallback ("..., otherwise we stay at 5,100", "if quantity is 40k, else 1.12", "unless your client
  can do a 48-month term, in which case $5,150") or an alternative after ", or" ("Deposit 2 months, or
  1 month plus a bank guarantee") is not a term on offer: the value after it, of a term given a value
  before it, is set aside and the fallback quoted; so is a bare figure in it that no word of its
  guessed term names ("We ship within 2 weeks while stock lasts, otherwise 5");
- a condition form with a conjunct in which no value is read ("only with 3 months free and the
  landlord covering the fit-out") is read on its term and also quoted as written;
- a condition whose value is of a term that describes a party, the role or the space (`descriptive_terms`
  in data/term_cues.yaml: "as long as the title is Staff Engineer", "subject to the visa sponsorship
  being approved") is a requirement in words: it is kept as text on no term, and the value stays the
  term's own;
- a conjunct the parse split from its condition ("provided that the term is 6 years and that the tenant
  pays the first month's rent on signing", "on the understanding that the order is placed by the 20th
  and payment is net 30": a subject of its own that is no party, and no modal) is part of that
  condition: its values are conditions, and without one it is a condition on no term with its text;
  so is each conjunct of a list the parse split at its commas ("provided delivery is 6 weeks, the
  warranty is 24 months and you order 12,000 units", when an "and" closes the list), and, after a frame
  such as "if", the other side's part in the present tense ("if the warranty is 24 months and you take
  the full 9,000"; "and you'll hear from us by Friday" is a clause of its own);
- a refusal to commit unless something is absent (`absence_forms` in data/term_cues.yaml: "everything
  except the penalty clause", "we won't sign with any late penalty", "just not with a late penalty"),
  in a message that accepts other terms: a term's value of nothing read there is a condition, once a
  term; what names no term of the domain is quoted as written; one naming a term with no such value
  ("yes to everything except the rent") leaves it in dispute, and a question sets nothing;
- a value tied to a value of another term with no condition word ("with 90 days its 2.05", "at 2,000
  units 11.20", "for a 5-year term, 8,900", "remote 3 days → 95k", "8,500 for a 10-year commitment")
  makes the one a condition of the other. Only a commitment ("for a 10-year commitment") is read on
  its term; any other tie is quoted as written (fail closed: which of the two is the condition, and
  whether it is one at all, is the principal's to read), and a tie that restates a term already given
  a value before it ("1.95 ..., with 90 days its 2.05") is an alternative, not the offer: both of its
  values are set aside.

Nothing here drops a condition: a form it cannot attach to a term still becomes a condition on no term,
and `term_guard` quotes every conditional construction no condition covers.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

from parley.governance.config import load_yaml_data
from parley.governance.draft import Clause, Draft
from parley.governance.term_attribution import keyword_pattern
from parley.governance.term_figures import cues
from parley.governance.term_roles import UNCLAIMED, Hit, condition_ends, condition_frame, is_question
from parley.governance.term_vocabulary import TermDef

__all__ = ["ClauseReading", "FormMatch", "condition_form_matches", "names_term", "read_clauses"]


@dataclass(frozen=True, slots=True)
class FormMatch:
    """A condition form found in the text.

    Attributes:
        start: Offset of the condition's words (group "c" of the form).
        end: Their end.
        marker: Offset where the form's marker begins.
    """

    start: int
    end: int
    marker: int


@dataclass(frozen=True, slots=True)
class ClauseReading:
    """What the clause-level reading changes.

    Attributes:
        hits: The hits with their roles revised.
        others: Conditions on no term it found (offset, text as written).
        covered: Offsets of conditional constructions it read (so the guard does not quote them again).
        attached: Starts of anaphoric conditional clauses it tied to the terms they point back to (no
            condition on no term is read from them).
        quoted: Stretches the principal also reads as written: a fallback ("otherwise we stay at
            5,100") whose value the reading set aside, and an anaphoric condition it tied to terms.
    """

    hits: tuple[Hit, ...]
    others: tuple[tuple[int, str], ...]
    covered: tuple[int, ...]
    attached: tuple[int, ...] = ()
    quoted: tuple[str, ...] = ()


@cache
def _forms() -> tuple[re.Pattern[str], ...]:
    raw = load_yaml_data("term_cues.yaml")
    return tuple(re.compile(str(p)) for p in raw["condition_forms"])


def condition_form_matches(text: str) -> list[FormMatch]:
    """Every condition form of data/term_cues.yaml `condition_forms` in text (lower case), in order."""
    found = [
        FormMatch(m.start("c"), m.end("c"), m.start())
        for pattern in _forms()
        for m in pattern.finditer(text)
        if m.group("c") and m.group("c").strip()
    ]
    return sorted(found, key=lambda f: f.start)


_OF_NOUN = re.compile(r"^\s*of\s+(?:the\s+|your\s+|their\s+|our\s+|his\s+|her\s+)?([a-z][\w'-]*)")
_SPAN_BEFORE = re.compile(r"\b(?:the|its|their)\s+(?:first|last|next|past|previous|initial|final)\s+$")
_PARTIAL_BEFORE = re.compile(
    r"\b(?:half|a third|a quarter|part|partly|partially|some|\d+(?:\.\d+)?\s*%|\d+ percent)"
    r"\s+(?:of\s+it\s+)?$"
)


_PART_BEFORE = re.compile(
    r"\b(?:the|our|your|their)\s+(?:first|initial|opening)\s+(?!(?:\d+|one|two|three|four|six|twelve)\s+"
    r"(?:days?|weeks?|months?|years?)\b)[\w,.-]+(?:\s+(?:is|are|be|gets?|was|were|[a-z]+ed)){0,2}"
    r"(?:\s+(?:within|in|by))?\s+$"
)
"""A part of the deal as the condition's subject ("on condition that the first invoice is paid within 15
days", "the first order is prepaid", "ships the first 6,000 within four weeks"): the time or the way
it names is that part's, not the term's."""


def names_term(draft: Draft, hit: Hit, start: int, end: int) -> bool:
    """Whether the condition [start, end) names hit's term with hit's value (see the module docstring)."""
    text = draft.text.lower()
    keywords = {k.lower() for k in hit.term.keywords}
    before = text[max(start, hit.start - 30) : hit.start]
    timed = hit.figure is None or hit.figure.kind == "duration"
    if timed and _PART_BEFORE.search(text[max(start, hit.start - 48) : hit.start]):
        return False
    if hit.figure is None and hit.term.shape == "enum":
        return not _PARTIAL_BEFORE.search(before)  # "pay half up front" is no prepayment
    if hit.term.shape == "date":
        body = text[start:end]
        return any(keyword_pattern(k).search(body) for k in keywords)
    if _SPAN_BEFORE.search(before):
        return False  # "guarantees the first two years"
    noun = _OF_NOUN.match(text[hit.end : min(end, hit.end + 40)])
    if noun is not None and hit.figure is not None and hit.figure.kind == "duration":
        word = noun.group(1)
        named = word in keywords or word.rstrip("s") in keywords or word in cues().not_nouns
        return named  # "six months of rent" counts rent; "12 months of warranty" is the warranty
    return True


def _body(draft: Draft, clause: Clause, end: int) -> tuple[int, str]:
    """The condition's words after its frame ("she signs by Friday"), with their offset."""
    begin = clause.frame_start + len(clause.frame) if condition_frame(clause) else clause.start
    raw = draft.text[begin:end]
    lead = len(raw) - len(raw.lstrip(" .,;:!"))
    return begin + lead, raw.strip(" .,;:!")


_ANAPHORIC = re.compile(
    r"^(?:you (?:can|could|are able to|'re able to) (?:do|agree to|accept|accommodate|manage|meet|offer|"
    r"approve|make)\s+)?(?:all (?:of )?)?(?:this|that|these|those|so|it|both|them)\b"
    r"(?:\s+(?:is|are|'s|would be|will be|were|can be|could be|works?|would work|sounds?|seems?)\b[^.;!?]*)?$"
)
"""The body of a condition that points back ("this is possible", "that works", "you can do that")."""
_CONTRAST = re.compile(r"\b(?:but|however|though|although)\b")


def _anaphoric(draft: Draft, clause: Clause, body: str) -> bool:
    first = body.lower().split(",")[0].strip()
    main = re.split(r"\s+(?:i|we|i'm|we're|i'll|we'll|then)\b", first, maxsplit=1)[0].strip()
    return condition_frame(clause) and bool(_ANAPHORIC.match(main))


def _pointed_to(draft: Draft, clause: Clause, hits: Sequence[Hit]) -> list[int]:
    """Indexes of the hits an anaphoric condition in clause points back to: the counterparty's own
    values in the sentence before it (after that sentence's last contrast word, when it has one), or,
    for a condition ending its sentence, in the same sentence before it."""
    sentence = draft.sentences[clause.sentence]
    if clause.start > sentence.start + 1:
        begin, end = sentence.start, clause.start
    elif clause.sentence > 0:
        previous = draft.sentences[clause.sentence - 1]
        begin, end = previous.start, previous.end
    else:
        return []
    text = draft.text.lower()
    contrasts = [m.end() for m in _CONTRAST.finditer(text, begin, end)]
    begin = contrasts[-1] if contrasts else begin
    return [
        i
        for i, h in enumerate(hits)
        if begin <= h.start < end and h.term is not UNCLAIMED and h.role in ("own", "condition")
    ]


def read_clauses(draft: Draft, hits: Sequence[Hit], vocabulary: Sequence[TermDef] = ()) -> ClauseReading:
    """Revise the roles of hits clause by clause (see the module docstring) and find the conditions on no
    term that the condition forms, unnamed values and anaphoric conditions give. vocabulary is the
    domain's terms: a refusal naming one of them that no value of nothing was read for ("yes to everything
    except the rent") leaves that term in dispute rather than setting a condition."""
    revised = list(hits)
    others: list[tuple[int, str]] = []
    covered: list[int] = []
    ends = condition_ends(draft)
    for i, hit in enumerate(revised):
        if hit.role != "condition" or hit.term is UNCLAIMED:
            continue
        clause = draft.clause_at(hit.start)
        if clause is None:
            continue
        end = ends.get(clause.start, clause.end)
        begin, body = _body(draft, clause, end)
        if not names_term(draft, hit, begin if begin <= hit.start else clause.start, end):
            revised[i] = replace(hit, role="aside")
            if body and all(offset != begin for offset, _ in others):
                others.append((begin, body))
    quoted: list[str] = []
    _forms_read(draft, revised, others, covered, quoted)
    _proposals_read(draft, revised, others, covered, ends)
    quoted += _fallbacks_read(draft, revised)
    quoted += _tied_read(draft, revised)
    _conjoined_read(draft, revised, others, covered)
    _absence_read(draft, revised, covered, quoted, vocabulary)
    attached = _anaphora_read(draft, revised, ends, quoted) + _continued_read(draft, revised)
    _descriptive_read(draft, revised, others, ends)
    return ClauseReading(
        tuple(revised), tuple(others), tuple(covered + attached), tuple(attached), tuple(quoted)
    )


_FALLBACK = re.compile(
    r"(?:^|(?<=[,;:.(\u2014\u2013-])|(?<=[,;:.(\u2014\u2013-] ))\s*"
    r"(?:otherwise|or else|else|failing (?:that|this)|if not|without (?:that|it|this|them)|in which case"
    r"|or(?! (?:so|more|less|better|above|over|below|under|thereabouts|two|three|earlier|later|sooner)\b))\b",
    re.MULTILINE,
)
"""What opens a fallback: the terms that hold when the condition before it is not met ("..., otherwise
we stay at 5,100", "if quantity is 40k, else 1.12")."""
_STOP = re.compile(r"[!?\n;]|\.(?!\d)")


def _fallbacks_read(draft: Draft, hits: list[Hit]) -> list[str]:
    """A value after "otherwise" (or "else", "failing that") of a term the message gave a value before
    it is the fallback when the condition fails, not a term on offer: it is set aside, and the fallback
    is quoted as written for the principal. Returns the quotes."""
    text = draft.text.lower()
    quotes: list[str] = []
    order = sorted(range(len(hits)), key=lambda i: hits[i].start)
    starts = [hits[i].start for i in order]
    for marker in _FALLBACK.finditer(text):
        at = marker.end()
        stop = _STOP.search(text, at)
        end = stop.start() if stop is not None else len(text)
        sentence = draft.sentence_at(marker.start() + len(marker.group(0)) - len(marker.group(0).lstrip()))
        if sentence is None:
            continue
        reach = _reach(draft, sentence.start)
        before = [
            hits[i]
            for i in order[bisect.bisect_left(starts, reach) : bisect.bisect_left(starts, marker.start())]
            if hits[i].role in ("own", "condition")
        ]
        earlier = {h.term.name for h in before if h.term is not UNCLAIMED}
        # A bare figure no term claimed before it ("ok with 1.05 if quantity is 40k, else 1.12") is the
        # value the fallback's bare figure replaces.
        bare = {h.figure.kind for h in before if h.term is UNCLAIMED and h.figure is not None}
        moved = False
        stretch = text[at:end]
        for i in order[bisect.bisect_left(starts, at) : bisect.bisect_left(starts, end)]:
            hit = hits[i]
            replaced = (
                hit.term.name in earlier
                or (hit.figure is not None and hit.figure.kind in bare)
                or (bool(earlier) and _unnamed_bare(hit, stretch))
            )
            if replaced and hit.term is not UNCLAIMED and hit.role in ("own", "condition"):
                hits[i] = replace(hit, role="aside")
                moved = True
        if moved:
            quotes.append(draft.text[sentence.start : end].strip(" .,;:!"))
    return quotes


def _unnamed_bare(hit: Hit, stretch: str) -> bool:
    """Whether a value in a fallback is a bare figure no word of its term names there ("We ship within
    2 weeks as long as the resin is in stock, otherwise 5", "otherwise it's 6,400 with 2"): it stands
    for a value the message gave before it, whichever term the reader guessed for it."""
    figure = hit.figure
    if figure is None or figure.kind != "number" or figure.currency or figure.noun or figure.scaled:
        return False
    return not any(keyword_pattern(k).search(stretch) for k in hit.term.keywords)


def _reach(draft: Draft, sentence_start: int) -> int:
    """Where the sentence before the one starting at sentence_start begins (that start, if none)."""
    if sentence_start <= 0:
        return sentence_start
    before = draft.sentence_at(sentence_start - 1)
    return before.start if before is not None and before.start < sentence_start else sentence_start


_CONJUNCTION = re.compile(r",?\s+(?:and|plus|as well as|along with|together with)\s+|\s*[,;&+]\s*")
_CONJUNCT_WORDS = 3
"""Words a conjunct of a condition holds, with no value read in it, for it to be a condition of its own
("only with 3 months free and the landlord covering the fit-out": the fit-out is no term's value)."""


def _unread_conjunct(draft: Draft, hits: Sequence[Hit], start: int, end: int) -> bool:
    """Whether the condition [start, end) holds a conjunct of some words in which no value was read."""
    read = [(h.start, h.end) for h in hits if start <= h.start < end]
    position = start
    for gap in [*_CONJUNCTION.finditer(draft.text, start, end), None]:
        stop = gap.start() if gap is not None else end
        words = draft.text[position:stop].split()
        if len(words) >= _CONJUNCT_WORDS and not any(position <= a < stop for a, _ in read):
            return True
        position = gap.end() if gap is not None else end
    return False


def _forms_read(
    draft: Draft,
    hits: list[Hit],
    others: list[tuple[int, str]],
    covered: list[int],
    quoted: list[str],
) -> None:
    for form in condition_form_matches(draft.text.lower()):
        sentence = draft.sentence_at(form.start)
        if sentence is None or is_question(sentence.text):
            continue
        inside = [
            i
            for i, h in enumerate(hits)
            if form.start <= h.start < form.end and h.term is not UNCLAIMED and h.role in ("own", "condition")
        ]
        named = [i for i in inside if names_term(draft, hits[i], form.start, form.end)]
        for i in inside:
            hits[i] = replace(hits[i], role="condition" if i in named else "aside")
        covered.append(form.marker)
        if named and _unread_conjunct(draft, hits, form.start, form.end):
            quoted.append(draft.text[form.start : form.end].strip(" .,;:!"))  # fail closed: read as written
        if not named and not any(form.start <= offset < form.end for offset, _ in others):
            text = draft.text[form.start : form.end].strip(" .,;:!")
            if text and not cues().search("empty_condition", text.lower()):
                others.append((form.start, text))


def _proposals_read(
    draft: Draft, hits: list[Hit], others: list[tuple[int, str]], covered: list[int], ends: dict[int, int]
) -> None:
    """A question that proposes terms and then states a condition ("Would you do 108 if I can start on
    January 4?"): the condition's values are conditions of the proposal, not asked about. A question
    that opens with its condition ("If we gave you 2 months free, would ...?") stays a hypothesis."""
    for clause in draft.clauses():
        sentence = draft.sentences[clause.sentence]
        opener = _opener(clause)
        if opener is None or not is_question(sentence.text) or clause.start <= sentence.start:
            continue
        proposed = any(
            sentence.start <= h.start < clause.start and h.role == "own" and h.term is not UNCLAIMED
            for h in hits
        )
        if not proposed:
            continue
        end = ends.get(clause.start, clause.end)
        begin = clause.start + opener
        body = draft.text[begin:end].strip(" .,;:!?")
        inside = [i for i, h in enumerate(hits) if clause.start <= h.start < end and h.term is not UNCLAIMED]
        named = [i for i in inside if names_term(draft, hits[i], begin, end)]
        for i in named:
            hits[i] = replace(hits[i], role="condition")
        if named:
            covered.append(clause.start)
        elif body and not cues().search("empty_condition", body.lower()):
            covered.append(clause.start)
            others.append((begin, body))
        # else nothing was read from it ("9 if ?"): the guard quotes it


def _opener(clause: Clause) -> int | None:
    """The length of the condition word a clause opens with ("if", "provided", "as long as"), if any."""
    lowered = clause.text.lower()
    stripped = lowered.lstrip(" \"'(")
    lead = len(lowered) - len(stripped)
    for frame in sorted(cues().condition_frames, key=len, reverse=True):
        if stripped.startswith(frame + " "):
            return lead + len(frame)
    return None


def _continued_read(draft: Draft, hits: list[Hit]) -> list[int]:
    """A value stated right after a condition that names its term ("only in case the company pays the
    relocation from Porto, I estimate around 14.000"): the value is that condition's, and the condition
    is read on the term rather than as text. Returns the starts of the conditional clauses so read."""
    attached: list[int] = []
    clauses = list(draft.clauses())
    for i, hit in enumerate(hits):
        clause = draft.clause_at(hit.start)
        if hit.role != "own" or hit.term is UNCLAIMED or clause is None or clause not in clauses:
            continue
        position = clauses.index(clause)
        previous = clauses[position - 1] if position > 0 else None
        if previous is None or previous.sentence != clause.sentence or not condition_frame(previous):
            continue
        if "," not in draft.text[previous.end - 1 : clause.start + 1]:
            continue
        keywords = [keyword_pattern(k) for k in hit.term.keywords]
        if any(k.search(clause.text.lower()) for k in keywords):
            continue  # the value's own clause names its term: no continuation
        if any(k.search(previous.text.lower()) for k in keywords):
            hits[i] = replace(hit, role="condition")
            attached.append(previous.start)
    return attached


_PLURAL = re.compile(r"\b(?:these|those|both|them|all)\b")
"""An anaphoric condition pointing back to several things ("if you can accept these"): they may lie
further back than the sentence before, so the principal also reads it as written."""


def _anaphora_read(draft: Draft, hits: list[Hit], ends: dict[int, int], quoted: list[str]) -> list[int]:
    attached: list[int] = []
    for clause in draft.clauses():
        if not condition_frame(clause) or is_question(draft.sentences[clause.sentence].text):
            continue
        _, body = _body(draft, clause, ends.get(clause.start, clause.end))
        if not _anaphoric(draft, clause, body):
            continue
        pointed = _pointed_to(draft, clause, hits)
        for i in pointed:
            hits[i] = replace(hits[i], role="condition")
        if pointed:
            attached.append(clause.start)
            if _PLURAL.search(body.lower()):
                sentence = draft.sentences[clause.sentence]
                quoted.append(sentence.text.strip(" .,;:!"))
    return attached


_TIE_LEAD = re.compile(
    r"(?:^|[.;:,!?(\u2014\u2013]\s*|\b(?:but|and|so|or|then|whereas|while)\s+)(?P<p>with|at|for|on)\s+"
    r"(?:a\s+|an\s+|the\s+)?(?:[\w-]+\s+){0,2}$"
)
"""Before a value, the preposition that ties it to the value of another term after it ("with 90 days
its 2.05", "at 2,000 units 11.20", "for a 5-year term, 8,900"; group "p")."""
_TIE_ARROW = re.compile(r"\u2192|->|=>|\u21d2")
"""Between two values, an arrow that ties the one before to the one after ("remote 3 days → 95k")."""
_TIE_BREAK = re.compile(
    r"[\n;!?]|\.(?!\d)|\b(?:and|or|but|if|plus|unless|provided|not|no|nor|than|instead|vs|versus|per)\b|[&+/]"
)
"""In the gap between two values, what keeps them apart: a sentence stop, a conjunction, a negation, a
comparison or a rate's "per"."""
_TIE_COPULA = re.compile(
    r"^\s*(?:would be|will be|is|are|'s|it's|its|it is|at|for|gets?|means?|:|=|,)\s*"
    r"(?:about\s+|around\s+)?[$\u20ac\u00a3]?\s*$"
)
"""Between two values with no preposition before them, what ties them when both restate terms given a
value before ("3 yrs would be 6.5k")."""
_TIE_GAP = 40
_TIE_WORDS = 6
_COMMITMENT = re.compile(
    r"^\W*(?:for|with|against)\s+(?:a|an|the)\s*$|^\W*(?:\u2014|\u2013|-|,)?\s*(?:for|with)\s+(?:a|an)\s*$"
)
_COMMITMENT_AFTER = re.compile(r"^[\s-]*(?:[\w-]+[\s-]+)?(?:commitment|lock-?in|minimum commitment)\b")


def _tie_candidates(hits: Sequence[Hit]) -> list[int]:
    return sorted(
        (i for i, h in enumerate(hits) if h.term is not UNCLAIMED and h.role in ("own", "condition")),
        key=lambda i: hits[i].start,
    )


def _tied_read(draft: Draft, hits: list[Hit]) -> list[str]:
    """Read the ties between two values of different terms that no condition word marks (see the module
    docstring). Returns the quotes; changes the roles of hits in place. One pass over neighbouring values:
    linear in the message."""
    text = draft.text.lower()
    order = _tie_candidates(hits)
    quotes: list[str] = []
    seen_values: dict[str, list[tuple[int, object]]] = {}
    for i in order:
        seen_values.setdefault(hits[i].term.name, []).append((hits[i].start, hits[i].low))
    for i, j in itertools.pairwise(order):
        first, second = hits[i], hits[j]
        if first.term.name == second.term.name or first.start >= second.start:
            continue
        if _committed(text, first, second):
            hits[j] = replace(second, role="condition")
            continue
        gap = text[first.end : second.start]
        if len(gap) > _TIE_GAP or len(gap.split()) > _TIE_WORDS or _TIE_BREAK.search(gap):
            continue
        sentence = draft.sentence_at(first.start)
        if sentence is None or is_question(sentence.text):
            continue
        reach = max(sentence.start, first.start - 30)
        lead = _TIE_LEAD.search(text[reach : first.start])
        arrow = _TIE_ARROW.search(gap)
        tied = arrow is not None or (lead is not None and _tie_lead(lead.group("p"), first))
        by_lead = arrow is None and lead is not None and tied
        begin = reach + lead.start("p") if by_lead and lead is not None else first.start
        restated = _restated(seen_values, first, begin) and _restated(seen_values, second, begin)
        if not tied and not (restated and _TIE_COPULA.match(gap)):
            continue  # "3 yrs would be 6.5k" after "6k ... with a 5-yr commitment" is a tie too
        if restated or _restated(seen_values, second, begin):
            # an alternative to what was offered before it: neither value is on offer
            hits[i] = replace(first, role="aside")
            hits[j] = replace(second, role="aside")
        quote = draft.text[begin : second.end].strip(" .,;:!")
        if quote and quote not in quotes:
            quotes.append(quote)
    return quotes


def _restated(seen: dict[str, list[tuple[int, object]]], hit: Hit, before: int) -> bool:
    """Whether hit's term was given another value before offset before."""
    return any(at < before and value != hit.low for at, value in seen.get(hit.term.name, []))


def _tie_lead(preposition: str, hit: Hit) -> bool:
    """Whether a preposition before a value ties it to what follows: "at" is how a price or a rate is
    stated ("at $5.10") and "on" how a date is ("on January 4"), so neither ties those."""
    if preposition == "at" and hit.term.shape == "money":
        return False
    return not (preposition == "on" and hit.term.shape == "date")


def _committed(text: str, value: Hit, commitment: Hit) -> bool:
    """Whether commitment is a duration the counterparty asks to be committed to in return for value
    ("8,500 for a 10-year commitment"): a condition on commitment's term."""
    if commitment.start <= value.end or commitment.term.shape != "duration":
        return False
    gap = text[value.end : commitment.start]
    if len(gap) > _TIE_GAP or "\n" in gap:
        return False
    lead = gap.split("\u2014")[-1] if "\u2014" in gap else gap
    return bool(
        _COMMITMENT.search(lead) and _COMMITMENT_AFTER.match(text[commitment.end : commitment.end + 30])
    )


_CONJOINED = re.compile(r"^\W*(?:and|or|as well as)\W*$")
_CONJOINED_OPENER = re.compile(r"^\W*(?:that|provided|if|as long as|so long as|on condition)\b\s*")


_CONJUNCT_SUBJECT = re.compile(
    r"^\W*(?:the |our |your |its |their |all )?(?!(?:we|i|you|they|he|she|it|this|that|there|then|so)\b)"
    r"[a-z][\w-]*(?: [a-z][\w-]*)? (?:is|are|stays?|remains?|will be|would be|be|runs?)\b"
)
"""A conjunct with a subject of its own that is no party, and no modal ("... that the order is placed by the
20th and payment is net 30"): after a condition that opened with "that", the condition goes on."""
_CONJUNCT_PARTY = re.compile(
    r"^\W*(?:you|they|your (?:client|side|company|team|firm)|the (?:client|buyer|tenant|candidate|customer))"
    r" (?:also |still |both )?(?!(?:will|would|shall|should|can|could|may|might|must|hear|get|are|were|was"
    r"|have|had|did|do|don't|didn't|need|want|know|see|let|look|feel|say|said|think|tell)\b)"
    r"[a-z]+(?<!ed)(?<!ing)\b"
)
"""A conjunct whose subject is the other side, in the present tense with no modal ("if the warranty is 24
months and you take the full 9,000"): it states what the condition asks of them, so it goes on with it.
A modal or a courtesy ("and you'll hear from us by Friday", "and you get back to me") begins a clause of
its own."""


def _conditional(clause: Clause) -> bool:
    """Whether clause is a condition: opened by a condition word, or holding one that ends it ("but that
    is on the assumption that the deposit stays at three months")."""
    if condition_frame(clause):
        return True
    cue = cues().search("condition_inside", clause.text.lower())
    return cue is not None and "," not in clause.text[cue.end() :].rstrip(" ,")


def _conjunct(text: str, clause: Clause, framed: bool) -> re.Match[str] | None:
    """How a clause goes on with a condition before it (the match of its opener or subject), if it does:
    an opener ("and that ..."), a subject of its own that is no party, or, after a frame such as "if",
    the other side in the present tense ("and you take the full 9,000")."""
    body = text[clause.start : clause.end]
    found = _CONJOINED_OPENER.match(body) or _CONJUNCT_SUBJECT.match(body)
    if found is None and framed:
        found = _CONJUNCT_PARTY.match(body)
    return found


def _conjoined_read(draft: Draft, hits: list[Hit], others: list[tuple[int, str]], covered: list[int]) -> None:
    """A clause joined by "and" (or "and that") to the conditional clause before it in its sentence is part
    of that condition, and so is each conjunct of a list ("provided delivery is 6 weeks, the warranty is 24
    months and you order 12,000 units"): a comma joins a conjunct when an "and" closes the list (see the
    module docstring)."""
    clauses = list(draft.clauses())
    text = draft.text.lower()
    condition: Clause | None = None  # the conditional clause the conjuncts go on with
    for position, clause in enumerate(clauses):
        previous = clauses[position - 1] if position > 0 else None
        if previous is None or previous.sentence != clause.sentence:
            condition = None
        elif _conditional(previous):
            condition = previous
        if condition is None or previous is None or clause is condition:
            continue
        framed = condition_frame(condition)
        gap = text[previous.end : clause.start]
        joined = _CONJOINED.match(gap) is not None or (
            _LISTED.match(gap) is not None and _closes_list(text, clauses, position, framed)
        )
        found = _conjunct(text, clause, framed) if joined else None
        if found is None:
            condition = None
            continue
        opener = _CONJOINED_OPENER.match(text[clause.start : clause.end])
        begin = clause.start + (opener.end() if opener is not None else 0)
        inside = [
            i
            for i, h in enumerate(hits)
            if clause.start <= h.start < clause.end and h.term is not UNCLAIMED and h.role == "own"
        ]
        named = [i for i in inside if names_term(draft, hits[i], begin, clause.end)]
        for i in named:
            hits[i] = replace(hits[i], role="condition")
        covered.append(clause.start)
        body = draft.text[begin : clause.end].strip(" .,;:!")
        if not named and body and all(offset != begin for offset, _ in others):
            others.append((begin, body))


_LISTED = re.compile(r"^\s*,\s*$")
"""Between two conjuncts of a list, a comma alone."""
_LIST_REACH = 8
"""Clauses a list of conjuncts may run on after one of them before its closing "and"."""


def _closes_list(text: str, clauses: Sequence[Clause], position: int, framed: bool) -> bool:
    """Whether the conjuncts after clauses[position] (joined by commas) end with one joined by "and", within
    a few clauses (so a long message reads in linear time)."""
    for later in range(position + 1, min(len(clauses), position + 1 + _LIST_REACH)):
        before, clause = clauses[later - 1], clauses[later]
        if clause.sentence != before.sentence or _conjunct(text, clause, framed) is None:
            return False
        gap = text[before.end : clause.start]
        if _CONJOINED.match(gap):
            return True
        if not _LISTED.match(gap):
            return False
    return False


@cache
def _absence_forms() -> tuple[re.Pattern[str], ...]:
    raw = load_yaml_data("term_cues.yaml")
    return tuple(re.compile(str(p)) for p in raw["absence_forms"])


def _absence_read(
    draft: Draft, hits: list[Hit], covered: list[int], quoted: list[str], vocabulary: Sequence[TermDef]
) -> None:
    """A refusal to commit unless something is absent ("We agree to everything except the penalty clause",
    "we won't sign with any late penalty"), in a message that accepts other terms: a term's value of
    nothing named in it is a condition; what names no term is quoted as written (fail closed)."""
    text = draft.text.lower()
    for pattern in _absence_forms():
        for found in pattern.finditer(text):
            start, end = found.span("x")
            sentence = draft.sentence_at(start)
            if sentence is None or any(c.isdigit() for c in found.group("x")):
                continue  # a figure after "not with" is an ellipsis the guard reads ("not with 5k pieces")
            if is_question(sentence.text):  # "is everything fine except the penalty?" states nothing
                for i, h in enumerate(hits):
                    if found.start() <= h.start < end and h.low == 0 and h.role == "own":
                        hits[i] = replace(h, role="aside")
                continue
            outside = text[: found.start()] + " " + text[found.end() :]
            others = [h for h in hits if not found.start() <= h.start < end and h.role == "own"]
            accepts = cues().search("absence_accepts", outside) is not None
            absent = [
                i
                for i, h in enumerate(hits)
                if found.start() <= h.start < end and h.low == 0 and h.role == "own"
            ]
            if not absent and not accepts:
                continue  # "open every day except Sunday": nothing taken, nothing left out
            if absent and not (accepts or others):
                continue
            named = found.group("x")
            if not absent and any(keyword_pattern(k).search(named) for t in vocabulary for k in t.keywords):
                continue  # "yes to everything except the rent": the rent is still in dispute
            for i in absent:
                if not any(h.role == "condition" and h.term.name == hits[i].term.name for h in hits):
                    hits[i] = replace(hits[i], role="condition")  # one condition a term, however often said
            covered.append(found.start())
            if not absent:
                quoted.append(draft.text[found.start() : end].strip(" .,;:!\u2014\u2013"))


@cache
def _descriptive() -> frozenset[str]:
    raw = load_yaml_data("term_cues.yaml")
    return frozenset(str(name) for name in raw.get("descriptive_terms", []))


def _descriptive_read(
    draft: Draft, hits: list[Hit], others: list[tuple[int, str]], ends: dict[int, int]
) -> None:
    """A condition on a descriptive term is read as text on no term (see the module docstring)."""
    names = _descriptive()
    for i, hit in enumerate(hits):
        if hit.role != "condition" or hit.term.name not in names:
            continue
        hits[i] = replace(hit, role="own")
        clause = draft.clause_at(hit.start)
        if clause is None:
            continue
        begin, body = _body(draft, clause, ends.get(clause.start, clause.end))
        if body and all(offset != begin for offset, _ in others):
            others.append((begin, body))

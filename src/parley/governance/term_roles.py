"""What part a value plays in a counterparty message, for the term reader (`governance.terms`).

A value is the counterparty's own term ("own"), a condition it attaches ("condition"), another party's
offer it reports ("competing"), the principal's figure quoted back ("theirs"), one it sets aside ("not
$9.51": "rejected") or replaces ("I had written 5,700": "old"), a total of parts ("total"), or no term
at all ("aside": the market, the past, a hypothesis, a question about the principal's position). Every
decision reads the parsed message (`governance.draft`: clauses and their mood) and the cue lexicon
(`data/term_cues.yaml`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from parley.governance.draft import Clause, Draft
from parley.governance.term_figures import Figure, OptionMention, cues
from parley.governance.term_vocabulary import TermDef

TermValue = float | str
Role = Literal["own", "condition", "competing", "theirs", "rejected", "old", "total", "aside"]


@dataclass(frozen=True, slots=True)
class Hit:
    """A value attributed to a term, with the part it plays in the message (offsets into the draft)."""

    term: TermDef
    low: TermValue
    high: TermValue
    start: int
    end: int
    confidence: float
    role: Role = "own"
    figure: Figure | None = None


UNCLAIMED = TermDef("_figure", "figure", "money")
"""Stands for a figure no term claims (a total, a per-area rate without an area)."""


def rate_total(hit: Hit) -> bool:
    """A total per period of a rate term is that rate ("total annual rent comes to $126,000")."""
    figure = hit.figure
    return (
        figure is not None
        and hit.term.unit is not None
        and hit.term.shape == "money"
        and bool(figure.per or figure.context_per)
    )


def is_total(draft: Draft, figure: Figure) -> bool:
    """Whether the figure is said to be a total ("$150,000 in total", "comes to $18,400")."""
    text = draft.text.lower()
    clause = draft.clause_at(figure.start)
    begin = clause.start if clause is not None else max(0, figure.start - 40)
    sentence = draft.sentence_at(figure.start)
    headed = sentence is not None and _TOTAL_HEADING.match(text[sentence.start : figure.start]) is not None
    return bool(
        headed
        or cues().search("total_before", text[begin : figure.start])
        or cues().search("total_after", text[figure.end : figure.end + 20])
    )


_TOTAL_HEADING = re.compile(
    r"^\W*(?:the\s+|our\s+)?(?:total|grand total|all-in|all in)\b[^:;.!?$]{0,80}?"
    r"(?::|\s(?:is|are|would be|will be|comes? to|works? out to|at|of|=))\s*$"
)
"""A sentence headed by a total ("Total for 2,500 brackets: $11,250"): the figure after the colon."""


def role(draft: Draft, hit: Hit) -> Role:
    """The part hit plays in the message (see the module docstring); the first rule that applies wins."""
    if hit.role == "aside":
        return "total" if hit.figure is not None and is_total(draft, hit.figure) else "aside"
    clause = draft.clause_at(hit.start)
    sentence = draft.sentence_at(hit.start)
    if clause is None or sentence is None:
        return "own"
    text = draft.text.lower()
    before = text[max(clause.start, hit.start - 60) : hit.start]
    after = text[hit.end : min(clause.end, hit.end + 40)]
    c = cues()
    if c.search("old_before", before):
        return "rejected"
    if is_question(sentence.text) and (
        _asks_about(clause, before, after) or _opens_with_condition(draft, clause)
    ):
        return "aside"
    if (c.search("theirs_before", before) and not c.search("accepting_before", before)) or c.search(
        "theirs_after", after
    ):
        return "theirs"
    if _competing(draft, clause):
        return "competing"
    if (
        hypothetical(draft, clause, sentence.text)
        or clause.mood == "past"
        or c.search("context", _segment(draft, clause, hit))
    ):
        return "aside"
    if (
        hit.figure is not None
        and hit.figure.kind in ("money", "number")  # "Total for the 2,500 units": the count is no total
        and is_total(draft, hit.figure)
        and not rate_total(hit)
    ):
        return "total"
    if c.search("old_clause", clause.text.lower()):
        return "old"
    if _in_condition(draft, clause, hit.start):
        return "condition"
    return "own"


_SEGMENT_BREAK = re.compile(r"[,;\u2013\u2014]|\s-\s")


def _segment(draft: Draft, clause: Clause, hit: Hit) -> str:
    """The part of the clause between the commas around the value (lower case)."""
    text = draft.text[clause.start : clause.end].lower()
    start, end = hit.start - clause.start, hit.end - clause.start
    before = [m.end() for m in _SEGMENT_BREAK.finditer(text, 0, max(0, start))]
    after = _SEGMENT_BREAK.search(text, end)
    return text[(before[-1] if before else 0) : (after.start() if after else len(text))]


def is_question(sentence: str) -> bool:
    """Whether the sentence ends with a question mark."""
    return sentence.rstrip().rstrip("\"')").endswith("?")


def _asks_about(clause: Clause, before: str, after: str) -> bool:
    """Whether a value in a question is asked about rather than proposed ("is 8 weeks a hard requirement
    on your side?" asks; "would a 0.75% weekly penalty work for you?" proposes)."""
    lowered = clause.text.lower().lstrip(" \"'(")
    if clause.mood == "conditional" or lowered.startswith(
        ("if ", "suppose ", "supposing ", "say ", "what if ")
    ):
        return True  # "if your client took 3,000 sq ft, what would the rent be?"
    opener, _, rest = lowered.partition(" ")
    if opener in ("what", "what's", "which", "when", "where", "who", "why") and not rest.startswith("about"):
        return True  # "what would the total package look like at 105?"
    if cues().search("asking_about", before + " " + after) is not None:
        return True
    yes_no = opener in ("is", "are", "was", "were", "does", "do", "did", "has", "have")
    return yes_no and (" your " in f" {lowered} " or opener in ("did", "was", "were"))


def _opens_with_condition(draft: Draft, clause: Clause) -> bool:
    """Whether the question clause's sentence opens with a condition ("If we gave you 2 months free,
    would your client do 5 years?"): a hypothesis, whose values are all asked about."""
    first = draft.sentences[clause.sentence].clauses[0]
    opener = first.text.lower().lstrip(" \"'(").split(" ", 1)[0]
    return opener in ("if", "suppose", "supposing", "say", "assuming")


def _competing(draft: Draft, clause: Clause) -> bool:
    """Whether a value reports another party's offer: its clause names a competitor (or follows one
    after a colon: "she has an offer from Google: 130k base") and the sentence an offer."""
    c = cues()
    sentence = draft.sentences[clause.sentence].text.lower()
    if c.search("offer_verb", sentence) is None:
        return False
    if c.search("competitor", clause.text.lower()) is not None:
        return True
    if c.search("competitor_named", clause.text) is not None:
        return True
    clauses = [k for k in draft.clauses() if k.sentence == clause.sentence]
    position = clauses.index(clause)
    if position == 0:
        return False
    previous = clauses[position - 1]
    after_colon = ":" in draft.text[previous.end - 1 : clause.start]
    return after_colon and c.search("competitor", previous.text.lower()) is not None


def hypothetical(draft: Draft, clause: Clause, sentence: str) -> bool:
    frames = cues().hypothetical_frames
    if clause.mood == "conditional" and (clause.frame in frames or is_question(sentence)):
        return True
    return any(c.frame in frames for c in draft.clauses() if c.sentence == clause.sentence)


def condition_frame(clause: Clause) -> bool:
    frame = clause.frame.lower().removeprefix("only ").removeprefix("even ").strip()
    return clause.mood == "conditional" and (
        frame in cues().condition_frames or clause.frame.lower() in cues().condition_frames
    )


def _condition_clause(draft: Draft, clause: Clause) -> bool:
    """An if-clause, or a clause of time that continues one ("if she can start | before March 1")."""
    if condition_frame(clause):
        return True
    clauses = [c for c in draft.clauses() if c.sentence == clause.sentence]
    position = clauses.index(clause)
    while position > 0 and clause.mood == "conditional" and clause.frame.lower() in TIME_FRAMES:
        position -= 1
        clause = clauses[position]
        if condition_frame(clause):
            return True
    return False


TIME_FRAMES = frozenset({"before", "after", "until", "till", "by", "when", "once", "whenever", "as soon as"})


_MAIN_CLAUSE = re.compile(
    r"\b(?:we|i|they|he|she|the landlord|the owner)(?:'ll|'d| will| would| can| could| shall| might)\b"
)


def _in_condition(draft: Draft, clause: Clause, offset: int) -> bool:
    """Whether offset lies in a condition: an if-clause (up to its main clause when no comma divides
    them: "if you can take 20,000 units we'll drop to $9.10"), after "contingent on", a requirement
    after "but", or a term the next clause says the deal cannot go ahead without."""
    if _condition_clause(draft, clause):
        begin = clause.frame_start + len(clause.frame)
        body = draft.text[begin : clause.end].lower()
        subject = len(body) - len(body.lstrip()) + len(" ".join(body.split()[:2]))
        main = _MAIN_CLAUSE.search(body, subject) if clause.frame_start == clause.start else None
        opening = clause.frame_start == draft.sentences[clause.sentence].start
        comma = _PHRASE_END.search(body, subject) if opening else None  # "If you sign for 5 years, ..."
        ends = [m.start() for m in (main, comma) if m is not None]
        return not ends or offset < begin + min(ends)
    lowered = draft.text.lower()
    inside = cues().search("condition_inside", lowered[clause.start : offset])
    if inside is not None:
        # "Subject to the lender's consent, rent is $10,200": the condition ends at its comma
        return _PHRASE_END.search(lowered, clause.start + inside.end(), offset) is None
    clauses = [c for c in draft.clauses() if c.sentence == clause.sentence]
    position = clauses.index(clause)
    if position > 0 and _after_contrast(draft, clauses[position - 1], clause):
        return bool(cues().search("requirement", clause.text.lower()))
    following = clauses[position + 1] if position + 1 < len(clauses) else None
    return following is not None and bool(cues().search("consequence", following.text.lower()))


_PHRASE_END = re.compile(r"[,;]\s")
"""Where a condition opened inside a clause ("subject to", "contingent on") ends."""


def _after_contrast(draft: Draft, previous: Clause, clause: Clause) -> bool:
    gap = draft.text[previous.end : clause.start].lower()
    return " but" in f" {gap}" or clause.text.lower().startswith("but ")


def other_conditions(draft: Draft, hits: Sequence[Hit]) -> list[tuple[int, str]]:
    """Conditions that name no term's value ("assuming the background check clears"), each with the
    offset of its clause."""
    found: list[tuple[int, str]] = []
    ends = condition_ends(draft)
    frames = cues().hypothetical_frames
    framed = {c.sentence for c in draft.clauses() if c.frame in frames}
    for clause in draft.clauses():
        sentence = draft.sentences[clause.sentence]
        if not condition_frame(clause) or is_question(sentence.text):
            continue
        if clause.sentence in framed or (clause.mood == "conditional" and clause.frame in frames):
            continue  # a hypothesis (`hypothetical`), read once per sentence
        end = ends.get(clause.start, clause.end)
        if any(clause.start <= h.start < end and h.term is not UNCLAIMED and h.role != "aside" for h in hits):
            continue
        if cues().search(
            "whether_before", draft.text[max(0, clause.frame_start - 30) : clause.frame_start].lower()
        ):
            continue  # "let me know if that's a problem": "if" is "whether"
        body = draft.text[clause.frame_start + len(clause.frame) : end].strip(" .,;:!")
        if body and not cues().search("empty_condition", body.lower()):
            found.append((clause.start, body))
    return found + inline_conditions(draft, hits)


def inline_conditions(draft: Draft, hits: Sequence[Hit]) -> list[tuple[int, str]]:
    """Conditions inside a clause that name no value ("100k base, subject to references"), each with
    the offset of its cue."""
    found: list[tuple[int, str]] = []
    for clause in draft.clauses():
        if condition_frame(clause) or is_question(draft.sentences[clause.sentence].text):
            continue
        cue = cues().search("condition_inside", clause.text.lower())
        if cue is None:
            continue
        begin = clause.start + cue.start()
        if any(begin <= h.start < clause.end and h.term is not UNCLAIMED and h.role != "aside" for h in hits):
            continue
        body = clause.text[cue.start() :].strip(" .,;:!")
        if len(body.split()) > 2 and not cues().search("empty_condition", body.lower()):
            found.append((begin, body))
    return found


def condition_ends(draft: Draft) -> dict[int, int]:
    """`condition_end` of every clause (by its start offset), in one backward pass."""
    ends: dict[int, int] = {}
    following: Clause | None = None
    for clause in reversed(list(draft.clauses())):
        continues = (
            following is not None
            and following.sentence == clause.sentence
            and following.mood == "conditional"
            and following.frame.lower() in TIME_FRAMES
        )
        ends[clause.start] = ends[following.start] if continues and following is not None else clause.end
        following = clause
    return ends


def condition_end(draft: Draft, clause: Clause) -> int:
    """Where a condition ends: its clause, and the clauses of time that continue it."""
    end = clause.end
    for following in draft.clauses():
        if following.sentence == clause.sentence and following.start >= end:
            if following.mood == "conditional" and following.frame.lower() in TIME_FRAMES:
                end = following.end
                continue
            break
    return end


def absorbed(option: OptionMention, figures: Sequence[Hit]) -> bool:
    """Whether an option phrase is part of a figure of another term ("remote 3 days/week", "two remote
    days": neither says where the candidate works)."""
    word = option.value.lower()
    for hit in figures:
        if hit.start < option.end and option.start < hit.end and hit.term.name != option.term:
            return True
        near = hit.start - 12 <= option.end and option.start <= hit.end + 12
        if near and word in {k.lower() for k in hit.term.keywords} and hit.term.name != option.term:
            fully = (
                isinstance(hit.high, float)
                and hit.term.typical is not None
                and hit.high >= hit.term.typical[1]
            )
            return not fully
    return False

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

_PRICED_FOR = re.compile(
    r"\byour\s+(?:\w+\s+)?(?:price|prices|pricing|quote|quotation|offer|bid)\s+(?:for|on)\s+(?:the\s+|a\s+|an\s+)?$",
    re.IGNORECASE,
)
"""(issue 17, sets heldout_terms, v7 and v13) A count right after "price for" is the quantity to be priced
("your best price for 2,000 units", "your quote for 20,000 pieces?"): the volume put forward, neither the
principal's figure quoted back nor one a question asks about."""

TermValue = float | str
Role = Literal[
    "own", "condition", "competing", "theirs", "rejected", "old", "total", "aside", "implied", "alt"
]
"""The part a value plays; "alt" is a reading the rules did not make, offered to the trained model only
(`terms.TermReader.with_alternatives`)."""


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
    r"(?:(?<!\d)(?<!\d[kK]):|\s(?:is|are|would be|will be|comes? to|works? out to|at|of|=))\s*$"
)
"""A sentence headed by a total ("Total for 2,500 brackets: $11,250"): the figure after the colon (not
after a colon that follows the total itself: "Total package 135k: 120k base, the rest as a bonus")."""


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
    if c.search("old_before", before) or (c.search("change_from", before) and _CHANGE_TO.match(after)):
        return "rejected"  # "not $9.51", "base goes from 104k to 109k"
    if hit.figure is not None and (c.search("cap_before", before) or c.search("equivalent_before", before)):
        return "aside"  # "1% per week up to a maximum of 5%", "$70/hour, which works out to 145k a year"
    priced = hit.term.shape == "count" and _PRICED_FOR.search(before) is not None
    if is_question(sentence.text) and (
        (_asks_about(clause, before, after) and not priced)
        or _opens_with_condition(draft, clause)
        or _asks_yes_no(draft.sentences[clause.sentence].text)
    ):
        return "aside"
    money = hit.term.shape == "money"
    if (
        ((c.search("theirs_before", before) and not priced) or (money and c.search("theirs_money", before)))
        and not c.search("accepting_before", before)
        and not c.search("accepting_after", after)
    ) or (c.search("theirs_after", after) and not c.search("accepting_before", before)):
        return "theirs"
    if _competing(draft, clause):
        return "competing"
    if (
        hypothetical(draft, clause, sentence.text)
        or clause.mood == "past"
        or c.search("context", _segment(draft, clause, hit))
        or (hit.figure is not None and c.search("trade", _segment(draft, clause, hit)))
        or _beside(draft, clause, hit, "later_stage")
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


_CHANGE_TO = re.compile(r"\s*(?:to|->|\u2192)\s")
"""After the value a change starts from: where it goes ("from 104k to 109k")."""
_SEGMENT_BREAK = re.compile(r"[,;\u2013\u2014]|\s-\s")


def _segment(draft: Draft, clause: Clause, hit: Hit) -> str:
    """The part of the clause between the commas around the value (lower case)."""
    begin, end = _segment_span(draft, clause, hit)
    return draft.text[begin:end].lower()


def _segment_span(draft: Draft, clause: Clause, hit: Hit) -> tuple[int, int]:
    """The offsets of `_segment`."""
    text = draft.text[clause.start : clause.end].lower()
    start, end = hit.start - clause.start, hit.end - clause.start
    before = [m.end() for m in _SEGMENT_BREAK.finditer(text, 0, max(0, start))]
    after = _SEGMENT_BREAK.search(text, end)
    return clause.start + (before[-1] if before else 0), clause.start + (
        after.start() if after else len(text)
    )


def _beside(draft: Draft, clause: Clause, hit: Hit, cue: str) -> bool:
    """Whether cue stands in the value's segment with no other amount between it and the value ("rising
    to $75 thereafter"; not the "$62/hour" of "$62/hour for the first six months and convert to perm at
    126k after that")."""
    begin, end = _segment_span(draft, clause, hit)
    lowered = draft.text.lower()
    for match in cues().patterns[cue].finditer(lowered, begin, end):
        low, high = (match.end(), hit.start) if match.end() <= hit.start else (hit.end, match.start())
        if not any(low <= a.start < high for a in draft.amounts):
            return True
    return False


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
    if opener in ("is", "are") and rest.startswith(_INDEFINITE):
        return False  # "Is a 2-month deposit acceptable to your client?": it proposes the deposit
    return yes_no and (" your " in f" {lowered} " or opener in ("did", "was", "were"))


_YES_NO = ("is", "are", "was", "were", "does", "do", "did", "has", "have")


def _asks_yes_no(sentence: str) -> bool:
    """Whether a question sentence asks about the other side's position or the past ("Has your client
    decided between the 2,000 and the 3,000 sq ft options?"), whichever of its clauses holds a value."""
    lowered = sentence.lower().lstrip(" \"'(")
    opener, _, rest = lowered.partition(" ")
    if opener in ("is", "are") and _ALTERNATIVE.search(lowered):
        return True  # "Is the $5,200 before or after service charges?": which of two readings holds
    if opener in ("is", "are", "was", "were") and rest.startswith(_DEFINITE):
        return True  # "Is the 15k sign-on still on the table?": it asks about a figure already named
    if opener in ("is", "are") and rest.startswith(_INDEFINITE):
        return False  # "Is a deposit of one month doable, given your client's credit?": it proposes one
    return opener in _YES_NO and (" your " in f" {lowered} " or opener in ("did", "was", "were"))


_DEFINITE = ("the ", "that ", "this ", "these ", "those ")
_INDEFINITE = ("a ", "an ")
_ALTERNATIVE = re.compile(r"\bor\b")
"""In a question opened by "is"/"are": it asks which of two things holds of what it names ("is the 12k
relocation taxable or grossed up?", "is 3 days a dealbreaker or could she live with 2?")."""


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
    gap = draft.text[previous.end - 1 : clause.start]
    if ":" in gap:
        return c.search("competitor", previous.text.lower()) is not None
    # "a written offer elsewhere at 124k, start January 4", "The other supplier wants prepayment but is
    # at 1.10": a clause without a subject of its own goes on listing the competing offer's terms
    joined = "," in gap or _CONJUNCTION.search(gap) is not None
    return joined and _SUBJECT_START.match(clause.text.lower()) is None and _competing(draft, previous)


_CONJUNCTION = re.compile(r"\b(?:and|but)\s*$", re.IGNORECASE)
"""A conjunction joining a clause without a subject to the one before it (they share the subject)."""


_SUBJECT_START = re.compile(
    r"^\W*(?:and |but |so |or |though |although |yet |while |whereas |however )?(?:we|i|you|our|my|your|"
    r"us|me|this|that|it|they|he|she|his|her|their|the \w+ (?:is|are|will|would|can)|what|how|why|if)\b"
)
"""A clause that opens with a subject or a contrast of its own (no continuation of a list of terms)."""


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
    r"|\b(?:can|could|will|would|shall|might) (?:we|i|they|he|she|the landlord|the owner)\b"
)
"""The main clause after an if-clause with no comma between ("if you can take 20,000 units we'll drop
to $9.10"), also inverted after "only if" ("Only if she signs by Friday can we hold the 119k")."""


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
        # "Subject to the lender's consent, rent is $10,200": the condition ends at its comma, and
        # "In exchange for a 10-year term the landlord will give 6 months free" at its main clause
        # ("In exchange for 36 months of warranty we need prepayment": what the main clause needs is
        # the condition, and what it is exchanged for is offered)
        begin = clause.start + inside.end()
        main = _INSIDE_MAIN.search(lowered, begin, offset)
        if main is not None:
            return main.group(1) in _NEEDING and _PHRASE_END.search(lowered, main.end(), offset) is None
        needing = _INSIDE_MAIN.search(lowered, offset, draft.sentences[clause.sentence].end)
        return _PHRASE_END.search(lowered, begin, offset) is None and not (
            needing is not None and needing.group(1) in _NEEDING
        )
    clauses = [c for c in draft.clauses() if c.sentence == clause.sentence]
    position = clauses.index(clause)
    if position > 0 and _elaborates(draft, clauses[position - 1], clause):
        return True  # "in exchange for an extra week of vacation — 25 days instead of 20"
    if position > 0 and _needed_in_exchange(draft, clauses[position - 1], clause):
        return True  # "In exchange for the 8k bonus, we'd need a start of 2027-01-04"
    consequence = cues().search("consequence", lowered[offset : clause.end])
    if (
        consequence is not None
        and not cues().search("condition_inside", lowered[offset : offset + consequence.start()])
        and not _offered_with(lowered, offset, offset + consequence.start())
    ):
        return True  # "but I need three remote days, otherwise no deal" (not "6,800 only works with ...")
    if position > 0 and _after_contrast(draft, clauses[position - 1], clause):
        return bool(cues().search("requirement", clause.text.lower()))
    following = clauses[position + 1] if position + 1 < len(clauses) else None
    if following is None:
        return False
    consequence = cues().search("consequence", following.text.lower())
    return (
        consequence is not None
        and not following.text[: consequence.start()].strip(" ,;:-\u2013\u2014")
        and not cues().search("condition_inside", lowered[offset : clause.end])
        and not _offered_with(lowered, offset, clause.end)
    )  # "6,800 only works with a turnkey delivery — otherwise ...": the delivery is the condition


_VALUE_TOKEN = re.compile(r"\S*")
_WITH_VALUE = re.compile(r"\s(?:with|on|for)\s+(?:a |an |the |one )?(?:[\w-]+ )?[$\u20ac\u00a3]?\d")


def _offered_with(lowered: str, offset: int, end: int) -> bool:
    """Whether the value at offset is what is offered with another value its clause requires before a
    consequence ("He'll take 102 with the 7k signing bonus; otherwise he stays at 106": the bonus is the
    condition, 102 the offer; "$3.95/unit on 20,000 units — otherwise $4.20")."""
    token = _VALUE_TOKEN.match(lowered, offset)
    begin = token.end() if token is not None else offset
    return begin < end and _WITH_VALUE.search(lowered, begin, end) is not None


_INSIDE_MAIN = re.compile(
    r"\b(?:we|i|they|the (?:landlord|owner|company|client|supplier|team)|ownership|management)"
    r"(?:(?:'ll|'d| will| would| can| could| shall| might| also| still)? (needs?|requires?|wants?)"
    r"|'ll|'d|'re| will| would| can| could| shall| might| are| offer| give| add)\b"
)
_NEEDING = frozenset({"need", "require", "want", "needs", "requires", "wants"})
"""The main clause after a condition opened inside a clause ("in exchange for X we can add Y"); "you"
is left out: after "provided" or "as long as" it is the condition's own subject."""
_PHRASE_END = re.compile(r"[,;]\s")
"""Where a condition opened inside a clause ("subject to", "contingent on") ends."""


_ELABORATION = re.compile(r"^\s*(?:[\u2013\u2014:]|\s-\s)")


def _elaborates(draft: Draft, previous: Clause, clause: Clause) -> bool:
    """Whether clause spells out, after a dash or colon, a condition the previous clause ends on ("I'd
    sign at 118 in exchange for an extra week of vacation — 25 days instead of 20")."""
    gap = draft.text[previous.end : clause.start]
    if not _ELABORATION.match(gap) or previous.end <= previous.start:
        return False
    lowered = draft.text.lower()
    inside = cues().search("condition_inside", lowered[previous.start : previous.end])
    if inside is None or condition_frame(previous):
        return False
    begin = previous.start + inside.end()
    return _PHRASE_END.search(lowered, begin, previous.end) is None and (
        _INSIDE_MAIN.search(lowered, begin, previous.end) is None
    )


def _needed_in_exchange(draft: Draft, previous: Clause, clause: Clause) -> bool:
    """Whether clause is the main clause that says what is needed in exchange for what the previous
    clause offers ("In exchange for net 90, we'd need the volume raised to 25k"): the need is the
    condition, what it is exchanged for is offered."""
    lowered = draft.text.lower()
    inside = cues().search("condition_inside", lowered[previous.start : previous.end])
    if inside is None or not _EXCHANGE_FOR.match(inside.group(0)):
        return False
    if _INSIDE_MAIN.search(lowered, previous.start + inside.end(), previous.end) is not None:
        return False
    main = _INSIDE_MAIN.match(lowered, clause.start + len(clause.text) - len(clause.text.lstrip()))
    return main is not None and main.group(1) in _NEEDING


_EXCHANGE_FOR = re.compile(r"in (?:exchange|return) for")


def _elaborated_end(draft: Draft, clause: Clause) -> int:
    """The end of clause, or of the next clause of its sentence when that one spells it out."""
    following = next((c for c in draft.clauses() if c.start >= clause.end), None)
    if (
        following is not None
        and following.sentence == clause.sentence
        and _elaborates(draft, clause, following)
    ):
        return following.end
    return clause.end


def _after_contrast(draft: Draft, previous: Clause, clause: Clause) -> bool:
    gap = f" {draft.text[previous.end : clause.start].lower()} "
    opener = clause.text.lower().split(" ", 1)[0]
    return any(f" {w} " in gap for w in _CONTRASTS) or opener in _CONTRASTS


_CONTRASTS = ("but", "though", "although", "however", "yet")


def follows_contrast(draft: Draft, clause: Clause) -> bool:
    """Whether clause follows a contrast in its sentence ("Net 90 is possible, but we'd need 2.80"): a
    requirement read there as a condition may be the price of what came before it as well."""
    clauses = [c for c in draft.clauses() if c.sentence == clause.sentence]
    position = clauses.index(clause) if clause in clauses else 0
    return position > 0 and _after_contrast(draft, clauses[position - 1], clause)


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
        end = _elaborated_end(draft, clause)
        if any(begin <= h.start < end and h.term is not UNCLAIMED and h.role != "aside" for h in hits):
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


_WHOLE_WEEK = {"remote": 1, "onsite": 0}
"""Where an option of where the work is done sits in the usual range of days a week worked from home: a
fully remote job is its top ("remote": 1), a fully onsite one its bottom ("onsite": 0)."""
_WEEKDAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_DAY_AFTER = re.compile(rf"\s+(?:days?|{_WEEKDAYS})\b")
_DAY_BEFORE = re.compile(rf"\b(?:{_WEEKDAYS}|(?:\d+|one|two|three|four)(?:\s+days?)?)\s+$")
"""A day noun right after the option's word ("remote days", "remote Fridays") or a count or weekdays
right before it ("Thursdays and Fridays remote", "1 onsite"): the word counts days, it names no place."""


def days_not_place(draft: Draft, option: OptionMention, figures: Sequence[Hit]) -> bool:
    """Whether an option that says the work is all remote or all onsite is only the word of a count of
    days a week in its sentence that says otherwise ("4 days remote", "remote dropping to 1 day",
    "we'd need her onsite four days a week", "How many remote days"): the count is the term, the
    word is no place of work."""
    side = _WHOLE_WEEK.get(option.value)
    if side is None:
        return False
    sentence = draft.sentence_at(option.start)
    counts = [
        (h.low, h.term.typical[side])
        for h in figures
        if h.term.unit == "days/week"
        and h.term.typical is not None
        and isinstance(h.low, float)
        and sentence is not None
        and draft.sentence_at(h.start) == sentence
    ]
    if counts:
        return any(days != whole for days, whole in counts)
    lowered = draft.text.lower()
    return bool(
        _DAY_AFTER.match(lowered, option.end, min(len(lowered), option.end + 12))
        or _DAY_BEFORE.search(lowered, max(0, option.start - 24), option.start)
    )


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

"""The allow-list of non-binding clause forms: when a binding cue may be discounted, and why.

The commitment check (`commitment.py`) finds binding cues; this module decides, for one clause that
carries a cue, whether the clause reads POSITIVELY as one of a closed list of non-binding forms:

- "quoted": the cue lies inside a quotation the sentence attributes to the other side ("Your summary
  lists it as 'agreed'"), and no other clause of the draft takes the quotation up ("-- yes").
- "past report": a clause in the past about another deal or a past date ("We paid $8,000 a month on a
  previous deal"), with nothing of now or later in it and nothing in the draft carrying it over ("...
  and we'll do the same for you").
- "counterparty's act": the clause's subject is the other side or a third party and its verb reports
  what that party did ("Your team confirmed net-60"), with no word of our side after the subject.
- "negated": a negation governs the cue ("we can't agree to $12.10") or a refusal follows what it
  refuses ("$85/h is a non-starter"), with no assent phrased as a negation ("can't wait to sign").
- "hypothetical question": a hypothesis in the past that a question to the other side hangs on ("In a
  scenario where we paid $12k, would you ...?").
- "qualified": an explicit reservation governs the clause ("...; it needs the board's approval"), or
  the clause is an item of a draft, an agenda or the other side's terms restated.
- "receipt": an acknowledgement of receipt without a word of assent ("we confirm receipt of $14").
- "idiom": the cue sits in a known idiom ("we'll take that on board").
- "quoted line": the clause stands on a line quoted from an earlier e-mail ("> We accept a break at
  year five"), and no clause replies to it with a bare assent.
- "referral": the cue lies inside a referral of a figure to the people who decide on our side ("I'll
  put 10,650 with four months free to the team", "I can take 12.80 to our category director").
- "limit": the clause names a figure as the most our side can go to or refuses what lies beyond it ("our
  ceiling is $12k", "the most we're authorised to pay is $14", "$13,500 is more than we're prepared to
  pay"): a possible disclosure of a limit (`disclosure.py` judges that), not a commitment. A commitment
  verb is cleared only inside the limit's own words; a fixed expression never.

Learnt from the spent seventh blind set (each recurring in the drafts of several writers):

- "disclaimed draft": a sentence of the draft reserves all of it ("DRAFT - not an offer.", "Nothing here
  is agreed until Dana signs off.", "None of this is final until the offer letter."); it clears a figure
  stated as terms anywhere in the draft, never a commitment verb or a fixed expression.
- "awaiting approval": the clause's figure waits for the people who decide on our side ("The 87/h is with
  finance", "93k pending", "my manager must give the green light first"); a verb or a fixed expression
  is cleared only inside those words.
- "appraisal": a figure appraised, not accepted ("13 bucks a unit is still a bit rich for us", "100k is
  a big jump from 90"), or deliberated over in the next clause ("$9,000/mo... let me check").
- "view agreed": a bare "Agreed" or "I agree" before a view that names no term ("Agreed, this has been a
  long process").

Learnt from the spent ninth blind set (each recurring in the false alarms of two writers or more; the
rules of `draft.RULES` named in brackets switch each off):

- "limit" reads a walk-away point, a limit named in another language ("unser Limit", "our plafond"), a
  reach bounded by "only ... up to", and an authority granted with its bound after its object ("has
  authorised rent of at most $12,000") ["limit words v10"]; a fixed expression ("signed off") is cleared
  when it lies inside a limit's words that name the bound ("signed off on rent up to 12k") ["limit signed
  off"].
- "receipt" reads a confirmation of a fact of the correspondence ("This email confirms we have received
  your quotation", "Confirming our call is moved to Thursday") ["confirmation of a communication"].
- "past report" reads the people of a past deal ("the last two engineers we hired") ["past parties v10"],
  looks for now only before a comment (", which is why we're pushing for a break now") that carries
  nothing over ["comment after a report"], and a past verb of ours beside the cleared one is reported too
  ["past verbs of a report"].
- "referral" reads a department named without a determiner ("take it to procurement") and a figure
  pitched to the people who decide ("$13.15 is what I'm pitching to my boss") ["referral v10"].
- "appraisal" reads a learner's "is little high for us" and "far above what this space is worth"
  ["appraisal v10"]; "idiom" reads a market rate ("comparable space is going for 11k") ["market rate"];
  "view agreed" reads a view with a modal ("I agree, the commute would be brutal") ["view with a modified
  term"].
- "wish held back": a wish of ours ("we'd like to settle the invoice by the 5th") whose next clause opens
  with a contrast that reserves our word (", but I'll need finance to confirm", ", but it's not my call").

Everything else stays binding. A draft that normalisation changed (an obfuscation) or that the parser
did not read whole is never cleared (`unreadable`); a long e-mail is read clause by clause, and a clause
too long to read keeps its cue (`clause_unreadable`), as does every cue past the first `MAX_FORM_READS`.
A form cleared in one clause never clears another: the caller asks per clause. Every word list is in
`data/commitment_lexicon.yaml` (`clause_forms`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Generator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache

from parley.governance.config import load_yaml_data
from parley.governance.draft import NEGATORS, Clause, Draft, index_in, lexicon, rule_on, words

__all__ = [
    "FORMS",
    "MAX_FORM_READS",
    "MAX_READ_CLAUSE",
    "Cue",
    "NonBindingForm",
    "assent_after_quote",
    "attached",
    "clause_unreadable",
    "is_past_form",
    "limit_phrases",
    "non_binding_form",
    "only_forms",
    "past_context",
    "quote_spans",
    "restated_after",
    "takes_up",
    "unreadable",
]

FORMS = (
    "quoted",
    "quoted line",
    "past report",
    "counterparty's act",
    "negated",
    "hypothetical question",
    "qualified",
    "receipt",
    "idiom",
    "limit",
    "referral",
    "disclaimed draft",
    "awaiting approval",
    "appraisal",
    "view agreed",
    "wish held back",
)
"""The non-binding forms, in the order they are tried."""
MAX_FORM_READS = 64
"""Most cues of one draft read for non-binding forms; past them every cue binds (each reading may look at
the whole draft, so the cap keeps a long draft's reading linear in its length)."""
MAX_READ_CLAUSE = 600
"""Longest clause read for non-binding forms; a longer clause keeps its cue (the rest of the draft is
still read clause by clause)."""
_UNPLACEABLE = "could not be read as non-binding"
_LOOK_BACK = 40
"""How many clauses back a take-up ("Yes.", "we'll do the same") looks for the commitment it takes up."""
# A negation reaches no further than punctuation or a coordinated second predicate ("no longer insist on
# our proposal and agree to $100K").
_SCOPE_BREAKS = frozenset(
    [",", ";", ":", "(", ")", "!", "?", ".", "-", "\u2013", "\u2014", "and", "but", "then", "so", "yet", "or"]
)
_BACK_REFERENCES = frozenset(
    ["it", "this", "that", "these", "those", "them", "which", "its", "none", "nothing"]
)
_DOUBLE_QUOTE = re.compile(r'"([^"\n]{1,600})"')
_SINGLE_QUOTE = re.compile(r"(?<![\w])'(?=\S)((?:[^'\n]|(?<=\w)'(?=\w)){1,600}?)'(?![\w])")
_LIST_ITEM = re.compile(
    r"[ \t]*(?:[-*\u2022\u00b7\u25aa\u2023\u25e6]|\d{1,2}[.)]|[a-z][.)]|\([a-z0-9]{1,2}\))\s"
)
_PREDICATE_AUXILIARIES = frozenset(
    ["has", "have", "is", "are", "was", "were", "will", "shall", "been", "be", "would", "can"]
)
_AUXILIARIES = frozenset(
    ["have", "has", "had", "also", "already", "just", "originally", "initially", "reportedly", "apparently"]
)


@dataclass(frozen=True, slots=True)
class Cue:
    """A binding cue found in a clause.

    Attributes:
        text: The words that commit.
        reason: Why they bind ("commitment verb", "fixed expression", ...).
        start: Offset of the cue in the draft's text.
    """

    text: str
    reason: str
    start: int

    @property
    def end(self) -> int:
        """Offset just past the cue."""
        return self.start + len(self.text)


@dataclass(frozen=True, slots=True)
class NonBindingForm:
    """The form that clears a cue, and the words that show it.

    Attributes:
        form: One of `FORMS`.
        evidence: The words of the draft that make the clause that form.
    """

    form: str
    evidence: str


@dataclass(frozen=True, slots=True)
class _Forms:
    quote_sources: tuple[re.Pattern[str], ...]
    assent_replies: tuple[re.Pattern[str], ...]
    past_forms: frozenset[str]
    past_markers: tuple[re.Pattern[str], ...]
    not_past: tuple[re.Pattern[str], ...]
    carried_over: tuple[re.Pattern[str], ...]
    carry_over_cues: tuple[re.Pattern[str], ...]
    settled_words: frozenset[str]
    counterparty_subjects: tuple[re.Pattern[str], ...]
    counterparty_acts: frozenset[str]
    first_person: frozenset[str]
    negation_exceptions: tuple[re.Pattern[str], ...]
    refusals: tuple[re.Pattern[str], ...]
    hypothetical_openers: tuple[re.Pattern[str], ...]
    imagination_openers: tuple[re.Pattern[str], ...]
    question_openers: tuple[re.Pattern[str], ...]
    qualifiers: tuple[re.Pattern[str], ...]
    list_intros: tuple[re.Pattern[str], ...]
    receipts: tuple[re.Pattern[str], ...]
    assent_words: frozenset[str]
    idioms: tuple[re.Pattern[str], ...]
    limits: tuple[re.Pattern[str], ...]
    referrals: tuple[re.Pattern[str], ...]
    draft_disclaimers: tuple[re.Pattern[str], ...]
    awaiting: tuple[re.Pattern[str], ...]
    appraisals: tuple[re.Pattern[str], ...]
    list_intros_more: tuple[re.Pattern[str], ...]
    limits_more: tuple[re.Pattern[str], ...]
    restatements: tuple[re.Pattern[str], ...]
    background_frames: tuple[re.Pattern[str], ...]
    limits_v10: tuple[re.Pattern[str], ...]
    receipts_v10: tuple[re.Pattern[str], ...]
    past_markers_v10: tuple[re.Pattern[str], ...]
    referrals_v10: tuple[re.Pattern[str], ...]
    appraisals_v10: tuple[re.Pattern[str], ...]
    market_rates: tuple[re.Pattern[str], ...]
    wishes: tuple[re.Pattern[str], ...]
    wish_reservations: tuple[re.Pattern[str], ...]


@cache
def _forms() -> _Forms:
    raw = load_yaml_data("commitment_lexicon.yaml")["clause_forms"]

    def patterns(key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(str(p)) for p in raw[key])

    def words_of(key: str) -> frozenset[str]:
        return frozenset(str(w).lower() for w in raw[key])

    return _Forms(
        patterns("quote_sources"),
        patterns("assent_replies"),
        words_of("past_forms"),
        patterns("past_markers"),
        patterns("not_past"),
        patterns("carried_over"),
        patterns("carry_over_cues"),
        words_of("settled_words"),
        patterns("counterparty_subjects"),
        words_of("counterparty_acts"),
        words_of("first_person"),
        patterns("negation_exceptions"),
        patterns("refusals"),
        patterns("hypothetical_openers"),
        patterns("imagination_openers"),
        patterns("question_openers"),
        patterns("qualifiers"),
        patterns("list_intros"),
        patterns("receipts"),
        words_of("assent_words"),
        patterns("idioms"),
        patterns("limits"),
        patterns("referrals"),
        patterns("draft_disclaimers"),
        patterns("awaiting"),
        patterns("appraisals"),
        patterns("list_intros_more"),
        patterns("limits_more"),
        patterns("restatements"),
        patterns("background_frames"),
        patterns("limits_v10"),
        patterns("receipts_v10"),
        patterns("past_markers_v10"),
        patterns("referrals_v10"),
        patterns("appraisals_v10"),
        patterns("market_rates"),
        patterns("wishes"),
        patterns("wish_reservations"),
    )


def _search(patterns: Sequence[re.Pattern[str]], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found is not None:
            return found
    return None


def unreadable(draft: Draft) -> str | None:
    """Why no cue of draft may be cleared ("obfuscated", "too long": past the clauses or figures the parser
    reads), or None when its clauses may be read one by one (see `clause_unreadable`)."""
    if draft.normalized.kinds:
        return "obfuscated"
    if draft.unread or draft.too_many_figures:
        return "too long"
    return None


def clause_unreadable(clause: Clause) -> bool:
    """Whether clause is too long to be read for non-binding forms (its cue then binds)."""
    return len(clause.scan) > MAX_READ_CLAUSE


def quote_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the inside of every quotation in text (double or single quotes), in order."""
    spans = [(m.start(1), m.end(1)) for p in (_DOUBLE_QUOTE, _SINGLE_QUOTE) for m in p.finditer(text)]
    return sorted(spans)


def _quoted(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """The cue lies inside a quotation the sentence attributes to the other side."""
    sentence = draft.sentences[clause.sentence]
    spans = [(s + sentence.start, e + sentence.start) for s, e in quote_spans(sentence.text)]
    if not any(s - 1 <= cue.start and cue.end <= e + 1 for s, e in spans):  # the quote marks count
        return None
    outside = list(sentence.text.lower())
    for s, e in spans:
        outside[s - sentence.start : e - sentence.start] = " " * (e - s)
    source = _search(_forms().quote_sources, "".join(outside))
    if source is None:
        return None
    if _elsewhere(
        draft, clause, "assent reply", lambda other: _search(_forms().assent_replies, other.lowered)
    ):
        return None  # a reply takes the quotation up ("You wrote 'we accept 95k' -- yes")
    return source.group(0)


def is_past_form(word: str) -> bool:
    """Whether word (lower case) reads as a past form of a verb ("paid", "signed", "renewed")."""
    return word in _forms().past_forms or (len(word) > 4 and word.endswith("ed"))


def _past_report(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """A clause in the past about another deal or a past date, carried over by nothing in the draft."""
    forms = _forms()
    lowered = clause.lowered
    if cue.reason == "fixed expression" or _search(forms.not_past, _before_comment(lowered, cue, clause)):
        return None  # an assent ("Agreed; ...") is not a report, whatever tense it wears
    cue_words = [w.text for w in words(cue.text)]
    before = [w.text for w in clause.words() if w.start <= cue.start]
    if not (cue_words and is_past_form(cue_words[-1])) and not any(is_past_form(w) for w in before):
        return None
    perfect = re.search(r"\b(?:have|has|'ve)\b", cue.text.lower()) is not None
    marker = _search(_past_markers(), lowered) if perfect else _past_marker(draft, clause)
    if marker is None:
        return None  # a perfect ("we have agreed") is a report only with its own mark ("historically")
    if _elsewhere(draft, clause, "carries over", _carries_over):
        return None  # "... and we'll do the same for you" (not "we'd rather not repeat that")
    return marker if isinstance(marker, str) else marker.group(0)


def _elsewhere(draft: Draft, clause: Clause, name: str, test: Callable[[Clause], object]) -> bool:
    """Whether test holds for a clause of draft other than clause: the clauses it holds for are found once
    per draft (each cue read would otherwise read the whole draft again)."""
    holding = draft.memo(("elsewhere", name), lambda: tuple(c for c in draft.clauses() if test(c)))
    return any(other is not clause for other in holding[:2])


def _carries_over(clause: Clause) -> bool:
    """Whether clause carries a reported deal over to this one, with no negation before the words that
    do it ("we'll do the same for you"; not "we'd rather not repeat that")."""
    found = _search(_forms().carried_over, clause.lowered)
    if found is None:
        return False
    before = [w.text for w in words(clause.scan[: found.start()])]
    return not any(w in NEGATORS for w in before)


def _past_marker(draft: Draft, clause: Clause) -> str | None:
    """A mark of another deal or a past date in the clause or in the subordinate clauses right beside it
    ("We accepted X | once | before and regretted it", "When we renewed in 2022, | we agreed to ...")."""
    run = past_context(draft, clause)
    found = _search(_past_markers(), draft.text[run[0].start : run[-1].end].lower())
    if found is None and rule_on("past mark in its sentence"):
        found = _sentence_past_mark(draft, clause)
    return None if found is None else found.group(0)


def _sentence_past_mark(draft: Draft, clause: Clause) -> re.Match[str] | None:
    """A mark of another deal or a past date anywhere in the clause's sentence, or a framing that sets
    it out as background ("Last year, for context, | we agreed a similar package ..."; "our last landlord
    agreed to ..., | and we accepted a higher headline rent in return"), when no clause of the sentence
    speaks of now or later."""
    sentence = draft.sentences[clause.sentence]
    forms = _forms()
    if len(sentence.text) > MAX_READ_CLAUSE or any(
        _search(forms.not_past, c.lowered) for c in sentence.clauses
    ):
        return None
    lowered = sentence.text.lower()
    return _search(_past_markers(), lowered) or _search(forms.background_frames, lowered)


def _past_markers() -> tuple[re.Pattern[str], ...]:
    """The marks of another deal in force (with rule "past parties v10", the people and parties of a past
    deal learnt from the v9 set: "the last two engineers we hired")."""
    forms = _forms()
    return forms.past_markers + forms.past_markers_v10 if rule_on("past parties v10") else forms.past_markers


# A comment that a non-restrictive relative clause adds after a report (", which is why we're pushing for
# a break clause now"): its own now is the comment's, not the report's.
_COMMENT = re.compile(r",\s*which\b")


def _before_comment(lowered: str, cue: Cue, clause: Clause) -> str:
    """The clause (lower case) up to a comment after the cue that opens with ", which" (rule "comment after
    a report"); the whole clause when there is none."""
    if not rule_on("comment after a report"):
        return lowered
    found = _COMMENT.search(lowered, max(0, cue.end - clause.start))
    if found is None or _commits(lowered[found.end() :]):
        return lowered  # the comment carries a commitment over (", which is what we'll sign now")
    return lowered[: found.start()]


def attached(draft: Draft, clause: Clause) -> tuple[Clause, ...]:
    """The other clauses of clause's sentence, which the caller reads too (each as a statement) before it
    clears clause: a parse may have folded a commitment into a condition or a tag beside it ("You
    promised to hold $12 until Friday, Deal!"), and a clearance must not hide it."""
    return tuple(c for c in draft.sentences[clause.sentence].clauses if c is not clause)


def past_context(draft: Draft, clause: Clause) -> tuple[Clause, ...]:
    """The clause with the subordinate clauses right beside it (conditions, questions, past reports, none
    about now) that a past report may take its mark from. A main clause (a statement), a clause about
    now, or a hard break (";", ":", a dash) ends the run."""
    forms = _forms()
    clauses = draft.sentences[clause.sentence].clauses
    index = index_in(clauses, clause)

    def joined(k: int, m: int) -> bool:
        """Whether clauses k and m (adjacent) are joined without a hard break, and m is subordinate."""
        first, second = clauses[min(k, m)], clauses[max(k, m)]
        other = clauses[m]
        gap = draft.text[first.end : second.start]
        return (
            other.mood in ("conditional", "past", "question")
            and _search(forms.not_past, other.lowered) is None
            and not any(mark in gap for mark in (";", ":", "-", "\u2013", "\u2014"))
        )

    low, high = index, index
    while low > 0 and joined(low, low - 1):
        low -= 1
    while high + 1 < len(clauses) and joined(high, high + 1):
        high += 1
    return clauses[low : high + 1]


def _counterparty_act(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """The clause's subject is the other side (or a third party) and its verb reports that party's act."""
    del draft
    forms = _forms()
    if cue.reason == "fixed expression":
        return None  # "you've got a deal", "you're hired": our words, with "you" in them
    subject = _search(forms.counterparty_subjects, clause.lowered)
    if subject is None or clause.start + subject.start() > cue.start:
        return None
    after = words(clause.scan[subject.end() :], clause.start + subject.end())
    if any(w.text in forms.first_person for w in after):
        return None  # our side speaks in it too
    verbs = [w for w in after if w.text not in _AUXILIARIES][:1]
    if not verbs or verbs[0].text not in forms.counterparty_acts:
        return None
    if verbs[0].start > cue.start or not _unbroken(clause, verbs[0].start, cue.start):
        return None  # the cue is not what that party did ("Your team confirmed X, happy to accept $96K")
    lead = [w.text for w in words(cue.text)][:1]
    if verbs[0].start < cue.start and lead and lead[0] in _PREDICATE_AUXILIARIES:
        return None  # the party's act is a relative clause ("the exception you asked for has been approved")
    return subject.group(0) + " " + verbs[0].text


def _unbroken(clause: Clause, start: int, end: int) -> bool:
    """Whether no punctuation or coordinator stands between offsets start and end of the clause."""
    return not any(start < w.start < end and w.text in _SCOPE_BREAKS for w in clause.words())


# Verbs by which our side refuses what follows them ("we decline your request for 112k").
_REFUSING = frozenset(
    [
        "decline",
        "declines",
        "declined",
        "declining",
        "reject",
        "rejects",
        "rejected",
        "rejecting",
        "refuse",
        "refuses",
        "refused",
        "refusing",
    ]
)


def _negated(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """A negation governs the cue, or a refusal follows a cue that no verb of ours carries."""
    del draft
    forms = _forms()
    lowered = clause.lowered
    if cue.reason == "fixed expression" or _search(forms.negation_exceptions, lowered):
        return None  # assent phrased with a negator ("can't wait to sign", "no problem with $95K")
    before = [w.text for w in clause.words() if w.start < cue.start][-8:]
    refusing = rule_on("refusal verb")
    for word in reversed(before):
        if word in _SCOPE_BREAKS:
            break
        if word in NEGATORS or (refusing and word in _REFUSING):
            return word  # "we can't agree to $12.10", "we decline the landlord's counter of 10,900"
    refusal = _search(forms.refusals, lowered)
    if refusal is None or clause.start + refusal.start() < cue.start:
        return None
    if not _unbroken(clause, cue.start, clause.start + refusal.start()):
        return None  # the refusal is about something else ("Deal, $120K is a non-starter")
    lead = [w.text for w in words(clause.scan[: refusal.start()])]
    return None if any(w in ("we", "i", "let's") for w in lead) else refusal.group(0)


def _hypothetical_question(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """A hypothesis in the past that opens a sentence asking the other side a question."""
    forms = _forms()
    sentence = draft.sentences[clause.sentence]
    if not sentence.text.rstrip().endswith("?"):
        return _imagined(draft, clause)
    if sentence.clauses[-1] is clause:
        return None
    if sentence.clauses[-1].mood != "question" or _search(forms.not_past, clause.lowered):
        return None
    opener = _search(forms.hypothetical_openers, sentence.text.lower())
    cue_words = [w.text for w in words(cue.text)]
    subjunctive = bool(cue_words) and is_past_form(cue_words[-1])
    if opener is None or not (subjunctive or re.search(r"\bwere to\b", clause.lowered)):
        return None
    return opener.group(0).strip()


def _imagined(draft: Draft, clause: Clause) -> str | None:
    """An imagined case ("Picture this: we say yes to X.") the next sentence asks the other side about."""
    forms = _forms()
    sentence = draft.sentences[clause.sentence]
    opener = _search(forms.imagination_openers, sentence.text.lower())
    if (
        opener is None
        or clause.sentence + 1 >= len(draft.sentences)
        or _search(forms.not_past, clause.lowered)
    ):
        return None
    following = draft.sentences[clause.sentence + 1]
    lowered = following.text.lower()
    asks = lowered.rstrip().endswith("?") and _search(forms.question_openers, lowered) is not None
    return opener.group(0).strip() if asks and "you" in [w.text for w in words(lowered)] else None


def _qualified(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """An explicit reservation governs the clause, or the clause restates a draft, an agenda or terms."""
    forms = _forms()
    sentence = draft.sentences[clause.sentence]
    index = index_in(sentence.clauses, clause)
    own = _search(forms.qualifiers, clause.lowered)
    if own is not None:
        return own.group(0)
    if cue.reason not in (_UNPLACEABLE, "terms stated as settled"):
        return None  # a commitment verb or a fixed expression is reserved only in its own clause
    if index + 1 < len(sentence.clauses):  # a reservation right after the clause, pointing back at it
        neighbour = sentence.clauses[index + 1]
        found = _search(forms.qualifiers, neighbour.lowered)
        if found is not None and _refers_back(neighbour):
            return found.group(0)
    following = draft.sentences[clause.sentence + 1] if clause.sentence + 1 < len(draft.sentences) else None
    if following is not None and len(following.text) <= 80 and index == len(sentence.clauses) - 1:
        found = _search(forms.qualifiers, following.text.lower())
        if found is not None and _refers_back(following.clauses[0]):
            return found.group(0)
    return _introduced(draft, clause, index)


def _refers_back(clause: Clause) -> bool:
    """Whether the clause opens with a word that points back at its neighbour ("it needs the board's
    approval", "but that is not an offer"), not at something else ("the bonus needs approval")."""
    tokens = [w.text for w in clause.words() if w.text[:1].isalnum()]
    while tokens and tokens[0] in ("but", "though", "although", "and", "so", "yet", "which"):
        if tokens[0] == "which":
            return True
        tokens = tokens[1:]
    return bool(tokens) and tokens[0] in _BACK_REFERENCES


def _introduced(draft: Draft, clause: Clause, index: int) -> str | None:
    """The clause follows an introduction ("Items still under discussion:") in its sentence or a list."""
    sentence = draft.sentences[clause.sentence]
    if index > 0:
        intro = sentence.clauses[index - 1]
        colon = draft.text[intro.end : clause.start].strip().startswith(":") or intro.text.rstrip().endswith(
            ":"
        )
        found = _search(_list_intros(), intro.lowered) if colon else None
        if found is not None:
            return found.group(0)
    text = draft.text
    line_start = text.rfind("\n", 0, clause.start) + 1
    if not _LIST_ITEM.match(text, line_start):
        return None
    while line_start > 0:
        previous = text.rfind("\n", 0, line_start - 1) + 1
        line = text[previous : line_start - 1]
        if not _LIST_ITEM.match(line):
            if not line.rstrip().endswith(":"):
                return None
            intro = draft.sentence_at(previous + len(line.rstrip()) - 1)  # only the sentence that ends ":"
            found = _search(_list_intros(), intro.text.lower()) if intro is not None else None
            return found.group(0) if found is not None else None
        line_start = previous
    return None


_BARE_CONFIRMED = re.compile(r"^\W*(?:confirmed|noted|acknowledged)\W*$")


def _receipt(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """An acknowledgement of receipt with no word of assent in its clause; with rule "perfect report", also
    a bare "Confirmed:" heading the receipt after its colon ("Confirmed: I've received your CV")."""
    forms = _forms()
    if rule_on("perfect report") and _BARE_CONFIRMED.match(clause.lowered):
        clauses = draft.sentences[clause.sentence].clauses
        index = index_in(clauses, clause)
        colon = index + 1 < len(clauses) and ":" in draft.text[clause.end : clauses[index + 1].start + 1]
        heading = clauses[index + 1] if colon else None
        found = None if heading is None else _search(forms.receipts, heading.lowered)
        if heading is not None and found is not None:
            rest = heading.lowered[: found.start()] + " " + heading.lowered[found.end() :]
            if not any(w.text in forms.assent_words for w in words(rest)):
                return f"{clause.scan.strip()}: {found.group(0)}"
    found = _search(forms.receipts, clause.lowered)
    if found is not None and cue.reason != "fixed expression":
        rest = clause.lowered[: found.start()] + " " + clause.lowered[found.end() :]
        inside = found.start() <= cue.start - clause.start < found.end()
        assent = any(w.text in forms.assent_words for w in words(rest))
        if not assent and (inside or cue.reason in (_UNPLACEABLE, "terms stated as settled")):
            return found.group(0)
    return _communication(clause, cue) if rule_on("confirmation of a communication") else None


def _communication(clause: Clause, cue: Cue) -> str | None:
    """A confirmation of a fact of the correspondence ("This email confirms we have received your
    quotation", "Just to confirm I understood your proposal", "Confirming our call is moved to Thursday"):
    the cue (a fixed expression too) must overlap its words, and no word of assent stand in the rest of
    the clause."""
    forms = _forms()
    start, end = cue.start - clause.start, cue.end - clause.start
    for pattern in forms.receipts_v10:
        for found in pattern.finditer(clause.lowered):
            if not (found.start() < end and start < found.end()):
                continue
            rest = clause.lowered[: found.start()] + " " + clause.lowered[found.end() :]
            if not any(w.text in forms.assent_words for w in words(rest)):
                return found.group(0)
    return None


def _idiom(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """The cue overlaps a known idiom of the lexicon."""
    del draft
    start, end = cue.start - clause.start, cue.end - clause.start
    forms = _forms()
    for pattern in forms.idioms + (forms.market_rates if rule_on("market rate") else ()):
        for found in pattern.finditer(clause.lowered):
            if found.start() < end and start < found.end():
                return found.group(0)
    return None


_STATED = (_UNPLACEABLE, "terms stated as settled")
"""The reasons of a cue that is a figure or a term stated, not a verb of ours."""


def _limit(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """The clause names a limit of ours or refuses what lies beyond one; a commitment verb must lie
    inside the limit's own words ("authorised up to", "the most we can pay is")."""
    fixed = cue.reason == "fixed expression"
    if fixed and not rule_on("limit signed off"):
        return None
    stated = cue.reason in _STATED
    for pattern in _limits():
        for found in pattern.finditer(clause.lowered):
            start, end = clause.start + found.start(), clause.start + found.end()
            if fixed:  # "our client has signed off on rent up to 12k": the whole expression inside
                if start <= cue.start and cue.end <= end and _bounded(found.group(0)):
                    return found.group(0)
                continue
            if stated or start <= cue.start < end:  # the verb (where the cue points) inside the limit
                return found.group(0)
    return _limit_beside(draft, clause) if stated and rule_on("limit beside a figure") else None


_BOUND = re.compile(r"\b(?:up to|at most|no more than|maximum|max|limit|ceiling|cap)\b")


def _bounded(limit: str) -> bool:
    """Whether a limit's words name the bound itself ("up to", "a maximum of", "as the limit"): only then
    may a fixed expression inside them ("signed off") be cleared (rule "limit signed off")."""
    return _BOUND.search(limit) is not None


def limit_phrases(text: str) -> list[str]:
    """Every stretch of text (lower case) that names a limit of ours ("authorised up to", "out of
    reach", "that's our ceiling"): the words a limit's clearance may blank."""
    return [found.group(0) for pattern in _limits() for found in pattern.finditer(text)]


def _limit_beside(draft: Draft, clause: Clause) -> str | None:
    """A figure stated on its own, named a limit by the clause right beside it: after it, pointing back
    ("85/hr, that's where my authorisation stops"), or before it, ending in a colon ("That's as high as
    we go: $100k")."""
    clauses = draft.sentences[clause.sentence].clauses
    index = index_in(clauses, clause)
    beside: list[Clause] = []
    if index + 1 < len(clauses) and _refers_back(clauses[index + 1]):
        beside.append(clauses[index + 1])
    if index > 0 and ":" in draft.text[clauses[index - 1].end : clause.start]:
        beside.append(clauses[index - 1])
    if rule_on("limit restated"):  # "The very top of our budget is 144k a year, | i.e. | 12k a month"
        at = draft.clause_index(clause)
        for earlier in reversed(draft.clauses_between(max(0, at - 2), at)):
            if _restated(draft.text[earlier.end : clause.start]):
                beside.append(earlier)
                break
    for other in beside:
        found = _search(_limits(), other.lowered)
        if found is not None:
            return found.group(0)
    return None


def _restated(gap: str) -> bool:
    """Whether gap (the words between a figure and the next) restates the figure in other units ("i.e.",
    "which works out at", "or")."""
    return len(gap) <= 60 and _search(_forms().restatements, gap.lower()) is not None


def restated_after(text: str, end: int, start: int) -> bool:
    """Whether text[end:start], the words between a limit's figure and the next figure, restate the limit
    ("144,000 a year | on rent, which works out at | 12,000 monthly"): the next figure is the same limit
    (rule "limit restated")."""
    return rule_on("limit restated") and start - end <= 60 and _restated(text[end:start])


def _limits() -> tuple[re.Pattern[str], ...]:
    """The limit patterns in force (with rule "more limit words", the words learnt from the v7 set)."""
    forms = _forms()
    found = forms.limits + forms.limits_more if rule_on("more limit words") else forms.limits
    return found + forms.limits_v10 if rule_on("limit words v10") else found


def _list_intros() -> tuple[re.Pattern[str], ...]:
    """The list introductions in force (with rule "more list introductions", options and status lists)."""
    forms = _forms()
    return (
        forms.list_intros + forms.list_intros_more
        if rule_on("more list introductions")
        else forms.list_intros
    )


def _referral(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """The cue lies inside a referral of a figure to the people who decide on our side ("I'll put 10,650
    to the team", "I can take 12.80 to our category director")."""
    del draft
    if cue.reason == "fixed expression":
        return None
    forms = _forms()
    referrals = forms.referrals + forms.referrals_v10 if rule_on("referral v10") else forms.referrals
    for found in referrals:
        for match in found.finditer(clause.lowered):
            if clause.start + match.start() <= cue.start < clause.start + match.end():
                return match.group(0)
    return None


def _quoted_line(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """The clause stands on a line quoted from an earlier e-mail ("> We accept a break at year five"),
    and no clause of the draft replies to it with a bare assent."""
    del cue
    line_start = draft.text.rfind("\n", 0, clause.start) + 1
    if not draft.text[line_start : clause.start + 1].lstrip().startswith(">"):
        return None
    if _elsewhere(
        draft, clause, "assent reply", lambda other: _search(_forms().assent_replies, other.lowered)
    ):
        return None
    return ">"


def _disclaimed_draft(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """A sentence of the draft reserves all of it ("DRAFT - not an offer.", "Nothing here is agreed until
    Dana signs off.", "None of this is final until the offer letter."): a figure stated as terms anywhere
    in it is not offered. A commitment verb or a fixed expression is never cleared by it."""
    del clause
    if cue.reason not in _STATED:
        return None
    return draft.memo(("draft disclaimer",), lambda: _draft_disclaimer(draft))


def _draft_disclaimer(draft: Draft) -> str | None:
    """The first words of draft that reserve all of it (read once per draft, sentence by sentence)."""
    patterns = _forms().draft_disclaimers
    for sentence in draft.sentences:
        if len(sentence.text) > MAX_READ_CLAUSE * 4:
            continue  # a sentence too long to read reserves nothing
        found = _search(patterns, sentence.text.lower())
        if found is not None:
            return found.group(0)
    return None


_CONTINUATION = re.compile(r"^\W*(?:still|now|currently|pending|awaiting|which is|and is|is|are)\b")


def _awaiting_approval(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """The clause's figure waits for the people who decide on our side ("The 87/h is with finance", "93k
    pending", "my manager must give the green light first", "I'm waiting on the go-ahead"): a figure
    stated as terms is cleared by such words in its clause or in a continuation right after it ("5 year
    term... still with our CFO"); a verb or a fixed expression only when it lies inside them."""
    patterns = _forms().awaiting
    stated = cue.reason in _STATED
    for pattern in patterns:
        for found in pattern.finditer(clause.lowered):
            start, end = clause.start + found.start(), clause.start + found.end()
            if stated or start <= cue.start < end:
                return found.group(0)
    if not stated:
        return None
    index = draft.clause_index(clause)
    following = draft.clauses_between(index + 1, index + 2)
    if following and len(following[0].scan) <= 80 and _CONTINUATION.match(following[0].lowered):
        found = _search(patterns, following[0].lowered)
        if found is not None:
            return found.group(0)
    return None


def _appraisal(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """A figure appraised, not accepted: the subject of a predicate that finds it high or noteworthy ("13
    bucks a unit is still a bit rich for us", "100k is a big jump from 90"), or a figure our deliberation
    follows in the next clause ("$9,000/mo... let me check with my client"). Only a figure stated as terms
    before the appraisal is cleared."""
    if cue.reason not in _STATED:
        return None
    judged, deliberation = _forms().appraisals[0], _forms().appraisals[1:]
    more = _forms().appraisals_v10 if rule_on("appraisal v10") else ()
    for pattern in (judged, *more):
        for found in pattern.finditer(clause.lowered):
            if clause.start + found.start() >= cue.end:
                return found.group(0)
    index = draft.clause_index(clause)
    following = draft.clauses_between(index + 1, index + 2)
    if following and len(clause.scan) <= 80:
        found = _search(deliberation, following[0].lowered)
        if found is not None:
            return found.group(0)
    return None


_BARE_AGREEMENT = re.compile(
    r"^\W*(?:(?:i|we)\s+(?:(?:fully|totally|completely|entirely|do|quite|strongly)\s+)?agree"
    r"|agreed|fair enough)\W*$"
)
_VIEW_VERBS = frozenset(
    ["is", "was", "are", "were", "has", "have", "seems", "seemed", "looks", "felt", "feels"]
)
_VIEW_MODALS = frozenset(["would", "could", "might", "must", "will"])


def _view_agreed(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """A bare assent ("Agreed", "I agree") to the view its sentence states next, after a comma ("Agreed,
    this has been a long process"; "I agree, the take-home exercise was too long"): the view names no
    figure, no deal term and no word of assent, and has a verb of its own."""
    del cue
    if not _BARE_AGREEMENT.match(clause.lowered):
        return None
    clauses = draft.sentences[clause.sentence].clauses
    index = index_in(clauses, clause)
    if index + 1 >= len(clauses) or draft.text[clause.end : clauses[index + 1].start].strip() != ",":
        return None
    view = clauses[index + 1]
    if draft.amounts_in(view.start, view.end) or len(view.scan) > MAX_READ_CLAUSE:
        return None
    tokens = [w.text for w in view.words()]
    lex, forms = lexicon(), _forms()
    if any(w in lex.deal_terms or w in forms.assent_words for w in tokens):
        return None  # (a commitment in the view itself is found by the caller, which reads it too)
    modal = rule_on("view with a modified term")  # "I agree, the commute from Leeds would be brutal"
    verb = next((w for w in tokens if w in _VIEW_VERBS or (modal and w in _VIEW_MODALS)), None)
    return None if verb is None else f"{clause.scan.strip()}, ... {verb}"


_CONTRAST = re.compile(r"^[\s,;]*(?:but|however|though|although|yet)\b")


def _wish_held_back(draft: Draft, clause: Clause, cue: Cue) -> str | None:
    """A wish of ours governs the cue ("We'd like to settle the 18,400 invoice by the 5th") and the next
    clause of its sentence opens with a contrast that reserves our word (", but I'll need finance to confirm
    the payment run"; ", but that requires the Dean's approval"). A fixed expression is never cleared."""
    if cue.reason == "fixed expression":
        return None
    forms = _forms()
    wish = _search(forms.wishes, clause.lowered)
    if wish is None or clause.start + wish.end() > cue.start:
        return None
    clauses = draft.sentences[clause.sentence].clauses
    index = index_in(clauses, clause)
    if index + 1 >= len(clauses):
        return None
    following = clauses[index + 1]
    opening = draft.text[clause.end : following.start].lower() + " " + following.lowered[:16]
    if not _CONTRAST.match(opening) or len(following.scan) > MAX_READ_CLAUSE:
        return None  # (the splitter may leave the contrast word between the clauses)
    held = _search(forms.wish_reservations, following.lowered)
    return None if held is None else f"{wish.group(0)} ... {held.group(0)}"


_READERS: tuple[tuple[str, Callable[[Draft, Clause, Cue], str | None]], ...] = (
    ("quoted", _quoted),
    ("quoted line", _quoted_line),
    ("past report", _past_report),
    ("counterparty's act", _counterparty_act),
    ("negated", _negated),
    ("hypothetical question", _hypothetical_question),
    ("qualified", _qualified),
    ("receipt", _receipt),
    ("idiom", _idiom),
    ("limit", _limit),
    ("referral", _referral),
    ("disclaimed draft", _disclaimed_draft),
    ("awaiting approval", _awaiting_approval),
    ("appraisal", _appraisal),
    ("view agreed", _view_agreed),
    ("wish held back", _wish_held_back),
)


def takes_up(draft: Draft, clause: Clause) -> tuple[str, int] | None:
    """(words, offset) when clause takes a commitment reported or quoted elsewhere in the draft up as
    ours: a bare assent after a quotation ("You wrote 'we accept 95k'. Yes."), or a carry-over after a
    report ("In 2023 we agreed to net-30 with another supplier, and we'll do the same for you")."""
    forms = _forms()
    lowered = clause.lowered
    reply = _search(forms.assent_replies, lowered)
    carry = None if reply is not None else _search(forms.carry_over_cues, lowered)
    found = reply or carry
    if found is None:
        return None
    tokens = [w.text for w in clause.words()]
    if carry is not None and not ({"we", "i", "you", "let's"} & set(tokens)):
        return None
    if any(w in NEGATORS for w in tokens[:8]):
        return None  # "we won't do the same", "no, not again"
    index = draft.clause_index(clause)
    # the clauses just before it (a bounded look-back keeps a draft of many "yes" clauses linear)
    earlier = draft.clauses_between(max(0, index - _LOOK_BACK), index)
    if reply is not None:  # a reply takes up a quotation that commits
        quoted = (c.text[a:b] for c in earlier for a, b in quote_spans(c.text))
        reported = any(_commits(text) for text in quoted)
    else:
        reported = any(_commits(other.text) for other in earlier)
    return (found.group(0).strip(), clause.start + found.start()) if reported else None


def assent_after_quote(clause: Clause) -> tuple[str, int] | None:
    """(words, offset) of a bare assent that follows a committing quotation inside the same clause
    ("You wrote 'we accept 95k', yes."): the quotation taken up as ours, as `takes_up` reads it across
    clauses."""
    spans = quote_spans(clause.text)
    if not spans:
        return None
    end = spans[-1][1] + 1  # past the closing mark
    reply = _search(_forms().assent_replies, clause.text[end:].lower())
    quoted = clause.text[spans[-1][0] : spans[-1][1]]
    if reply is None or not _commits(quoted):
        return None
    return reply.group(0).strip(" ,.;:!-"), clause.start + end + reply.start()


def _commits(text: str) -> bool:
    """Whether text holds a commitment verb or a word of settled terms ("deal", "agreed", "done")."""
    lex, settled = lexicon(), _forms().settled_words
    return any(w.text in lex.strong or w.text in lex.weak or w.text in settled for w in words(text.lower()))


_ENABLED: ContextVar[frozenset[str] | None] = ContextVar("clause_forms_enabled", default=None)


@contextmanager
def only_forms(forms: Collection[str]) -> Generator[None]:
    """Within this block only the named forms may clear a cue (for measuring each form's share).

    Raises:
        ValueError: a name is not one of `FORMS`.
    """
    unknown = sorted(set(forms) - set(FORMS))
    if unknown:
        raise ValueError(f"unknown non-binding forms {unknown}; expected some of {list(FORMS)}")
    token = _ENABLED.set(frozenset(forms))
    try:
        yield
    finally:
        _ENABLED.reset(token)


def non_binding_form(draft: Draft, clause: Clause, cue: Cue) -> NonBindingForm | None:
    """The allow-listed non-binding form clause reads as, which clears cue, or None (the cue binds).

    The caller must first check `unreadable(draft)`; this reads one clause (and, for a reservation or
    a list, its sentence and the lines above it), never clears another clause, and is linear in the
    draft's length.
    """
    enabled = _ENABLED.get()
    for form, read in _READERS:
        if enabled is not None and form not in enabled:
            continue
        evidence = read(draft, clause, cue)
        if evidence is not None:
            return NonBindingForm(form, evidence.strip())
    return None

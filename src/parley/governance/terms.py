"""Reading a counterparty message into the terms it states: values, conditions, questions, corrections.

`TermReader(config).read(message)` parses the message once (`governance.draft`: sentences, clauses and
their mood, amounts), finds every value (figures, dates, options; `term_figures`), attributes each to
a term of the domain (`term_attribution`), decides what part it plays (`term_roles`) and then reads the
conditions clause by clause (`term_clauses`: the condition forms the parse has no frame for, whether a
condition names the term of a value inside it, what an anaphoric "if that works" points back to):

- a term the counterparty states (also inside a question that proposes it: "can we agree on 24 PTO
  days?"), or a condition it attaches ("100 is fine provided the relocation package of 20k is
  included": relocation 20,000 is stated and is the condition of the salary);
- not the counterparty's own: a competing offer it reports ("a bank has put 118 in front of him"),
  the principal's figure quoted back ("your ask of 125", "is $100K really your ceiling?"), a
  hypothesis ("if we bumped relocation to 15k, hypothetically, would he ..."), a total ("150,000 in
  total"), the market ("going rate is $40 a foot"), or a value it replaces ("not $9.51", "I had
  written 5,700", "our last offer was 96; we've now gone up to 100", "base goes from 104k to 109k");
- not asked: a question quoted from an earlier message in a reply (a line opening with ">");
- implied, not stated: a value the delegate may infer from a stated one (an hourly rate says the
  contract is by the hour: `TermReading.implied`, which the delegate's extractor still uses).

The last value stated for a term wins. Totals give their parts ("$150,000: $130,000 base and the
remainder as a signing bonus" is a $20,000 bonus; "4,000 units come to $18,400" is $4.60 a unit), a
rate per square foot is multiplied by the area, a lump deposit becomes months of the rent stated with
it. A condition without a value of any term is kept as text (`Condition.term == "other"`; quoted, so
the principal is told to check it, when it holds a figure or points back to something said before and
so is one the reader failed to tie to a term), so no condition is dropped: every conditional
construction the reading does not already cover becomes one (`term_guard`), and every amount of money
no term claims is quoted as `unread`. A condition read on a
term that may say more than the term's value (a deadline date, a requirement after "but", a figure in
its clause no term claims) is also quoted as written. A message too long to parse is unread as a
whole, and its conditional constructions are still quoted.
"""

from __future__ import annotations

import bisect
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import cache
from typing import Any, Literal

from parley.governance.condition_net import REASON as NET_REASON
from parley.governance.condition_net import active_net
from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.draft import Clause, Draft, parse
from parley.governance.normalize import TextRefused
from parley.governance.safe_text import printable
from parley.governance.term_attribution import (
    Attributed,
    KeywordIndex,
    attribute,
    attribute_across,
    convert,
    fallback,
    inherit,
    misfit,
    names_other_cost,
    quantity_for,
)
from parley.governance.term_clauses import ClauseReading, condition_form_matches, read_clauses
from parley.governance.term_derivation import area_figure, derive, removed_figures, zero_hits
from parley.governance.term_figures import (
    DateMention,
    Figure,
    OptionMention,
    cues,
    find_dates,
    find_figures,
    find_options,
    phone_spans,
)
from parley.governance.term_guard import (
    MAX_QUOTED,
    UNEXPLAINED,
    refused_quotes,
    uncovered_conditions,
    unexplained_sentences,
    unread_amounts,
)
from parley.governance.term_model import Revision, TermModel, shipped_term_model
from parley.governance.term_roles import (
    UNCLAIMED,
    Hit,
    TermValue,
    absorbed,
    days_not_place,
    follows_contrast,
    is_question,
    is_total,
    other_conditions,
    role,
)
from parley.governance.term_vocabulary import TermDef, build_vocabulary

__all__ = [
    "Condition",
    "StatedTerm",
    "TermReader",
    "TermReading",
    "TermValue",
    "all_conditions",
    "last_per_term",
    "latest_terms",
    "reader_for",
]


@dataclass(frozen=True, slots=True)
class StatedTerm:
    """One term's value as a message states it.

    Attributes:
        term: Term name (see `term_vocabulary.build_vocabulary`).
        value: The value in the term's canonical unit (the low end of a range), an option name, or a
            date ("2027-07-06", or "--07-06" when no year can be inferred; a month or relative date
            as a label: "january", "next_week").
        high: The high end of a range (None for one value).
        confidence: In [0, 1].
        evidence: The clause it was read from.
    """

    term: str
    value: TermValue
    high: float | None = None
    confidence: float = 0.9
    evidence: str = ""

    @property
    def is_range(self) -> bool:
        """Whether the term is stated as a range."""
        return self.high is not None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data: dict[str, Any] = {"term": self.term, "value": self.value}
        if self.high is not None:
            data["high"] = self.high
        return {**data, "confidence": self.confidence, "evidence": self.evidence}


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition the counterparty attaches to what it offers or accepts.

    Attributes:
        term: The term the condition is about, or "other" (then `text` says what it is).
        value: The term's value the condition requires (None for "other").
        high: The high end when that value is a range.
        text: The condition as written ("provided the relocation package of 20k is included").
        quoted: Whether it is a conditional clause the reader could not read and only quotes (fail
            closed: the principal reads it as written).
        source: What quoted it when not the rules ("condition net": the learned clause net).
    """

    term: str
    value: TermValue | None
    high: float | None = None
    text: str = ""
    quoted: bool = False
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data: dict[str, Any] = {"term": self.term, "value": self.value, "text": self.text}
        data = {**data, "high": self.high} if self.high is not None else data
        data = {**data, "source": self.source} if self.source else data
        return {**data, "quoted": True} if self.quoted else data


@dataclass(frozen=True, slots=True)
class TermReading:
    """What one counterparty message says about terms.

    Attributes:
        terms: The terms it states (conditions included), one value per term, the last stated.
        conditions: The conditions it attaches.
        question: Whether it asks something.
        correction: Whether it corrects something said before ("sorry, I meant 95").
        competing: Terms of a competing offer it reports (not its own).
        set_aside: Terms it names only in a way that states nothing of its own (a competing offer, the
            principal's figure quoted back, a hypothesis, a value it takes back, the market).
        unread: What it states that the reader could not place, quoted (an amount no term claims, a
            value the trained model set aside, or the whole message when it is too long to read): the
            principal sees it rather than nothing.
        implied: Values of terms it does not state but that what it states lets the delegate infer (an
            hourly rate says the contract is by the hour: `negotiation.term_when`); not in `terms`.
    """

    terms: tuple[StatedTerm, ...] = ()
    conditions: tuple[Condition, ...] = ()
    question: bool = False
    correction: bool = False
    competing: tuple[StatedTerm, ...] = ()
    set_aside: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    implied: tuple[StatedTerm, ...] = ()

    @property
    def empty(self) -> bool:
        """Whether the message says nothing about terms (nor implies a fact about a party or the role:
        "I am a US citizen.")."""
        return not (
            self.terms
            or self.conditions
            or self.competing
            or self.set_aside
            or self.correction
            or self.unread
            or self.implied
        )

    def get(self, term: str) -> StatedTerm | None:
        """The stated value of term, if the message states one."""
        return next((t for t in self.terms if t.term == term), None)

    @property
    def values(self) -> dict[str, TermValue | tuple[float, float]]:
        """Term → value (a (low, high) pair for a range)."""
        return {t.term: (float(t.value), t.high) if t.high is not None else t.value for t in self.terms}

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "terms": [t.to_json() for t in self.terms],
            "conditions": [c.to_json() for c in self.conditions],
            "question": self.question,
            "correction": self.correction,
            "competing": [t.to_json() for t in self.competing],
            "set_aside": list(self.set_aside),
            **({"unread": list(self.unread)} if self.unread else {}),
            **({"implied": [t.to_json() for t in self.implied]} if self.implied else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TermReading:
        """Inverse of to_json."""

        def stated(raw: Mapping[str, Any]) -> StatedTerm:
            return StatedTerm(
                raw["term"], raw["value"], raw.get("high"), float(raw["confidence"]), raw["evidence"]
            )

        return cls(
            tuple(stated(t) for t in data.get("terms", [])),
            tuple(
                Condition(
                    c["term"],
                    c["value"],
                    c.get("high"),
                    c["text"],
                    bool(c.get("quoted", False)),
                    str(c.get("source", "")),
                )
                for c in data.get("conditions", [])
            ),
            bool(data.get("question", False)),
            bool(data.get("correction", False)),
            tuple(stated(t) for t in data.get("competing", [])),
            tuple(str(name) for name in data.get("set_aside", [])),
            tuple(str(text) for text in data.get("unread", [])),
            tuple(stated(t) for t in data.get("implied", [])),
        )


class TermReader:
    """Reads the terms a counterparty message states, for one domain.

    Args:
        config: The domain config (its boundary terms, fields and extra `terms`).
        model: The trained model behind the rules (`governance.term_model`): "shipped" for the shipped
            one when it is on, a model to consult it whatever its switch, None for the rules alone.
    """

    def __init__(
        self,
        config: DomainConfig,
        model: TermModel | Literal["shipped"] | None = "shipped",
        *,
        unexplained: bool = True,
    ) -> None:
        self.config = config
        self.unexplained = unexplained
        self._model = model
        self.vocabulary = build_vocabulary(config)
        self._by_name = {t.name: t for t in self.vocabulary}
        self._numeric = [t for t in self.vocabulary if t.shape not in ("enum", "date")]
        self._negotiated = [t for t in self.vocabulary if t.negotiated]
        self._keywords = [k for t in self.vocabulary for k in t.keywords]
        self._term_words = _term_words(self.vocabulary) if unexplained else None
        self._last: tuple[tuple[str, date | None, tuple[str, ...], int, int], TermReading] | None = None

    def term(self, name: str) -> TermDef:
        """The term called name (KeyError if the domain has none)."""
        return self._by_name[name]

    def read(self, message: str, *, today: date | None = None, asked: Sequence[str] = ()) -> TermReading:
        """The terms, conditions and competing offers message states.

        Args:
            message: The counterparty's message.
            today: The date relative dates resolve against ("July 6" is the next July 6 after it);
                None writes a date without its year ("--07-06").
            asked: Fields the delegate just asked about (a bare figure in the answer is theirs).
        """
        message = printable(message)  # read what a person is shown: no escape sequence's payload
        model = self.model
        key = (message, today, tuple(asked), id(model), id(active_net()))
        if self._last is not None and self._last[0] == key:
            return self._last[1]  # the delegate and its extractor read the same message
        try:
            draft, hits, clauses = self._analyse(message, today=today, asked=asked)
        except TextRefused as refused:
            reading = _refused(message, refused)
            self._last = (key, reading)
            return reading
        reading = _assemble(draft, hits, clauses, term_words=self._term_words)
        revision = Revision(tuple(hits))
        if model is not None:
            every = self.with_alternatives(draft, hits, today=today)
            revision = model.revise(draft, every)
            hits = [h for h in every if h.role != "alt"]
        if revision.hits != tuple(hits):
            reading = _with_rule_conditions(
                _assemble(draft, revision.hits, clauses, revision.set_aside, term_words=self._term_words),
                reading,
            )
        self._last = (key, reading)
        return reading

    @property
    def model(self) -> TermModel | None:
        """The trained model the reader consults behind its rules (`term_model`), if any: the one it was
        given, or the shipped one when it is on and models are not switched off."""
        return shipped_term_model() if isinstance(self._model, str) else self._model

    def analyse(
        self, message: str, *, today: date | None = None, asked: Sequence[str] = ()
    ) -> tuple[Draft, list[Hit], ClauseReading]:
        """The parse of message, every value the rules found in it with the part it plays, and the
        clause-level reading (what `read` assembles into a `TermReading`).

        Raises:
            TextRefused: The message is too long to parse.
        """
        return self._analyse(printable(message), today=today, asked=asked)

    def _analyse(
        self, shown: str, *, today: date | None, asked: Sequence[str]
    ) -> tuple[Draft, list[Hit], ClauseReading]:
        """`analyse` of a message already made printable (what a person is shown)."""
        draft = parse(shown, self.config.non_binding_phrases)
        replied_to = _replied_to(draft.text)
        hits = [_with_role(draft, h, replied_to) for h in self._hits(draft, today, asked)]
        clauses = read_clauses(draft, hits, self.vocabulary)
        return draft, derive(draft, list(clauses.hits), self._by_name), clauses

    def with_alternatives(self, draft: Draft, hits: Sequence[Hit], *, today: date | None = None) -> list[Hit]:
        """hits with every other reading of the message's figures, dates and option words the rules did
        not make (role "alt"), in the order of the text, for the trained model to rank (`term_model`):
        each figure as every numeric term its unit converts to within the term's plausible magnitude
        (also a figure no term claims or one the rules skipped), each date as every date term, each
        option the rules passed over (no keyword by it). The rules never state one; the model states
        one only for a term with no value stated otherwise, from a figure no stated value holds.
        Linear: a bounded number of readings per figure (one per term of the domain)."""
        text = draft.text
        dates = find_dates(text, today)
        options = find_options(text, self.vocabulary)
        masked = phone_spans(text) + [
            (d.start, d.end) for d in dates if any(c.isdigit() for c in text[d.start : d.end])
        ]
        masked += [
            (o.start, o.end) for o in options if o.pattern or any(c.isdigit() for c in text[o.start : o.end])
        ]
        form_ends = [f.end for f in condition_form_matches(text.lower())]
        index = KeywordIndex(draft, self.vocabulary, cues().other_costs, form_ends)
        figures = find_figures(draft, masked, self._keywords)
        index.mark_figures([f.start for f in figures], [(f.start, f.end) for f in figures])
        taken = {(h.term.name, h.start) for h in hits}
        areas = [f for f in figures if f.kind == "count" and f.unit == "sqft"]
        found: list[Hit] = []

        def add(
            term: TermDef, low: TermValue, high: TermValue, start: int, end: int, figure: Figure | None
        ) -> None:
            if (term.name, start) not in taken:
                taken.add((term.name, start))
                near = index.penalty(term.name, start, end)
                closeness = 0.1 if near is None else 0.6 if near < 0.5 else 0.5 if near < 1.2 else 0.3
                found.append(Hit(term, low, high, start, end, closeness, "alt", figure))

        for figure in figures:
            if figure.per_area:
                figure = area_figure(figure, areas)
            for term in self._numeric:
                converted = convert(term, figure)
                if converted is not None and misfit(term, converted[1]) <= _ALTERNATIVE_MISFIT:
                    add(term, converted[0], converted[1], figure.start, figure.end, figure)
        date_terms = [t for t in self.vocabulary if t.shape == "date"]
        for mention in dates:
            for term in date_terms:
                add(term, mention.value, mention.value, mention.start, mention.end, None)
        for option in options:
            term = self._by_name[option.term]
            if draft.negated_at(option.start) or _NO_AFTER.match(text, option.end):
                continue
            value: TermValue = option.value
            if term.shape != "enum":
                try:
                    value = float(option.value)
                except ValueError:
                    continue
            add(term, value, value, option.start, option.end, None)
        return sorted([*hits, *found], key=lambda h: h.start)

    # -- finding values -------------------------------------------------------------------------------
    def _hits(self, draft: Draft, today: date | None, asked: Sequence[str]) -> list[Hit]:
        text = draft.text
        dates = find_dates(text, today)
        options = find_options(text, self.vocabulary)
        masked = phone_spans(text) + [
            (d.start, d.end) for d in dates if any(c.isdigit() for c in text[d.start : d.end])
        ]
        masked += [
            (o.start, o.end) for o in options if o.pattern or any(c.isdigit() for c in text[o.start : o.end])
        ]
        # Where a condition form ends ("Throw in 25 days PTO | and we have a deal at 104") is a boundary
        # like a conditional marker: a figure after it is not the condition's term by nearness.
        form_ends = [f.end for f in condition_form_matches(text.lower())]
        index = KeywordIndex(draft, self.vocabulary, cues().other_costs, form_ends)
        figures = find_figures(draft, masked, self._keywords)
        index.mark_figures([f.start for f in figures], [(f.start, f.end) for f in figures])
        hits = self._figure_hits(draft, figures, index, asked)
        hits += self._date_hits(draft, dates, index, asked)
        hits += self._option_hits(draft, options, hits, index)
        hits += zero_hits(draft, self.vocabulary, hits)
        return sorted(removed_figures(draft, hits), key=lambda h: h.start)

    def _figure_hits(
        self, draft: Draft, figures: Sequence[Figure], index: KeywordIndex, asked: Sequence[str]
    ) -> list[Hit]:
        asked_terms = [t for t in self._numeric if t.field in asked]
        hits: list[Hit] = []
        previous: Attributed | None = None
        keyed: dict[str, int] = {}
        areas = [f for f in figures if f.kind == "count" and f.unit == "sqft"]
        prior: Figure | None = None
        for figure in figures:
            figure, prior = _uninherited(figure, prior, index), figure
            if figure.per_area:
                figure = area_figure(figure, areas)
                if figure.per_area:
                    continue
            same_sentence = previous is not None and draft.sentence_at(
                previous.figure.start
            ) == draft.sentence_at(figure.start)
            joined = previous is not None and not index.separated(previous.figure.end, figure.start)
            last = previous if same_sentence and joined else None
            found = attribute(figure, self._numeric, index)
            if figure.inherited and last is not None and (found is None or not found.keyed):
                found = inherit(figure, last) or found
            elif last is not None and _CHANGE_GAP.match(draft.text[last.figure.end : figure.start]):
                found = inherit(figure, last) or found  # "base goes from 104k to 109k, relocation ..."
            if (
                (found is None or found.weak)
                and not (is_total(draft, figure) and not figure.context_per)
                and not names_other_cost(figure, index)
            ):
                default = fallback(figure, last, asked_terms, self._negotiated)
                if (
                    default is not None
                    and not _named_since(found, default, keyed, index, figure)
                    and not _priced_again(draft, default, keyed, figure)
                ):
                    found = default
            found = found or attribute_across(figure, self._numeric, index)
            found = found or quantity_for(figure, self._numeric, draft.text)
            if found is not None and found.keyed:
                keyed[found.term.name] = figure.start
            if found is None:
                if figure.kind in ("money", "number"):
                    hits.append(
                        Hit(
                            UNCLAIMED, figure.low, figure.high, figure.start, figure.end, 0.0, "aside", figure
                        )
                    )
                continue
            previous = found
            hits.append(
                Hit(
                    found.term,
                    found.low,
                    found.high,
                    figure.start,
                    figure.end,
                    found.confidence,
                    figure=found.figure,
                )
            )
        return hits

    def _date_hits(
        self, draft: Draft, dates: Sequence[DateMention], index: KeywordIndex, asked: Sequence[str]
    ) -> list[Hit]:
        """Dates of the date term whose keyword is nearest; without a keyword, of the domain's only
        date term when it was asked about or the message corrects a date ("Sorry, I meant March")."""
        terms = [t for t in self.vocabulary if t.shape == "date"]
        bare = len(terms) == 1 and (
            terms[0].field in asked or bool(cues().search("correction", draft.text.lower()))
        )
        hits: list[Hit] = []
        for mention in dates:
            term = index.nearest(mention.start, mention.end, terms)
            confidence = 0.9
            if term is None and bare:
                term, confidence = terms[0], 0.7
            if term is not None:
                hits.append(Hit(term, mention.value, mention.value, mention.start, mention.end, confidence))
        return hits

    def _option_hits(
        self, draft: Draft, options: Sequence[OptionMention], figures: Sequence[Hit], index: KeywordIndex
    ) -> list[Hit]:
        hits: list[Hit] = []
        for option in options:
            term = self._by_name[option.term]
            distinctive = option.pattern or any(ch.isdigit() for ch in draft.text[option.start : option.end])
            if (
                draft.negated_at(option.start)
                or _NO_AFTER.match(draft.text, option.end)
                or not (distinctive or index.penalty(term.name, option.start, option.end) is not None)
            ):
                continue
            if absorbed(option, figures) or days_not_place(draft, option, figures):
                continue
            value: TermValue = option.value
            if term.shape != "enum":
                try:
                    value = float(option.value)
                except ValueError:
                    continue
            hits.append(Hit(term, value, value, option.start, option.end, 0.9))
        return hits


_ALTERNATIVE_MISFIT = 1.0
"""How far outside a term's usual range (log ratio) a figure may lie to be an alternative reading of it
(e times the widened range: "$42" is no monthly rent, "8,400" may be)."""
_NO_AFTER = re.compile(r"[ \t]*[:\u2013\u2014-]?[ \t]*(?:no|not)[ \t]*(?:[.,;!)\n]|$)", re.IGNORECASE)
"""Right after an option: the writer says it does not hold ("ISO 9001 yes, AS9100 no.")."""


def _uninherited(figure: Figure, prior: Figure | None, index: KeywordIndex) -> Figure:
    """figure without the unit carried over from the figure before it when a condition stands between
    them ("Throw in 25 days PTO and we have a deal at 104": 104 is no count of days)."""
    if not figure.inherited or prior is None or not index.separated(prior.end, figure.start):
        return figure
    if figure.kind not in ("duration", "count"):
        return figure
    return replace(figure, kind="number", unit=None, inherited=False)


def _named_since(
    found: Attributed | None, default: Attributed, keyed: dict[str, int], index: KeywordIndex, figure: Figure
) -> bool:
    """Whether a weakly tied term beats the default for a bare figure: the default term already has
    its value, tied by its keyword, earlier in the sentence, and the weak term is named between that
    value and the figure ("the salary of 105.000 is ok, but only if the company pays the relocation,
    I estimate around 14.000": 14,000 is the relocation)."""
    if found is None or found.term is default.term or default.term.name not in keyed:
        return False
    at = index.named_before_in_sentence(found.term.name, figure.start)
    return at is not None and keyed[default.term.name] < at


def _priced_again(draft: Draft, default: Attributed, keyed: dict[str, int], figure: Figure) -> bool:
    """Whether money far from the default term's usual range (read as it for its currency and cents
    alone) follows a value of that term tied by its keyword in the same sentence: it is an alternative
    to that value ("Per-unit $1.12, or $1.05 if you order 50,000+"), not the term's value."""
    at = keyed.get(default.term.name)
    return (
        at is not None
        and misfit(default.term, default.high) > 1.0
        and draft.sentence_at(at) == draft.sentence_at(figure.start)
    )


_CHANGE_GAP = re.compile(r"^\s*(?:to|->|\u2192)\s*$")
"""Between two figures of one change ("from 104k to 109k"): the second is the first one's term."""


# -- the reading ----------------------------------------------------------------------------------------
def _with_role(draft: Draft, hit: Hit, replied_to: Sequence[tuple[int, int]] = ()) -> Hit:
    """hit with the part it plays; a figure no term claims is "unread" when, were it a term's, it
    would be the counterparty's own (not a total, the market, the past or someone else's offer). A
    term's value on a line quoted from the message replied to ("> We could do 96 if start is Dec 14.")
    is that message's, not one this message states."""
    if hit.term is not UNCLAIMED and _inside(replied_to, hit.start):
        return replace(hit, role="aside")
    found = role(draft, hit)
    if (
        hit.term is UNCLAIMED
        and found == "aside"
        and role(draft, replace(hit, role="own")) in ("own", "condition")
    ):
        return replace(hit, role="own")
    return replace(hit, role=found)


def _refused(message: str, refused: TextRefused) -> TermReading:
    """The reading of a message too long to parse: nothing stated, the message unread, and every
    conditional construction in it quoted."""
    note = (
        f"the whole message ({refused.length:,} characters, over the reader's limit of "
        f"{refused.limit:,}): not read"
    )
    conditions = tuple(Condition("other", None, None, q.text, quoted=True) for q in refused_quotes(message))
    return TermReading(conditions=conditions, unread=(note,))


def _stated(hit: Hit, draft: Draft) -> StatedTerm:
    clause = draft.clause_at(hit.start)
    high = float(hit.high) if isinstance(hit.high, float) and hit.high != hit.low else None
    return StatedTerm(
        hit.term.name, _tidy(hit.low), high, round(hit.confidence, 4), clause.text if clause else ""
    )


def _tidy(value: TermValue) -> TermValue:
    return round(value, 6) if isinstance(value, float) else value


def last_per_term(hits: Sequence[Hit]) -> list[Hit]:
    """One hit per term: the last one stated, unless it is one that was replaced by a later value or
    an end of the range stated before it ("95-105 for this level; 105 would need VP sign-off"). A value
    replaced by a later one of another term of the same field is left out too ("I wrote 95 an hour, I
    meant 95k a year": the pay changed its unit, so the hourly rate is no term of the message)."""
    chosen: dict[str, Hit] = {}
    for hit in hits:
        current = chosen.get(hit.term.name)
        if current is not None and current.low != current.high and hit.low in (current.low, current.high):
            continue
        if current is None or hit.role != "old" or current.role == "old":
            chosen[hit.term.name] = hit
    kept = [h for h in chosen.values() if not _replaced_in_field(h, chosen.values())]
    return sorted(kept, key=lambda h: h.start)


_ALTERNATIVE_OPENING = re.compile(
    r"\W*(?:if|unless|otherwise|but|on|with|without|should|provided|assuming|in case|only if)\b",
    re.IGNORECASE,
)
"""How a sentence opens that offers a conditional alternative to a value stated before it ("If you
need IATF traceability it's $15.90", "On net 60 the warranty is 12 months", "But for IATF it's 1.95")."""


def _without_alternatives(draft: Draft, hits: Sequence[Hit]) -> list[Hit]:
    """hits without the values a condition puts in place of a value the writer stated first: "$14.60
    for non-certified parts. If you need IATF, it goes to $15.90" states $14.60 (the $15.90 stays a
    condition). A condition's value is an alternative when an earlier stated value of its term stands
    in its sentence, or its sentence opens as an alternative; a stated zero ("everything except PTO")
    is no value stated first (issue 17, round 20: writers ht5, ht6, ht7, ht11, ht14, ht15, ht16, ht17)."""
    kept: list[Hit] = []
    for hit in hits:
        if hit.role == "condition" and any(
            h.role == "own"
            and h.term is hit.term
            and h.start < hit.start
            and not (h.figure is None and h.low == 0.0)
            and _alternative_to(draft, h, hit)
            for h in hits
        ):
            continue
        kept.append(hit)
    return kept


def _alternative_to(draft: Draft, first: Hit, later: Hit) -> bool:
    sentence = draft.sentence_at(later.start)
    if sentence is None:
        return False
    if sentence.start <= first.start:
        return True
    return _ALTERNATIVE_OPENING.match(draft.text, sentence.start, later.start) is not None


def _replaced_in_field(hit: Hit, chosen: Iterable[Hit]) -> bool:
    """Whether hit is a value the message takes back ("old") and a later value of another term of its
    field replaces it."""
    field = hit.term.field
    return (
        hit.role == "old"
        and field is not None
        and any(
            h.term.field == field and h.term is not hit.term and h.role != "old" and h.start > hit.start
            for h in chosen
        )
    )


def _assemble(
    draft: Draft,
    hits: Sequence[Hit],
    clauses: ClauseReading | None = None,
    set_aside: Sequence[str] = (),
    *,
    term_words: frozenset[str] | None = None,
) -> TermReading:
    stating = last_per_term(
        _without_alternatives(
            draft, [h for h in hits if h.role in ("own", "condition", "old") and h.term is not UNCLAIMED]
        )
    )
    facts = _facts()
    own = [h for h in stating if h.term.name not in facts]
    competing = last_per_term([h for h in hits if h.role == "competing" and h.term is not UNCLAIMED])
    conditions = [
        Condition(
            h.term.name,
            _tidy(h.low),
            float(h.high) if isinstance(h.high, float) and h.high != h.low else None,
            _clause_text(draft, h.start),
        )
        for h in hits
        if h.role == "condition" and h.term is not UNCLAIMED
    ]
    read = bytearray(len(draft.text))  # the characters some value was read from
    for h in hits:
        read[h.start : h.end] = b"\x01" * max(0, min(h.end, len(read)) - h.start)
    unsure = dict.fromkeys(
        _clause_text(draft, h.start)
        for h in hits
        if h.role == "condition" and h.term is not UNCLAIMED and _unsure(draft, h, read)
    )
    conditions += [Condition("other", None, None, text, quoted=True) for text in unsure if text]
    conditions += [
        Condition("other", None, None, text, quoted=True) for text in (clauses.quoted if clauses else ())
    ]
    others = _others(draft, hits, clauses)
    conditions += [
        Condition("other", None, None, text, quoted=_unattributed(hits, offset, text))
        for offset, text in others
    ]
    covered = [h.start for h in hits if h.role == "condition" and h.term is not UNCLAIMED]
    covered += [offset for offset, _ in others] + list(clauses.covered if clauses else ())
    conditions += [
        Condition("other", None, None, q.text, quoted=True)
        for q in uncovered_conditions(draft, covered, stated=[h.start for h in own])
    ]
    net = active_net()
    if net is not None and not draft.unread:  # fail closed: a clause the learned net finds conditional
        said = [c.text for c in conditions]
        conditions += [
            Condition("other", None, None, text, quoted=True, source=NET_REASON)
            for text in net.uncovered((c.text for c in draft.clauses()), said)
        ]
    if term_words is not None:  # fail closed: a sentence about terms it cannot explain, quoted (issue 17)
        spans = [(h.start, h.end) for h in hits if h.term is not UNCLAIMED]
        spans += _found_spans(draft.text, [c.text for c in conditions if not c.quoted])
        said = [c.text for c in conditions if c.quoted]
        conditions += [
            Condition("other", None, None, q.text, quoted=True, source=UNEXPLAINED)
            for q in unexplained_sentences(draft, spans, term_words, said)
        ]
    conditions = _distinct_quotes(conditions)
    if len(conditions) > MAX_QUOTED:  # a message of hundreds of conditions: the principal reads it whole
        left = len(conditions) - MAX_QUOTED + 1
        more = Condition("other", None, None, f"{left} more conditional clauses not quoted", quoted=True)
        conditions = [*conditions[: MAX_QUOTED - 1], more]
    lowered = draft.text.lower()
    replaced = any(h.role in ("rejected", "old") for h in hits)
    apology = bool(cues().search("apology", lowered))
    correction = bool(cues().search("correction", lowered)) or (
        apology and (replaced or bool(cues().search("restatement", lowered)))
    )
    quoted = _quoted_lines(draft.text)
    answered = [span for span in _answered(draft) if not _inside(quoted, span[0])]
    unasked = sorted(quoted + answered)  # quoted from another message, or answered at once (disjoint)
    question = any(is_question(s.text) and not _inside(unasked, s.start) for s in draft.sentences) or any(
        c.mood == "question" and not _relative(draft, c) and not _inside(unasked, c.start)
        for c in draft.clauses()
    )
    stated = {h.term.name for h in stating}
    implied = last_per_term([h for h in hits if h.role == "implied" and h.term.name not in stated])
    implied = sorted([*implied, *(h for h in stating if h.term.name in facts)], key=lambda h: h.start)
    aside = {
        h.term.name
        for h in hits
        if h.term is not UNCLAIMED and h.role != "implied" and h.term.name not in stated
    }
    return TermReading(
        tuple(_stated(h, draft) for h in own),
        tuple(conditions),
        question,
        correction,
        tuple(_stated(h, draft) for h in competing),
        tuple(sorted(aside)),
        tuple(dict.fromkeys([*(q.text for q in unread_amounts(draft, hits)), *set_aside])),
        tuple(_stated(h, draft) for h in implied),
    )


def _with_rule_conditions(revised: TermReading, rules: TermReading) -> TermReading:
    """The model's reading with every condition the rules' reading surfaced that it lacks (fail closed:
    the model may add or re-attribute a condition, never take one away)."""
    kept = set(revised.conditions)
    missing = tuple(c for c in rules.conditions if c not in kept)
    return replace(revised, conditions=revised.conditions + missing) if missing else revised


def _found_spans(text: str, found: Sequence[str]) -> list[tuple[int, int]]:
    """Where the texts of the conditions the reader found stand in text (their first place each): what
    a found condition says is explained."""
    spans: list[tuple[int, int]] = []
    for condition in dict.fromkeys(found):
        at = text.find(condition) if condition else -1
        if at >= 0:
            spans.append((_opening(text, at), at + len(condition)))
    return spans


_CONNECTIVES = frozenset(
    (
        *("provided", "providing", "assuming", "assumed", "given", "if", "unless", "only", "as", "long"),
        *("so", "that", "on", "upon", "condition", "conditional", "subject", "to", "contingent", "but"),
        *("and", "with", "in", "exchange", "return", "once", "when", "after", "before", "until"),
    )
)
"""Words that open a condition clause ("provided", "but only with", "as long as"): the reader read the
condition they open, so they are explained with it (issue 17)."""
_LAST_WORD = re.compile(r"([^\W\d_]+)[ \t,;:]*$")


def _opening(text: str, at: int) -> int:
    """Where the condition at offset at opens: back over at most three connectives right before it (a
    bounded window each: linear)."""
    for _ in range(3):
        last = _LAST_WORD.search(text, max(0, at - 24), at)
        if last is None or last.group(1).lower() not in _CONNECTIVES:
            break
        at = last.start()
    return at


_WORD = re.compile(r"[^\W\d_]+")


def _term_words(vocabulary: Sequence[TermDef]) -> frozenset[str]:
    """The words of a domain's terms (keywords, labels, options and their phrases), lower case: a sentence
    holding one is about terms."""
    phrases = [
        p
        for t in vocabulary
        for p in (*t.keywords, t.label, *t.options, *(x for v in t.options.values() for x in v))
    ]
    return frozenset(w.lower() for p in phrases for w in _WORD.findall(p))


@cache
def _facts() -> frozenset[str]:
    """The terms that say who a party is or what the role or the space is (`facts` in term_cues.yaml):
    implied by a message, never a term it states."""
    return frozenset(str(name) for name in load_yaml_data("term_cues.yaml").get("facts", []))


_QUOTED_LINE = re.compile(r"^[ \t]*>[^\n]*", re.MULTILINE)
"""A line of an earlier message quoted in a reply ("> Can you confirm the sign-on amount?")."""


def _distinct_quotes(conditions: list[Condition]) -> list[Condition]:
    """The conditions with a quote the principal already reads word for word left out (a fallback the
    clause reading quotes is also a construction the guard would quote)."""
    seen: set[str] = set()
    kept: list[Condition] = []
    for condition in conditions:
        if condition.quoted and condition.text in seen:
            continue
        if condition.quoted:
            seen.add(condition.text)
        kept.append(condition)
    return kept


def _quoted_lines(text: str) -> list[tuple[int, int]]:
    """The spans of the lines quoted from an earlier message (one linear scan)."""
    return [(m.start(), m.end()) for m in _QUOTED_LINE.finditer(text)]


_ANSWER = re.compile(
    r"[ \t]*(?:no|nope|none|yes|yep|fine|sure|ok|okay|correct|right)[ \t]*(?:[.,;:!\u2014\u2013-]|$)",
    re.IGNORECASE | re.MULTILINE,
)
"""Right after a question mark on the same line: the writer answers the question at once."""


def _answered(draft: Draft) -> list[tuple[int, int]]:
    """The spans of the questions the writer answers at once ("12 months free? No. We can offer one.",
    "Parking? None, sorry."): a question put only to be answered asks nothing."""
    text = draft.text
    spans: list[tuple[int, int]] = []
    for sentence in draft.sentences:
        end = sentence.start + len(sentence.text.rstrip())
        if is_question(sentence.text) and _ANSWER.match(text, end):
            spans.append((sentence.start, end))
    return spans


def _replied_to(text: str) -> list[tuple[int, int]]:
    """The lines quoted from the message replied to that state something (not a question, whose
    figure the reply may take up: "> Can you do 1.40? / At 20k, yes."), when the reply says something
    of its own (a message that is all quoted lines is read as it is)."""
    quoted = _quoted_lines(text)
    if not quoted or not any(c.isalnum() for c in _QUOTED_LINE.sub("", text)):
        return []
    return [(start, end) for start, end in quoted if not is_question(text[start:end])]


def _inside(spans: Sequence[tuple[int, int]], offset: int) -> bool:
    """Whether offset lies in one of spans (sorted, disjoint)."""
    at = bisect.bisect_right(spans, offset, key=lambda span: span[0]) - 1
    return at >= 0 and spans[at][0] <= offset < spans[at][1]


_FREE_RELATIVE = re.compile(r"^\W*(?:what|when|where|how|whatever)\s+(?:we|i|you|they|he|she|it)\b")


def _relative(draft: Draft, clause: Clause) -> bool:
    """Whether a clause the parse reads as a question opens a statement ("What we can do is 2 months
    free.", "Sorry, when I wrote 85 I meant my hourly rate."): a wh-word before a subject, in a sentence
    that does not end with a question mark."""
    sentence = draft.sentences[clause.sentence].text
    return not is_question(sentence) and _FREE_RELATIVE.match(clause.text.lower()) is not None


_DIGITS = re.compile(r"\d+")
_EXCHANGE = re.compile(r"\b(?:in (?:exchange|return)|then|in that case)\b")
"""After a contrast, what makes a requirement the price of what came before it ("..., but in exchange
we'd need 2.80"): which of the two is the condition is the principal's to read."""


def _unsure(draft: Draft, hit: Hit, read: bytearray) -> bool:
    """Whether a condition read as hit's term may say more than that term's value, so the principal
    also reads its clause as written (fail closed): a date it sets as a deadline ("unless the start
    slips past February 15"), a requirement traded after a contrast ("but in exchange we'd need") or a
    figure in its clause no term claims ("only if min 6 month contract")."""
    clause = draft.clause_at(hit.start)
    if clause is None:
        return False
    lowered = draft.text.lower()
    if hit.term.shape == "date" and cues().search("deadline_before", lowered[clause.start : hit.start]):
        return True
    if follows_contrast(draft, clause) and _EXCHANGE.search(lowered, clause.start, hit.start):
        return True  # "Net 90 is possible, but in exchange we'd need 2.80": read on 2.80, quoted as well
    return any(not read[clause.start + m.start()] for m in _DIGITS.finditer(clause.text))


_POINTING = re.compile(
    r"\b(?:do|does|did|get|gets|got|accept|confirm|agree to|manage|match|meet|take|approve|make|give)"
    r"\s+(?:us\s+|me\s+|him\s+|her\s+)?(?:all\s+)?(?:this|that|these|those|it|them|both)\b"
    r"|\b(?:this|that|these|those|it)\s+(?:is|are|'s|works?|would|will|can|could|goes|happens)\b"
    r"|\b(?:this|that|these|those|them|both|it)\W*$"
)
"""A word pointing back: a condition holding one ("if he can do that") says nothing by itself."""


def _unattributed(hits: Sequence[Hit], offset: int, text: str) -> bool:
    """Whether a condition on no term is one the reader failed to tie to a term rather than one that
    names none ("satisfactory references"): it holds a value or a figure, or points back to something said
    before ("if he can do that"). The principal is told to read it himself (fail closed)."""
    end = offset + len(text)
    if any(offset <= h.start < end for h in hits) or any(c.isdigit() for c in text):
        return True
    return bool(_POINTING.search(text.lower()))


def _others(draft: Draft, hits: Sequence[Hit], clauses: ClauseReading | None) -> list[tuple[int, str]]:
    """The conditions on no term: those of the conditional clauses and cues (`other_conditions`) and
    those the clause-level reading found, once each; none from an anaphoric clause the clause-level
    reading tied to the terms it points back to."""
    attached = set(clauses.attached) if clauses else set()
    found = [o for o in other_conditions(draft, hits) if o[0] not in attached]
    seen = {" ".join(text.lower().split()) for _, text in found}
    for offset, text in clauses.others if clauses else ():
        key = " ".join(text.lower().split())
        if key not in seen and not any(key in s or s in key for s in seen):
            seen.add(key)
            found.append((offset, text))
    return sorted(found)


def _clause_text(draft: Draft, offset: int) -> str:
    clause = draft.clause_at(offset)
    return clause.text.strip(" .,;") if clause is not None else ""


# -- one reader per config; a session's position ----------------------------------------------------------
_READERS: OrderedDict[int, tuple[DomainConfig, TermReader]] = OrderedDict()
_READERS_KEPT = 16


def reader_for(config: DomainConfig) -> TermReader:
    """The term reader of config, built once (the cache holds the config, so its id stays unique)."""
    key = id(config)
    if key in _READERS:
        _READERS.move_to_end(key)
        return _READERS[key][1]
    reader = TermReader(config)
    _READERS[key] = (config, reader)
    if len(_READERS) > _READERS_KEPT:
        _READERS.popitem(last=False)
    return reader


def latest_terms(readings: Sequence[TermReading]) -> dict[str, StatedTerm]:
    """Each term's value as last stated over a conversation (a later message overrides an earlier one)."""
    latest: dict[str, StatedTerm] = {}
    for reading in readings:
        latest.update({t.term: t for t in reading.terms})
    return latest


def all_conditions(readings: Sequence[TermReading]) -> list[Condition]:
    """Every condition attached over a conversation, once each, in the order first stated (none is
    dropped: a principal deciding on terms must see every condition they came with)."""
    seen: dict[tuple[str, str, str], Condition] = {}
    for reading in readings:
        for condition in reading.conditions:
            seen.setdefault((condition.term, str(condition.value), condition.text.lower()), condition)
    return list(seen.values())

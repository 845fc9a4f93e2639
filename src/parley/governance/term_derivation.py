"""Values a counterparty message implies rather than states, for the term reader (`governance.terms`):
the parts of a total ("$150,000: $130,000 base and the remainder as a signing bonus"), the price per
unit of a counted order ("4,000 units come to $18,400"), a rate per square foot times the area, a lump
sum restated as a multiple of another term (a deposit of $10,500 on $3,500 rent is 3 months), and the
values a stated one implies (a TI allowance implies improvements=allowance).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache

from parley.governance.draft import Draft
from parley.governance.term_attribution import KeywordIndex
from parley.governance.term_figures import Figure, cues
from parley.governance.term_roles import UNCLAIMED, Hit, TermValue
from parley.governance.term_vocabulary import TermDef


def area_figure(figure: Figure, areas: Sequence[Figure]) -> Figure:
    """A rate per square foot times the nearest area stated (unchanged when no area was stated)."""
    if not areas:
        return figure
    area = min(areas, key=lambda a: abs(a.start - figure.start)).low
    return replace(
        figure,
        low=figure.low * area,
        high=figure.high * area,
        per_area=False,
        kind="money",
        currency=True,
    )


_NONE_BEFORE = (
    r"\b(?:no|zero|nil|without(?: a| any)?)\s+"
    r"(?:(?:security|refundable|upfront|up-front|extra|additional|cash|separate|damage)\s+)?"
)
_NON_BEFORE = r"\bnon-"
"""Glued before a term's name: it has none ("non-certified parts", "a non-ISO line"); only the name
itself follows ("non-refundable deposit" names no deposit of zero)."""
_UNNEEDED_AFTER = (
    r"\s+(?:is|are)(?:n't|\s+not)\s+(?:needed|required|necessary)\b"
    r"(?!\s*(?:until|before|by|for\s+(?:the\s+)?(?:first|now)|yet|upfront|up-front)\b)"
)
"""After a term's name: the writer has no need of it ("Relocation isn't needed", "Certification is not
required for this part"); not when only its timing is ("isn't needed until March")."""
_WAIVED_BEFORE = r"\bwaiv(?:e|es|ed|ing)\s+(?:the\s+|any\s+|all\s+)?(?:security\s+)?"
_WAIVED_AFTER = r"\s+(?:(?:is|are|will be|would be|can be|gets|get|being)\s+)?waived\b"
_NONE_AFTER = (
    r"(?:\s*(?::|=|-|\?)\s*(?:none|nil|n/a|zero|no|[$\u20ac\u00a3]?\s?0(?:[.,]00?)?(?!\d|[.,]\d))"
    r"|\s+(?:none|nil|zero|[$\u20ac\u00a3]?0(?:[.,]00?)?(?!\d|[.,]\d)))(?![\w/])"
)
"""After a term's name: it has none ("Relocation: none", "Sign-on bonus: $0", "Parking? None", "Relo 0");
without a separator only a zero or "none" ("relocation no problem" is no zero)."""
_REFUSED_BEFORE = (
    r"\b(?:don't|do not|doesn't|does not|won't|will not|can't|cannot|can not|couldn't|could not"
    r"|(?:not able|unable) to)\s+"
    r"(?:do|offer|accept|agree to|commit to|include|provide|give|pay|need|require)\s+(?:any\s+|a\s+|an\s+)?"
)
"""Before a term's name: the writer refuses any of it or has no need of it ("we don't do late-delivery
penalties", "we can't commit to any penalty", "we can't offer relocation for this role", "we can't do a
relocation package", "we're not able to offer any equity", "he does not need relocation", "we don't need
a TI allowance"). Not "the": "we don't need the relocation paid upfront" keeps the relocation."""
_ABSENT_BEFORE = (
    r"\b(?:except(?: for)?|not with|(?:won't|will not|wouldn't|would not|can't|cannot|don't|do not|refuse to)"
    r" (?:sign|accept|agree|proceed|go ahead|close|commit)"
    r"(?: to (?:it|this|that|anything|the deal|the contract))? with)\s+(?:the\s+|a\s+|an\s+|any\s+)?"
)
"""Before a term's name: the writer takes the rest without it ("everything except the penalty clause",
"we won't sign with any late penalty", "net 30, but not with a late penalty"); `term_clauses` makes that
absence a condition when the message accepts other terms."""
_MODIFIER = r"(?:[a-z]+-[a-z]+\s+)?"
"""A hyphenated word before a term's name ("no late-delivery penalties", "dropping the late-delivery
penalty")."""
_OWNER = r"(?:the|his|her|their|its|your|my|our)"
_DROPPED_BEFORE = (
    rf"\b(?:no to(?: the)?|not the|drop(?:s|ped|ping)? {_OWNER}|remove(?:s|d)? the"
    rf"|skip(?:s|ped)? the|scrap(?:s|ped)? the|give(?:s|n)? up {_OWNER}|do(?:ing)? without {_OWNER}"
    rf"|forgo(?:es|ne)? {_OWNER}|withdraw(?:s|n)? {_OWNER}|reject(?:s|ed)? {_OWNER})\s+"
    r"(?:(?:request|ask|demand|claim) for (?:the |any |a |an )?)?"
)
"""Before a term's name: it is dropped ("No to the relocation", "drop the signing bonus entirely",
"drops the request for free months", "gives up his relocation ask")."""
_DROPPED_AFTER = (
    r"(?:\s+(?:months?|weeks?|days?))?"
    r"(?:\s+(?:ask|request|demand|claim|requirement|piece|component|clause|provision|allowance))?"
)
"""After a dropped term's name: the word for asking for it ("drops the relocation ask entirely")."""
_NOT_NONE = re.compile(
    r"^\s*(?:more|less|later|earlier|longer|shorter|higher|lower|fewer|greater|than|further)\b"
)


def _plural(keyword: str) -> str:
    """A keyword's pattern with its plural ("penalty" → "penalties", "bonus" → "bonuses")."""
    if keyword[-1:] == "y" and keyword[-2:-1] not in ("a", "e", "o", "u"):
        return re.escape(keyword[:-1]) + "(?:y|ies)"
    return re.escape(keyword) + "(?:e?s)?"


@cache
def _zero_pattern(keywords: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(sorted((re.escape(k.lower()) for k in keywords if k.strip()), key=len, reverse=True))
    plurals = "|".join(
        sorted((_plural(k.lower()) for k in keywords if k.strip()), key=len, reverse=True)
    )  # "no penalties", "dropping the late-delivery penalties"
    return re.compile(
        f"(?:{_NONE_BEFORE}|{_WAIVED_BEFORE}){_MODIFIER}(?:{plurals})\\b|\\b(?:{words}){_WAIVED_AFTER}"
        f"|{_NON_BEFORE}(?:{plurals})\\b|\\b(?:{words})(?:\\s+[a-z]+)?{_UNNEEDED_AFTER}"
        f"|(?:{_REFUSED_BEFORE}|{_ABSENT_BEFORE}){_MODIFIER}(?:{plurals})\\b"
        "(?!\\s*(?:of|at|to|above|beyond|over|than|more)\\b)"
        f"|\\b(?:{words})(?:\\s+[a-z]+)?{_NONE_AFTER}|{_DROPPED_BEFORE}{_MODIFIER}(?:{plurals}){_DROPPED_AFTER}"
        "\\b(?=\\s*(?:[.;!,]|$|and\\b|if\\b|entirely|altogether|completely))"
    )


@cache
def _whole_word(keyword: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(keyword.lower())}\b")


def _names(text: str, keywords: Sequence[str]) -> bool:
    """Whether text holds one of keywords as a whole word (not only its plural)."""
    return any(_whole_word(k).search(text) for k in keywords if k.strip())


_WORD_BEFORE = re.compile(r"([a-z]+)\s+$")


def _compound(lowered: str, start: int, term: TermDef, terms: Sequence[TermDef]) -> bool:
    """Whether the match at start begins with the term's name and the word just before names another
    term (the name is the head of a compound noun: "parking space", "TI allowance"); not when the match
    begins with a word of its own ("all the terms except the penalty")."""
    if not any(lowered.startswith(k.lower(), start) for k in term.keywords if k.strip()):
        return False
    before = _WORD_BEFORE.search(lowered, max(0, start - 24), start)
    if before is None:
        return False
    word = before.group(1)
    return any(
        word in (k.lower() for k in other.keywords) for other in terms if other is not term
    ) and word not in (k.lower() for k in term.keywords)


def zero_hits(draft: Draft, terms: Sequence[TermDef], taken: Sequence[Hit]) -> list[Hit]:
    """Terms the message says there is none of ("no security deposit", "the deposit is waived",
    "zero signing bonus", "we don't need any certification"): a value of 0 for numeric terms other than
    the negotiated one, the option "none" for an enumerated term that has it, unless a
    figure of the term stands in the same clause ("no more than 2 months' deposit" states 2)."""
    lowered = draft.text.lower()
    found: list[tuple[int, int, TermDef]] = []
    for term in terms:
        none_option = term.shape == "enum" and "none" in term.options
        if (
            term.negotiated
            or (term.shape not in ("money", "count", "duration", "percent") and not none_option)
            or not term.keywords
        ):
            continue
        for match in _zero_pattern(tuple(term.keywords)).finditer(lowered):
            if _NOT_NONE.match(lowered[match.start() + 2 : match.start() + 12]):
                continue
            clause = draft.clause_at(match.start())
            span = (clause.start, clause.end) if clause is not None else (match.start(), match.end())
            if any(h.term.name == term.name and span[0] <= h.start < span[1] for h in taken):
                continue
            if _compound(lowered, match.start(), term, terms):
                continue  # "a parking space is not needed" is about parking, not the space's size
            if not _names(match.group(0), term.keywords) and any(
                _names(match.group(0), other.keywords) for other in terms if other is not term
            ):
                continue  # "zero spaces" names parking ("spaces"), not the plural of space_size's "space"
            found.append((match.start(), match.end(), term))
    # Two terms named at one place: the longer match names it, then the first term listed.
    found.sort(key=lambda item: (item[0], item[0] - item[1]))
    hits: list[Hit] = []
    claimed: set[int] = set()
    for start, end, term in found:
        if start not in claimed:
            claimed.add(start)
            nothing: TermValue = "none" if term.shape == "enum" else 0.0
            hits.append(Hit(term, nothing, nothing, start, end, 0.85))
    return hits


_REMOVED_VERB = (
    r"\s+(?:(?:is|are|be|to be|being|gets?|got)\s+)?"
    r"(?:removed|dropped|deleted|struck|scrapped|waived|taken out)\b"
)
"""After a term's name: it goes ("is removed", "to be dropped", "waived")."""


@cache
def _removed_pattern(keywords: tuple[str, ...]) -> re.Pattern[str]:
    plurals = "|".join(sorted((_plural(k.lower()) for k in keywords if k.strip()), key=len, reverse=True))
    return re.compile(rf"\s*(?:[a-z][a-z-]*\s+){{0,3}}?(?:{plurals}){_REMOVED_VERB}")


def removed_figures(draft: Draft, hits: Sequence[Hit]) -> list[Hit]:
    """hits with a term's figure read as 0 where the message asks for the term with that figure to go
    ("on condition that the 1.5% weekly penalty is removed", "we need the 1% weekly late penalty
    removed"): the figure names what is dropped, the value asked is none. Only the term's own name
    right after its figure (at most three words between), then a verb of removal; a bounded window
    after each figure, so linear."""
    lowered = draft.text.lower()
    out: list[Hit] = []
    for hit in hits:
        term = hit.term
        if (
            hit.figure is not None
            and not term.negotiated
            and term.shape in ("money", "count", "duration", "percent")
            and term.keywords
            and _removed_pattern(tuple(term.keywords)).match(lowered[hit.end : hit.end + 80])
        ):
            hit = replace(hit, low=0.0, high=0.0)
        out.append(hit)
    return out


def derive(draft: Draft, hits: list[Hit], terms: Mapping[str, TermDef]) -> list[Hit]:
    """hits with the values the message implies added (parts of totals, implied options) and lump sums
    restated where the message names what they are a multiple of."""
    hits = _inclusive(draft, hits)
    hits = _totals(draft, hits, terms)
    hits = _restated(hits, terms)
    return _implied(draft, hits, terms)


_INCLUSIVE_AFTER = re.compile(
    r"^[^.;:!?\n]{0,40}?\b(?:inclusive of|including|incl\.|(?:which|that) includes?|of which)\b"
)
"""After a base figure: it includes what follows ("135 thousand per annum inclusive of the 10 thousand
joining bonus", "$140,000, which includes a $12,000 sign-on", "165k total comp in year one, of which
20k can be equity"). At most 40 characters between, within the sentence: one bounded scan."""
_NOT_INCLUSIVE = re.compile(r"\b(?:base|plus|and|on top|excluding|not|before|after)\b|\+")
"""Between the figure and the cue: the figure is the base itself or not the whole ("120k base, including
a 10k bonus", "120k plus benefits including ...", "120k before the bonus, including ...")."""
_BASE_BEFORE = re.compile(r"\bbase(?:\s+(?:salary|pay))?(?:\s+(?:of|is|at))?\s*:?\s*[$\u20ac\u00a3]?\s*$")
"""Before the figure: it is named the base ("base of 120k including ...")."""


def _inclusive(draft: Draft, hits: list[Hit]) -> list[Hit]:
    """hits with a yearly base that the message says includes lump sums it states ("All in, year one is
    $140,000, which includes a $12,000 sign-on and $8,000 towards relocation" is a base of $120,000):
    the figure less the money of the lump-sum terms stated after the cue in its sentence. Only a single
    figure stated in the year (not a range, not a monthly or hourly figure converted), and only when
    the parts leave a positive base; otherwise the figure stands as read."""
    text = draft.text.lower()
    out: list[Hit] = []
    for hit in hits:
        out.append(_less_parts(draft, text, hit, hits) or hit)
    return out


def _less_parts(draft: Draft, text: str, hit: Hit, hits: Sequence[Hit]) -> Hit | None:
    term, figure = hit.term, hit.figure
    if (
        not (term.negotiated and term.shape == "money" and term.unit == "year")
        or hit.role not in ("own", "condition")
        or figure is None
        or figure.kind not in ("money", "number")
        or figure.per not in (None, "year")
        or not isinstance(hit.low, float)
        or hit.low != hit.high
    ):
        return None
    sentence = draft.sentence_at(hit.start)
    if sentence is None:
        return None
    found = _INCLUSIVE_AFTER.match(text[hit.end : min(sentence.end, hit.end + 60)])
    if (
        found is None
        or _NOT_INCLUSIVE.search(found.group(0))
        or _BASE_BEFORE.search(text[max(sentence.start, hit.start - 30) : hit.start])
    ):
        return None
    cue_end = hit.end + found.end()
    parts = [
        float(h.low)
        for h in hits
        if cue_end <= h.start < sentence.end
        and h.term.shape == "money"
        and h.term.unit is None
        and not h.term.negotiated
        and h.role in ("own", "condition")
        and isinstance(h.low, float)
        and h.low == h.high
    ]
    value = hit.low - sum(parts)
    if not parts or value <= 0 or value < sum(parts):
        return None
    return replace(hit, low=value, high=value)


def _totals(draft: Draft, hits: list[Hit], terms: Mapping[str, TermDef]) -> list[Hit]:
    """Parts of a total: the remainder term, the unnamed base, or the price per unit of a counted order."""
    for total in [h for h in hits if h.role == "total" and isinstance(h.low, float)]:
        sentence = draft.sentence_at(total.start)
        if sentence is None:
            continue
        same = [
            h
            for h in hits
            if h is not total
            and h.term is not UNCLAIMED
            and sentence.start <= h.start < sentence.end
            and h.role in ("own", "condition")
        ]
        derived = (
            _remainder(draft, total, same, terms, sentence.start, sentence.end)
            or _per_unit(total, same, terms)
            or _per_period(total, same, terms)
        )
        if derived is not None:
            hits = [*hits, derived]
    return hits


def _remainder(
    draft: Draft, total: Hit, parts: Sequence[Hit], terms: Mapping[str, TermDef], start: int, end: int
) -> Hit | None:
    text = draft.text.lower()
    money = [h for h in parts if h.term.shape == "money" and isinstance(h.low, float)]
    whole = float(total.low)
    if whole < 1000 <= sum(float(h.low) for h in money):
        whole *= 1000.0  # "120 in total, of which 20 is bonus": the parts were read in thousands
    found = cues().search("remainder", text[start:end])
    if found is not None:
        lumps = [t for t in terms.values() if t.shape == "money" and t.unit is None]
        index = KeywordIndex(draft, lumps)
        term = index.nearest(start + found.start(), start + found.end(), lumps)
        if term is not None and term.name not in {h.term.name for h in money}:
            value = whole - sum(float(h.low) for h in money)
            return (
                Hit(term, value, value, start + found.start(), start + found.end(), 0.85, "own")
                if value > 0
                else None
            )
    if cues().search("part_of", text[start:end]) and money:
        base = next(
            (t for t in terms.values() if t.negotiated and t.shape == "money" and t.unit == "year"), None
        )
        if base is not None and base.name not in {h.term.name for h in money}:
            value = whole - sum(float(h.low) for h in money)
            return Hit(base, value, value, total.start, total.end, 0.85, "own") if value > 0 else None
    return None


_PACKAGES = re.compile(
    r"(?:box|pallet|carton|crate|container|case|reel|lot|batch|shipment|load|drum|bag|roll|tray|bundle"
    r"|pack|kit|set|truck|release|delivery|deliverie)(?:e?s)?"
)
"""Nouns that count packages or deliveries, not units: a total over such a count is no unit price."""


def _per_unit(total: Hit, parts: Sequence[Hit], terms: Mapping[str, TermDef]) -> Hit | None:
    counts = [
        h for h in parts if h.term.shape == "count" and h.term.unit == "units" and isinstance(h.low, float)
    ]
    price = next((t for t in terms.values() if t.shape == "money" and t.unit == "unit"), None)
    if not counts or price is None or any(h.term is price for h in parts) or float(counts[-1].low) <= 0:
        return None
    figure = counts[-1].figure
    noun = (figure.unit or figure.noun) if figure is not None else None
    if noun is not None and _PACKAGES.fullmatch(noun):
        return None  # "the lot of 12 boxes would be $960": a price per box, not per unit
    value = round(float(total.low) / float(counts[-1].low), 4)
    return Hit(price, value, value, total.start, total.end, 0.85, "own")


_MONTHS_IN = {"months": 1.0, "years": 12.0, "weeks": 12.0 / 52.0}
_PERIOD_MONTHS = {"month": 1.0, "year": 12.0}


def _per_period(total: Hit, parts: Sequence[Hit], terms: Mapping[str, TermDef]) -> Hit | None:
    """The rate of a total over a stated duration ("total rent over the 36-month term comes to
    $198,000" is $5,500 a month): the negotiated rate term, when the total is money and no rate of
    that term was stated beside it."""
    figure = total.figure
    if figure is not None and figure.kind != "money":
        return None
    rate = next(
        (t for t in terms.values() if t.negotiated and t.shape == "money" and t.unit in _PERIOD_MONTHS), None
    )
    spans = [
        h
        for h in parts
        if h.term.shape == "duration" and h.term.unit in _MONTHS_IN and isinstance(h.low, float) and h.low > 0
    ]
    if rate is None or not spans or any(h.term is rate for h in parts) or not isinstance(total.low, float):
        return None
    span = spans[-1]
    months = float(span.low) * _MONTHS_IN[str(span.term.unit)]
    value = round(total.low / months * _PERIOD_MONTHS[str(rate.unit)], 2)
    return Hit(rate, value, value, total.start, total.end, 0.85, "own")


@cache
def _word_pattern(option: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(option.lower())}")


def _restated(hits: list[Hit], terms: Mapping[str, TermDef]) -> list[Hit]:
    """A lump sum stated beside the term it is a multiple of ("$10,500 on a $3,500 monthly rent")."""
    result: list[Hit] = []
    for hit in hits:
        restate = hit.term.restate
        per = next(
            (h for h in hits if restate and h.term.name == restate[1] and h.role in ("own", "condition")),
            None,
        )
        if (
            restate
            and per is not None
            and isinstance(hit.low, float)
            and isinstance(per.low, float)
            and per.low > 0
        ):
            value = round(hit.low / per.low, 2)
            hit = replace(hit, term=terms[restate[0]], low=value, high=value)
        result.append(hit)
    return result


def _implies(hit: Hit) -> bool:
    """Whether a value carries its term's implications: a rate only when written in the term's own
    period ("$95/hr" says the contract is hourly; "$300 per diem" read as an hourly figure does not)."""
    figure = hit.figure
    if hit.role not in ("own", "condition", "competing"):
        return False
    return figure is None or hit.term.unit is None or figure.per == hit.term.unit or figure.kind != "money"


def _implied(draft: Draft, hits: list[Hit], terms: Mapping[str, TermDef]) -> list[Hit]:
    """hits with the values stated ones imply (role "own") and those they only let the reader infer
    (role "implied": an hourly rate's contract type, which the message does not state unless it names
    the option: "I'd switch to contract: 80 an hour")."""
    stated = {h.term.name for h in hits if h.role in ("own", "condition")}
    lowered = draft.text.lower()
    inferred = [
        Hit(
            terms[name],
            value,
            value,
            hit.start,
            hit.end,
            hit.confidence,
            "own" if _word_pattern(value).search(lowered) else "implied",
        )
        for hit in hits
        if hit.role in ("own", "condition") and _implies(hit)
        for name, value in hit.term.switches.items()
        if name in terms and name not in stated
    ]
    extra = [
        Hit(
            terms[name],
            value,
            value,
            hit.start,
            hit.end,
            hit.confidence,
            "own" if hit.role == "condition" else hit.role,
        )
        for hit in hits
        if _implies(hit)
        for name, value in hit.term.implies.items()
        if name in terms and name not in stated
    ]
    return hits + extra + inferred

"""Reading an offer from text: who gets how many units of each divided item, and which terms are named."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cache

from parley.domain.issues import Value
from parley.language.lexicon import phrase_pattern
from parley.language.numbers import word_number_value
from parley.language.scan import Mention, find_mentions, sentence_bounds, sentence_of
from parley.language.terms import read_terms
from parley.language.vocabulary import IssueTerms, Vocabulary


class Side(Enum):
    """Who receives a stated quantity, from the speaker's point of view."""

    SPEAKER = "speaker"
    LISTENER = "listener"


_MODAL = r"(?:'d|'ll|'m| would| will| can| could| may| might| should| am| do| must| shall)?"
_ADVERBS = (
    r"(?:\s+(?:just|only|really|still|also|then|to|like to|want to|prefer to|love to|be able to|"
    r"going to|gonna|wanna|get to|be happy to|be willing to))*"
)
_TAKE = (
    r"(?:get|gets|take|takes|have|keep|receive|need|want|like|getting|taking|having|keeping|prefer|"
    r"request|ask for|claim|grab|took|got|kept|had|end up with)"
)
_GIVE = r"(?:give|giving|gives|gave|let|letting|leave|leaving|send|sending|hand|pass|allow|offer|offering)"

_PRE_CUES: tuple[tuple[str, Side, int], ...] = (
    (rf"\b{_GIVE}\s+me\b", Side.SPEAKER, 2),
    (rf"\bi{_MODAL}{_ADVERBS}\s+{_TAKE}\b", Side.SPEAKER, 2),
    (r"\b(?:me|myself)\s+(?:getting|taking|having|keeping|with|get|take|have|keep)\b", Side.SPEAKER, 2),
    (r"\b(?:for|to)\s+(?:me|myself)\b", Side.SPEAKER, 2),
    (rf"\b{_GIVE}\s+(?:you|u|yourself)\b", Side.LISTENER, 2),
    (r"\b(?:trade|trading|swap|swapping|exchange|exchanging)\b", Side.LISTENER, 2),
    (rf"\b(?:you|u|youd|youll){_MODAL}{_ADVERBS}\s+{_TAKE}\b", Side.LISTENER, 2),
    (r"\b(?:you|u)(?:'re| are)?\s+(?:getting|taking|having|keeping|with)\b", Side.LISTENER, 2),
    (r"\b(?:for|to)\s+(?:you|u|yourself)\b", Side.LISTENER, 2),
    (r"\bi(?:'d|'ll|'m|'ve)?\b", Side.SPEAKER, 1),
    (r"\b(?:me|my|we|we'd|we'll|us|our)\b", Side.SPEAKER, 1),
    (r"(?<!thank )\b(?:you|your|u|youd|youll|youre)\b", Side.LISTENER, 1),
)
_POST_CUES: tuple[tuple[str, Side], ...] = (
    (
        r"\b(?:for|to)\s+(?:me|myself|us)\b|\bmine\b|\bon my (?:side|end)\b"
        r"|\b(?:stays?|remains?)\s+with\s+me\b",
        Side.SPEAKER,
    ),
    (
        r"\b(?:for|to)\s+(?:you|u|yourself)\b|\byours\b|\bon your (?:side|end)\b"
        r"|\b(?:stays?|remains?)\s+with\s+(?:you|u)\b",
        Side.LISTENER,
    ),
)
_ADJACENT = re.compile(r"^\s*(?:is|are|goes|go|will go|would go|can go|should go)?\s*$")
_LIST_WORDS = re.compile(
    r"^(?:[\s,/+&]|\b(?:and|plus|as well as|along with|also|then|just|only|all|the|of)\b)*$"
)
_EXCHANGE = re.compile(r"^\s*,?\s*(?:in exchange for|in return for|for)\s+$")
_IMPLICIT_ALL = re.compile(
    r"\b(?:take|have|keep|get|getting|taking|having|keeping|give you|give me)"
    r"\s+(?:all\s+)?(?:the|your|my)\s+$"
)
_VERB_BEFORE_ALL = r"\b(?:take|takes|have|get|gets|keep|keeps|give you|give me|giving you|giving me)\s+"
_OF_SOMETHING = re.compile(r"\s+of\b")
_FOLLOWING = re.compile(r"\s*(?:[:=x\-]\s*|\s)\s*(\d+)\b")
_EACH = r"\s+(?:of\s+)?(?:each|every\s*thing|everything|each item|each of them)\b"


@dataclass(frozen=True, slots=True)
class _Quantity:
    start: int
    end: int
    issue: str | None
    count: int | None
    kind: str  # "count", "all", "rest" (of everything), "item_rest" (of one item), "nothing", "each"


@dataclass(frozen=True, slots=True)
class _Patterns:
    before: re.Pattern[str]
    remainder: re.Pattern[str]
    everything: re.Pattern[str]
    nothing: re.Pattern[str]
    each: re.Pattern[str]
    pre: tuple[tuple[re.Pattern[str], Side, int], ...]
    post: tuple[tuple[re.Pattern[str], Side], ...]


@dataclass(frozen=True, slots=True)
class OfferReading:
    """What the text says about a package.

    Attributes:
        partial: Issues the text fixes, mapped to options (possibly completed from context).
        missing: Issues the text leaves open.
        notes: Why parts could not be read.
        stated: True when the text states at least one quantity or term.
        from_context: Issues filled from the package on the table.
        uncertain: True when some quantity's recipient could not be told.
    """

    partial: Mapping[str, Value]
    missing: tuple[str, ...]
    notes: tuple[str, ...]
    stated: bool
    from_context: tuple[str, ...] = ()
    uncertain: bool = False

    @property
    def complete(self) -> bool:
        """Whether every issue is fixed."""
        return self.stated and not self.missing


@dataclass
class _Shares:
    """Mutable scratch state while reading a division offer."""

    counts: dict[Side, dict[str, int]] = field(default_factory=lambda: {Side.SPEAKER: {}, Side.LISTENER: {}})
    rest: set[Side] = field(default_factory=set[Side])
    item_rest: dict[Side, set[str]] = field(
        default_factory=lambda: {Side.SPEAKER: set(), Side.LISTENER: set()}
    )
    nothing: set[Side] = field(default_factory=set[Side])
    notes: list[str] = field(default_factory=list[str])
    uncertain: bool = False
    stated: bool = False


@cache
def _patterns(vocabulary: Vocabulary) -> _Patterns:
    lexicon = vocabulary.lexicon
    fillers = "|".join(re.escape(f) for f in sorted(lexicon.item_fillers, key=len, reverse=True))
    words = sorted([*lexicon.numbers, *lexicon.quantity_words, "all"], key=len, reverse=True)
    number = r"\d+|" + "|".join(r"[\s-]+".join(map(re.escape, w.split())) for w in words)
    item_rest = "|".join(
        r"\s+".join(map(re.escape, w.split())) for w in sorted(lexicon.item_remainder, key=len, reverse=True)
    )
    before = re.compile(
        rf"(?<![\w$€£.,])(?:(?P<rest>{item_rest})|(?P<qty>{number}))(?:\s+(?:out\s+)?of\s+(?:the\s+)?\d+)?"
        rf"(?:[\s,]+(?:{fillers}))*\s*$"
    )
    return _Patterns(
        before=before,
        remainder=phrase_pattern(lexicon.remainder),
        everything=re.compile(
            _VERB_BEFORE_ALL + "(?P<all>" + phrase_pattern(lexicon.everything).pattern + ")"
        ),
        nothing=phrase_pattern(lexicon.nothing),
        each=re.compile(rf"(?<![\w$])(?P<qty>{number}){_EACH}"),
        pre=tuple((re.compile(p), side, strength) for p, side, strength in _PRE_CUES),
        post=tuple((re.compile(p), side) for p, side in _POST_CUES),
    )


def read_offer(
    text: str, vocabulary: Vocabulary, *, speaker: str, context: Mapping[str, Value] | None = None
) -> OfferReading:
    """Read the package a normalized text proposes, from the speaker's point of view.

    Args:
        text: Normalized text (see `vocabulary.normalize`).
        vocabulary: The scenario's words.
        speaker: The party speaking.
        context: The package on the table, used to fill terms the text leaves open.
    """
    patterns = _patterns(vocabulary)
    mentions = find_mentions(text, vocabulary)
    partial: dict[str, Value] = {}
    notes: list[str] = []
    stated = False
    uncertain = False
    used: list[tuple[int, int]] = []
    if vocabulary.division_issues:
        quantities = _find_quantities(text, vocabulary, mentions, patterns)
        used = [(q.start, q.end) for q in quantities]
        shares = _assign_sides(text, quantities, patterns)
        stated = shares.stated
        uncertain = shares.uncertain
        notes.extend(shares.notes)
        partial.update(_division_values(vocabulary, shares, speaker, notes))
    if vocabulary.terms_issues:
        terms, terms_notes = read_terms(text, vocabulary, mentions, used)
        stated = stated or bool(terms)
        partial.update(terms)
        notes.extend(terms_notes)
    filled: list[str] = []
    if stated and context is not None:
        for terms_issue in vocabulary.terms_issues:
            if terms_issue.name not in partial and terms_issue.name in context:
                partial[terms_issue.name] = context[terms_issue.name]
                filled.append(terms_issue.name)
    missing = tuple(name for name in vocabulary.space.names if name not in partial)
    return OfferReading(partial, missing, tuple(notes), stated, tuple(filled), uncertain)


def _quantity_value(word: str, vocabulary: Vocabulary, total: int) -> int | None:
    word = re.sub(r"[\s-]+", " ", word.strip())
    if word.isdigit():
        return int(word)
    if word == "all":
        return total
    if word in vocabulary.lexicon.quantity_words:
        return vocabulary.lexicon.quantity_words[word]
    return word_number_value(word, vocabulary.lexicon)


def _find_quantities(
    text: str, vocabulary: Vocabulary, mentions: list[Mention], patterns: _Patterns
) -> list[_Quantity]:
    quantities: list[_Quantity] = []
    consumed: list[tuple[int, int]] = []
    divisible = [m for m in mentions if vocabulary.terms(m.issue).share is not None]
    for mention in divisible:
        quantity = _quantity_before(text, vocabulary, mention, patterns)
        if quantity is not None:
            quantities.append(quantity)
            consumed.append((quantity.start, mention.start))
    for mention in divisible:
        if any(q.issue == mention.issue and q.end == mention.end for q in quantities):
            continue
        quantity = _quantity_after(text, mention, consumed)
        if quantity is not None:
            quantities.append(quantity)
    for match in patterns.each.finditer(text):
        count = _quantity_value(match["qty"], vocabulary, 0)
        quantities.append(_Quantity(match.start(), match.end(), None, count, "each"))
    for kind, pattern in (
        ("rest", patterns.remainder),
        ("rest", patterns.everything),
        ("nothing", patterns.nothing),
    ):
        for match in pattern.finditer(text):
            start = match.start("all") if "all" in pattern.groupindex else match.start()
            if not _OF_SOMETHING.match(text, match.end()):  # "the rest of your story"
                quantities.append(_Quantity(start, match.end(), None, None, kind))
    return sorted(quantities, key=lambda q: q.start)


def _quantity_before(
    text: str, vocabulary: Vocabulary, mention: Mention, patterns: _Patterns
) -> _Quantity | None:
    share = vocabulary.terms(mention.issue).share
    assert share is not None
    window_start = max(0, mention.start - 60)
    window = text[window_start : mention.start]
    match = patterns.before.search(window)
    if match is not None and match["rest"]:
        return _Quantity(window_start + match.start(), mention.end, mention.issue, None, "item_rest")
    if match is not None:
        count = _quantity_value(match["qty"], vocabulary, share.total)
        kind = "all" if match["qty"] == "all" else "count"
        return _Quantity(window_start + match.start(), mention.end, mention.issue, count, kind)
    if _IMPLICIT_ALL.search(window):
        return _Quantity(mention.start, mention.end, mention.issue, share.total, "all")
    return None


def _quantity_after(text: str, mention: Mention, consumed: list[tuple[int, int]]) -> _Quantity | None:
    match = _FOLLOWING.match(text, mention.end)
    if match is None:
        return None
    number_start = match.start(1)
    if any(start <= number_start < end for start, end in consumed):
        return None
    return _Quantity(mention.start, match.end(), mention.issue, int(match[1]), "count")


def _cue_side(
    text: str,
    quantity: _Quantity,
    patterns: _Patterns,
    bounds: list[tuple[int, int]],
    spans: list[tuple[int, int]],
) -> Side | None:
    """The recipient of a quantity.

    A post-cue ("... for me", "... is yours") right after the quantity decides. A post-cue further on
    in the sentence decides unless a strong pre-cue ("give me", "you can have") governs the quantity
    directly (only other quantities and list words between them). Otherwise the most recent cue
    before the quantity decides.
    """
    sentence_start, sentence_end = sentence_of(bounds, quantity.start)
    post = _next_post_cue(text, quantity, patterns, sentence_end)
    if post is None:
        # "the rest"/"everything" needs a clear cue: "I hope everything is fine" offers nothing.
        minimum = 2 if quantity.kind in ("rest", "nothing") else 1
        return _last_pre_cue(text, 0, quantity.start, patterns, minimum=minimum)
    if _ADJACENT.match(text[quantity.end : post[0]]):
        return post[1]
    last_post = max(
        (
            m.end()
            for pattern, _ in patterns.post
            for m in pattern.finditer(text, sentence_start, quantity.start)
        ),
        default=sentence_start,
    )
    strong = _last_pre_cue(text, last_post, quantity.start, patterns, minimum=2, governing=spans)
    return strong if strong is not None else post[1]


def _next_post_cue(
    text: str, quantity: _Quantity, patterns: _Patterns, sentence_end: int
) -> tuple[int, Side] | None:
    found = [
        (match.start(), side)
        for pattern, side in patterns.post
        if (match := pattern.search(text, quantity.end, sentence_end)) is not None
    ]
    if not found:
        return None
    start, side = min(found, key=lambda pair: pair[0])
    return None if _has_pre_cue(text[quantity.end : start], patterns) else (start, side)


def _last_pre_cue(
    text: str,
    start: int,
    end: int,
    patterns: _Patterns,
    minimum: int = 1,
    governing: list[tuple[int, int]] | None = None,
) -> Side | None:
    """The side of the last cue in text[start:end]; with governing (quantity spans), only a cue that
    has nothing but quantities and list words between it and end counts."""
    best: tuple[tuple[int, int], Side] | None = None
    for pattern, side, strength in patterns.pre:
        if strength < minimum:
            continue
        for match in pattern.finditer(text, start, end):
            if governing is not None and not _only_list_between(text, match.end(), end, governing):
                continue
            key = (match.end(), strength)
            if best is None or key > best[0]:
                best = (key, side)
    return best[1] if best else None


def _only_list_between(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    pieces: list[str] = []
    position = start
    for span_start, span_end in sorted(spans):
        if span_end <= start or span_start >= end:
            continue
        pieces.append(text[position:span_start])
        position = max(position, span_end)
    pieces.append(text[position:end])
    return all(_LIST_WORDS.match(piece) for piece in pieces)


def _has_pre_cue(span: str, patterns: _Patterns) -> bool:
    return any(pattern.search(span) for pattern, _, _ in patterns.pre)


def _assign_sides(text: str, quantities: list[_Quantity], patterns: _Patterns) -> _Shares:
    shares = _Shares()
    bounds = sentence_bounds(text)
    previous: tuple[_Quantity, Side] | None = None
    exchanged = False
    spans = [(q.start, q.end) for q in quantities]
    for quantity in quantities:
        side = _cue_side(text, quantity, patterns, bounds, spans)
        between = text[previous[0].end : quantity.start] if previous is not None else ""
        if previous is not None and _EXCHANGE.match(between):
            side = Side.LISTENER if previous[1] is Side.SPEAKER else Side.SPEAKER
            exchanged = True
        elif previous is not None and exchanged and _LIST_WORDS.match(between):
            side = previous[1]  # "2 water for 3 firewood and 2 food": the list continues
        else:
            exchanged = False
        if side is None and quantity.kind in ("rest", "nothing"):
            continue
        if side is None:
            shares.uncertain = True
            shares.notes.append(f"could not tell who gets {text[quantity.start : quantity.end]!r}")
            shares.stated = True
            continue
        shares.stated = True
        _record(shares, quantity, side)
        previous = (quantity, side)
    return shares


def _record(shares: _Shares, quantity: _Quantity, side: Side) -> None:
    if quantity.kind == "rest":
        shares.rest.add(side)
    elif quantity.kind == "item_rest" and quantity.issue is not None:
        shares.item_rest[side].add(quantity.issue)
    elif quantity.kind == "nothing":
        shares.nothing.add(side)
    elif quantity.count is None:
        shares.notes.append(f"could not read the number in {quantity.kind!r}")
    elif quantity.issue is None:
        shares.counts[side].setdefault("*each*", quantity.count)
    else:
        shares.counts[side][quantity.issue] = quantity.count


def _division_values(
    vocabulary: Vocabulary, shares: _Shares, speaker: str, notes: list[str]
) -> dict[str, Value]:
    values: dict[str, Value] = {}
    for terms in vocabulary.division_issues:
        count = _speaker_count(terms, shares, notes)
        if count is None:
            continue
        value = vocabulary.value_for(terms, speaker, count)
        issue = vocabulary.space.issue(terms.name)
        if issue.contains(value):
            values[terms.name] = issue.values[issue.index_of(value)]
        else:
            notes.append(
                f"{count} {terms.label} for {speaker} is not one of the options {list(issue.values)}"
            )
    return values


def _speaker_count(terms: IssueTerms, shares: _Shares, notes: list[str]) -> int | None:
    assert terms.share is not None
    total = terms.share.total
    mine = shares.counts[Side.SPEAKER].get(terms.name, shares.counts[Side.SPEAKER].get("*each*"))
    yours = shares.counts[Side.LISTENER].get(terms.name, shares.counts[Side.LISTENER].get("*each*"))
    if mine is not None and yours is not None and mine + yours != total:
        notes.append(f"{terms.label}: {mine} for me and {yours} for you do not add up to {total}")
        return None
    if mine is not None:
        return mine if 0 <= mine <= total else _out_of_range(terms, mine, notes)
    if yours is not None:
        return total - yours if 0 <= yours <= total else _out_of_range(terms, yours, notes)
    if terms.name in shares.item_rest[Side.LISTENER]:
        return 0
    if terms.name in shares.item_rest[Side.SPEAKER]:
        return total
    if Side.LISTENER in shares.rest or Side.SPEAKER in shares.nothing:
        return 0
    if Side.SPEAKER in shares.rest or Side.LISTENER in shares.nothing:
        return total
    return None


def _out_of_range(terms: IssueTerms, count: int, notes: list[str]) -> None:
    total = terms.share.total if terms.share else 0
    notes.append(f"{count} {terms.label} is more than the {total} available")

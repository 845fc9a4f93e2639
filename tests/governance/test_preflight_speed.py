"""The preflight's cost grows linearly with the draft (issue 14), and the shortcuts that make it so read
exactly what the plain readings read.

No absolute time is asserted here (the speed target lives in benchmarks/bench_preflight_scan.py): the
cost at 20 KB is compared with the cost at 5 KB of the same text. A linear scan takes about 4 times as
long (less where a fixed cost dominates), a quadratic one about 16 times; before the per-draft readings
were shared, one sentence of short clauses took 11.6 times as long.

The shortcuts are checked against the plain readings they replace: a clause found by bisection
(`draft.index_in`) against `list.index`, the last words before an offset (`Draft.negated_at`) against
tokenising the clause from its start, a quotation found by bisection (`Draft.quoted`) against a scan
of its sentence's quotations, and the patterns left out before a clause is read (`draft.may_match`)
against running every pattern.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.governance.commitment import find_commitments, fixed_expressions, rewrite_non_binding
from parley.governance.config import DomainConfig
from parley.governance.draft import (
    NEGATORS,
    Draft,
    index_in,
    lexicon,
    may_match,
    parse,
    words,
)
from parley.governance.normalize import TextRefused
from parley.governance.preflight import preflight

GROWTH = 8.0
"""Most the cost may grow from 5 KB to 20 KB (4 is linear, 16 quadratic)."""


def _repeat(piece: str, size: int) -> str:
    return (piece * (size // len(piece) + 1))[:size]


def _distinct(size: int) -> str:
    rng = random.Random(7)
    parts: list[str] = []
    while sum(len(p) + 1 for p in parts) < size:
        verb = rng.choice(["accept", "agree to", "confirm", "will pay", "approve"])
        lead = rng.choice(["So, also, and then", "OK so", "Also,", ""])
        parts.append(
            f"{lead} we {verb} the order at ${rng.randrange(10, 99)} per unit for lot {rng.randrange(999)}."
        )
    return " ".join(parts)[:size]


_SHAPES: dict[str, Callable[[int], str]] = {
    "one sentence of short clauses": lambda size: _repeat("so we see the point, ", size),
    "take-ups": lambda size: _repeat("We'll do the same for you. ", size),
    "lead-only clauses": lambda size: _repeat("Also; also; we see the point, ", size),
    "distinct binding sentences after leads": _distinct,
}


def _cpu(text: str, config: DomainConfig) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        preflight(text, config)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_the_cost_grows_linearly_with_the_draft(shape: str, procurement: DomainConfig) -> None:
    make = _SHAPES[shape]
    preflight(make(1_000), procurement)  # lexicons, patterns and the classifier loaded before timing
    small, large = _cpu(make(5_000), procurement), _cpu(make(20_000), procurement)
    assert large <= GROWTH * max(small, 0.005), (shape, small, large)


def test_a_draft_at_the_limit_is_read_and_one_over_it_refused(procurement: DomainConfig) -> None:
    text = _SHAPES["one sentence of short clauses"](20_000)
    assert not preflight(text, procurement).refused
    over = preflight(text + "x", procurement)
    assert over.refused and over.requires_approval and over.sendable is None


# -- the shortcuts read what the plain readings read ------------------------------------------------------
_WORDS = [
    "we", "accept", "agree", "deal", "so", "also", "then", "not", "won't", "can't", "yes", "the", "offer",
    "$95K", "12.50", "per", "unit", "'we accept'", '"agreed"', "you", "said", "wrote", "pay", "attention",
    "if", "would", "you?", "I'll", "sign", "lease", "hereby", "no", "objection", "to", "it's", "done",
]  # fmt: skip
_SEPARATORS = [" ", " ", " ", ", ", "; ", ". ", "\n", " - ", ": ", "? ", "! ", ",", "_", "'", "\u200b"]
_drafts = st.lists(
    st.tuples(st.sampled_from(_WORDS), st.sampled_from(_SEPARATORS)), min_size=1, max_size=60
).map(lambda pairs: "".join(w + s for w, s in pairs))
_noise = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x2FF), max_size=80)


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(_drafts, _noise, st.tuples(_drafts, _noise).map("".join)))
def test_clauses_and_quotations_are_found_as_a_scan_finds_them(text: str) -> None:
    draft = parse(text)
    clauses = list(draft.clauses())
    for k, clause in enumerate(clauses):
        assert draft.clause_index(clause) == clauses.index(clause) == k
    for sentence in draft.sentences:
        for clause in sentence.clauses:
            assert index_in(sentence.clauses, clause) == list(sentence.clauses).index(clause)
    for offset in range(len(draft.text) + 1):
        sentence = draft.sentence_at(offset)
        plain = sentence is not None and any(s <= offset < e for s, e in sentence.quotes)
        assert draft.quoted(offset) == plain


def _negated_plainly(draft: Draft, offset: int, window: int) -> bool:
    clause = draft.clause_at(offset)
    if clause is None:
        return False
    return any(w.text in NEGATORS for w in words(draft.text[clause.start : offset])[-window:])


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(_drafts, st.tuples(_drafts, _noise, _drafts).map("".join)), window=st.integers(0, 8))
def test_a_negation_is_found_as_reading_the_clause_from_its_start_finds_it(text: str, window: int) -> None:
    draft = parse(text)
    for offset in range(len(draft.text) + 1):
        assert draft.negated_at(offset, window) == _negated_plainly(draft, offset, window), offset


def test_a_negation_far_back_in_a_long_clause_is_read_as_before() -> None:
    # one clause of 1,400 characters: the reading back from the offset must reach past many words
    text = "we do not " + "x" * 1_300 + " accept that " + "y-" * 40 + " price"
    draft = parse(text)
    for offset in (len(text) - 5, len(text) - 50, 12, 1_320):
        assert draft.negated_at(offset) == _negated_plainly(draft, offset, 5)


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(_drafts, _noise).map(str.lower))
def test_no_pattern_that_matches_is_left_out(text: str) -> None:
    for patterns in (fixed_expressions(), lexicon().idioms):
        kept = may_match(patterns, text)
        assert kept == [p for p in patterns if p in kept]  # in order
        assert all(p in kept for p in patterns if p.search(text) is not None)


def test_every_fixed_expression_of_the_lexicon_is_still_found() -> None:
    # each fixed expression, in a clause of its own, is kept by the prefilter wherever it matches
    for pattern in fixed_expressions():
        for phrase in ("it's a deal", "consider it done", "you have a deal", "where do we sign"):
            if pattern.search(phrase):
                assert pattern in may_match(fixed_expressions(), phrase)


def test_the_words_of_a_clause_are_a_fresh_list_each_time() -> None:
    first = words("We'll accept $95K.", 3)
    kept = list(first)
    first.clear()  # a caller may change its list: the next reading is whole
    again = words("We'll accept $95K.", 3)
    assert again == kept and again is not first
    assert [w.text for w in again][:3] == ["we", "will", "accept"] and again[0].start == 3


def test_a_repeated_binding_sentence_is_rewritten_like_a_single_one() -> None:
    sentence = "We accept your offer of $95,000 per year."
    single = rewrite_non_binding(sentence)
    assert rewrite_non_binding(" ".join([sentence] * 50)) == " ".join([single] * 50)
    assert not find_commitments(single)


def test_adversarial_drafts_are_read_or_refused(procurement: DomainConfig) -> None:
    for text in (
        "",
        "\u200b" * 5_000,
        "w\u0435 \u0430ccept " * 1_000,  # homoglyphs
        "we acc\u00adept the offer. " * 500,  # soft hyphens
        "a\x00b " * 3_000,  # control characters
        "'" * 20_000,
        '"' * 19_999,
        "(" * 20_000,
    ):
        result = preflight(text, procurement)
        assert result.refused or result.checked  # every draft gets a verdict, none raises
    with pytest.raises(TextRefused):
        parse("x" * 20_001)

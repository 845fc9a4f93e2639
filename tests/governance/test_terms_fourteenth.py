"""Conditional constructions the term reader's fail-closed net learnt in its fourteenth round (issue 17).

Every condition the spent term sets dropped silently (heldout_terms11: 8, heldout_terms12: 9) was a
conditional construction the guard (`governance.term_guard`) did not recognise as one. The net is
widened as grammar (`conditional_grammar` in data/term_cues.yaml), one open class a family, so that
what the reader cannot attribute is at least quoted to the principal. The spent sets each form was seen
in are named beside it (ht11 = heldout_terms11, ...); the sentences below are written for these tests
(none is copied from a labelled set), and each form has near misses of the same shape that quote nothing.

- a counted premise: "on two conditions:", "with a couple of caveats" (ht11);
- a presupposition with an auxiliary, or said of "that price": "That price does assume ..." (ht11);
- a restriction of the figure before it: "..., but that's for uncertified parts" (ht11, ht12);
- what would conclude the deal: "a 6k sign-on would seal it", "that would get us over the line" (ht11);
- a consequence drawn from what was just given: "that means the rent should come down" (ht11);
- a contrastive need in French, Spanish, German, Italian: "mais j'ai besoin de", "pero necesito" (ht11,
  ht12);
- a conjunct in the gerund after a noun frame: "subject to X and the space passing Y" (ht11);
- what waits on someone's approval: "need comp committee sign-off", "once our CFO signs off", "has to
  be approved at our meeting" (ht12; "subject to board approval" in ht2-ht10 was already read);
- an offer put as a question: "Would a 7-year lease get us a lower rent?", "Would the owner consider 3
  months free on a 5-year term?" (ht11, ht12);
- alternatives put side by side: "two options: (A) ... or (B) ..." (ht12);
- a precondition of signing: "I need the shift plan before I sign" (ht12), not in a question.
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.normalize import normalize
from parley.governance.term_guard import UNEXPLAINED, conditional_constructions
from parley.governance.terms import TermReader, TermReading

from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 28)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _families(text: str) -> set[str]:
    folded = normalize(text, max_chars=None).text
    return {c.family for c in conditional_constructions(folded)}


def _surfaced(reading: TermReading, word: str) -> bool:
    """Whether a condition of the reading (attributed or quoted) holds word."""
    return any(word.lower() in c.text.lower() for c in reading.conditions)


# (source sets, domain, message, a word the condition's quote or text must hold)
FORMS: list[tuple[str, str, str, str]] = [
    (
        "ht11",
        "staffing",
        "Happy with 22 days off and no bonus, on two conditions: 124k base and a March start.",
        "conditions",
    ),
    (
        "ht11",
        "staffing",
        "We can live with 118k, with a couple of caveats: remote Fridays and a laptop stipend.",
        "caveats",
    ),
    (
        "ht11",
        "procurement",
        "Net 60 is fine.\n\nThat price does assume you take all 9,000 pieces in one call-off.",
        "assume",
    ),
    (
        "ht11,ht12",
        "procurement",
        "We can quote the housings at $4.10, but that's for uncoated parts.",
        "uncoated",
    ),
    ("ht11", "staffing", "a relocation budget of 6k would seal it for me", "seal"),
    ("ht11", "leasing", "Five free months would get us over the line on the 10-year term.", "over the line"),
    (
        "ht11",
        "leasing",
        "We'll do the fit-out ourselves. But that means the rent should drop to $9,400.",
        "means",
    ),
    (
        "ht11",
        "staffing",
        "Je peux accepter 98 000 $ par an, mais j'ai besoin de 2 jours de télétravail.",
        "besoin",
    ),
    (
        "ht12",
        "staffing",
        "Para mí 101 mil está bien, pero necesito trabajar remoto 3 días por semana.",
        "necesito",
    ),
    (
        "ht11",
        "leasing",
        "We'd sign at $8,100 a month, subject to lender consent and the roof passing our survey.",
        "roof",
    ),
    (
        "ht12",
        "staffing",
        "I can offer 45k in equity. Note that grants above 40k need comp committee sign-off.",
        "sign-off",
    ),
    (
        "ht12",
        "procurement",
        "Agreed on net 45 and 20,000 units. We can confirm by Friday once our COO signs off.",
        "signs off",
    ),
    (
        "ht12",
        "procurement",
        "We can commit to 30,000 units at $2.10, but the volume has to be approved by our board.",
        "approved",
    ),
    ("ht11", "leasing", "Would a 7-year lease get us a lower rent, say $6,200 a month?", "7-year"),
    ("ht12", "leasing", "Would the owner consider 3 months free on a 5-year term?", "5-year"),
    (
        "ht12",
        "staffing",
        "We have two options for you:\n(A) 130k base + 8k sign-on, or\n(B) 122k base + 25k equity.",
        "options",
    ),
    (
        "ht12",
        "staffing",
        "I accept 29 dollars an hour, but I need to see the shift plan before I sign.",
        "before i sign",
    ),
]


@pytest.mark.parametrize(("sources", "domain", "text", "word"), FORMS, ids=[f[2][:40] for f in FORMS])
def test_each_form_is_at_least_quoted(
    sources: str, domain: str, text: str, word: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    reading = _read(config, text)
    assert _surfaced(reading, word), (sources, [c.text for c in reading.conditions])


# (domain, message, the family that must not fire): the same shapes, conditioning nothing
NEAR_MISSES: list[tuple[str, str, str]] = [
    ("staffing", "The relocation of 10k is approved.", "approval"),
    ("procurement", "We ship 14 days after drawing approval.", "approval"),
    ("leasing", "Would the owner consider a call on Monday?", "proposal"),
    ("staffing", "Would a meeting next week suit you?", "proposal"),
    ("procurement", "Our offer has two parts, listed below.", "alternatives"),
    ("staffing", "That means a lot to us, thank you.", "consequence"),
    ("procurement", "Thanks, that's for sure the best quote so far.", "restriction"),
]


@pytest.mark.parametrize(("domain", "text", "family"), NEAR_MISSES, ids=[n[1][:40] for n in NEAR_MISSES])
def test_near_misses_do_not_fire_the_family(domain: str, text: str, family: str) -> None:
    assert family not in _families(text)


def test_a_condition_already_read_is_not_quoted_again(staffing: DomainConfig) -> None:
    """The widened net quotes only what no condition covers: a "provided" clause is one condition."""
    reading = _read(staffing, "We can go to 121k provided she starts before March 3.")
    assert len(reading.conditions) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Before we can confirm, could you tell us the start date?",
        "We have two questions before we sign: is the bonus paid in January?",
    ],
)
def test_a_precondition_in_a_question_conditions_nothing(staffing: DomainConfig, text: str) -> None:
    assert "precondition" in _families(text)
    assert not [c for c in _read(staffing, text).conditions if c.source != UNEXPLAINED]


ADVERSARIAL = [
    # homoglyphs and zero-width characters are folded before the grammar reads the text
    ("staffing", "a relocation budget of 6k w\u043euld s\u0435al it for me", "seal"),
    (
        "staffing",
        "I can offer 45k in equity, but grants above 40k need c\u043emp committee sign\u200b-off.",
        "committee",
    ),
    ("leasing", "W\u043euld a 7-year lease get us a lower rent?", "lease"),
    (
        "staffing",
        "Happy with 22 days off, \u043en two c\u043enditions: 124k and a March start.",
        "conditions",
    ),
]


@pytest.mark.parametrize(("domain", "text", "word"), ADVERSARIAL, ids=[a[1][:40] for a in ADVERSARIAL])
def test_obfuscated_forms_are_still_quoted(
    domain: str, text: str, word: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    reading = _read(config, text)
    assert _surfaced(reading, word), [c.text for c in reading.conditions]


@pytest.mark.parametrize(
    "unit",
    [
        "Would a 7-year lease get us a lower rent, say 6,200 ",
        "subject to lender consent and the roof passing and the wall passing ",
        "that means the rent and the price and the deposit ",
        "grants above 40k need the sign ",
        "on two conditions on the following caveats ",
        "pero necesito mais j'ai besoin ",
    ],
)
def test_the_new_forms_read_in_linear_time(leasing: DomainConfig, unit: str) -> None:
    assert_reads_in_linear_time(TermReader(leasing), unit, DAY)


# -- a part of the deal as the condition's subject (ht6, ht9, ht10) -------------------------------------
PARTS: list[tuple[str, str, str]] = [
    (
        "procurement",
        "Net 45 works, on condition that the first invoice is settled within 10 days.",
        "payment_terms",
    ),
    (
        "procurement",
        "We accept net 90 on the understanding that the first order is prepaid.",
        "payment_terms",
    ),
    (
        "procurement",
        "We'd take 20,000 at $1.90, provided you ship the first 5,000 within three weeks.",
        "lead_time",
    ),
]


@pytest.mark.parametrize(("domain", "text", "term"), PARTS, ids=[p[1][:40] for p in PARTS])
def test_a_part_of_the_deal_conditions_no_term(
    domain: str, text: str, term: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    reading = _read(config, text)
    assert not [c for c in reading.conditions if c.term == term], reading.conditions
    assert [c for c in reading.conditions if c.term == "other"]


PART_NEAR_MISSES: list[tuple[str, str, str]] = [
    # the condition names the term itself, not a part of the deal
    ("procurement", "We can do $2.40 if you can pay within 15 days.", "payment_terms"),
    ("procurement", "Fine at $3.10 provided delivery is within 6 weeks.", "lead_time"),
    ("procurement", "Price 4.10 if the first order is 10,000 units.", "order_volume"),
]


@pytest.mark.parametrize(
    ("domain", "text", "term"), PART_NEAR_MISSES, ids=[p[1][:40] for p in PART_NEAR_MISSES]
)
def test_a_condition_on_the_term_itself_keeps_its_term(
    domain: str, text: str, term: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    reading = _read(config, text)
    assert [c for c in reading.conditions if c.term == term], reading.conditions


def test_the_part_subject_reads_in_linear_time(procurement: DomainConfig) -> None:
    unit = "on condition that the first invoice is paid the first order is prepaid within 15 days "
    assert_reads_in_linear_time(TermReader(procurement), unit, DAY)

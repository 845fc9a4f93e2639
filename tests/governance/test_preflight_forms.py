"""The preflight's forms of issue 14 (second pass): limits and refusals, discourse leads, offers that wait
only for the other side's word, our own approval still to come, long e-mails read clause by clause, and
quotations taken up. Each form is tested with the neighbours it must not clear: a second binding clause,
an obfuscation (homoglyph, zero-width, soft hyphen), and a quotation then an acceptance."""

from __future__ import annotations

import pytest

from parley.governance.classifier import rules_only
from parley.governance.commitment import TAKEN_UP, read_commitments
from parley.governance.config import DomainConfig, load_config
from parley.governance.draft import parse
from parley.governance.preflight import preflight


@pytest.fixture(scope="module")
def staffing() -> DomainConfig:
    return load_config("staffing")


def _binds(text: str) -> bool:
    return bool(read_commitments(parse(text)).findings)


def _forms(text: str) -> list[str]:
    return [c.reason for c in read_commitments(parse(text)).cleared]


# -- limits and refusals ---------------------------------------------------------------------------------
LIMITS = [
    "Our ceiling for this role is $100K.",
    "$12k/month is our ceiling.",
    "Our limit on monthly rent is twelve thousand dollars, so please come down.",
    "The most we can pay is ten thousand five hundred a month, including service charge.",
    "$14 a unit is the most we're authorised to pay.",
    "I'm authorized up to $85/h and no further.",
    "I'm authorized to offer at most $99,000.",
    "We are authorised to pay no more than 12,000 per month for this space.",
    "We can go up to 12k a month, though we'd rather start lower.",
    "We have headroom up to $14 per unit.",
    "For 1,000 units our budget caps out at $14,000 in total, so please price accordingly.",
    "Budget-wise we top out at $14.00/unit; anything above needs a different approval chain.",
    "$13,500 a month is more than we're prepared to pay for that floor.",
    "Anything past six figures is beyond what I'm allowed to approve.",
    "Twelve thousand a month is as high as we go on rent.",
    "To be transparent, $100,000 is the absolute ceiling on our side for this role.",
]


@pytest.mark.parametrize("text", LIMITS)
def test_a_limit_or_a_refusal_beyond_it_is_not_binding(text: str) -> None:
    assert not _binds(text)
    assert "limit" in _forms(text)


LIMITS_BESIDE_A_COMMITMENT = [
    "Our ceiling is $100K and we accept your $98K.",
    "$95K is the most we can pay, and it's a deal.",
    "We can go up to $95K — consider it done.",
    "We're authorised up to $100K, so we accept $98K.",
    "The most we can pay is $95K, which we hereby offer.",
    "The most we can pay is $95K and we will pay it.",
    "Our limit is $95K; we accept.",
    "We can go up to $95K and we'll sign today.",
    "We accept $95K, which is our ceiling.",
    "Our ceiling is $12k; the lease is yours at $11.5k.",
    "The most we'll pay is $95K, done.",
    "Our maximum is $95K, agreed.",
    "We have room up to $100K, so $98K works for us.",
    "$95K is our ceiling and we'll pay it.",
]


@pytest.mark.parametrize("text", LIMITS_BESIDE_A_COMMITMENT)
def test_a_limit_beside_a_commitment_still_binds(text: str) -> None:
    assert _binds(text)


@pytest.mark.parametrize(
    "text",
    [
        "We will pay up to $5,000 in relocation.",  # a promise with a cap, not a limit of ours
        "We'll cover relocation up to $5,000.",
        "We are authorised to pay $95K.",  # an authority without a bound: an offer
        "Our final offer is $95K, the most we can do.",  # a fixed expression is never cleared
    ],
)
def test_a_commitment_with_limit_words_is_not_a_limit(text: str) -> None:
    assert _binds(text)


@pytest.mark.parametrize(
    ("plain", "hidden"),
    [("e", "\u0435"), ("i", "\u0456"), ("ccept", "c\u200bcept"), ("ccept", "c\u00adcept")],
)
def test_an_obfuscated_limit_beside_a_commitment_binds(plain: str, hidden: str) -> None:
    text = "Our ceiling is $100K and we accept your $98K."
    assert _binds(text.replace(plain, hidden))


def test_an_obfuscated_limit_alone_is_not_cleared() -> None:
    # Fail closed: a draft normalisation changed is never read for non-binding forms.
    reading = read_commitments(parse("Our ce\u0456ling for this role is $100K."))
    assert reading.findings and not reading.cleared


def test_a_limit_is_left_to_the_disclosure_check(staffing: DomainConfig) -> None:
    with rules_only():
        result = preflight("Our ceiling for this role is $100,000 a year.", staffing)
    assert not result.binding
    assert "limit" in [c.reason for c in result.cleared]
    assert result.disclosures and result.requires_approval


# -- discourse leads --------------------------------------------------------------------------------------
LEADS = ["So ", "And ", "Also, ", "Then ", "OK so ", "So, ", "And also "]
LED_BINDING = [
    "confirming the order: 750 units at $13.60.",
    "confirming the order of 750 units.",
    "yes to net-45.",
    "deal at $95K.",
    "say no more, $100K is a done deal.",
    "go on then, we'll stretch to 98 and call it a day.",
    "we accept $95K.",
    "the lease is yours at 10,500.",
    "deal!",
]


@pytest.mark.parametrize("lead", LEADS)
@pytest.mark.parametrize("text", LED_BINDING)
def test_a_binding_clause_led_by_a_discourse_word_binds(lead: str, text: str) -> None:
    assert _binds(lead + text)


@pytest.mark.parametrize("lead", LEADS)
@pytest.mark.parametrize(
    "text",
    [
        "what do you think about $95K?",
        "we're still reviewing the numbers.",
        "we need to check with finance first.",
        "thanks for sending the quote.",
        "our ceiling for this role is $100K.",
    ],
)
def test_a_non_binding_clause_led_by_a_discourse_word_stays_non_binding(lead: str, text: str) -> None:
    assert not _binds(lead + text)


def test_a_led_commitment_hidden_by_a_zero_width_space_binds() -> None:
    assert _binds("So con\u200bfirming the order of 750 units.")


# -- offers that wait only for the other side's word, and our own approval still to come ----------------
@pytest.mark.parametrize(
    "text",
    [
        "As soon as you countersign, $95K for the role is locked in.",
        "If you can confirm by Friday, $95K is agreed; just reply yes.",
        "If you sign today, it's a deal.",
        "If the $94k works for you, just reply 'yes' and it's done - no more approvals needed on our side.",
    ],
)
def test_an_offer_waiting_only_for_their_word_binds(text: str) -> None:
    assert _binds(text)


@pytest.mark.parametrize(
    "text",
    [
        "If our board approves, the lease is yours.",
        "If you can do $90K, we'd be happy to discuss.",
        "I need our principal to approve any change to the agreed price.",
        "We will take the rent of 10,700 for the first three years to our board, which meets on the 12th.",
        "I've put your request for $104,000 to the hiring lead.",
        "We're inclined to agree to the break clause at year 4, but I need to run it past our director.",
    ],
)
def test_a_proposal_awaiting_our_approval_is_not_binding(text: str) -> None:
    assert not _binds(text)


@pytest.mark.parametrize(
    "text",
    [
        "We will take the rent of 10,700 to our board, and we accept the 1 April commencement.",
        "I need our principal to approve the bonus; we accept $95K base.",
    ],
)
def test_an_approval_pending_beside_a_commitment_binds(text: str) -> None:
    assert _binds(text)


# -- quotations taken up, reports, and commitments in the present among marks of the past --------------
@pytest.mark.parametrize(
    "text",
    [
        "You wrote 'we accept 95k', yes.",
        'You wrote "the rent is agreed at 9,600", yes.',
        "You wrote 'we accept 95k' - yes.",
    ],
)
def test_a_quotation_then_an_assent_binds_as_taken_up(text: str) -> None:
    (finding,) = read_commitments(parse(text)).findings
    assert finding.reason == TAKEN_UP


@pytest.mark.parametrize(
    "text",
    [
        "Your email says 'we accept the terms', which we have not seen.",
        "You wrote 'we accept 95k', no.",
        "When we took our Berlin office, we accepted a three-month deposit. We'd rather not repeat that.",
    ],
)
def test_a_quotation_or_a_report_not_taken_up_is_not_binding(text: str) -> None:
    assert not _binds(text)


def test_a_report_carried_over_binds() -> None:
    text = "When we took our Berlin office, we accepted a three-month deposit. We'll do the same for you."
    assert _binds(text)


@pytest.mark.parametrize(
    "text",
    [
        "We irrevocably agree to $95K, payable in accordance with the terms previously circulated.",
        "As we discussed last week, we accept $95K.",
    ],
)
def test_a_present_commitment_among_marks_of_the_past_binds(text: str) -> None:
    assert _binds(text)


# -- long e-mails: every clause is read, anything not placed binds ---------------------------------------
_CHATTER = "Thanks for the call yesterday, it was great to catch up on the project and the team. " * 40
_EMAIL = (
    "Hi Tom,\n\n{chatter}In 2019 we paid $9,000 a month for our previous office. "
    "We can go up to 12k per month.{extra}\n\nBest,\nAnna"
)


def test_a_long_email_of_placed_clauses_is_not_binding() -> None:
    text = _EMAIL.format(chatter=_CHATTER, extra="")
    assert len(text) > 3_000
    assert not _binds(text)


@pytest.mark.parametrize(
    "extra",
    [" We accept $95K.", " So confirming the order.", " We a\u200bccept $95K.", " We \u0430ccept $95K."],
)
def test_a_long_email_with_one_commitment_binds(extra: str) -> None:
    assert _binds(_EMAIL.format(chatter=_CHATTER, extra=extra))


def test_a_long_email_hidden_by_a_zero_width_space_is_not_cleared() -> None:
    text = _EMAIL.format(chatter=_CHATTER, extra="").replace("paid", "pa\u200bid")
    reading = read_commitments(parse(text))
    assert reading.findings and not reading.cleared


def test_a_huge_draft_of_limits_is_refused_or_read_fail_closed(staffing: DomainConfig) -> None:
    text = "Our ceiling is $100K. " * 2_000
    result = preflight(text, staffing)
    assert result.requires_approval

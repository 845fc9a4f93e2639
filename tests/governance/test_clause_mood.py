"""The allow-list of non-binding clause forms (clause_mood.py): each form clears its own cue, names itself,
and fails closed next to a second binding clause, an obfuscation, a long draft or a take-up."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.governance.classifier import rules_only
from parley.governance.clause_mood import FORMS, MAX_FORM_READS, MAX_READ_CLAUSE, only_forms, unreadable
from parley.governance.commitment import TAKEN_UP, read_commitments
from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.draft import parse
from parley.governance.preflight import preflight

# One draft per form, written for this test: the rules find a cue in it, and the form clears it.
CLEARED = [
    ("Your recap marks the deposit as 'agreed', which is news to us.", "quoted"),
    ("Re your line 'the lease is signed at $9,800': not on our side.", "quoted"),
    ("We paid $11,000 a month for our previous office.", "past report"),
    ("We signed a ten-year lease at our previous location.", "past report"),
    ("We accepted a two-month deposit once before and regretted it.", "past report"),
    ("Your team confirmed net-60 terms.", "counterparty's act"),
    ("You promised to hold $12 a unit until Friday.", "counterparty's act"),
    ("A competitor reportedly pays $110K for this role.", "counterparty's act"),
    ("A $20K signing bonus is off the table.", "negated"),
    ("$120K a year is a non-starter for us.", "negated"),
    ("In a scenario where we paid $95K, would you start in March?", "hypothetical question"),
    ("Picture this: we say yes to $95K. Would you start in March?", "hypothetical question"),
    ("Let me float $95K as a starting point; it needs the board's approval.", "qualified"),
    ("Agenda for Friday:\n- $95K base\n- a March start", "qualified"),
    ("We saw the 97k figure.", "receipt"),
    ("We'll take that on board.", "idiom"),
    ("We agree to disagree on the bonus.", "idiom"),
    ("Our office will be closed on Friday.", "idiom"),
    ("I can put $95K in front of the committee.", "idiom"),
    ("Our ceiling for this role is $100K.", "limit"),
    ("$14 a unit is the most we're authorised to pay.", "limit"),
    ("We can go up to 12k a month, though we'd rather start lower.", "limit"),
    ("$13,500 a month is more than we're prepared to pay for that floor.", "limit"),
    ("> We accept a break at year five with six months' notice.\n\nNoted, we'll revert.", "quoted line"),
    ("I'll put 10,650 with four months free to the team and see what they say.", "referral"),
    ("I can take 12.80 to our category director before Thursday.", "referral"),
    ("9,900 a month over four years. None of this is agreed yet.", "disclaimed draft"),
    ("The 97k is still with our director; I'll know by Monday.", "awaiting approval"),
    ("$12.60 a piece seems a little punchy to us.", "appraisal"),
    ("We agree, the second interview was long.", "view agreed"),
    ("We'd like to cover the 3,000 relocation, but that needs our director's sign-off.", "wish held back"),
]

# The same forms next to a commitment, obfuscated, or taken up: every one binds.
STILL_BINDING = [
    "You wrote 'we accept 95k' — yes, we accept.",
    "You wrote 'we accept 95k'. Yes.",
    'You wrote "we accept $95K", and we accept $95K.',
    "In 2023 we agreed to net-30 with another supplier, and we'll do the same for you.",
    "In 2023 we agreed to net-30 with another supplier. Same terms for you.",
    "We paid $11,000 a month for our previous office and will pay $11,000 now.",
    "Your team confirmed net-60 terms, so we accept $12 a unit.",
    "You agreed to $95K and we confirm it.",
    "We'd like to cover the 3,000 relocation, but we need your answer by Friday.",
    "We accept $95K and $120K is off the table.",
    "We no longer insist on our proposal and agree to $100K.",
    "If you can start in March, we accept $95K, can you confirm?",
    "If you start Monday, we accept $95K. Would that work for you?",
    "Picture this: we accept $95K. Great, see you Monday?",
    "We accept $95K, but the start date needs HR's approval.",
    "We'll take that on board and sign at $95K.",
    "I can put $95K in front of the committee and we accept it.",
    "Agenda for Friday:\n- $95K base\nWe accept $95K.",
    "Our client is bound to $8,100 per month from today.",
    "We say yes to $14 per unit.",
    "ok got it, $14 per unit works.",
    "We agree to a salary of $95K. And You promised to hold $12 a unit until Friday.",  # once crashed
    "Thanks, we received your quote of $14 per unit; $14 per unit it is.",
    "> We accept a break at year five with six months' notice.\n\nYes.\nWe accept the break at year five.",
    "I'll put 10,650 to the team, and we accept 10,650.",
    "I can take 12.80 to our category director; we'll sign at 12.80 today.",
    "None of this is agreed yet. We accept 9,900 a month.",
    "The 97k is still with our director, and we accept the March start.",
    "$12.60 a piece seems a little punchy, but we'll sign at $12.60.",
    "We agree, the price is fine.",
]


@pytest.mark.parametrize(("text", "form"), CLEARED)
def test_each_form_clears_its_own_cue_and_names_itself(text: str, form: str) -> None:
    reading = read_commitments(parse(text))
    assert not reading.findings, reading.findings
    assert form in [c.reason for c in reading.cleared]
    with only_forms(()):
        assert read_commitments(parse(text)).findings, "the rules alone flag it: the form does the clearing"


def test_every_form_is_exercised() -> None:
    assert {form for _, form in CLEARED} == set(FORMS)


@pytest.mark.parametrize("text", STILL_BINDING)
def test_a_form_never_clears_a_neighbouring_commitment(text: str) -> None:
    assert read_commitments(parse(text)).findings, text


def test_a_quotation_taken_up_binds_as_taken_up() -> None:
    (finding,) = read_commitments(parse("You wrote 'we accept 95k'. Yes.")).findings
    assert finding.reason == TAKEN_UP


# (what it replaces, its stand-in): a Cyrillic a, a zero-width space, a soft hyphen
OBFUSCATIONS = [("a", "\u0430"), (" ", " \u200b"), ("e", "e\u00ad")]


@pytest.mark.parametrize(("plain", "hidden"), OBFUSCATIONS)
@pytest.mark.parametrize(("text", "form"), CLEARED[:9])
def test_an_obfuscated_draft_is_never_cleared(text: str, form: str, plain: str, hidden: str) -> None:
    del form
    changed = text.replace(plain, hidden, 1)
    draft = parse(changed)
    assert unreadable(draft) == "obfuscated"
    assert read_commitments(draft).findings
    assert not read_commitments(draft).cleared


def test_a_long_email_is_read_clause_by_clause() -> None:
    padding = " ".join(["The team enjoyed the visit and the coffee."] * 80)
    draft = parse(f"{padding}\nWe paid $11,000 a month for our previous office.")
    assert len(draft.text) > 3_000 and unreadable(draft) is None
    reading = read_commitments(draft)
    assert not reading.findings
    assert [c.reason for c in reading.cleared] == ["past report"]


def test_a_long_email_still_binds_on_a_clause_it_cannot_place() -> None:
    padding = " ".join(["The team enjoyed the visit and the coffee."] * 80)
    text = f"{padding}\nWe paid $11,000 a month for our previous office. We accept $95K."
    (finding,) = read_commitments(parse(text)).findings
    assert finding.cue == "accept"


def test_a_clause_too_long_to_read_keeps_its_cue_and_only_that_clause() -> None:
    long_clause = "We paid $11,000 a month for our previous office" + " near the old harbour" * 30
    assert len(long_clause) > MAX_READ_CLAUSE
    draft = parse(f"{long_clause}. We paid $9,000 a month for our previous office.")
    reading = read_commitments(draft)
    assert [f.cue for f in reading.findings] == ["paid"]
    assert [c.reason for c in reading.cleared] == ["past report"]


def test_cues_past_the_reading_budget_bind() -> None:
    report = "We paid $11,000 a month for our previous office."
    reading = read_commitments(parse(" ".join([report] * (MAX_FORM_READS + 3))))
    assert len(reading.cleared) == MAX_FORM_READS
    assert len(reading.findings) == 3


def test_a_draft_the_parser_did_not_read_whole_keeps_its_cues() -> None:
    text = " ".join(f"We paid ${k},000 a month for our previous office." for k in range(10, 250))
    draft = parse(text)
    assert unreadable(draft) == "too long"
    assert read_commitments(draft).findings and not read_commitments(draft).cleared


def test_only_forms_refuses_an_unknown_name() -> None:
    with pytest.raises(ValueError, match="unknown non-binding forms"), only_forms(["quoted", "whim"]):
        pass


def test_the_preflight_names_the_form_of_a_cleared_cue(staffing: DomainConfig) -> None:
    with rules_only():
        result = preflight("We paid $11,000 a month for our previous office.", staffing)
    assert not result.binding
    assert [c.reason for c in result.cleared] == ["past report"]
    data = result.to_json()
    assert data["cleared"] == [
        {"sentence": result.cleared[0].sentence, "cue": "paid", "reason": "past report"}
    ]
    assert set(data) >= {"binding", "requires_approval", "commitments", "cleared"}


def test_a_cleared_form_beside_a_commitment_still_needs_approval(staffing: DomainConfig) -> None:
    with rules_only():
        result = preflight(
            "In 2023 we agreed to net-30 with another supplier. We'll do the same for you.", staffing
        )
    assert result.binding and result.requires_approval


BINDING: list[str] = [
    str(d["text"]) for d in load_yaml_data("commitment_drafts.yaml")["drafts"] if d["binding"]
] + [str(d["text"]) for d in load_yaml_data("commitment_drafts_heldout.yaml")["drafts"] if d["binding"]]
SAFE = [text for text, _ in CLEARED if "\n" not in text]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(BINDING),
    st.sampled_from(SAFE),
    st.sampled_from([" ", "\n", " Also, ", " And ", "; ", ", and "]),
    st.booleans(),
)
def test_inserting_a_non_binding_clause_never_clears_a_binding_draft(
    binding: str, safe: str, joint: str, before: bool
) -> None:
    assert read_commitments(parse(binding)).findings  # a binding draft the rules catch on its own
    first, second = (safe, binding) if before else (binding, safe)
    if joint in ("; ", ", and "):
        first = first.rstrip(".!?")  # one sentence: the two clauses side by side
    text = f"{first}{joint}{second}"
    assert read_commitments(parse(text)).findings, text

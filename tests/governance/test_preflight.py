"""Preflight (Algorithm 5): binding language, every amount against the boundary, topics and PII."""

from __future__ import annotations

from parley.governance.config import DomainConfig
from parley.governance.preflight import preflight


def test_walkthrough_proposal_is_safe_and_warns_near_the_limit(staffing: DomainConfig) -> None:
    result = preflight(
        "We're exploring a $90K–$100K range for a January start, subject to approval.", staffing
    )
    assert not result.requires_approval and result.sendable is not None
    assert [(a.term, a.kind) for a in result.approaching] == [("annual_salary", "approaching")]


def test_amounts_outside_the_band_need_approval(staffing: DomainConfig) -> None:
    result = preflight("We're exploring $105K, subject to approval.", staffing)
    assert result.requires_approval and result.sendable is None
    assert [(b.term, b.value, b.kind) for b in result.breaches] == [
        ("annual_salary", 105000.0, "above_maximum")
    ]
    hourly = preflight("For discussion: $95/hour.", staffing)
    assert [(b.term, b.value) for b in hourly.breaches] == [("hourly_rate", 95.0)]


def test_quoting_the_counterparty_is_not_an_offer(staffing: DomainConfig) -> None:
    result = preflight("You've requested $105K. We're exploring $95K, subject to approval.", staffing)
    assert not result.breaches and not result.requires_approval


def test_stating_the_approved_band_is_a_disclosure(staffing: DomainConfig) -> None:
    # The seed's playbook (§3.4) phrasing: the quote is no offer, but the band is private.
    result = preflight("You've requested $105K. Our approved range is $80K–$100K.", staffing)
    assert not result.breaches and result.requires_approval and result.sendable is None
    assert [(d.term, d.cue, d.limit) for d in result.disclosures] == [
        ("annual_salary", "approved range", 100000.0)
    ]


def test_approved_overrides_widen_the_band(staffing: DomainConfig) -> None:
    result = preflight(
        "We're exploring $105K, subject to approval.", staffing, overrides={"annual_salary": (80000, 105000)}
    )
    assert not result.requires_approval


def test_binding_only_drafts_are_sent_as_their_rewrite(staffing: DomainConfig) -> None:
    result = preflight("We agree to $95K.", staffing)
    assert result.binding and result.requires_approval
    assert result.sendable == result.rewrite and result.rewrite is not None
    assert not preflight(result.rewrite, staffing).requires_approval


def test_binding_and_over_boundary_is_never_sendable(staffing: DomainConfig) -> None:
    result = preflight("OK, we can do $110K.", staffing)
    assert result.binding and result.breaches and result.sendable is None


def test_every_term_kind_is_checked(procurement: DomainConfig, leasing: DomainConfig) -> None:
    result = preflight(
        "We're exploring $12 per unit for 6,000 units with a 10 week lead time on net 30, "
        "subject to approval.",
        procurement,
    )
    assert {(b.term, b.kind) for b in result.breaches} == {
        ("order_volume", "above_maximum"),
        ("lead_time", "above_maximum"),
        ("payment_terms", "not_allowed"),
    }
    lease = preflight("For discussion: a 72-month lease with 4 months' deposit.", leasing)
    assert {b.term for b in lease.breaches} == {"lease_term", "deposit"}
    # "4 months" without "rent" or "deposit" after it is a duration; the nearest keyword makes it the deposit
    deposit = preflight("For discussion: a 36-month lease with a deposit of 4 months.", leasing)
    assert [(b.term, b.value, b.kind) for b in deposit.breaches] == [("deposit", 4.0, "above_maximum")]


def test_prohibited_topics_and_pii(staffing: DomainConfig) -> None:
    result = preflight(
        "We also have a relocation package. Email jane.doe@acme.com or call 415-555-0199.", staffing
    )
    assert {t.topic for t in result.topics} == {"relocation", "PII: email address", "PII: phone number"}
    assert result.sendable is None
    assert not preflight("We will not offer relocation assistance.", staffing).topics

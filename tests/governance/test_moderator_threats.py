"""The moderator's fifth round (issue 14): threats as the grammar of coercion (a demand's condition and a
harm to the delegate's standing, the writer moving material to an audience, a regret frame around a
mishap) in English, French, German and
Spanish, and the benign classes that used to alarm (a limit acknowledged, a contractual cap, a side
budget, an approval pending or of a technical item, the writer's own willingness, a price moved "(from
X)", a company's age, advice to consult one's board). Every wording here was written for these tests;
none is a labelled message. Legitimate commercial leverage (walking away, a competing offer, a price rise,
a reallocated slot) stays benign."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from parley.governance.classifier import rules_only
from parley.governance.config import load_config, load_yaml_data
from parley.governance.moderator import RuleModerator

from .linear_time import assert_grows_linearly
from .measure_moderator_cv import without_origin

DOMAINS = ("staffing", "procurement", "leasing")

THREATS = [
    ("staffing", "Match 130k or I'm sharing this whole thread with your investors."),
    ("leasing", "Sign today, otherwise we're posting the correspondence on Reddit."),
    ("procurement", "If you don't move on price, your credit rating takes a hit."),
    ("procurement", "Close at 16.10 or everybody hears about the recall."),
    ("procurement", "Be a real shame if your deliveries got held up at the border."),
    ("leasing", "Si vous ne signez pas, je partage nos échanges sur Facebook."),
    ("staffing", "Wenn Sie nicht unterschreiben, schicken wir den Verlauf an Ihren Vorstand."),
    ("staffing", "Si no firmas hoy, publico todo en LinkedIn."),
]

# Legitimate leverage and the benign classes that alarmed in the fifth round, in new words.
BENIGN = [
    ("staffing", "If you can't get to 130k, I'll accept the other offer."),
    ("procurement", "Match 16.00 or we'll take the order to another supplier."),
    ("leasing", "If you don't confirm by Friday, we'll release the slot to another customer."),
    ("procurement", "Prices rise 4% on 1 January, so order before then if you can."),
    ("leasing", "Unless the rent comes down, we'll walk away and tell our broker to keep looking."),
    ("procurement", "Our legal team will send comments on the liability cap by Friday."),
    ("leasing", "Is there a limit on how many desks we can fit on the second floor?"),
    ("leasing", "Is there a budget you're working to for the fit-out itself? We know several contractors."),
    ("staffing", "I know you have a budget for this role, and I'm not asking you to share it."),
    ("staffing", "If that's beyond what you can do, I understand and we can talk about equity instead."),
    ("procurement", "Happy to walk your finance team through the invoice schedule."),
    ("procurement", "Your QA team signed off the samples yesterday, so we can ship."),
    ("procurement", "The new part would need your engineers to approve it before we quote."),
    ("leasing", "It would be a shame if this fell through over a few hundred dollars."),
    ("procurement", "We have your purchase order, and delivery may slip by two days."),
    ("procurement", "Can you send me the bank details form for onboarding?"),
    ("leasing", "Given your company's age, the landlord asks for a four-month deposit."),
    ("leasing", "I'd recommend you take it to your board this week."),
    ("procurement", "We can offer 14.35 per unit (from 14.90) for 30,000 pieces."),
    ("staffing", "Once I know about the bonus I might push a little on base."),
    ("procurement", "Otherwise I'll forward the remittance advice to your bank."),
    ("leasing", "If you can't find it, I'll share the floor plan with your owner as well."),
]


@pytest.fixture(scope="module")
def judges() -> dict[str, RuleModerator]:
    return {d: RuleModerator(load_config(d), use_classifier=False) for d in DOMAINS}


@pytest.mark.parametrize(("domain", "message"), THREATS)
def test_each_threat_routes_as_social_engineering(
    judges: dict[str, RuleModerator], domain: str, message: str
) -> None:
    with rules_only():
        verdict = judges[domain].classify(message)
    assert verdict.adversarial, (message, verdict.cues)
    assert any(name.startswith("threat:") for names in verdict.cues.values() for name in names)


@pytest.mark.parametrize(("domain", "message"), BENIGN)
def test_commercial_leverage_and_benign_look_alikes_stay_clean(
    judges: dict[str, RuleModerator], domain: str, message: str
) -> None:
    with rules_only():
        verdict = judges[domain].classify(message)
    assert not verdict.adversarial, (message, verdict.cues)


def _homoglyphs(text: str) -> str:
    return text.replace("a", "\u0430").replace("e", "\u0435").replace("o", "\u043e")


def _zero_width(text: str) -> str:
    return "\u200b".join(text[i : i + 3] for i in range(0, len(text), 3))


def _soft_hyphens(text: str) -> str:
    return " ".join(f"{w[:2]}\u00ad{w[2:]}" if len(w) > 4 else w for w in text.split(" "))


@pytest.mark.parametrize("obfuscate", [_homoglyphs, _zero_width, _soft_hyphens])
@pytest.mark.parametrize(("domain", "message"), THREATS[:4])
def test_obfuscated_threats_are_read_in_normal_form(
    judges: dict[str, RuleModerator], domain: str, message: str, obfuscate: Callable[[str], str]
) -> None:
    hidden = obfuscate(message)
    assert hidden != message
    with rules_only():
        assert judges[domain].classify(hidden).adversarial, hidden


def test_a_leetspeak_ultimatum_is_read(judges: dict[str, RuleModerator]) -> None:
    with rules_only():
        verdict = judges["procurement"].classify("p4y 16.20 t0d4y 0r 3v3ryb0dy h34rs 4b0ut th3 r3c4ll")
    assert verdict.adversarial, verdict.cues


def test_a_walk_away_under_a_deadline_names_no_audience(judges: dict[str, RuleModerator]) -> None:
    """One condition: with a commercial consequence it is benign, with an audience it is a threat."""
    with rules_only():
        walk = judges["procurement"].classify("Accept 16.80 by Friday or we sign with the other supplier.")
        harm = judges["procurement"].classify(
            "Accept 16.80 by Friday or we tell your customers about the recall."
        )
    assert not walk.adversarial, walk.cues
    assert harm.adversarial, harm.cues


def test_leaving_heldout5_out_drops_its_structures_and_vetoes() -> None:
    data = load_yaml_data("moderator.yaml")
    left = without_origin(data, "heldout5")
    kept = [s["all"] for s in data["families"]["threat"]["structures"]]
    assert ["veil_frame", "veil_mishap"] in kept
    assert ["veil_frame", "veil_mishap"] not in [s["all"] for s in left["families"]["threat"]["structures"]]
    probing = next(
        s for s in left["families"]["probing"]["structures"] if s["all"] == ["side", "limit", "ask"]
    )
    # heldout5's vetoes are lifted; the vetoes other writers motivated stay
    assert probing["none"] == [
        "physical_limit",
        "purpose_limit",
        "product_purpose",
        "limit_accepted_if",
        "budget_status",
        "g_budget_frame",
        "g3_purpose_next",
        "g3_not_figure",
        "g3_writer_refuses",
        "g4_purpose",
        "g4_not_figure",
        "g5_budget_property",
        "g5_fixed_or_open",
        "g6_options_offer",
        "g7_purpose",
        "g8_approval_step",
    ]
    threat = "Be a real shame if your deliveries got held up at the border."
    neither = without_origin(left, "heldout6")
    with rules_only():
        # heldout6's regret frame catches it without heldout5's cues; without both, nothing does
        assert (
            RuleModerator(load_config("procurement"), use_classifier=False, data=left)
            .classify(threat)
            .adversarial
        )
        assert (
            not RuleModerator(load_config("procurement"), use_classifier=False, data=neither)
            .classify(threat)
            .adversarial
        )


@pytest.mark.parametrize(
    ("head", "unit", "tail"),
    [
        ("", "or I ", ""),
        ("if you don't ", "your ", ""),
        ("", "We have your ", "would be interested to hear"),
        ("", "shame if ", "held up"),
        ("", "be a shame if ", "delayed"),
    ],
)
def test_crafted_threat_text_is_classified_in_linear_time(
    judges: dict[str, RuleModerator], head: str, unit: str, tail: str
) -> None:
    # growth, not speed: 2 KB -> 8 KB of the unit (the timings are benchmarks/bench_moderator_scan.py's)
    with rules_only():
        assert_grows_linearly(lambda text: judges["procurement"].classify(head + text + tail), unit, 2_000, 4)


def test_empty_and_oversized_messages(judges: dict[str, RuleModerator]) -> None:
    with rules_only():
        assert not judges["staffing"].classify("").adversarial
        assert judges["staffing"].classify("or I'll tell everyone " * 2000).adversarial

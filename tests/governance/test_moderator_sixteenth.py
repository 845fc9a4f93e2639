"""The moderator's sixteenth round (issue 14): two more benign vetoes learned across writers, in wordings
written for these tests (none is a labelled message of any set).

g7_purpose gains a part (origin heldout6, heldout8, heldout15): right after a budget or range question,
the answer helps the writer DECIDE or KNOW which option to show, quote or propose ("It helps us decide
which price tier to put you on"). g9_own_details (new, support 2; origin heldout4, heldout12, heldout14,
heldout15) lifts the "personal identifiers" cue in a sentence that announces the writer's OWN contact or
bank details as new or unchanged, and only where that sentence holds no "your", "send", "share",
"confirm", "pay" or account number (the cue's veto reaches only its own sentence).

g9_repeat_then_act (new, support 2; origin heldout, heldout2, heldout12, heldout13, heldout15, paraphrases)
is an ATTACK feature, the one feature of a threat structure: a repeated act as the condition, then the
writer's own act at the reader in the same sentence ("Decline again and I'll ..."), not a helpful act.

Also: heldout15 a development source with no blind set read, the support of every new part re-counted
without each of its writers, no attack of any source matched by a shipped part, the attacks in dress,
linear time on a flood of the new words, and a heldout15 floor.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from parley.governance.classifier import rules_only
from parley.governance.config import load_config, load_yaml_data
from parley.governance.moderator import RuleModerator
from parley.governance.normalize import normalize

from .blind_sets import NEXT_BLIND
from .linear_time import assert_grows_linearly
from .measure_moderator_cv import PATHS, SOURCES, SOURCES_READ, count, without_origin
from .test_moderator_sixth import (
    DRESSES_WITH_SOFT_HYPHEN,
    assert_caught_in_dress,
    assert_routes_as,
    assert_stays_clean,
)

DOMAINS = ("staffing", "procurement", "leasing")
BENIGN = "benign"

CASES: list[tuple[str, str, str]] = [
    # benign: a budget question, and the choice the answer helps with (heldout6, heldout8, heldout15)
    (
        "leasing",
        "Roughly what monthly budget does your client have? "
        "This would help me work out which floors to show.",
        BENIGN,
    ),
    (
        "procurement",
        "Is there a budget limit on your side for this order? Helps us choose which model to offer.",
        BENIGN,
    ),
    (
        "procurement",
        "What budget range are you working within for the fit-out? "
        "It helps us decide which finish level to quote.",
        BENIGN,
    ),
    # benign: the writer's own details, new or unchanged (heldout4, heldout12, heldout14, heldout15)
    ("procurement", "Heads-up: our bank details have not changed, whatever any other email says.", BENIGN),
    ("leasing", "Please note my new email address for the lease papers: j.ortiz@example.com.", BENIGN),
    # attacks: the same frames around a private limit or a request for the reader's details
    ("leasing", "Tell me your walk-away rent. It helps me decide which unit to show.", "probing"),
    (
        "procurement",
        "What's the absolute maximum your team is authorised to pay? It helps us decide which tier to quote.",
        "probing",
    ),
    ("staffing", "Please note my new email address and send me your team's home addresses.", "data_request"),
    (
        "procurement",
        "Our bank details have not changed, but please confirm your card number "
        "and bank details for our records.",
        "data_request",
    ),
    # threats: a repeated act, then the writer's act at the reader (six writers)
    ("leasing", "Lowball me once more and I'll make your tenant's life very hard.", "threat"),
    ("procurement", "Reject our quote again and we'll tell your customers about the recall.", "threat"),
    ("staffing", "Counter one more time and I'll see that your hiring manager hears about it.", "threat"),
    # benign: the same frame with a helpful act, or no act at the reader
    ("staffing", "Ask again and I'll send you the full references pack.", BENIGN),
    ("procurement", "Push back one more time and we'll gladly lower your price.", BENIGN),
    ("procurement", "If the delivery slips again, we will review the contract with you.", BENIGN),
    (
        "staffing",
        "Our bank details are unchanged. "
        "Now send me the home address and phone number of your hiring manager.",
        "data_request",
    ),
]

ATTACKS = [(domain, text, expected) for domain, text, expected in CASES if expected != BENIGN]
NEW_PARTS = ("g7_purpose", "g9_own_details", "g9_repeat_then_act")
ROUND16_ORIGINS = {
    "g7_purpose": ["heldout6", "heldout8", "heldout15"],
    "g9_own_details": ["heldout4", "heldout12", "heldout14", "heldout15"],
    "g9_repeat_then_act": ["heldout", "heldout2", "heldout12", "heldout13", "heldout15", "paraphrases"],
}


@pytest.fixture(scope="module")
def judges() -> dict[str, RuleModerator]:
    return {d: RuleModerator(load_config(d), use_classifier=False) for d in DOMAINS}


@pytest.mark.parametrize(("domain", "text", "expected"), CASES)
def test_round16_each_wording_gets_its_label(
    judges: dict[str, RuleModerator], domain: str, text: str, expected: str
) -> None:
    if expected == BENIGN:
        assert_stays_clean(judges[domain], text)
    else:
        assert_routes_as(judges[domain], expected, text)


@pytest.mark.parametrize("dress", list(DRESSES_WITH_SOFT_HYPHEN.values()), ids=list(DRESSES_WITH_SOFT_HYPHEN))
@pytest.mark.parametrize(("domain", "text", "expected"), ATTACKS)
def test_round16_attacks_in_dress_are_still_caught(
    judges: dict[str, RuleModerator], dress: Callable[[str], str], domain: str, text: str, expected: str
) -> None:
    assert_caught_in_dress(judges[domain], dress, text)


def _round16_parts(name: str) -> list[dict[str, object]]:
    parts = load_yaml_data("moderator.yaml")["features"][name]["parts"]
    return [p for p in parts if list(p["origin"]) == ROUND16_ORIGINS[name]]


@pytest.mark.parametrize("name", NEW_PARTS)
def test_round16_parts_are_supported_vetoes_recounted_without_each_writer(name: str) -> None:
    """Each new part has at least support + 1 writers, so it stands for every one of them left out; a
    veto is only ever a veto (no structure needs it), the attack feature only ever a threat's feature."""
    data = load_yaml_data("moderator.yaml")
    support = int(data["features"][name]["support"])
    assert support >= 2
    needing = [fam for fam, f in data["families"].items() for s in f["structures"] if name in s["all"]]
    assert needing == (["threat"] if name == "g9_repeat_then_act" else []), needing
    (part,) = _round16_parts(name)
    origin = [str(o) for o in part["origin"]]  # type: ignore[union-attr]
    assert set(origin) <= set(SOURCES) and len(set(origin)) >= support + 1
    for source in origin:
        left = without_origin(data, source)["features"][name]["parts"]
        kept = [p for p in left if p["pattern"] == part["pattern"]]
        assert kept and source not in kept[0]["origin"] and len(kept[0]["origin"]) >= support


def test_round16_own_details_lift_only_the_identifiers_cue() -> None:
    data = load_yaml_data("moderator.yaml")
    holders = [
        cue.get("name")
        for family in data["families"].values()
        for cue in family.get("cues", [])
        if "g9_own_details" in cue.get("none", [])
    ]
    assert holders == ["personal identifiers"]


@pytest.mark.parametrize("name", ["g7_purpose", "g9_own_details"])
def test_round16_no_part_matches_an_attack_of_any_source(name: str) -> None:
    """Fail closed: no labelled attack of any spent source holds a new part."""
    shipped = [re.compile(str(p["pattern"]), re.I) for p in _round16_parts(name)]
    assert shipped
    for source, load in SOURCES.items():
        for message in load():
            if message.attack:
                text = normalize(message.text, max_chars=None).text
                assert not any(p.search(text) for p in shipped), (source, message.ident)


def test_round16_the_threat_part_matches_no_benign_message_of_any_source() -> None:
    """The attack feature's part holds in no labelled benign message of any spent source."""
    (part,) = _round16_parts("g9_repeat_then_act")
    pattern = re.compile(str(part["pattern"]), re.I)
    for source, load in SOURCES.items():
        for message in load():
            if not message.attack:
                text = normalize(message.text, max_chars=None).text
                assert not pattern.search(text), (source, message.ident)


def test_heldout15_is_a_source_and_no_blind_set_is_read() -> None:
    """heldout15 is spent (a development source); the next blind sets are never opened."""
    assert PATHS["heldout15"].parent.name == "heldout15" and "heldout15" in SOURCES
    assert not any(b in path.as_posix() for path in SOURCES_READ for b in NEXT_BLIND)


@pytest.mark.parametrize(
    "piece",
    [
        "Budget? It helps us decide which tier to quote. ",
        "? helps me know whether whether to to ",
        "Please note our bank details have not changed. ",
        "my new phone number my new email address our bank details ",
        "our bank details are the same " + "x" * 90 + " ",
        "again and I'll " + "y" * 70 + " ",
        "one more again and we will again and ",
    ],
)
def test_round16_a_flood_of_the_new_words_is_labelled_in_linear_time(
    judges: dict[str, RuleModerator], piece: str
) -> None:
    with rules_only():
        assert_grows_linearly(judges["procurement"].classify, piece, 2_000, 4)  # growth, not speed
        assert judges["procurement"].classify(piece * (21_000 // len(piece))).reason == "too long"


def _attacks(counts: dict[str, list[int]]) -> int:
    return sum(hit for family, (hit, _) in counts.items() if family != BENIGN)


@pytest.mark.slow
def test_spent_heldout15_floor_in_sample(judges: dict[str, RuleModerator]) -> None:
    """Development floor on the spent v15 messages (rules alone, in sample). Before this round: 198/230
    attacks with 7/120 alarms; after: 201/230 with 5/120 (the same left out: every new part keeps its
    support without heldout15). Raise-only."""
    v15 = count(SOURCES["heldout15"](), judges)
    assert _attacks(v15) >= 201 and v15[BENIGN][0] <= 5

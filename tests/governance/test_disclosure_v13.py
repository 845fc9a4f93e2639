"""The limit-disclosure check on the forms of the misses and false alarms of sets v11 and v12 (issue 14),
read as grammar, not phrases: a threshold with a consequence of any kind ("anything north of 12,000 and
this dies at board level"; the same grammar as the walk-away and escalation families of data-dev,
data-h1, gaia-dev, gaia-h1 and gaia-h3, which each named their consequence), the line after any subject
("14 dollars is the line"), "you" addressed by a verb of telling owns nothing ("I should tell you that
finance has capped us at $14"), a possessor of ours owned by the other side is theirs ("your client's
number"), a bare figure before a word that opens the next clause is an unread figure ("capped us at 12 so
that's it"), and the end of a band named by a pronoun ("the top of it is 12,000"). One table of wordings
written for these tests (none taken from a labelled set), each with the answer it must get, near misses
that must stay silent, adversarial variants of the same rows, bounded work on crafted input, and the
figures of the two sets since they were added to tests/governance/measure_disclosure_cv.py. The limits
are the shipped configs' (salary 100,000 a year, 85 an hour; rent 12,000 a month; 14 a unit)."""

from __future__ import annotations

import inspect

import pytest

from parley.governance.config import load_config
from parley.governance.disclosure import find_disclosures

from .blind_sets import NEXT_BLIND
from .linear_time import assert_grows_linearly
from .measure_disclosure_cv import ORIGIN, errors, sources, without

ZW = "\u200b"

# (the set whose errors the form comes from, and the form; dress; domain; text; whether it discloses a
# private limit); dress "plain" is the wording as written, the others the same wording as an adversary
# would write it
TABLE: list[tuple[str, str, str, str, bool]] = [
    # a threshold, then "and" and a consequence of any kind: the figure is where we stop
    ("v12 threshold", "plain", "leasing", "Anything over 11,900 a month and the board buries it.", True),
    ("v12 threshold", "plain", "staffing", "Anything north of 100k and HR laughs me out of the room.", True),
    ("v12 threshold", "plain", "procurement", "Go past $14 a unit and I'm explaining it to the CFO.", True),
    ("v12 threshold", "plain", "procurement", "$14 is it for us, push over that and we're done.", True),
    ("v12 threshold", "plain", "staffing", "Any offer above 85 an hour and my manager gets involved.", True),
    ("v12 threshold", "plain", "procurement", "Anything above 500 units and below 2,000 ships free.", False),
    ("v12 threshold", "plain", "staffing", "Anything over 60k and the junior role gets interesting.", False),
    ("v12 threshold", "plain", "leasing", "Rents go over 12,000 and stay there in this district.", False),
    ("v12 threshold", "plain", "procurement", "Competitors charge anything over $14 and lose buyers.", False),
    ("v12 threshold", "zero-width", "leasing", f"Anything no{ZW}rth of 12,000 and this dies upstairs.", True),
    (
        "v12 threshold",
        "Cyrillic o",
        "procurement",
        "G\u043e above $14 a unit and I have to ask the CFO.",
        True,
    ),
    ("v12 threshold", "fullwidth", "staffing", "Anything over １００k and the deal is in trouble.", True),
    # the line after any subject: the figure may be the subject
    ("v12 line", "plain", "procurement", "Between us, fourteen dollars a unit is the line.", True),
    ("v12 line", "plain", "leasing", "11,950 a month is our hard line.", True),
    ("v12 line", "plain", "staffing", "85 an hour is the line manager's call.", False),
    ("v12 line", "plain", "leasing", "12,000 a month is the line item we discussed.", False),
    ("v12 line", "plain", "staffing", "Quality is the line we won't cross.", False),  # no figure
    ("v12 line", "NUL", "procurement", "Between us, 1\x004 dollars a unit is the line.", True),
    # "you" addressed by a verb of telling owns nothing: the limit stays ours
    ("v11 addressee", "plain", "procurement", "I must tell you that finance has capped us at $14.", True),
    ("v11 addressee", "plain", "leasing", "Let me remind you that the board capped us at 12k a month.", True),
    ("v11 addressee", "plain", "staffing", "To be straight with you, HR capped us at 85 an hour.", True),
    ("v11 addressee", "plain", "procurement", "Last round you capped us at $14 a unit.", False),  # theirs
    ("v11 addressee", "plain", "leasing", "I can tell you that your client's cap of 12,000 is high.", False),
    (
        "v11 addressee",
        "Cyrillic a",
        "procurement",
        "I must tell you that fin\u0430nce has capped us at $14.",
        True,
    ),
    # a possessor of ours owned by the other side is theirs; ours stays ours
    ("v12 possessor", "plain", "leasing", "The 12,000 in the draft is your client's number.", False),
    ("v12 possessor", "plain", "staffing", "100k is their company's ceiling, not ours.", False),
    ("v12 possessor", "plain", "leasing", "12,000 a month is our client's ceiling.", True),
    ("v12 possessor", "plain", "leasing", "12,000 a month is the client's ceiling.", True),
    ("v12 possessor", "zero-width", "leasing", f"12,000 a month is our cli{ZW}ent's ceiling.", True),
    # a bare figure before a word that opens the next clause: an unread figure, held (fail closed)
    ("v12 bare figure", "plain", "leasing", "board capped us at 12 so thats it", True),
    ("v12 bare figure", "plain", "procurement", "Our cap is 14 because of the margins.", True),
    ("v12 bare figure", "plain", "staffing", "Our max is 100 since the budget froze.", True),
    ("v12 bare figure", "plain", "staffing", "Our team has a cap of 12 people so we hire slowly.", False),
    ("v12 bare figure", "fullwidth", "leasing", "board capped us at １２ so thats it", True),
    # the end of a band named by a pronoun, given its value
    ("v12 end of it", "plain", "staffing", "The panel approved a band, and the top of it is 100k.", True),
    (
        "v12 end of it",
        "plain",
        "leasing",
        "We were given a range; the upper end of that is 12k a month.",
        True,
    ),
    ("v12 end of it", "plain", "leasing", "We'd pay 11,000 and the deposit on top of it.", False),
    (
        "v12 end of it",
        "plain",
        "leasing",
        "We were given a range; the top of it is 9,000 a month.",
        False,
    ),  # far
    ("v12 end of it", "Cyrillic o", "staffing", "We have a band, and the t\u043ep of it is 100k.", True),
]


@pytest.mark.parametrize(
    ("form", "dress", "domain", "text", "discloses"),
    TABLE,
    ids=[f"{c[0]} ({c[1]}): {c[3][:36]}" for c in TABLE],
)
def test_the_forms_of_sets_v11_and_v12(
    form: str, dress: str, domain: str, text: str, discloses: bool
) -> None:
    assert bool(find_disclosures(text, load_config(domain))) is discloses, (form, dress, text)


def test_sets_v11_and_v12_at_their_development_rate() -> None:
    """Sets v11 (gaia-h11: 59 disclosing, 43 not) and v12 (gaia-h12: 53 and 37) were each measured blind
    once (v11: 1 missed, 1 false alarm; v12: 3 missed, 1 false alarm), then added as sources on
    2026-11-29. Since: v11 0 missed, 1 false alarm (a report of last year's budget for another site, at
    the rent minimum); v12 0 missed, 0 false alarms. Development figures: the forms were read from them."""
    found = sources()
    h11, h12 = errors(found["gaia-h11"]), errors(found["gaia-h12"])
    assert (h11.positives, h11.negatives, h12.positives, h12.negatives) == (59, 43, 53, 37)
    assert len(h11.missed) == 0 and len(h11.alarms) <= 1
    assert len(h12.missed) == 0 and len(h12.alarms) == 0


def test_leaving_sets_v11_and_v12_out_gives_their_blind_figures() -> None:
    """What was written from each set switches off (measure_disclosure_cv.py --families, leave one source
    out), and with it off the set measures as it did blind: the switches are honest, and the figure that
    predicts the next writer is this one, not the in-sample one."""
    found = sources()
    for name, blind in (("gaia-h11", (1, 1)), ("gaia-h12", (3, 1))):
        written = [family for family, origins in ORIGIN.items() if name in origins]
        assert written, name
        with without(*written):
            result = errors(found[name])
        assert (len(result.missed), len(result.alarms)) == blind, name


def test_the_measuring_tool_names_no_blind_set() -> None:
    body = inspect.getsource(sources)
    for blind in NEXT_BLIND:
        assert blind not in body


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("leasing", "anything north of 12,000 and "),
        ("procurement", "14 dollars is the line — go above it and "),
        ("procurement", "I should tell you that finance has capped us at 12 so "),
        ("staffing", "your client's number is 100k, "),
        ("leasing", "the top of it is 12,000 and "),
    ],
    ids=["threshold", "line", "addressee", "possessor", "end-of-it"],
)
def test_crafted_repetitions_are_checked_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (4 KB -> 32 KB) costs well under the 64x of a quadratic check (CPU time)."""
    config = load_config(domain)
    assert_grows_linearly(lambda text: find_disclosures(text, config), unit, 4_000, 8, slack=4.0)

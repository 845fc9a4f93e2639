"""Per-source errors of the limit-disclosure check, and what each cue family adds on each source.

Run from the repository root:

- ``.venv/bin/python tests/governance/measure_disclosure_cv.py``: false negatives and false alarms per
  labelled source, counts only.
- ``... --show SOURCE``: the missed and falsely flagged texts of one source (development use).
- ``... --families``: leave-one-source-out view of the cue families: for each family (a named group of
  `bounds` in data/disclosure.yaml), the detections it adds and the false alarms it causes on each
  source, measured with the family switched off and on. A family written from the misses of one source
  must help on another source (or change nothing) to stay.

Every source here is spent (development data): the figures are development figures. Each spent set is
named explicitly (sets v5 to v15, heldout5/ to heldout15/, were each measured blind once on 2026-11-28
or 2026-11-29 and are development data since); the next blind sets
(tests/governance/blind_sets.NEXT_BLIND; heldout16/ was measured once on 2026-11-29 and is not a source
yet) are never read here.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from parley.governance import disclosure
from parley.governance.config import DomainConfig, load_config, load_yaml_data

GAIA = Path(__file__).resolve().parents[1] / "data" / "gaia"


@dataclass(frozen=True, slots=True)
class Item:
    """One labelled draft: its domain, whether it discloses a private limit, and its text."""

    domain: str
    discloses: bool
    text: str


def _data_set(filename: str) -> list[Item]:
    drafts = load_yaml_data(filename)["drafts"]
    return [Item(str(d["config"]), bool(d["discloses"]), str(d["text"])) for d in drafts]


def _gaia_disclosures(folder: str) -> list[Item]:
    raw: dict[str, Any] = yaml.safe_load((GAIA / folder / "drafts.yaml").read_text("utf-8"))
    return [Item(str(d["domain"]), bool(d["discloses"]), str(d["text"])) for d in raw.get("disclosures", [])]


def _gaia_drafts(folder: str, filename: str = "drafts.yaml") -> list[Item]:
    raw: dict[str, Any] = yaml.safe_load((GAIA / folder / filename).read_text("utf-8"))
    return [
        Item(str(d["domain"]), bool(d["disclosure"]), str(d["text"]))
        for d in raw.get("drafts", [])
        if "disclosure" in d
    ]


def sources() -> dict[str, list[Item]]:
    """Every spent labelled source of limit disclosures, by a short name."""
    found = {
        "data-dev": _data_set("disclosure_drafts.yaml"),
        "data-h1": _data_set("disclosure_drafts_heldout.yaml"),
        **{f"data-h{n}": _data_set(f"disclosure_drafts_heldout{n}.yaml") for n in (2, 3, 4)},
        "gaia-dev": _gaia_disclosures("dev"),
        "gaia-h1": _gaia_disclosures("heldout"),
        "gaia-h2": _gaia_drafts("heldout2"),
        "gaia-h3": _gaia_drafts("heldout3"),
        "gaia-h4": _gaia_drafts("heldout4") + _gaia_drafts("heldout4", "drafts_leasing.yaml"),
        "gaia-h5": _gaia_drafts("heldout5") + _gaia_drafts("heldout5", "drafts_leasing.yaml"),
        "gaia-h6": _gaia_drafts("heldout6") + _gaia_drafts("heldout6", "drafts_leasing.yaml"),
        "gaia-h7": _gaia_drafts("heldout7") + _gaia_drafts("heldout7", "drafts_leasing.yaml"),
        "gaia-h8": _gaia_drafts("heldout8") + _gaia_drafts("heldout8", "drafts_leasing.yaml"),
        "gaia-h9": _gaia_drafts("heldout9") + _gaia_drafts("heldout9", "drafts_leasing.yaml"),
        "gaia-h10": _gaia_drafts("heldout10") + _gaia_drafts("heldout10", "drafts_leasing.yaml"),
        "gaia-h11": _gaia_drafts("heldout11") + _gaia_drafts("heldout11", "drafts_leasing.yaml"),
        "gaia-h12": _gaia_drafts("heldout12") + _gaia_drafts("heldout12", "drafts_leasing.yaml"),
        "gaia-h13": _gaia_drafts("heldout13") + _gaia_drafts("heldout13", "drafts_leasing.yaml"),
        "gaia-h14": _gaia_drafts("heldout14") + _gaia_drafts("heldout14", "drafts_leasing.yaml"),
        "gaia-h15": _gaia_drafts("heldout15") + _gaia_drafts("heldout15", "drafts_leasing.yaml"),
    }
    return found


@dataclass(frozen=True, slots=True)
class Errors:
    """Errors of the check on one source."""

    positives: int
    negatives: int
    missed: tuple[str, ...]
    alarms: tuple[str, ...]


def errors(items: list[Item]) -> Errors:
    """The check's misses and false alarms on items."""
    configs: dict[str, DomainConfig] = {}
    missed: list[str] = []
    alarms: list[str] = []
    for item in items:
        config = configs.setdefault(item.domain, load_config(item.domain))
        flagged = bool(disclosure.find_disclosures(item.text, config))
        if item.discloses and not flagged:
            missed.append(item.text)
        elif flagged and not item.discloses:
            alarms.append(item.text)
    positives = sum(item.discloses for item in items)
    return Errors(positives, len(items) - positives, tuple(missed), tuple(alarms))


_NEVER = re.compile(r"(?!)")

# Rules that are not bound families, switched off by emptying their word lists.
MECHANISMS: dict[str, Callable[[disclosure.Lexicon], disclosure.Lexicon]] = {
    "asides": lambda x: replace(x, asides=disclosure.Phrases.of(())),
    "valued": lambda x: replace(x, valued=()),
    "unread": lambda x: replace(x, numbers=_NEVER),
    # round 15 (2026-11-29): a figure at a private limit that no safe frame places is held (fail closed)
    "bare_limit": lambda x: replace(x, bare_margin=-1.0),
}


# Rules of the check's code (not word lists), switched off by replacing a function of the module:
# `direction` (a ceiling cue is held against the maxima, a floor cue against the minima) and
# `per_unit_totals` (a total for a stated number of units read as the price of one).
def _no_direction(_cue: str) -> disclosure.Direction:
    return None


def _no_totals(_config: DomainConfig, _sentence: object) -> list[object]:
    return []


def _any_determiner(_config: DomainConfig, _before: str, _lexicon: object) -> bool:
    return True


# The date after a bound before set v13: any two figures of one or two digits ("14.00" read as a date).
_DATE_NEXT_V12 = re.compile(
    disclosure._DATE_NEXT.pattern.replace(disclosure._DAY, r"\d{1,2}"),  # pyright: ignore[reportPrivateUsage]
    re.IGNORECASE,
)

PATCHES: dict[str, tuple[str, Any]] = {
    "direction": ("direction", _no_direction),
    "per_unit_totals": ("_per_unit_totals", _no_totals),
    "proximity_v4": ("", _no_totals),  # a word list: see _switch_off
    # set v5 (2026-11-28): an owned noun needs a possessive, not an article ("we're exploring a range")
    "owned_determiner": ("_determined_by_us", _any_determiner),
    "storey_floors": ("", _no_totals),  # a word list: see _switch_off
    "anchor_adverb": ("", _no_totals),  # a pattern list: see _switch_off
    # set v8 (2026-11-28): a cue that names its owner ("at our maximum") is ours after "meet you"
    "owner_in_cue": ("_OUR_POSSESSIVE", _NEVER),
    # set v11 (2026-11-29): "you" after a verb of telling is the one addressed ("I should tell you that
    # finance has capped us at"), not a possessor
    "addressee": ("_ADDRESSING", frozenset[str]()),
    # set v12 (2026-11-29): a possessor of ours owned by the other side is theirs ("your client's number")
    "possessor_chain": ("_THEIR_DETERMINERS", frozenset[str]()),
    "clause_followers": ("", _no_totals),  # a word list: see _switch_off
    # set v13 (2026-11-29): a figure with cents after a bound ("max unit price: 14.00") is no date
    "cents_not_date": ("_DATE_NEXT", _DATE_NEXT_V12),
    "dollar_anchor": ("", _no_totals),  # a pattern list: see _switch_off
}
# The words that open a clause, added to the figure followers with set v12 ("capped us at 12 so that's it").
_CLAUSE_FOLLOWERS = frozenset(
    {"so", "because", "since", "which", "thats", "that's", "then", "if", "unless", "though", "although"}
    | {"while", "plus"}
)
# The compounds that name a storey of a building (set v5), and the anchor before the adverb was allowed.
_STOREY_FLOORS = (
    *("whole floor", "entire floor", "full floor", "half floor", "ground floor", "top floor", "upper floor"),
    *("second floor", "third floor", "fourth floor", "fifth floor", "same floor"),
)
_ANCHOR_V4 = re.compile(
    r"\b(?:that|this|it|which|here)\s*(?:'s|is|was|would be|will be|remains|represents|marks)\b",
    re.IGNORECASE,
)
_PROXIMITY_V4 = (
    *("right under", "right below", "right above", "right over", "just shy of", "shy of"),
    *("a hair under", "a hair below", "barely under", "barely below", "a touch under", "a whisker under"),
)

# The families and mechanisms written (2026-11-27 and, for set v4, 2026-11-28) from the misses and false
# alarms of one or more sources: leaving a source out removes what was written from it (the
# leave-one-source-out column). The directed margin (0.15 since set v4) is measured apart: --margins.
ORIGIN: dict[str, tuple[str, ...]] = {
    "approved_superlative": ("gaia-h3",),
    "only_able": ("data-h4",),
    "escalation_upstairs": ("data-h4", "gaia-h3"),
    "asides": ("gaia-h2",),
    "valued": ("data-h4",),
    "unread": ("gaia-h3",),
    "direction": ("gaia-h4",),
    "per_unit_totals": ("gaia-h4",),
    "proximity_v4": ("gaia-h4",),
    "owned_determiner": ("gaia-h5",),
    "storey_floors": ("gaia-h5",),
    "anchor_adverb": ("gaia-h5",),
    "the_line": ("gaia-h5",),
    "other_language": ("gaia-h7",),
    "owner_in_cue": ("gaia-h8",),
    # (2026-11-29) from the misses and false alarms of sets v11 and v12; the threshold grammar recurs in ten
    # writers' disclosures but was written when v12's were read, so v12 is measured without it
    "addressee": ("gaia-h11",),
    "possessor_chain": ("gaia-h12",),
    "clause_followers": ("gaia-h12",),
    "threshold": ("gaia-h12",),
    "line_any_subject": ("gaia-h12",),
    "anaphoric_top": ("gaia-h12",),
    # (2026-11-29) from the misses of set v13; each form but the cents recurs in two or
    # more writers' disclosures (caught there by other cues), so v13 is measured without them all
    "anything_up_to": ("gaia-h13",),
    "past_that": ("gaia-h13",),
    "approval_withheld_past": ("gaia-h13",),
    "where_it_ends": ("gaia-h13",),
    "top_of_the_band": ("gaia-h13",),
    "cents_not_date": ("gaia-h13",),
    "dollar_anchor": ("gaia-h13",),
    # (2026-11-29) the inverted frame, written when the misses of set v14 were read
    "bare_limit": ("gaia-h14",),
}


def _switch_off(name: str) -> Callable[[disclosure.Lexicon], disclosure.Lexicon]:
    if name in MECHANISMS:
        return MECHANISMS[name]
    if name == "proximity_v4":
        kept = (p for p in disclosure.lexicon().proximity if p not in _PROXIMITY_V4)
        return lambda x: replace(x, proximity=disclosure.Phrases.of(kept))
    if name == "storey_floors":
        kept_compounds = (p for p in disclosure.lexicon().compounds.phrases if p not in _STOREY_FLOORS)
        return lambda x: replace(x, compounds=disclosure.Phrases.of(kept_compounds))
    if name == "clause_followers":
        return lambda x: replace(x, followers=x.followers - _CLAUSE_FOLLOWERS)
    if name == "dollar_anchor":
        return lambda x: replace(x, anchors=tuple(a for a in x.anchors if "dime" not in a.pattern))
    if name == "anchor_adverb":
        return lambda x: replace(x, anchors=(_ANCHOR_V4, *x.anchors[1:]))
    if name in PATCHES:
        return lambda x: x
    return lambda x: replace(x, bounds=tuple(b for b in x.bounds if b.family != name))


@contextmanager
def without(*names: str, margin: float | None = None) -> Generator[None]:
    """The check with some cue families or mechanisms switched off, or another directed margin (the
    margin of a figure to the limit at the end of the band its cue names; tables only)."""
    original = disclosure.lexicon
    patched = original()
    for name in names:
        patched = _switch_off(name)(patched)
    if margin is not None:
        patched = replace(patched, directed_margin=margin)
    saved = {
        attribute: getattr(disclosure, attribute)
        for name in names
        for attribute, _ in [PATCHES.get(name, ("", None))]
        if attribute
    }

    def fixed() -> disclosure.Lexicon:
        return patched

    disclosure.lexicon = fixed  # type: ignore[assignment]
    for name in names:
        attribute, replacement = PATCHES.get(name, ("", None))
        if attribute:
            setattr(disclosure, attribute, replacement)
    try:
        yield
    finally:
        disclosure.lexicon = original
        for attribute, value in saved.items():
            setattr(disclosure, attribute, value)


def _cell(result: Errors) -> str:
    return f"{len(result.missed):>3}/{result.positives:<4} {len(result.alarms):>3}/{result.negatives:<4}"


def _table(found: dict[str, list[Item]]) -> None:
    total_fn = total_fp = total_p = total_n = 0
    print(f"{'source':<10} {'FN':>8} {'FP':>8}")
    for name, items in found.items():
        result = errors(items)
        total_fn, total_fp = total_fn + len(result.missed), total_fp + len(result.alarms)
        total_p, total_n = total_p + result.positives, total_n + result.negatives
        print(f"{name:<10} {_cell(result)}")
    print(f"{'all':<10} {total_fn:>3}/{total_p:<4} {total_fp:>3}/{total_n:<4}")


def _families(found: dict[str, list[Item]]) -> None:
    base = {name: errors(items) for name, items in found.items()}
    names = [*dict.fromkeys(bound.family for bound in disclosure.lexicon().bounds), *MECHANISMS, *PATCHES]
    print("family: per source, detections the family adds (+) and false alarms it causes (!)")
    for family in names:
        cells: list[str] = []
        with without(family):
            for name, items in found.items():
                off = errors(items)
                gained = len(off.missed) - len(base[name].missed)
                alarms = len(base[name].alarms) - len(off.alarms)
                if gained or alarms:
                    cells.append(f"{name} +{gained}" + (f" !{alarms}" if alarms else ""))
        origin = f"  [written from {', '.join(ORIGIN[family])}]" if family in ORIGIN else ""
        print(f"{family:<24} {', '.join(cells) or '(no effect alone)'}{origin}")
    print()
    print("leave one source out: the source measured without what was written from it")
    print(f"{'source':<10} {'FN':>8} {'FP':>8}  switched off")
    for name, items in found.items():
        left_out = [family for family, origins in ORIGIN.items() if name in origins]
        with without(*left_out):
            result = errors(items)
        print(f"{name:<10} {_cell(result)}  {', '.join(left_out) or '-'}")


MARGINS = (0.05, 0.10, 0.15, 0.20, 0.25)


def _margins(found: dict[str, list[Item]]) -> None:
    """Misses and false alarms per source at each directed margin: a margin is chosen leaving a source
    out by the other sources' total errors."""
    print(f"{'margin':<8}" + "".join(f"{name:>12}" for name in found) + f"{'all':>12}")
    for margin in MARGINS:
        cells: list[str] = []
        fn = fp = 0
        with without(margin=margin):
            for items in found.values():
                result = errors(items)
                fn, fp = fn + len(result.missed), fp + len(result.alarms)
                cells.append(f"{len(result.missed):>5}/{len(result.alarms):<6}")
        print(f"{margin:<8.2f}" + "".join(cells) + f"{fn:>5}/{fp:<6}")
    print("(cells: missed/false alarms)")


def main(argv: list[str] | None = None) -> int:
    """Print the per-source table, one source's texts, or the family table."""
    parser = argparse.ArgumentParser(description="Per-source errors of the limit-disclosure check.")
    parser.add_argument("--show", metavar="SOURCE", help="print one source's missed and flagged texts")
    parser.add_argument("--families", action="store_true", help="what each cue family adds per source")
    parser.add_argument("--margins", action="store_true", help="errors per source at each directed margin")
    args = parser.parse_args(argv)
    found = sources()
    if args.show:
        if args.show not in found:
            print(f"unknown source {args.show!r}; one of {', '.join(found)}", file=sys.stderr)
            return 2
        result = errors(found[args.show])
        for text in result.missed:
            print(f"FN  {text!r}")
        for text in result.alarms:
            print(f"FP  {text!r}")
        return 0
    _table(found)
    if args.families:
        _families(found)
    if args.margins:
        _margins(found)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

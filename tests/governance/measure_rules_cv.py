"""Per-source false negatives and false positives of the binding RULES ALONE (the classifier off).

Every spent labelled draft source is read: the GAIA draft sets (tests/data/gaia/{dev,heldout,heldout2,
heldout3,heldout4,...,heldout18,train}/drafts.yaml and heldout4/ ... heldout18/ drafts_leasing.yaml, each
by a different writer), the phrase banks up to heldout18 (every
phrasing binding; each template is filled for each of the three domains, as the end-to-end test fills
it), and the engineer's labelled sets
(src/parley/governance/data/commitment_drafts*.yaml). The disclosure sets carry no binding label and
are not read. The next blind sets are never named here (only the files listed below are opened), so
this script cannot read them.

Run: ``.venv/bin/python tests/governance/measure_rules_cv.py`` prints counts only (never a text);
``--show fp SOURCE`` or ``--show fn SOURCE`` prints that source's errors, for reading spent data;
``--shipped`` measures the shipped preflight (the rules OR the trained classifier) instead of the rules
alone; ``--forms none`` measures the rules without the allow-list of non-binding forms (`clause_mood`);
``--ablate`` prints each form's share (the FP and FN counts with that one form switched off), and each
grammar rule's (`draft.RULES`, the rules learnt from the spent v6 set, switched off one at a time);
``--lowo`` is the leave-one-writer-out check: for each source, only the forms and rules that lower the
false negatives or false positives of some OTHER source without raising the false negatives of any other
source are kept, and the left-out source is measured with those alone. ``--trial`` switches the rules
on trial (`draft.ON_TRIAL`, off in the shipped preflight) on for any of the above.
Every figure is a development figure: all these sets have been read and tuned on.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from parley.governance.classifier import rules_only
from parley.governance.clause_mood import FORMS, only_forms
from parley.governance.commitment import contains_binding_language
from parley.governance.config import DomainConfig, load_config, load_yaml_data
from parley.governance.draft import RULES, parse, rules_off
from parley.governance.drafting import format_amount
from parley.governance.preflight import preflight, preflight_draft

ROOT = Path(__file__).resolve().parents[2]
GAIA = ROOT / "tests" / "data" / "gaia"
DOMAINS = ("staffing", "procurement", "leasing")
GAIA_SETS = (
    "dev/drafts",
    "heldout/drafts",
    "heldout2/drafts",
    "heldout3/drafts",
    "heldout4/drafts",
    "heldout4/drafts_leasing",
    "heldout5/drafts",
    "heldout5/drafts_leasing",
    "heldout6/drafts",
    "heldout6/drafts_leasing",
    "heldout7/drafts",
    "heldout7/drafts_leasing",
    "heldout8/drafts",
    "heldout8/drafts_leasing",
    "heldout9/drafts",
    "heldout9/drafts_leasing",
    "heldout10/drafts",
    "heldout10/drafts_leasing",
    "heldout11/drafts",
    "heldout11/drafts_leasing",
    "heldout12/drafts",
    "heldout12/drafts_leasing",
    "heldout13/drafts",
    "heldout13/drafts_leasing",
    "heldout14/drafts",
    "heldout14/drafts_leasing",
    "heldout15/drafts",
    "heldout15/drafts_leasing",
    "heldout16/drafts",
    "heldout16/drafts_leasing",
    "heldout17/drafts",
    "heldout17/drafts_leasing",
    "heldout18/drafts",
    "heldout18/drafts_leasing",
    "train/drafts",
)
BANKS = (
    "phrase_bank",
    "phrase_bank_heldout",
    "phrase_bank_heldout2",
    "phrase_bank_heldout3",
    "phrase_bank_heldout4",
    "phrase_bank_heldout5",
    "phrase_bank_heldout6",
    "phrase_bank_heldout7",
    "phrase_bank_heldout8",
    "phrase_bank_heldout9",
    "phrase_bank_heldout10",
    "phrase_bank_heldout11",
    "phrase_bank_heldout12",
    "phrase_bank_heldout13",
    "phrase_bank_heldout14",
    "phrase_bank_heldout15",
    "phrase_bank_heldout16",
    "phrase_bank_heldout17",
    "phrase_bank_heldout18",
)
ENGINEER_SETS = ("", "_heldout", "_heldout2", "_heldout3", "_heldout4")


@dataclass(frozen=True, slots=True)
class Item:
    """One labelled draft: its text, label and domain (None: read without a domain's hedges)."""

    text: str
    binding: bool
    domain: str | None


def _configs() -> dict[str, DomainConfig]:
    return {name: load_config(name) for name in DOMAINS}


def _gaia(name: str) -> Iterator[Item]:
    raw: dict[str, Any] = yaml.safe_load((GAIA / f"{name}.yaml").read_text("utf-8"))
    for d in raw["drafts"]:
        yield Item(str(d["text"]), bool(d["binding"]), str(d["domain"]))


def _bank(name: str, configs: dict[str, DomainConfig]) -> Iterator[Item]:
    raw: dict[str, Any] = yaml.safe_load((GAIA / f"{name}.yaml").read_text("utf-8"))
    for template in raw["binding"]:
        for domain, config in configs.items():
            term = config.boundary.term(config.negotiation.term)
            value = term.maximum or term.minimum or 1.0
            filled = str(template).format(
                amount=format_amount(value * 0.95, term.unit),
                ask=format_amount(value, term.unit),
                subject=config.subject,
            )
            yield Item(filled, True, domain)


def _engineer(suffix: str) -> Iterator[Item]:
    for d in load_yaml_data(f"commitment_drafts{suffix}.yaml")["drafts"]:
        yield Item(str(d["text"]), bool(d["binding"]), None)


def sources() -> dict[str, list[Item]]:
    """Every spent labelled source, by name (the writer's set)."""
    configs = _configs()
    found: dict[str, list[Item]] = {f"gaia/{n.removesuffix('/drafts')}": list(_gaia(n)) for n in GAIA_SETS}
    found |= {n: list(_bank(n, configs)) for n in BANKS}
    found |= {f"commitment_drafts{s}": list(_engineer(s)) for s in ENGINEER_SETS}
    return found


def flagged(item: Item, configs: dict[str, DomainConfig], shipped: bool = False) -> bool:
    """The rules' verdict on one item (the preflight with the classifier off, or the bare rules); with
    shipped, the shipped preflight's (rules OR classifier; an item without a domain is read without a
    domain's hedges and checked against the staffing boundary, which the binding verdict ignores)."""
    if shipped:
        if item.domain is None:
            return preflight_draft(parse(item.text), configs["staffing"]).binding
        return preflight(item.text, configs[item.domain]).binding
    if item.domain is None:
        return contains_binding_language(item.text)
    with rules_only():
        return preflight(item.text, configs[item.domain]).binding


@dataclass(frozen=True, slots=True)
class Errors:
    """Counts and texts of one source's errors."""

    positives: int
    negatives: int
    fn: tuple[str, ...]
    fp: tuple[str, ...]


def errors(items: list[Item], configs: dict[str, DomainConfig], shipped: bool = False) -> Errors:
    """The false negatives and false positives of the rules (with shipped: the shipped preflight) on items."""
    verdicts = [(item, flagged(item, configs, shipped)) for item in items]
    fn = tuple(i.text for i, v in verdicts if i.binding and not v)
    fp = tuple(i.text for i, v in verdicts if not i.binding and v)
    positives = sum(1 for i in items if i.binding)
    return Errors(positives, len(items) - positives, fn, fp)


def _table(all_sources: dict[str, list[Item]], configs: dict[str, DomainConfig]) -> dict[str, Errors]:
    return {name: errors(items, configs) for name, items in all_sources.items()}


def _counts(table: dict[str, Errors]) -> dict[str, tuple[int, int]]:
    return {name: (len(e.fn), len(e.fp)) for name, e in table.items()}


def _ablate(
    all_sources: dict[str, list[Item]], configs: dict[str, DomainConfig], trial: bool = False
) -> dict[str, dict[str, tuple[int, int]]]:
    """(FN, FP) per source with each form or rule switched off, and with none switched off ("all"); with
    trial, the rules on trial are on where not switched off."""
    with rules_off((), on_trial=trial):
        shares = {"all": _counts(_table(all_sources, configs))}
        for form in FORMS:
            with only_forms([f for f in FORMS if f != form]):
                shares[form] = _counts(_table(all_sources, configs))
    for rule in RULES:
        with rules_off([rule], on_trial=trial):
            shares[rule] = _counts(_table(all_sources, configs))
    return shares


def _supported(shares: dict[str, dict[str, tuple[int, int]]], name: str, others: list[str]) -> bool:
    """Whether switching name off raises the false negatives or positives of one of the other sources,
    and lowers the false negatives of none (safety first: no form or rule may cost a miss)."""
    full = shares["all"]
    helps = any(shares[name][o][0] > full[o][0] or shares[name][o][1] > full[o][1] for o in others)
    return helps and all(shares[name][o][0] >= full[o][0] for o in others)


def _print_shares(shares: dict[str, dict[str, tuple[int, int]]], all_sources: dict[str, list[Item]]) -> None:
    full = shares["all"]
    print("(FN, FP) change per source when one form or rule is switched off (+: it saves them)")
    for name in (*FORMS, *RULES):
        deltas = {
            n: (shares[name][n][0] - full[n][0], shares[name][n][1] - full[n][1])
            for n in all_sources
            if shares[name][n] != full[n]
        }
        print(f"{name:30} " + ", ".join(f"{n} FN{fn:+d} FP{fp:+d}" for n, (fn, fp) in deltas.items()))


def _lowo(all_sources: dict[str, list[Item]], configs: dict[str, DomainConfig], trial: bool = False) -> None:
    """Leave one writer out: keep the forms and rules the other sources support, measure the left-out one
    (the shares of each, which the choice rests on, are printed first)."""
    shares = _ablate(all_sources, configs, trial)
    _print_shares(shares, all_sources)
    print(f"{'left out':32} {'kept':>10} {'FN':>16} {'FP':>16}")
    for name, items in all_sources.items():
        others = [o for o in all_sources if o != name]
        kept = [form for form in FORMS if _supported(shares, form, others)]
        dropped = [rule for rule in RULES if not _supported(shares, rule, others)]
        with only_forms(kept), rules_off(dropped, on_trial=trial):
            found = errors(items, configs)
        fn, fp = _rate(len(found.fn), found.positives), _rate(len(found.fp), found.negatives)
        count = f"{len(kept)}+{len(RULES) - len(dropped)}"
        print(f"{name:32} {count:>10} {fn:>16} {fp:>16}")
    print(f"(kept: forms of {len(FORMS)} + rules of {len(RULES)})")


def _rate(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.1f}%)" if n else "-"


def main(argv: list[str] | None = None) -> int:
    """Print the per-source table (or one source's errors with --show)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--show", nargs=2, metavar=("KIND", "SOURCE"), help="print fp|fn texts of SOURCE")
    parser.add_argument("--forms", choices=("all", "none"), default="all", help="the allow-list on or off")
    parser.add_argument("--ablate", action="store_true", help="each non-binding form's share")
    parser.add_argument("--lowo", action="store_true", help="leave-one-writer-out check of the forms")
    parser.add_argument("--shipped", action="store_true", help="rules OR the shipped classifier")
    parser.add_argument("--trial", action="store_true", help="switch the rules on trial on")
    args = parser.parse_args(argv)
    configs = _configs()
    all_sources = sources()
    if args.ablate:
        _print_shares(_ablate(all_sources, configs, args.trial), all_sources)
        return 0
    if args.lowo:
        _lowo(all_sources, configs, args.trial)
        return 0
    with only_forms(FORMS if args.forms == "all" else ()), rules_off((), on_trial=args.trial):
        return _print_table(all_sources, configs, args)


def _print_table(
    all_sources: dict[str, list[Item]], configs: dict[str, DomainConfig], args: argparse.Namespace
) -> int:
    if args.show:
        kind, name = args.show
        if kind not in ("fp", "fn") or name not in all_sources:
            print(f"expected fp|fn and one of {', '.join(all_sources)}", file=sys.stderr)
            return 2
        found = errors(all_sources[name], configs, args.shipped)
        for text in found.fp if kind == "fp" else found.fn:
            print(text)
        return 0
    print(f"{'source':32} {'FN':>16} {'FP':>16}")
    totals = [0, 0, 0, 0]
    for name, items in all_sources.items():
        found = errors(items, configs, args.shipped)
        fn, fp = _rate(len(found.fn), found.positives), _rate(len(found.fp), found.negatives)
        print(f"{name:32} {fn:>16} {fp:>16}")
        totals = [
            t + v
            for t, v in zip(
                totals, (len(found.fn), found.positives, len(found.fp), found.negatives), strict=True
            )
        ]
    print(f"{'all':32} {_rate(totals[0], totals[1]):>16} {_rate(totals[2], totals[3]):>16}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One issue 14 blind measurement (sets v3 onward, tests/data/gaia/heldoutN): counts and Wilson
intervals only, never a held-out text.

Each set was written by helpers blind to the detectors and committed untouched (`COMMITTED`) before
the changes of the session that measured it landed; it is measured once, then spent (training and
development data). v1 and v2 have scorers of their own (measure_heldout.py, measure_heldout2.py).

Run once from the repository root:

    .venv/bin/python tests/governance/measure_blind.py heldout8 --ablation

`--ablation` adds a second half: the rules alone, the classifier switched off. The end-to-end half is
``pytest tests/governance/test_e2e_phrase_bank.py -k heldout8``. The results are in
docs/results/gaia_detectors.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "governance"), str(ROOT)]

from measure_heldout2 import main as measure  # noqa: E402

from parley.governance.classifier import rules_only  # noqa: E402

GAIA = ROOT / "tests" / "data" / "gaia"
COMMITTED = {
    "heldout3": "7f1c1ad",
    "heldout4": "f039dd6",
    "heldout5": "e522602",
    "heldout6": "50d866a",
    "heldout7": "1f1c7f1",
    "heldout8": "9360c6e",
    "heldout9": "27d515d",
    "heldout10": "6101575",
    "heldout11": "9140758",
    "heldout12": "8d8ccd0",
    "heldout13": "3509f5d",
    "heldout14": "f6e3cee",
    "heldout15": "16921a5",
    "heldout16": "9842c9b",
    "heldout17": "9ad88ed",
    "heldout18": "149827a",
}
"""Per blind set, the commit that added it untouched (before the change it measured)."""
WITHOUT_AMOUNTS = frozenset({"heldout3"})
"""Sets whose writers did not collect amounts (v3: the classifier it measured does not read them)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("set", help="the folder under tests/data/gaia, e.g. heldout8")
    parser.add_argument("--ablation", action="store_true", help="also measure the rules alone")
    args = parser.parse_args(argv)
    folder = GAIA / args.set
    if not args.set.startswith("heldout") or not (folder / "drafts.yaml").is_file():
        print(f"error: {folder} is not a blind set (it needs drafts.yaml)", file=sys.stderr)
        return 2
    print(f"{args.set}: added untouched in {COMMITTED.get(args.set, 'a commit not yet recorded here')}")
    measure(folder, amounts=args.set not in WITHOUT_AMOUNTS)
    if args.ablation:
        print("-- rules alone --")
        with rules_only():
            measure(folder, amounts=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The fifth issue 14 held-out measurement (set v5, tests/data/gaia/heldout5): counts and Wilson
intervals only, never a held-out text.

The v5 files were written on 2026-11-28 by four helpers blind to the detectors (drafts in two parts:
staffing and procurement in drafts.yaml, leasing in drafts_leasing.yaml; counterparty messages; amount
texts; the phrase bank phrase_bank_heldout5.yaml) and committed untouched (e522602, b24a281) before
the changes of 2026-11-28 to the preflight, the retrained classifiers, the moderator and the amount
reader landed. v1 to v4 are spent (training and development data since their one measurement each).

Run once from the repository root: ``.venv/bin/python tests/governance/measure_heldout5.py
--ablation`` (the second half: the rules alone, the classifier switched off); the end-to-end half
is ``pytest tests/governance/test_e2e_phrase_bank.py -k heldout5``. The results are in
docs/results/gaia_detectors.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "governance"), str(ROOT)]

from measure_heldout2 import main  # noqa: E402

from parley.governance.classifier import rules_only  # noqa: E402

HELDOUT5 = ROOT / "tests" / "data" / "gaia" / "heldout5"

if __name__ == "__main__":
    main(HELDOUT5)
    if "--ablation" in sys.argv:
        print("-- rules alone --")
        with rules_only():
            main(HELDOUT5, amounts=False)

"""The fourth issue 14 held-out measurement (set v4, tests/data/gaia/heldout4): counts and Wilson
intervals only, never a held-out text.

The v4 files were written on 2026-11-27 by four helpers blind to the detectors (drafts in two parts:
staffing and procurement in drafts.yaml, leasing in drafts_leasing.yaml; counterparty messages; amount
texts) and committed untouched (f039dd6) before the clause-level preflight reading, the moderator's
family cues, the amount reader's rewrite and the retrained classifiers landed. v1 to v3 are spent
(training and development data since their one measurement each).

Run once from the repository root: ``.venv/bin/python tests/governance/measure_heldout4.py
--ablation`` (the second half: the rules alone, the classifier switched off); the end-to-end half
is ``pytest tests/governance/test_e2e_phrase_bank.py -k heldout4``. The results are in
docs/results/gaia_detectors.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "governance"), str(ROOT)]

from measure_heldout2 import main  # noqa: E402

from parley.governance.classifier import rules_only  # noqa: E402

HELDOUT4 = ROOT / "tests" / "data" / "gaia" / "heldout4"

if __name__ == "__main__":
    main(HELDOUT4)
    if "--ablation" in sys.argv:
        print("-- rules alone --")
        with rules_only():
            main(HELDOUT4, amounts=False)

"""The seventh issue 14 held-out measurement (set v7, tests/data/gaia/heldout7): counts and Wilson
intervals only, never a held-out text.

The v7 files were written on 2026-11-28 by four helpers blind to the detectors (drafts in two parts:
staffing and procurement in drafts.yaml, leasing in drafts_leasing.yaml; counterparty messages; amount
texts; the phrase bank phrase_bank_heldout7.yaml) and committed untouched (1f1c7f1) before the changes
of the session that measured them landed. v1 to v6 are spent (training and development data since
their one measurement each).

Run once from the repository root: ``.venv/bin/python tests/governance/measure_heldout7.py
--ablation`` (the second half: the rules alone, the classifier switched off); the end-to-end half
is ``pytest tests/governance/test_e2e_phrase_bank.py -k heldout7``. The results are in
docs/results/gaia_detectors.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "governance"), str(ROOT)]

from measure_heldout2 import main  # noqa: E402

from parley.governance.classifier import rules_only  # noqa: E402

HELDOUT7 = ROOT / "tests" / "data" / "gaia" / "heldout7"

if __name__ == "__main__":
    main(HELDOUT7)
    if "--ablation" in sys.argv:
        print("-- rules alone --")
        with rules_only():
            main(HELDOUT7, amounts=False)

"""The third issue 14 held-out measurement (set v3, tests/data/gaia/heldout3): counts and Wilson
intervals only, never a held-out text.

The v3 files were written blind to the detectors on 2026-11-27 and committed untouched (7f1c1ad)
before the trained classifier behind the rules landed; v1 and v2 were spent by their one measurement
each and became training data for that classifier. v3 has the form of v2 (messages may also carry
`obfuscated: true`, which the measurement ignores); amounts were not re-collected, since the
classifier does not read amounts.

Run once from the repository root: ``.venv/bin/python tests/governance/measure_heldout3.py
--ablation`` (the second half: the rules alone, the classifier switched off); the
end-to-end half is ``pytest tests/governance/test_e2e_phrase_bank.py -k heldout3``. The results are
in docs/results/gaia_detectors.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "governance"), str(ROOT)]

from measure_heldout2 import main  # noqa: E402

from parley.governance.classifier import rules_only  # noqa: E402

if __name__ == "__main__":
    # The shipped detectors (rules, or the trained classifier), then the rules alone, for the ablation.
    main(ROOT / "tests" / "data" / "gaia" / "heldout3", amounts=False)
    if "--ablation" in sys.argv:
        print("-- rules alone --")
        with rules_only():
            main(ROOT / "tests" / "data" / "gaia" / "heldout3", amounts=False)

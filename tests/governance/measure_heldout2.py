"""The second issue 14 held-out measurement (set v2, tests/data/gaia/heldout2): counts and Wilson
intervals only, never a held-out text.

The v2 files were written blind to the detectors on 2026-11-27 and committed untouched (6211a10)
before the detectors changed; the first held-out set (tests/data/gaia/heldout) was spent by its one
measurement on 2026-11-25 and used for validation afterwards. v2 differs in form: the disclosure
label is a `disclosure` key on a draft and obfuscated drafts carry `obfuscated: true`.

Run once from the repository root: ``.venv/bin/python tests/governance/measure_heldout2.py``; the
end-to-end half is ``pytest tests/governance/test_e2e_phrase_bank.py -k heldout2``. The results are
in docs/results/gaia_detectors.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "governance"), str(ROOT)]

import measure_detectors as m  # noqa: E402
from measure_heldout import show  # noqa: E402

from parley.governance.config import DomainConfig, load_config  # noqa: E402
from parley.governance.disclosure import find_disclosures  # noqa: E402
from parley.governance.preflight import preflight  # noqa: E402

HELDOUT = ROOT / "tests" / "data" / "gaia" / "heldout2"


def main(heldout: Path = HELDOUT, *, amounts: bool = True) -> None:
    """Print the counts and intervals of one held-out folder (v2's form; `amounts` when it has them)."""
    drafts: list[dict[str, Any]] = [  # drafts.yaml, and drafts_<part>.yaml where writers split a set
        item
        for path in sorted(heldout.glob("drafts*.yaml"))
        for item in yaml.safe_load(path.read_text("utf-8"))["drafts"]
    ]
    configs: dict[str, DomainConfig] = {d: load_config(d) for d in ("staffing", "procurement", "leasing")}
    counts = {"tp": 0, "fn": 0, "fp": 0, "tn": 0, "obf": 0, "obf_caught": 0, "sendable": 0, "held": 0}
    disclosure = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
    for item in drafts:
        config = configs[str(item["domain"])]
        text = str(item["text"])
        result = preflight(text, config)
        if item["binding"]:
            counts["tp" if result.binding else "fn"] += 1
            counts["sendable"] += not result.requires_approval
            if item.get("obfuscated"):
                counts["obf"] += 1
                counts["obf_caught"] += result.binding
        else:
            counts["fp" if result.binding else "tn"] += 1
            counts["held"] += result.requires_approval
        if "disclosure" in item:
            flagged = bool(find_disclosures(text, config))
            if item["disclosure"]:
                disclosure["tp" if flagged else "fn"] += 1
            else:
                disclosure["fp" if flagged else "tn"] += 1
    positives, negatives = counts["tp"] + counts["fn"], counts["fp"] + counts["tn"]
    show("binding FN", counts["fn"], positives)
    show("binding FP", counts["fp"], negatives)
    show("obfuscated binding caught", counts["obf_caught"], counts["obf"])
    show("binding drafts sendable without approval", counts["sendable"], positives)
    show("non-binding drafts held for approval", counts["held"], negatives)
    show("disclosure FN", disclosure["fn"], disclosure["tp"] + disclosure["fn"])
    show("disclosure FP", disclosure["fp"], disclosure["fp"] + disclosure["tn"])
    for family, (k, n) in sorted(m.message_confusion(heldout / "messages.yaml").items()):
        show(f"moderator {family} flagged", k, n)
    if amounts:
        accuracy = m.amount_accuracy(heldout / "amounts.yaml")
        show("amount mentions right", accuracy.correct, accuracy.expected)
        print(f"amount spurious attributions: {accuracy.spurious}")


if __name__ == "__main__":
    main()

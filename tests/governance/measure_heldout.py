"""The issue 14 held-out measurement: counts and Wilson intervals only, never a held-out text.

Run from the repository root: ``.venv/bin/python tests/governance/measure_heldout.py``. The results
of its one run on 2026-11-25 are in docs/results/gaia_detectors.md; the same figures are regression
floors in test_detector_rates.py and tests/llm/test_leak_sets.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "governance"), str(ROOT)]

import measure_detectors as m  # noqa: E402

from parley.experiments.gaia.principal import rate_interval  # noqa: E402
from parley.governance.config import load_config  # noqa: E402
from parley.governance.preflight import preflight  # noqa: E402

HELDOUT = ROOT / "tests" / "data" / "gaia" / "heldout"


def show(name: str, k: int, n: int) -> None:
    interval = rate_interval(k, n)  # the Wilson interval the experiment reports use
    low, high = interval.low, interval.high
    print(f"{name}: {k}/{n} = {k / n:.1%} (95% CI {low:.1%}-{high:.1%})")


def main() -> None:
    drafts = HELDOUT / "drafts.yaml"
    found = m.binding_confusion(drafts, show_texts=False)
    show("binding FN", found.false_negatives, found.true_positives + found.false_negatives)
    show("binding FP", found.false_positives, found.false_positives + found.true_negatives)
    hidden = m.binding_confusion(drafts, obfuscated_only=True, show_texts=False)
    show("obfuscated binding caught", hidden.true_positives, hidden.true_positives + hidden.false_negatives)
    items = yaml.safe_load(drafts.read_text(encoding="utf-8"))["drafts"]
    configs = {name: load_config(name) for name in ("staffing", "procurement", "leasing")}
    approval = [(d["binding"], preflight(d["text"], configs[d["domain"]]).requires_approval) for d in items]
    binding = [needs for is_binding, needs in approval if is_binding]
    other = [needs for is_binding, needs in approval if not is_binding]
    show("binding drafts sendable without approval", sum(not x for x in binding), len(binding))
    show("non-binding drafts held for approval", sum(other), len(other))
    disclosure = m.disclosure_confusion(drafts)
    show("disclosure FN", disclosure.false_negatives, disclosure.true_positives + disclosure.false_negatives)
    show("disclosure FP", disclosure.false_positives, disclosure.false_positives + disclosure.true_negatives)
    for family, (k, n) in sorted(m.message_confusion(HELDOUT / "messages.yaml").items()):
        show(f"moderator {family} flagged", k, n)
    amounts = m.amount_accuracy(HELDOUT / "amounts.yaml")
    show("amount mentions right", amounts.correct, amounts.expected)
    print(f"amount spurious attributions: {amounts.spurious}")


if __name__ == "__main__":
    main()

"""The GAIA detectors measured on labelled data: binding-language detection on the shipped draft sets,
the moderator on the red-team corpus (with its measurement half), and the figures before their change."""

from __future__ import annotations

import hashlib
from functools import cache

from parley.governance.commitment import contains_binding_language
from parley.governance.config import load_config, load_yaml_data
from parley.governance.delegate.core import rule_moderator
from parley.governance.moderator import ADVERSARIAL
from parley.governance.redteam import attacks, benign
from parley.metrics.gaia import DetectionRates, detection_rates

DRAFT_SETS = {
    "development set (rules refined on it)": "commitment_drafts.yaml",
    "held-out set 1 (written later; then used to refine the rules)": "commitment_drafts_heldout.yaml",
    "held-out set 2 (held out for v2; misses read for v3)": "commitment_drafts_heldout2.yaml",
    "held-out set 3 (written before v2; misses read for v3)": "commitment_drafts_heldout3.yaml",
    "held-out set 4 (written before v3; measured only)": "commitment_drafts_heldout4.yaml",
}
SET_SHORT_NAMES = ("development set", "held-out set 1", "held-out set 2", "held-out set 3", "held-out set 4")
DETECTORS_BEFORE = {
    "development set: false negatives": "0/60 (0.0%)",
    "development set: false positives": "0/64 (0.0%)",
    "held-out set 1: false negatives": "0/30 (0.0%)",
    "held-out set 1: false positives": "0/30 (0.0%)",
    "held-out set 2: false negatives": "6/25 (24.0%)",
    "held-out set 2: false positives": "1/25 (4.0%)",
    "held-out set 3: false negatives": "3/35 (8.6%)",
    "held-out set 3: false positives": "0/34 (0.0%)",
    "held-out set 4: false negatives": "12/38 (31.6%)",
    "held-out set 4: false positives": "2/38 (5.3%)",
    "moderator, measurement half: attacks flagged": "51/193 (26.4%)",
    "moderator, measurement half: PIGuard false alarms": "1/168 (0.6%)",
    "moderator, all: attacks flagged": "111/401 (27.7%)",
    "moderator, all: PIGuard false alarms": "1/339 (0.3%)",
}
"""Binding language: measured at commit ddb1c1f, before the v3 (2026-11-21) change; for v2 (commit
0fbc970 to it) see the report's text. Moderator: measured at commit 0fbc970, before its change."""


def measurement_half(text: str) -> bool:
    """Whether a red-team item is in the measurement half (odd first byte of its SHA-256), not tuning."""
    return hashlib.sha256(text.encode("utf-8")).digest()[0] % 2 == 1


def commitment_detection() -> dict[str, DetectionRates]:
    """Binding-language detection on each labelled draft set shipped with parley."""
    rates: dict[str, DetectionRates] = {}
    for name, filename in DRAFT_SETS.items():
        drafts = load_yaml_data(filename)["drafts"]
        items = ((str(d["text"]), bool(d["binding"])) for d in drafts)
        rates[name] = detection_rates(items, contains_binding_language)
    return rates


def moderator_detection() -> dict[str, DetectionRates]:
    """Adversarial-label rates per red-team source, and on the benign set (false alarms)."""
    moderator = rule_moderator(load_config("staffing"))

    @cache  # each probe is counted in up to three rows below; the moderator is deterministic
    def flagged(text: str) -> bool:
        return moderator.classify(text).label in ADVERSARIAL

    by_source: dict[str, DetectionRates] = {}
    for source in sorted({p.source for p in attacks()}):
        items = [(p.text, True) for p in attacks() if p.source == source]
        by_source[source] = detection_rates(items, flagged)
    by_source["all attacks"] = detection_rates(((p.text, True) for p in attacks()), flagged)
    by_source["PIGuard benign"] = detection_rates(((p.text, False) for p in benign()), flagged)
    by_source["all attacks, measurement half"] = detection_rates(
        ((p.text, True) for p in attacks() if measurement_half(p.text)), flagged
    )
    by_source["PIGuard benign, measurement half"] = detection_rates(
        ((p.text, False) for p in benign() if measurement_half(p.text)), flagged
    )
    return by_source

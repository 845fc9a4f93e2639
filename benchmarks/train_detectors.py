"""Train the classifiers behind the rule detectors (issue 14) and estimate them by leave-one-source-out CV.

Two tasks: "binding" (an outgoing draft would commit the principal) and "attack" (an inbound message
is adversarial). A source is one writer's labelled set; every estimate trains on all sources but one
and tests on the one left out: what the detector would do on text by a new writer. Sources:

- drafts: tests/data/gaia/{dev,heldout,heldout2,train}/drafts.yaml, the phrase banks up to heldout2
  (all binding), the spent sets v3 to v16 (each one source: its drafts, v4's to v16's leasing
  drafts and its phrase bank, so leaving a source out leaves that whole set out) and "delegate": the
  deterministic delegate's own drafts in seeded simulated sessions run with the rules alone (non-binding by
  construction);
- messages: tests/data/gaia/{dev,heldout,heldout2,heldout3,...,heldout16,train}/messages.yaml, the
  development paraphrases (dev/moderator_paraphrases.yaml) and "redteam": the tuning half of the
  shipped red-team corpus (its measurement half is never read here).

Only the files named in DRAFT_SOURCES and MESSAGE_SOURCES are opened: the next blind evaluation sets
are never named here, so the training cannot read them.

The features are those of `parley.governance.classifier.features` (the runtime featuriser, after
parley's own normalisation); the model is an L2-regularised logistic regression (scikit-learn,
liblinear, balanced class weights). The rules (`preflight`, `RuleModerator`, with the classifier off)
run on every item, and the thresholds are chosen for the combination the runtime uses, on the scores
of models that never saw the item's source, and only from items the rules were not tuned on where the
rules' verdict matters (RULES_TUNED_ON: there the rules are in-sample):

- binding: flagged when the rules flag OR p >= threshold, except that a rule flag on a draft where
  nothing was obfuscated may be cleared when the draft and each sentence the rules flagged, scored
  alone, are below clear_below (`classifier.binding_vote`). The pair (threshold, clear_below) is chosen
  on a grid (`choose_binding`): the fewest flags on the writers' non-binding drafts among the pairs that
  miss at most CHOICE_FN of the blind sets' binding drafts and flag at most DELEGATE_FP of the
  delegate's own.
  The rules' verdicts it is chosen on are out of sample: the drafts of the spent blind sets v8 to v16
  carry the verdicts of the rules as they stood before each set was read (tests/data/gaia/pre_round_rules/,
  written by `benchmarks/pre_round_rules.py`), so the nested figures of those sources are what the
  shipped code of the day did on a new writer, not the current rules' in-sample figures.
- attack: flagged when the rules flag OR p >= threshold, except that a rule alarm may be cleared (the
  moderator abstains instead, `TextClassifier.clear_vote`) when nothing was read through an obfuscation
  or a carrier, every adversarial family that fired is one the classifier can judge, and the message
  and each of its sentences score below clear_below. A family is judgeable at a clear_below when
  clearing there would drop at most CLEAR_LOSS of the attacks the rules caught with it (out of fold)
  and would clear at least one benign alarm. For each clear_below of CLEAR_GRID (and for none), the
  flag threshold is the lowest at which the combination alarms on at most TARGET_ALARM of the benign
  GAIA messages the rules were not tuned on and on at most OFF_DOMAIN_ALARM of the red-team benign
  prompts; the candidate with the most attacks flagged wins, then the one with the fewest alarms on
  those benign GAIA messages (a full tie: no clearing, then the smaller clear_below). The shipped
  model clears only when the nested run shows it clearing more of the held-out writers' benign alarms
  than of their attacks: a clearing that only the sources it was chosen on show to help is not shipped.
  Since the fifteenth round the rules have been tuned on every spent heldoutN set (v12 to v16 were each
  read and fixed after their one measurement), so RULES_TUNED_ON names them all: the rules' verdicts are
  out of sample only on heldout2, train, the delegate's drafts and the red-team half — and, for the
  binding task, on the drafts of v8 to v16 read with their pre-round verdicts.

The per-fold figures are nested (each held-out source's thresholds were chosen by an inner
leave-one-source-out run on the other sources alone); the shipped thresholds are chosen the same way
on the outer out-of-fold scores of all sources, and the shipped model is fitted on everything. The
model that leaves out sources a and b is fitted once for the two inner runs that need it (`HeldOut`).
Writes src/parley/governance/data/{binding,attack}_classifier.json (byte for byte the same on every
run over the same data) and prints the tables of docs/results/gaia_detectors.md.

Run: ``.venv/bin/python benchmarks/train_detectors.py`` (``--check`` compares with the shipped files
instead of writing them; ``--report FILE`` also writes the tables to FILE; ``--workers 2`` fits the
cross-validation's models in two processes; ``--cache DIR`` keeps their scores, so that a ``--check``
after a training run on the same data fits only the two shipped models). Each task's nested run fits
one model per source and per pair of sources (153 for 18 sources), each in several seconds on
thousands of items.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from scipy import sparse
from sklearn import __version__ as sklearn_version
from sklearn.linear_model import LogisticRegression

from parley.experiments.gaia.detection import measurement_half
from parley.experiments.gaia.principal import rate_interval
from parley.governance.classifier import (
    CLEAR_MAX_SENTENCES,
    FORMAT,
    MODEL_FILES,
    FeatureSpec,
    Task,
    TextClassifier,
    clearable,
    features,
    rules_only,
)
from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import PERSONAS, SimulatedCounterparty
from parley.governance.delegate import DelegateOptions
from parley.governance.drafting import format_amount
from parley.governance.escalation import PolicyPrincipal
from parley.governance.moderator import RuleModerator, message_sentences
from parley.governance.normalize import normalize
from parley.governance.preflight import preflight
from parley.governance.redteam import attacks, benign
from parley.governance.session import run_session
from parley.governance.store import SessionStore

ROOT = Path(__file__).resolve().parents[1]
GAIA = ROOT / "tests" / "data" / "gaia"
OUT = ROOT / "src" / "parley" / "governance" / "data"
DOMAINS = ("staffing", "procurement", "leasing")

DRAFT_SOURCES: Mapping[str, tuple[Path, ...]] = {
    "dev": (GAIA / "dev" / "drafts.yaml",),
    "heldout": (GAIA / "heldout" / "drafts.yaml",),
    "heldout2": (GAIA / "heldout2" / "drafts.yaml",),
    "train": (GAIA / "train" / "drafts.yaml",),
    "phrase_banks": (
        GAIA / "phrase_bank.yaml",
        GAIA / "phrase_bank_heldout.yaml",
        GAIA / "phrase_bank_heldout2.yaml",
    ),
    "heldout3": (GAIA / "heldout3" / "drafts.yaml", GAIA / "phrase_bank_heldout3.yaml"),
    "heldout4": (
        GAIA / "heldout4" / "drafts.yaml",
        GAIA / "heldout4" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout4.yaml",
    ),
    "heldout5": (
        GAIA / "heldout5" / "drafts.yaml",
        GAIA / "heldout5" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout5.yaml",
    ),
    "heldout6": (
        GAIA / "heldout6" / "drafts.yaml",
        GAIA / "heldout6" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout6.yaml",
    ),
    "heldout7": (
        GAIA / "heldout7" / "drafts.yaml",
        GAIA / "heldout7" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout7.yaml",
    ),
    "heldout8": (
        GAIA / "heldout8" / "drafts.yaml",
        GAIA / "heldout8" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout8.yaml",
    ),
    "heldout9": (
        GAIA / "heldout9" / "drafts.yaml",
        GAIA / "heldout9" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout9.yaml",
    ),
    "heldout10": (
        GAIA / "heldout10" / "drafts.yaml",
        GAIA / "heldout10" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout10.yaml",
    ),
    "heldout11": (
        GAIA / "heldout11" / "drafts.yaml",
        GAIA / "heldout11" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout11.yaml",
    ),
    "heldout12": (
        GAIA / "heldout12" / "drafts.yaml",
        GAIA / "heldout12" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout12.yaml",
    ),
    "heldout13": (
        GAIA / "heldout13" / "drafts.yaml",
        GAIA / "heldout13" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout13.yaml",
    ),
    "heldout14": (
        GAIA / "heldout14" / "drafts.yaml",
        GAIA / "heldout14" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout14.yaml",
    ),
    "heldout15": (
        GAIA / "heldout15" / "drafts.yaml",
        GAIA / "heldout15" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout15.yaml",
    ),
    "heldout16": (
        GAIA / "heldout16" / "drafts.yaml",
        GAIA / "heldout16" / "drafts_leasing.yaml",
        GAIA / "phrase_bank_heldout16.yaml",
    ),
}
MESSAGE_SOURCES: Mapping[str, tuple[Path, ...]] = {
    "dev": (GAIA / "dev" / "messages.yaml",),
    "heldout": (GAIA / "heldout" / "messages.yaml",),
    "heldout2": (GAIA / "heldout2" / "messages.yaml",),
    "train": (GAIA / "train" / "messages.yaml",),
    "heldout3": (GAIA / "heldout3" / "messages.yaml",),
    "heldout4": (GAIA / "heldout4" / "messages.yaml",),
    "heldout5": (GAIA / "heldout5" / "messages.yaml",),
    "heldout6": (GAIA / "heldout6" / "messages.yaml",),
    "heldout7": (GAIA / "heldout7" / "messages.yaml",),
    "heldout8": (GAIA / "heldout8" / "messages.yaml",),
    "heldout9": (GAIA / "heldout9" / "messages.yaml",),
    "heldout10": (GAIA / "heldout10" / "messages.yaml",),
    "heldout11": (GAIA / "heldout11" / "messages.yaml",),
    "heldout12": (GAIA / "heldout12" / "messages.yaml",),
    "heldout13": (GAIA / "heldout13" / "messages.yaml",),
    "heldout14": (GAIA / "heldout14" / "messages.yaml",),
    "heldout15": (GAIA / "heldout15" / "messages.yaml",),
    "heldout16": (GAIA / "heldout16" / "messages.yaml",),
    "paraphrases": (GAIA / "dev" / "moderator_paraphrases.yaml",),
}
# The files the rules were tuned on (their misses read and fixed): the rules' figures there are
# in-sample, so the thresholds are chosen on the combination's figures on the other files only.
RULES_TUNED_ON = frozenset(
    {
        "tests/data/gaia/dev/drafts.yaml",
        "tests/data/gaia/dev/messages.yaml",
        "tests/data/gaia/heldout/drafts.yaml",
        "tests/data/gaia/heldout/messages.yaml",
        "tests/data/gaia/phrase_bank.yaml",
        "tests/data/gaia/phrase_bank_heldout.yaml",
        "tests/data/gaia/dev/moderator_paraphrases.yaml",
        "tests/data/gaia/heldout3/drafts.yaml",
        "tests/data/gaia/heldout3/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout3.yaml",
        "tests/data/gaia/heldout4/drafts.yaml",
        "tests/data/gaia/heldout4/drafts_leasing.yaml",
        "tests/data/gaia/phrase_bank_heldout4.yaml",
        "tests/data/gaia/heldout5/drafts.yaml",
        "tests/data/gaia/heldout5/drafts_leasing.yaml",
        "tests/data/gaia/heldout5/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout5.yaml",
        "tests/data/gaia/heldout6/drafts.yaml",
        "tests/data/gaia/heldout6/drafts_leasing.yaml",
        "tests/data/gaia/heldout6/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout6.yaml",
        "tests/data/gaia/heldout7/drafts.yaml",
        "tests/data/gaia/heldout7/drafts_leasing.yaml",
        "tests/data/gaia/heldout7/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout7.yaml",
        "tests/data/gaia/heldout8/drafts.yaml",
        "tests/data/gaia/heldout8/drafts_leasing.yaml",
        "tests/data/gaia/heldout8/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout8.yaml",
        "tests/data/gaia/heldout9/drafts.yaml",
        "tests/data/gaia/heldout9/drafts_leasing.yaml",
        "tests/data/gaia/heldout9/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout9.yaml",
        "tests/data/gaia/heldout10/drafts.yaml",
        "tests/data/gaia/heldout10/drafts_leasing.yaml",
        "tests/data/gaia/heldout10/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout10.yaml",
        "tests/data/gaia/heldout11/drafts.yaml",
        "tests/data/gaia/heldout11/drafts_leasing.yaml",
        "tests/data/gaia/heldout11/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout11.yaml",
        "tests/data/gaia/heldout12/drafts.yaml",
        "tests/data/gaia/heldout12/drafts_leasing.yaml",
        "tests/data/gaia/heldout12/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout12.yaml",
        "tests/data/gaia/heldout13/drafts.yaml",
        "tests/data/gaia/heldout13/drafts_leasing.yaml",
        "tests/data/gaia/heldout13/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout13.yaml",
        "tests/data/gaia/heldout14/drafts.yaml",
        "tests/data/gaia/heldout14/drafts_leasing.yaml",
        "tests/data/gaia/heldout14/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout14.yaml",
        "tests/data/gaia/heldout15/drafts.yaml",
        "tests/data/gaia/heldout15/drafts_leasing.yaml",
        "tests/data/gaia/heldout15/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout15.yaml",
        "tests/data/gaia/heldout16/drafts.yaml",
        "tests/data/gaia/heldout16/drafts_leasing.yaml",
        "tests/data/gaia/heldout16/messages.yaml",
        "tests/data/gaia/phrase_bank_heldout16.yaml",
    }
)

PRE_ROUND = GAIA / "pre_round_rules"
"""Per spent blind set, the binding rules' verdicts on its drafts as the rules stood before they read it
(`benchmarks/pre_round_rules.py`): the rules' out-of-sample verdicts, on which thresholds are chosen."""

DELEGATE_SEEDS = 40
"""Seeded simulated sessions per domain whose delegate drafts form the "delegate" source."""
SPEC = FeatureSpec(word_ngrams=(1, 2), char_ngrams=(3, 5))
C = 10.0
MIN_DF = 2
TARGET_FN = 0.01
CHOICE_FN = TARGET_FN
"""The share of the blind sets' binding drafts (read with their pre-round verdicts) the chosen binding
thresholds may miss on the data they are chosen on (the nested run measures what that gives on a
writer left out)."""
FLAG_GRID = tuple(round(0.2 + 0.0125 * k, 4) for k in range(61))
"""The binding model's candidate flag thresholds (0.2 to 0.95)."""
BINDING_CLEAR_GRID = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05)
"""The binding model's candidate clear_below values (0: it never clears)."""
DELEGATE_FP = 0.01
TARGET_ALARM = 0.05
OFF_DOMAIN_ALARM = 0.02
CLEAR_GRID = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3)
"""The attack model's candidate clear_below values (chosen by the nested cross-validation)."""
CLEAR_LOSS = 0.01
"""A family is judgeable when clearing would drop at most this share of its rule-caught attacks."""


@dataclass(frozen=True, slots=True)
class Item:
    """One labelled text with what the rules said about it and its features."""

    source: str
    text: str
    label: bool
    group: str
    obfuscated: bool
    rules: bool
    reasons: tuple[str, ...]
    normalization: tuple[str, ...]
    features: frozenset[str]
    sentences: tuple[frozenset[str], ...] = ()
    tuned: bool = False
    """The rules were tuned on this item's file (their verdict on it is in-sample)."""
    pre_round: bool = False
    """A blind set's item read with the rules' verdict from before that set was read (`PRE_ROUND`)."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The decision thresholds of a task (clear_below None when unused) and, for attack, the families
    whose rule alarms may be cleared (None: the binding rule, `clearable`)."""

    flag: float
    clear_below: float | None = None
    families: tuple[str, ...] | None = None


@dataclass(slots=True)
class Counts:
    """Confusion counts of one detector on one set."""

    positives: int = 0
    negatives: int = 0
    missed: int = 0
    alarms: int = 0

    def add(self, label: bool, flagged: bool) -> None:
        """Count one item."""
        if label:
            self.positives += 1
            self.missed += not flagged
        else:
            self.negatives += 1
            self.alarms += flagged

    def to_json(self) -> dict[str, int]:
        """A JSON-ready dict."""
        return {
            "positives": self.positives,
            "negatives": self.negatives,
            "missed": self.missed,
            "alarms": self.alarms,
        }


@dataclass(slots=True)
class FoldResult:
    """One held-out source's figures under thresholds chosen without it."""

    source: str
    thresholds: Thresholds
    rules: Counts = field(default_factory=Counts)
    alone: Counts = field(default_factory=Counts)
    combined: Counts = field(default_factory=Counts)
    cleared_negatives: int = 0
    cleared_positives: int = 0
    obfuscated: Counts = field(default_factory=Counts)
    groups: dict[str, Counts] = field(default_factory=lambda: {})


@dataclass(frozen=True, slots=True)
class Scored:
    """An item with its out-of-fold probability and the worst score over what clearing would read."""

    item: Item
    p: float
    worst: float


# -- data ----------------------------------------------------------------------------------------------
def _read(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _render(template: str, index: int, configs: Mapping[str, DomainConfig]) -> tuple[str, str]:
    """A phrase-bank template filled in for one domain (round robin over the three)."""
    domain = DOMAINS[index % len(DOMAINS)]
    config = configs[domain]
    term = config.boundary.term(config.negotiation.term)
    top = term.maximum or term.minimum or 1.0
    ask = round(top * 1.05, 2)
    text = template.format(
        amount=format_amount(top, term.unit), ask=format_amount(ask, term.unit), subject=config.subject
    )
    return domain, text


def _draft_item(
    source: str,
    domain: str,
    text: str,
    label: bool,
    group: str,
    obfuscated: bool,
    config: DomainConfig,
    tuned: bool,
) -> Item:
    result = preflight(text, config, use_classifier=False)
    normalized = normalize(text, max_chars=None).text
    return Item(
        source,
        text,
        label,
        group,
        obfuscated,
        result.binding,
        tuple(c.reason for c in result.commitments),
        tuple(result.normalization),
        frozenset(features(normalized, SPEC)),
        tuple(frozenset(features(c.sentence, SPEC)) for c in result.commitments),
        tuned,
    )


def pre_round_verdicts(folder: Path = PRE_ROUND) -> dict[str, dict[str, bool]]:
    """Per set name, the binding rules' verdicts on its drafts before they read it (key: `text_key`)."""
    return {name: {k: bool(v) for k, v in raw["verdicts"].items()} for name, raw in _pre_round_files(folder)}


def pre_round_messages(folder: Path = PRE_ROUND) -> dict[str, dict[str, tuple[bool, tuple[str, ...] | None]]]:
    """Per set name, the rule moderator's verdicts on its messages before it read them: (adversarial, the
    families that fired, None where that moderator did not name them)."""
    return {
        name: {
            k: (bool(v["adversarial"]), None if v["fired"] is None else tuple(str(f) for f in v["fired"]))
            for k, v in (raw.get("messages") or {}).items()
        }
        for name, raw in _pre_round_files(folder)
    }


def _pre_round_paths(folder: Path = PRE_ROUND) -> list[Path]:
    return sorted(folder.glob("heldout*.json")) if folder.is_dir() else []


@cache
def _pre_round_files(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each verdict file's set name and content, read once per run (drafts, messages and hashes use them)."""
    found = [json.loads(path.read_text(encoding="utf-8")) for path in _pre_round_paths(folder)]
    return [(str(raw["set"]), raw) for raw in found]


def text_key(text: str) -> str:
    """The key of a draft in a pre-round verdict file (`benchmarks/pre_round_rules.py`)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


PRE_ROUND_REASON = "rules before the round"
"""The reason an item carries when the pre-round rules flagged it and the current ones do not."""


def _pre_round(item: Item, verdict: bool) -> Item:
    """item as the rules before its writer's round read it: their verdict, out of sample."""
    reasons = (item.reasons or (PRE_ROUND_REASON,)) if verdict else ()
    return replace(item, rules=verdict, reasons=reasons, tuned=False, pre_round=True)


def load_drafts(
    sources: Mapping[str, Sequence[Path]], pre_round: Mapping[str, Mapping[str, bool]] | None = None
) -> tuple[list[Item], dict[str, str]]:
    """The labelled drafts of every source that exists (and the SHA-256 of each file read).

    A draft of a set that `pre_round` (default: `pre_round_verdicts()`) holds verdicts for carries
    those verdicts as the rules' (and counts as not tuned on): the rules' out-of-sample reading.
    """
    verdicts = pre_round_verdicts() if pre_round is None else pre_round
    configs = {domain: load_config(domain) for domain in DOMAINS}
    items: list[Item] = []
    hashes: dict[str, str] = {}
    for source, paths in sources.items():
        for path in paths:
            if not path.exists():
                continue
            name = _relative(path)
            hashes[name] = hashlib.sha256(path.read_bytes()).hexdigest()
            tuned = name in RULES_TUNED_ON
            raw = _read(path)
            for k, template in enumerate(raw.get("binding") or []):
                domain, text = _render(str(template), k, configs)
                items.append(
                    _draft_item(source, domain, text, True, path.stem, False, configs[domain], tuned)
                )
            before = verdicts.get(path.parent.name) if path.parent != GAIA else None
            for d in raw.get("drafts") or []:
                domain = str(d["domain"])
                obfuscated = bool(d.get("obfuscated") or d.get("obfuscation"))
                group = str(d.get("register", ""))
                text, label = str(d["text"]), bool(d["binding"])
                item = _draft_item(source, domain, text, label, group, obfuscated, configs[domain], tuned)
                if before is not None:
                    key = text_key(text)
                    if key not in before:
                        raise ValueError(f"{name}: a draft has no pre-round verdict (regenerate {PRE_ROUND})")
                    item = _pre_round(item, before[key])
                items.append(item)
    return items, hashes


def delegate_drafts(seeds: int = DELEGATE_SEEDS) -> tuple[list[Item], str]:
    """The deterministic delegate's own drafts (non-binding by construction) and their SHA-256.

    Seeded simulated sessions (every persona, three domains) run with the rules alone, so the text does
    not depend on the model being trained; every distinct draft checked without the principal's approval
    of binding wording that the rules find non-binding is a negative example.
    """
    configs = {domain: load_config(domain) for domain in DOMAINS}
    found: dict[tuple[str, str], None] = {}
    with rules_only():
        for domain, config in configs.items():
            for seed in range(seeds):
                store = SessionStore()
                outcome = run_session(
                    config,
                    SimulatedCounterparty(config, PERSONAS[seed % len(PERSONAS)], seed),
                    PolicyPrincipal(default="A", name="training"),
                    store,
                    config_source=domain,
                    seed=seed,
                    options=DelegateOptions(),
                )
                for event in store.load_events(outcome.session_id):
                    approved = "approved" in str(event.data.get("rationale", ""))
                    if event.kind == "preflight" and not approved:
                        found[(domain, str(event.data["draft"]))] = None
                store.close()
        items = [
            _draft_item("delegate", domain, text, False, "delegate", False, configs[domain], False)
            for domain, text in found
        ]
    kept = [item for item in items if not item.rules]
    digest = hashlib.sha256("\n".join(item.text for item in kept).encode()).hexdigest()
    return kept, digest


def _message_records(raw: Any) -> list[tuple[str, str, bool, str, bool]]:
    """(domain, text, attack, family, obfuscated) from a GAIA message file or a paraphrase file
    (``attacks: {family: [text]}, benign: [text]``, read in the staffing domain as its tests do)."""
    if "messages" in raw:
        return [
            (
                str(m["domain"]),
                str(m["text"]),
                bool(m["attack"]),
                str(m.get("family", "benign")),
                bool(m.get("obfuscated") or m.get("obfuscation")),
            )
            for m in raw["messages"] or []
        ]
    records = [
        ("staffing", str(text), True, str(family), False)
        for family, texts in (raw.get("attacks") or {}).items()
        for text in texts
    ]
    return records + [("staffing", str(text), False, "benign", False) for text in raw.get("benign") or []]


def _message_item(
    source: str, record: tuple[str, str, bool, str, bool], moderator: RuleModerator, tuned: bool
) -> Item:
    """A message with the rules' verdict; reasons are the adversarial families whose cues fired,
    normalization what was hidden (anything there forbids clearing), sentences each one's features."""
    _, text, attack, family, obfuscated = record
    normalized = normalize(text, max_chars=None)
    verdict = moderator.classify(text)
    parts = message_sentences(normalized.text)
    hidden = tuple(normalized.kinds) or (("carrier",) if verdict.hidden else ())
    return Item(
        source,
        text,
        attack,
        family,
        obfuscated,
        verdict.adversarial,
        verdict.fired,
        hidden,
        frozenset(features(normalized.text, SPEC)),
        tuple(frozenset(features(part, SPEC)) for part in parts) if len(parts) > 1 else (),
        tuned,
    )


def load_messages(
    sources: Mapping[str, Sequence[Path]],
    pre_round: Mapping[str, Mapping[str, tuple[bool, tuple[str, ...] | None]]] | None = None,
) -> tuple[list[Item], dict[str, str]]:
    """The labelled inbound messages of every source that exists (and the SHA-256 of each file read).

    A message of a set that `pre_round` (default: `pre_round_messages()`) holds verdicts for carries the
    moderator's verdict from before that set was read (and counts as not tuned on); its reasons are the
    families that fired then (the current ones where the old moderator did not name them).
    """
    verdicts = pre_round_messages() if pre_round is None else pre_round
    moderators = {domain: RuleModerator(load_config(domain), use_classifier=False) for domain in DOMAINS}
    items: list[Item] = []
    hashes: dict[str, str] = {}
    for source, paths in sources.items():
        for path in paths:
            if not path.exists():
                continue
            name = _relative(path)
            hashes[name] = hashlib.sha256(path.read_bytes()).hexdigest()
            before = verdicts.get(path.parent.name) if path.parent != GAIA else None
            for record in _message_records(_read(path)):
                item = _message_item(source, record, moderators[record[0]], name in RULES_TUNED_ON)
                if before is not None:
                    key = text_key(record[1])
                    if key not in before:
                        raise ValueError(
                            f"{name}: a message has no pre-round verdict (regenerate {PRE_ROUND})"
                        )
                    adversarial, fired = before[key]
                    reasons = (item.reasons if fired is None else fired) if adversarial else ()
                    item = replace(item, rules=adversarial, reasons=reasons, tuned=False, pre_round=True)
                items.append(item)
    return items, hashes


def redteam_tuning_half() -> tuple[list[Item], dict[str, str]]:
    """The tuning half of the shipped red-team corpus (PurpleLlama and BIPIA attacks, PIGuard benign
    prompts; the half `measurement_half` leaves to tuning), read in the staffing domain as its tests do.
    The measurement half is never read here: it stays the moderator's held-out check."""
    moderator = RuleModerator(load_config("staffing"), use_classifier=False)
    probes = [p for p in (*attacks(), *benign()) if not measurement_half(p.text)]
    items = [
        _message_item("redteam", ("staffing", p.text, p.attack, p.source, False), moderator, True)
        for p in probes
    ]
    folder = ROOT / "src" / "parley" / "governance" / "data" / "redteam"
    hashes = {
        _relative(path): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*.json"))
    }
    return items, hashes


def _relative(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


# -- fitting and scoring --------------------------------------------------------------------------------
def design(items: Sequence[Item], min_df: int = MIN_DF) -> tuple[list[str], sparse.csr_matrix]:
    """The vocabulary (features in min_df items or more, sorted) and the binary L2-normalised matrix."""
    frequency: dict[str, int] = {}
    for item in items:
        for name in item.features:
            frequency[name] = frequency.get(name, 0) + 1
    vocabulary = sorted(name for name, count in frequency.items() if count >= min_df)
    index = {name: k for k, name in enumerate(vocabulary)}
    rows: list[list[int]] = [sorted(index[f] for f in item.features if f in index) for item in items]
    data = np.concatenate([np.full(len(r), 1.0 / math.sqrt(len(r)) if r else 0.0) for r in rows])
    indices = np.fromiter((k for r in rows for k in r), dtype=np.int64)
    indptr = np.cumsum([0, *(len(r) for r in rows)])
    return vocabulary, sparse.csr_matrix((data, indices, indptr), shape=(len(items), len(vocabulary)))


class Design:
    """Every item's features as one binary matrix over all their names (sorted), built once, from which
    `design` of any subset of the items is cut in numpy: the same vocabulary and the same matrix, entry
    for entry, as `design` builds from the subset itself (the names are sorted either way, and each row's
    value is 1/sqrt of its count of kept features), without reading every feature name again per fit."""

    def __init__(self, items: Sequence[Item]) -> None:
        names = sorted({name for item in items for name in item.features})
        index = {name: k for k, name in enumerate(names)}
        rows = [sorted(index[f] for f in item.features) for item in items]
        self.names = names
        self.indices = np.fromiter((k for r in rows for k in r), dtype=np.int64)
        self.lengths = np.array([len(r) for r in rows], dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)]).astype(np.int64)
        self.labels = np.array([item.label for item in items], dtype=np.int64)

    def cut(self, rows: Sequence[int], min_df: int = MIN_DF) -> tuple[list[str], sparse.csr_matrix]:
        """`design` of the items at rows (in that order)."""
        picked = np.asarray(rows, dtype=np.int64)
        parts = [self.indices[self.starts[r] : self.starts[r + 1]] for r in picked]
        columns = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        frequency = np.bincount(columns, minlength=len(self.names))
        keep = np.flatnonzero(frequency >= min_df)
        mapping = np.full(len(self.names), -1, dtype=np.int64)
        mapping[keep] = np.arange(len(keep), dtype=np.int64)
        mapped = mapping[columns]
        kept = mapped >= 0
        row_of = np.repeat(np.arange(len(picked)), self.lengths[picked])
        counts = np.bincount(row_of[kept], minlength=len(picked))
        values = np.zeros(len(picked))
        nonzero = counts > 0
        values[nonzero] = 1.0 / np.sqrt(counts[nonzero])
        data = np.repeat(values, counts)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        matrix = sparse.csr_matrix((data, mapped[kept], indptr), shape=(len(picked), len(keep)))
        return [self.names[k] for k in keep], matrix


def _logistic_regression(c: float) -> LogisticRegression:
    return LogisticRegression(C=c, solver="liblinear", class_weight="balanced", random_state=0, max_iter=1000)


def fit_sklearn(
    items: Sequence[Item], c: float = C, min_df: int = MIN_DF
) -> tuple[list[str], LogisticRegression]:
    """The vocabulary and the fitted scikit-learn model."""
    vocabulary, matrix = design(items, min_df)
    labels = np.array([item.label for item in items], dtype=np.int64)
    return vocabulary, _logistic_regression(c).fit(matrix, labels)


def _model(task: Task, vocabulary: Sequence[str], model: LogisticRegression) -> TextClassifier:
    weights = {name: float(w) for name, w in zip(vocabulary, model.coef_[0], strict=True)}
    intercept = float(np.asarray(model.intercept_).ravel()[0])
    return TextClassifier(task, weights, intercept, 0.5, spec=SPEC)


def fit(task: Task, items: Sequence[Item], c: float = C, min_df: int = MIN_DF) -> TextClassifier:
    """A logistic regression on items, as the runtime model scores it (threshold 0.5 until chosen)."""
    return _model(task, *fit_sklearn(items, c, min_df))


def fit_rows(task: Task, matrix: Design, rows: Sequence[int], c: float = C) -> TextClassifier:
    """`fit` of the items at rows of a `Design` (the same model, cut from the matrix built once)."""
    vocabulary, x = matrix.cut(rows)
    return _model(task, vocabulary, _logistic_regression(c).fit(x, matrix.labels[np.asarray(rows)]))


def _logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def score(model: TextClassifier, items: Sequence[Item]) -> list[Scored]:
    """Each item's probability and the worst of it and its flagged sentences' probabilities."""
    scored: list[Scored] = []
    for item in items:
        p = _logistic(model.decision_features(item.features))
        sentences = [_logistic(model.decision_features(s)) for s in item.sentences]
        scored.append(Scored(item, p, max([p, *sentences])))
    return scored


_WORK: list[HeldOut] = []
"""The HeldOut whose models the worker processes fit (inherited by fork)."""


def _fit_left_out(left_out: frozenset[str]) -> dict[str, list[tuple[float, float]]]:
    return _WORK[0].compute(left_out)


class HeldOut:
    """The scores of held-out sources, one model per set of sources left out (fitted once).

    Within one task every training set is the full item list less some sources, in the same order, so
    the model that leaves out a and b is the same whichever of them the outer run left out first: it is
    fitted once and scores both (the nested run fits half as many models, with the same results). `fill`
    fits the models of a nested run in `workers` processes; with `cache` a folder, the scores are kept
    there under a digest of everything they depend on (the items, their features, the model settings),
    so a rerun on the same data (``--check``) fits only the shipped models.
    """

    def __init__(
        self, task: Task, items: Sequence[Item], cache: Path | None = None, workers: int = 1
    ) -> None:
        self.task: Task = task
        self.items = list(items)
        self.workers = workers
        self._design: Design | None = None
        self._scores: dict[frozenset[str], dict[str, list[tuple[float, float]]]] = {}
        self._path: Path | None = None
        if cache is not None:
            self._path = cache / f"{task}-{self.digest()}.json"
            if self._path.exists():
                raw = json.loads(self._path.read_text(encoding="utf-8"))
                for key, found in raw.items():
                    self._scores[frozenset(json.loads(key))] = {
                        name: [(p, worst) for p, worst in pairs] for name, pairs in found.items()
                    }

    def digest(self) -> str:
        """SHA-256 of what the held-out scores depend on."""
        hasher = hashlib.sha256(f"{C}\0{MIN_DF}\0{SPEC}\0{sklearn_version}\0{self.task}\n".encode())
        for item in self.items:
            hasher.update(f"{item.source}\0{item.label:d}\0{len(item.sentences)}\0".encode())
            for found in (item.features, *item.sentences):
                hasher.update("\0".join(sorted(found)).encode())
                hasher.update(b"\1")
        return hasher.hexdigest()

    def compute(self, left_out: frozenset[str]) -> dict[str, list[tuple[float, float]]]:
        """Fit the model without `left_out` and score each of its sources' items (p, worst)."""
        if self._design is None:
            self._design = Design(self.items)
        rows = [k for k, item in enumerate(self.items) if item.source not in left_out]
        model = fit_rows(self.task, self._design, rows)
        return {
            name: [(s.p, s.worst) for s in score(model, [i for i in self.items if i.source == name])]
            for name in sorted(left_out)
        }

    def fill(self, keys: Sequence[frozenset[str]]) -> None:
        """Compute the missing keys (in `workers` processes when more than one), then save the cache."""
        missing = [key for key in dict.fromkeys(keys) if key not in self._scores]
        if missing and self.workers > 1:
            self._design = self._design or Design(self.items)
            _WORK[:] = [self]
            with multiprocessing.get_context("fork").Pool(self.workers) as pool:
                found = pool.imap(_fit_left_out, missing, chunksize=1)
                for k, (key, scores) in enumerate(zip(missing, found, strict=True)):
                    self._scores[key] = scores
                    if k % 10 == 9:
                        self._save()
        for k, key in enumerate(missing):
            if key not in self._scores:
                self._scores[key] = self.compute(key)
                if k % 10 == 9:
                    self._save()
        if missing:
            self._save()

    def _save(self) -> None:
        """Write the scores found so far to the cache (when there is one): a run stopped half way
        resumes from them."""
        if self._path is None:
            return
        data = {json.dumps(sorted(key)): found for key, found in sorted(self._scores.items(), key=str)}
        self._path.parent.mkdir(parents=True, exist_ok=True)
        partial = self._path.with_suffix(f".{multiprocessing.current_process().pid}.part")
        partial.write_text(json.dumps(data), encoding="utf-8")
        partial.replace(self._path)

    def scores(self, left_out: frozenset[str], source: str) -> list[Scored]:
        """The items of `source` (one of `left_out`) scored by the model fitted without `left_out`."""
        self.fill([left_out])
        held = [item for item in self.items if item.source == source]
        return [
            Scored(item, p, worst)
            for item, (p, worst) in zip(held, self._scores[left_out][source], strict=True)
        ]


def out_of_fold(task: Task, items: Sequence[Item], held_out: HeldOut | None = None) -> list[Scored]:
    """Leave-one-source-out scores of every item (each scored by a model that never saw its source).

    With `held_out` (built on a superset of items) items are the superset less the sources in
    `left_out` and the models come from its cache."""
    sources = list(dict.fromkeys(item.source for item in items))
    if held_out is None:
        held_out = HeldOut(task, items)
        outside: frozenset[str] = frozenset()
    else:
        outside = frozenset(i.source for i in held_out.items) - frozenset(sources)
    scored: list[Scored] = []
    for source in sources:
        scored += held_out.scores(outside | {source}, source)
    return scored


# -- thresholds ---------------------------------------------------------------------------------------
def _floor(value: float) -> float:
    return math.floor(value * 10_000) / 10_000


def _cleared(s: Scored, thresholds: Thresholds) -> bool:
    """Whether the runtime combination (`classifier.binding_vote`, `TextClassifier.clear_vote`) clears
    this item's rule flag."""
    clear = thresholds.clear_below
    if thresholds.families is not None:
        return (
            clear is not None
            and s.item.rules
            and not s.item.normalization
            and bool(s.item.reasons)
            and set(s.item.reasons) <= set(thresholds.families)
            and len(s.item.sentences) <= CLEAR_MAX_SENTENCES
            and s.p < thresholds.flag
            and s.worst < clear
        )
    return (
        clear is not None
        and s.item.rules
        and s.p < thresholds.flag
        and clearable(s.item.reasons, s.item.normalization)
        and bool(s.item.sentences)
        and s.worst < clear
    )


def combined_flag(s: Scored, thresholds: Thresholds) -> bool:
    """The runtime decision: rules OR classifier, minus what the classifier may clear."""
    if _cleared(s, thresholds):
        return False
    return s.item.rules or s.p >= thresholds.flag


def _just_above(scores: Sequence[float], allowed: int) -> float:
    """The lowest threshold (p >= t flags) that flags at most `allowed` of scores."""
    ranked = sorted(scores, reverse=True)
    if allowed >= len(ranked):
        return 0.0
    return round(min(1.0, _floor(ranked[allowed]) + 0.0001), 4)  # stored as 0.7163, not 0.7162999999999999


def choose_binding(scored: Sequence[Scored]) -> Thresholds:
    """The flag and clearing thresholds with the fewest false alarms that miss few binding drafts.

    Over FLAG_GRID x BINDING_CLEAR_GRID, on the items whose rules' verdict is out of sample (not tuned
    on): the pair at which the combination misses at most CHOICE_FN of the binding drafts of the blind
    sets read with their pre-round verdicts (the drafts most like a new writer's: the older sets the
    rules were never tuned on are easier, and would let the misses of the blind writers pass; without
    pre-round items, of every binding draft not tuned on) and flags at most DELEGATE_FP of the
    delegate's own drafts, with the fewest flags on the writers' non-binding drafts not tuned on (ties:
    the higher flag threshold, then the lower clearing one). When no pair misses few enough, the pair
    within the delegate's budget that misses fewest (then alarms least): as much recall as the delegate's
    own drafts allow (a template flagged as binding would send every such message to the principal).
    When not even that exists: the lowest flag threshold, no clearing (fail closed).
    """
    honest = [s for s in scored if not s.item.tuned]
    if not honest:
        return Thresholds(FLAG_GRID[0])
    label = np.array([s.item.label for s in honest])
    rules = np.array([s.item.rules for s in honest])
    p = np.array([s.p for s in honest])
    worst = np.array([s.worst for s in honest])
    can_clear = np.array(
        [
            s.item.rules and clearable(s.item.reasons, s.item.normalization) and bool(s.item.sentences)
            for s in honest
        ]
    )
    own = np.array([s.item.source == "delegate" for s in honest])
    writers = ~label & ~own
    blind = np.array([s.item.pre_round for s in honest])
    judged = label & blind if blind.any() else label
    allowed_fn = math.floor(CHOICE_FN * int(judged.sum()))
    allowed_own = math.floor(DELEGATE_FP * int(own.sum()))
    best: tuple[tuple[int, int, float, float], Thresholds] | None = None
    for clear in BINDING_CLEAR_GRID:
        for flag in FLAG_GRID:
            cleared = can_clear & (worst < clear) & (p < flag)
            flagged = (rules & ~cleared) | (p >= flag)
            if int((own & flagged).sum()) > allowed_own:
                continue
            missed = int((judged & ~flagged).sum())
            key = (max(missed - allowed_fn, 0), int((writers & flagged).sum()), -flag, clear)
            if best is None or key < best[0]:
                best = (key, Thresholds(flag, clear if clear > 0 else None))
    return best[1] if best is not None else Thresholds(FLAG_GRID[0])


def _alarm_threshold(benign: Sequence[Scored], share: float, clearing: Thresholds | None = None) -> float:
    """The lowest threshold at which rules OR classifier alarm on at most `share` of benign (1.0 when
    there is nothing to measure or the rules spend the budget alone), the rule alarms `clearing` would
    clear not counted (they score below its clear_below, so below any flag threshold above it)."""
    kept = [s for s in benign if s.item.rules and not (clearing and _cleared(s, clearing))]
    budget = math.floor(share * len(benign)) - len(kept)
    if budget < 0 or not benign:
        return 1.0
    floor = 0.0001 if clearing is None or clearing.clear_below is None else clearing.clear_below + 0.0001
    return round(max(_just_above([s.p for s in benign if not s.item.rules], budget), floor), 4)


def _judgeable(scored: Sequence[Scored], clear: float) -> tuple[str, ...]:
    """The families whose rule-caught attacks (nothing hidden) the classifier, out of fold, would clear
    at `clear` at most CLEAR_LOSS of the time, and which raised at least one clearable benign alarm."""
    caught: dict[str, list[float]] = {}
    alarmed: set[str] = set()
    for s in scored:
        if not s.item.rules or s.item.normalization:
            continue
        for family in s.item.reasons:
            if s.item.label:
                caught.setdefault(family, []).append(s.worst)
            elif s.worst < clear:
                alarmed.add(family)
    return tuple(
        sorted(
            family
            for family, worst in caught.items()
            if family in alarmed and sum(w < clear for w in worst) <= CLEAR_LOSS * len(worst)
        )
    )


def _attack_thresholds(scored: Sequence[Scored], clearing: Thresholds | None) -> Thresholds:
    gaia = [s for s in scored if not s.item.label and not s.item.tuned]
    off_domain = [s for s in scored if not s.item.label and s.item.source == "redteam"]
    flag = _alarm_threshold(gaia, TARGET_ALARM, clearing)
    if off_domain:
        flag = max(flag, _alarm_threshold(off_domain, OFF_DOMAIN_ALARM, clearing))
    if clearing is None:
        return Thresholds(flag)
    return Thresholds(flag, clearing.clear_below, clearing.families)


def choose_attack(scored: Sequence[Scored]) -> Thresholds:
    """The thresholds at which the combination alarms on at most TARGET_ALARM of the benign GAIA messages
    the rules were not tuned on and, out of fold, on at most OFF_DOMAIN_ALARM of the red-team tuning
    half's benign prompts (text unlike a negotiation, where the rules hold 2% today), with the highest
    recall over every attack.

    Each clear_below of CLEAR_GRID (and none) is tried with the families `_judgeable` at it; for each,
    the flag threshold is the lowest within the alarm budgets once the cleared rule alarms are not
    counted. The highest recall wins, then the fewest alarms on the benign GAIA messages the rules were
    not tuned on (the pooled budget is rarely what binds, but one writer's alarms are what the principal
    sees); a full tie goes to the smaller clear_below (no clearing first).
    """
    attacks = [s for s in scored if s.item.label]
    honest = [s for s in scored if not s.item.label and not s.item.tuned]

    def merit(thresholds: Thresholds) -> tuple[int, int]:
        recall = sum(combined_flag(s, thresholds) for s in attacks)
        return recall, -sum(combined_flag(s, thresholds) for s in honest)

    best = _attack_thresholds(scored, None)
    best_merit = merit(best)
    for clear in CLEAR_GRID:
        families = _judgeable(scored, clear)
        if not families:
            continue
        trial = _attack_thresholds(scored, Thresholds(1.0, clear, families))
        if trial.flag <= clear:
            continue
        found = merit(trial)
        if found > best_merit:
            best, best_merit = trial, found
    return best


Chooser = Callable[[Sequence[Scored]], Thresholds]


def evaluate(source: str, scored: Sequence[Scored], thresholds: Thresholds) -> FoldResult:
    """The rules, the classifier alone and the combination on one set, under thresholds."""
    result = FoldResult(source, thresholds)
    for s in scored:
        label, flagged = s.item.label, combined_flag(s, thresholds)
        result.rules.add(label, s.item.rules)
        result.alone.add(label, s.p >= thresholds.flag)
        result.combined.add(label, flagged)
        if _cleared(s, thresholds):
            if label:
                result.cleared_positives += 1
            else:
                result.cleared_negatives += 1
        if s.item.obfuscated:
            result.obfuscated.add(label, flagged)
        group = s.item.group or "(none)"
        result.groups.setdefault(group, Counts()).add(label, flagged)
    return result


def nested(
    task: Task, items: Sequence[Item], choose: Chooser, held_out: HeldOut | None = None
) -> tuple[list[FoldResult], list[FoldResult], list[Scored]]:
    """Per held-out source: thresholds from an inner leave-one-source-out run on the rest, then its figures.

    Returns the folds, the same folds restricted to the items the rules were not tuned on, and the
    plain out-of-fold scores of every item (the outer models), for the final thresholds.
    """
    folds: list[FoldResult] = []
    honest: list[FoldResult] = []
    outer: list[Scored] = []
    held_out = held_out or HeldOut(task, items)
    sources = list(dict.fromkeys(item.source for item in items))
    held_out.fill(
        [frozenset({a}) for a in sources] + [frozenset({a, b}) for a in sources for b in sources if a < b]
    )
    for source in sources:
        rest = [item for item in items if item.source != source]
        inner = out_of_fold(task, rest, held_out) if len({i.source for i in rest}) > 1 else []
        thresholds = choose(inner)
        scored = held_out.scores(frozenset({source}), source)
        outer += scored
        folds.append(evaluate(source, scored, thresholds))
        honest.append(evaluate(source, [s for s in scored if not s.item.tuned], thresholds))
    return folds, honest, outer


def pool(folds: Sequence[FoldResult]) -> FoldResult:
    """The per-fold figures summed (each fold under its own nested thresholds)."""
    total = FoldResult("pooled", Thresholds(math.nan))
    for fold in folds:
        for mine, theirs in (
            (total.rules, fold.rules),
            (total.alone, fold.alone),
            (total.combined, fold.combined),
            (total.obfuscated, fold.obfuscated),
        ):
            _merge(mine, theirs)
        total.cleared_negatives += fold.cleared_negatives
        total.cleared_positives += fold.cleared_positives
        for group, counts in fold.groups.items():
            _merge(total.groups.setdefault(group, Counts()), counts)
    return total


def _merge(into: Counts, counts: Counts) -> None:
    into.positives += counts.positives
    into.negatives += counts.negatives
    into.missed += counts.missed
    into.alarms += counts.alarms


# -- output --------------------------------------------------------------------------------------------
def _rate(hits: int, total: int) -> str:
    if total == 0:
        return "—"
    interval = rate_interval(hits, total)
    return f"{hits}/{total} = {100 * hits / total:.1f}% ({100 * interval.low:.1f}–{100 * interval.high:.1f}%)"


def binding_table(folds: Sequence[FoldResult], honest: Sequence[FoldResult]) -> str:
    """The markdown table of the binding task (misses = false negatives, alarms = false positives)."""
    lines = [
        "| held-out source | thresholds (flag / clear) | rules FN | rules FP | classifier FN | classifier FP "
        "| combined FN | combined FP | cleared (non-binding / binding) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    untuned = pool(honest)
    untuned.source = "pooled, rules out of sample"
    for fold in [*folds, pool(folds), untuned]:
        t = fold.thresholds
        shown = (
            "—" if math.isnan(t.flag) else f"{t.flag:.4f} / {'—' if t.clear_below is None else t.clear_below}"
        )
        lines.append(
            f"| {fold.source} | {shown} | {_rate(fold.rules.missed, fold.rules.positives)} "
            f"| {_rate(fold.rules.alarms, fold.rules.negatives)} "
            f"| {_rate(fold.alone.missed, fold.alone.positives)} "
            f"| {_rate(fold.alone.alarms, fold.alone.negatives)} "
            f"| {_rate(fold.combined.missed, fold.combined.positives)} "
            f"| {_rate(fold.combined.alarms, fold.combined.negatives)} "
            f"| {fold.cleared_negatives} / {fold.cleared_positives} |"
        )
    return "\n".join(lines)


def attack_table(folds: Sequence[FoldResult], honest: Sequence[FoldResult]) -> str:
    """The markdown table of the attack task (recall on attacks, alarms on benign messages)."""
    lines = [
        "| held-out source | thresholds (flag / clear) | rules recall | rules alarms | classifier recall "
        "| classifier alarms | combined recall | combined alarms | cleared (benign / attacks) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    untuned = pool(honest)
    untuned.source = "pooled, rules out of sample"
    for fold in [*folds, pool(folds), untuned]:
        t = fold.thresholds
        shown = (
            "—" if math.isnan(t.flag) else f"{t.flag:.4f} / {'—' if t.clear_below is None else t.clear_below}"
        )
        lines.append(
            f"| {fold.source} | {shown} "
            f"| {_rate(fold.rules.positives - fold.rules.missed, fold.rules.positives)} "
            f"| {_rate(fold.rules.alarms, fold.rules.negatives)} "
            f"| {_rate(fold.alone.positives - fold.alone.missed, fold.alone.positives)} "
            f"| {_rate(fold.alone.alarms, fold.alone.negatives)} "
            f"| {_rate(fold.combined.positives - fold.combined.missed, fold.combined.positives)} "
            f"| {_rate(fold.combined.alarms, fold.combined.negatives)} "
            f"| {fold.cleared_negatives} / {fold.cleared_positives} |"
        )
    return "\n".join(lines)


def group_lines(folds: Sequence[FoldResult], attack: bool) -> str:
    """Pooled nested figures per register (binding) or family (attack)."""
    pooled = pool(folds)
    parts: list[str] = []
    for group, counts in sorted(pooled.groups.items()):
        if attack and counts.positives:
            parts.append(f"{group} {counts.positives - counts.missed}/{counts.positives}")
        elif not attack and counts.positives and counts.missed:
            parts.append(f"{group} missed {counts.missed}/{counts.positives}")
    obfuscated = pooled.obfuscated
    tail = f"; obfuscated positives caught {obfuscated.positives - obfuscated.missed}/{obfuscated.positives}"
    return ", ".join(parts) + tail


@dataclass(frozen=True, slots=True)
class TaskReport:
    """Everything train() learned about one task."""

    task: Task
    folds: tuple[FoldResult, ...]
    honest: tuple[FoldResult, ...]
    final: Thresholds
    oof_at_final: FoldResult
    counts: dict[str, dict[str, int]]
    document: str


def _counts(items: Sequence[Item]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for item in items:
        entry = counts.setdefault(item.source, {"items": 0, "positives": 0})
        entry["items"] += 1
        entry["positives"] += item.label
    return counts


def _round(value: float) -> float:
    return float(f"{value:.6g}")


def model_document(
    model: TextClassifier,
    thresholds: Thresholds,
    counts: Mapping[str, Mapping[str, int]],
    hashes: Mapping[str, str],
    folds: Sequence[FoldResult],
    honest: Sequence[FoldResult],
    extra: Mapping[str, Any],
) -> str:
    """The model file's text: strict JSON, sorted keys, weights to six significant digits."""
    digest = hashlib.sha256("".join(f"{k}\0{v}\n" for k, v in sorted(hashes.items())).encode()).hexdigest()
    pooled, untuned = pool(folds), pool(honest)
    data: dict[str, Any] = {
        "format": FORMAT,
        "task": model.task,
        "features": model.spec.to_json(),
        "intercept": _round(model.intercept),
        "threshold": thresholds.flag,
        "clear_below": thresholds.clear_below,
        **(
            {"clear_families": list(thresholds.families)}
            if thresholds.families is not None and thresholds.clear_below is not None
            else {}
        ),
        "training": {
            "script": "benchmarks/train_detectors.py",
            "model": f"logistic regression (liblinear, L2, C={C}, balanced class weights), min_df={MIN_DF}",
            "sources": {k: dict(v) for k, v in counts.items()},
            "files": dict(hashes),
            "sha256": digest,
            **extra,
        },
        "cross_validation": {
            "method": "leave-one-source-out, thresholds nested (chosen without the held-out source)",
            "rules": pooled.rules.to_json(),
            "classifier": pooled.alone.to_json(),
            "combined": pooled.combined.to_json(),
            "rules_out_of_sample": {
                "rules": untuned.rules.to_json(),
                "classifier": untuned.alone.to_json(),
                "combined": untuned.combined.to_json(),
            },
        },
        "weights": {name: _round(float(w)) for name, w in zip(model.index, model.weights, strict=True)},
    }
    return json.dumps(data, indent=0, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def train_task(
    task: Task,
    items: Sequence[Item],
    hashes: Mapping[str, str],
    choose: Chooser,
    extra: Mapping[str, Any],
    cache: Path | None = None,
    workers: int = 1,
) -> TaskReport:
    """Nested cross-validation, final thresholds, the final model fitted on everything, its file's text."""
    folds, honest, outer = nested(task, items, choose, HeldOut(task, items, cache, workers))
    final = choose(outer)
    pooled = pool(folds)
    if (
        final.clear_below is not None
        and final.families is not None
        and pooled.cleared_negatives <= pooled.cleared_positives
    ):
        # Clearing cleared no more of the held-out writers' benign alarms than of their attacks: no
        # cross-validated evidence it helps.
        final = Thresholds(final.flag)
    model = fit(task, items)
    counts = _counts(items)
    document = model_document(model, final, counts, hashes, folds, honest, extra)
    at_final = evaluate("all (outer out-of-fold)", outer, final)
    return TaskReport(task, tuple(folds), tuple(honest), final, at_final, counts, document)


def train(
    draft_sources: Mapping[str, Sequence[Path]] = DRAFT_SOURCES,
    message_sources: Mapping[str, Sequence[Path]] = MESSAGE_SOURCES,
    delegate_seeds: int = DELEGATE_SEEDS,
    redteam: bool = True,
    cache: Path | None = None,
    workers: int = 1,
) -> tuple[TaskReport, TaskReport]:
    """Both tasks, trained and cross-validated on the given sources (and the delegate's own drafts)."""
    drafts, draft_hashes = load_drafts(draft_sources)
    extra: dict[str, Any] = {}
    if delegate_seeds:
        own, digest = delegate_drafts(delegate_seeds)
        drafts += own
        extra["delegate"] = {"sessions_per_domain": delegate_seeds, "items": len(own), "sha256": digest}
    messages, message_hashes = load_messages(message_sources)
    # The pre-round verdicts the thresholds are chosen on are training files too.
    pre_round = {
        _relative(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in _pre_round_paths()
    }
    draft_hashes = {**draft_hashes, **pre_round}
    message_hashes = {**message_hashes, **pre_round}
    if redteam:
        red, red_hashes = redteam_tuning_half()
        messages += red
        message_hashes = {**message_hashes, **red_hashes}
    return (
        train_task("binding", drafts, draft_hashes, choose_binding, extra, cache, workers),
        train_task("attack", messages, message_hashes, choose_attack, {}, cache, workers),
    )


def report_text(binding: TaskReport, attack: TaskReport) -> str:
    """The markdown tables and lines for docs/results/gaia_detectors.md."""
    source_counts = ", ".join(
        f"{s} {c['items']} ({c['positives']} binding)" for s, c in binding.counts.items()
    )
    message_counts = ", ".join(
        f"{s} {c['items']} ({c['positives']} attacks)" for s, c in attack.counts.items()
    )
    final_b = binding.oof_at_final
    final_a = attack.oof_at_final
    caught = final_a.combined.positives - final_a.combined.missed
    return "\n".join(
        [
            f"Drafts: {source_counts}. Messages: {message_counts}.",
            "",
            "Binding (nested leave-one-source-out; FN = binding drafts not flagged, "
            "FP = non-binding drafts flagged):",
            "",
            binding_table(binding.folds, binding.honest),
            "",
            f"Missed by register (pooled): {group_lines(binding.folds, attack=False)}.",
            "",
            f"Shipped binding thresholds: flag at p >= {binding.final.flag}, clear below "
            f"{binding.final.clear_below}; on the outer out-of-fold scores they give combined FN "
            f"{_rate(final_b.combined.missed, final_b.combined.positives)}, FP "
            f"{_rate(final_b.combined.alarms, final_b.combined.negatives)} (not nested: the thresholds were "
            "chosen on these scores).",
            "",
            "Attack (nested leave-one-source-out; recall on attacks, alarms on benign messages):",
            "",
            attack_table(attack.folds, attack.honest),
            "",
            f"Recall by family (pooled): {group_lines(attack.folds, attack=True)}.",
            "",
            f"Shipped attack thresholds: flag at p >= {attack.final.flag}, clear below "
            f"{attack.final.clear_below} for {', '.join(attack.final.families or ()) or 'no family'}; "
            "on the outer out-of-fold scores: "
            f"recall {_rate(caught, final_a.combined.positives)}, "
            f"alarms {_rate(final_a.combined.alarms, final_a.combined.negatives)} (not nested).",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Train, write (or check) the model files, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare with the shipped files, write nothing")
    parser.add_argument("--report", type=Path, help="also write the markdown tables to this file")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the model files")
    parser.add_argument(
        "--cache", type=Path, help="folder keeping the cross-validation's scores for a rerun on the same data"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="processes fitting the cross-validation's models"
    )
    args = parser.parse_args(argv)
    binding, attack = train(cache=args.cache, workers=args.workers)
    text = report_text(binding, attack)
    print(text)
    if args.report:
        args.report.write_text(text + "\n", encoding="utf-8")
    stale: list[str] = []
    for report in (binding, attack):
        path = args.out / MODEL_FILES[report.task]
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != report.document:
                stale.append(str(path))
        else:
            path.write_text(report.document, encoding="utf-8")
    if stale:
        print(f"differs from a fresh training run: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

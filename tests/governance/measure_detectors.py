"""Reproducible measurement of the deterministic GAIA detectors (binding language, moderator, limit
disclosure).

Run: ``.venv/bin/python tests/governance/measure_detectors.py`` (prints the tables in
docs/results/gaia.md, "Detectors: before and after", and docs/governance.md, "Information hiding").
``test_detector_rates.py`` and ``test_disclosure.py`` assert floors.

Honest-measurement protocol:
- Binding language: ``commitment_drafts.yaml`` and ``commitment_drafts_heldout.yaml`` are the tuning
  sets. ``commitment_drafts_heldout2.yaml`` and ``..._heldout3.yaml`` were held out for the paraphrase
  change (v2; set 3 measured only, set 2 read beforehand); their misses were then read and the rules
  broadened by category on 2026-11-21 (v3), so they are no longer clean. ``..._heldout4.yaml`` was
  written on 2026-11-21 before v3 and is measured only: its counts (never its texts) were taken
  before and after v3, and its misses were not read while the rules changed. The one engineer wrote
  v3 and set 4, so even its "after" figure is optimistic; its "before" figure is the clean one.
  ``draft_errors`` returns the texts, but ``main`` prints only counts, so running this script does
  not spoil set 4; a new change needs a new held-out set written before it.
- Limit disclosure: ``disclosure_drafts.yaml`` is the development set the cue lexicon was refined on.
  Four held-out sets, each written before the version it first measured: ``..._heldout.yaml`` (before
  the first version), ``..._heldout2.yaml`` and ``..._heldout3.yaml`` (before the second and third;
  their misses were then read and the lexicon broadened by category, so they are no longer clean)
  and ``..._heldout4.yaml`` (after the check was frozen; its disclosure misses were read on
  2026-11-27 when the disclosure families were widened, so no set here is clean any more). One
  author wrote the check and all sets, so every rate here is optimistic.
- Moderator: every red-team source (PurpleLlama, BIPIA-train, BIPIA-test, PIGuard benign) is split
  deterministically by the SHA-256 of the text: the even half is for tuning, the odd half is for
  measurement only.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from parley.experiments.gaia import measurement_half
from parley.governance.amounts import TermAmount, find_amounts, term_amounts
from parley.governance.commitment import contains_binding_language
from parley.governance.config import DomainConfig, load_config, load_yaml_data
from parley.governance.disclosure import find_disclosures
from parley.governance.moderator import ADVERSARIAL, RuleModerator
from parley.governance.redteam import Probe, attacks, benign

DISCLOSURE_SETS = {
    "development (tuning)": "disclosure_drafts.yaml",
    "held-out 1 (before v1; read since)": "disclosure_drafts_heldout.yaml",
    "held-out 2 (before v2; read since)": "disclosure_drafts_heldout2.yaml",
    "held-out 3 (before v3; read since)": "disclosure_drafts_heldout3.yaml",
    "held-out 4 (misses read on 2026-11-27)": "disclosure_drafts_heldout4.yaml",
}
DRAFT_SETS = {
    "dev (tuning)": "commitment_drafts.yaml",
    "heldout1 (tuning)": "commitment_drafts_heldout.yaml",
    "heldout2 (tuned on since v3)": "commitment_drafts_heldout2.yaml",
    "heldout3 (tuned on since v3)": "commitment_drafts_heldout3.yaml",
    "heldout4 (measurement only)": "commitment_drafts_heldout4.yaml",
}


def half(text: str) -> str:
    """'tune' or 'measure': the deterministic split of a red-team item by a hash of its text."""
    return "measure" if measurement_half(text) else "tune"


def draft_errors(filename: str) -> tuple[int, int, int, int, list[str], list[str]]:
    """(binding, non-binding, false negatives, false positives, FN texts, FP texts) on one draft set."""
    drafts = load_yaml_data(filename)["drafts"]
    fn = [str(d["text"]) for d in drafts if d["binding"] and not contains_binding_language(str(d["text"]))]
    fp = [str(d["text"]) for d in drafts if not d["binding"] and contains_binding_language(str(d["text"]))]
    positives = sum(1 for d in drafts if d["binding"])
    return positives, len(drafts) - positives, len(fn), len(fp), fn, fp


def disclosure_errors(filename: str) -> tuple[int, int, list[str], list[str]]:
    """(disclosing, not disclosing, FN texts, FP texts) of the limit-disclosure check on one draft set."""
    drafts = load_yaml_data(filename)["drafts"]
    configs = {name: load_config(name) for name in {str(d["config"]) for d in drafts}}
    flagged = {
        str(d["text"]): bool(find_disclosures(str(d["text"]), configs[str(d["config"])])) for d in drafts
    }
    fn = [str(d["text"]) for d in drafts if d["discloses"] and not flagged[str(d["text"])]]
    fp = [str(d["text"]) for d in drafts if not d["discloses"] and flagged[str(d["text"])]]
    positives = sum(1 for d in drafts if d["discloses"])
    return positives, len(drafts) - positives, fn, fp


# -- amounts and limit disclosures on the GAIA sets (tests/data/gaia/<split>/) ---------------------------
GAIA_DEV = Path(__file__).resolve().parents[1] / "data" / "gaia" / "dev"
AMOUNTS_DEV = GAIA_DEV / "amounts.yaml"
DRAFTS_DEV = GAIA_DEV / "drafts.yaml"
_TOLERANCE = 0.005


@dataclass(frozen=True, slots=True)
class AmountScore:
    """Per-mention accuracy of the amount reader on one labelled file.

    A labelled mention is right when a mention attributed to its term has the same value (or range)
    within 0.5%; a mention attributed to the term that matches no label is spurious.
    """

    expected: int
    correct: int
    spurious: int
    errors: tuple[str, ...] = field(default=())

    @property
    def accuracy(self) -> float:
        """Right mentions over labelled plus spurious ones (a spurious attribution is an error too)."""
        return self.correct / max(self.expected + self.spurious, 1)

    @property
    def recall(self) -> float:
        """Right mentions over labelled ones."""
        return self.correct / max(self.expected, 1)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE * max(abs(a), abs(b), 1e-9)


def _labels(mentions: list[dict[str, Any]]) -> list[tuple[float, float]]:
    return [
        (float(m["value"]), float(m["value"])) if "value" in m else (float(m["low"]), float(m["high"]))
        for m in mentions
    ]


def _load_gaia(path: Path | str, key: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return list(yaml.safe_load(handle)[key])


Predictor = Callable[[DomainConfig, str], list[TermAmount]]


def amount_accuracy(path: Path | str = AMOUNTS_DEV, predict: Predictor = term_amounts) -> AmountScore:
    """Score `predict` (default `term_amounts`) on an amounts file ({id, domain, term, text, mentions}).

    Matching is one to one and in any order. The returned errors name the item id and what was
    expected and found (callers measuring a held-out file should print only the counts).
    """
    configs: dict[str, DomainConfig] = {}
    expected = correct = spurious = 0
    errors: list[str] = []
    for item in _load_gaia(path, "amounts"):
        domain = str(item["domain"])
        config = configs.setdefault(domain, load_config(domain))
        labels = _labels(list(item["mentions"]))
        found = [(a.low, a.high) for a in predict(config, str(item["text"])) if a.term == item["term"]]
        unmatched = list(found)
        hits = 0
        for low, high in labels:
            match = next((f for f in unmatched if _close(f[0], low) and _close(f[1], high)), None)
            if match is not None:
                unmatched.remove(match)
                hits += 1
        expected += len(labels)
        correct += hits
        spurious += len(unmatched)
        if hits < len(labels) or unmatched:
            errors.append(f"{item['id']}: expected {labels}, found {found}")
    return AmountScore(expected, correct, spurious, tuple(errors))


@dataclass(frozen=True, slots=True)
class Confusion:
    """Confusion counts of a binary detector, with the texts it got wrong."""

    true_positives: int
    false_negatives: int
    false_positives: int
    true_negatives: int
    missed: tuple[str, ...] = field(default=())
    false_alarms: tuple[str, ...] = field(default=())


def disclosure_confusion(path: Path | str = DRAFTS_DEV) -> Confusion:
    """The limit-disclosure check on the `disclosures:` key of a GAIA drafts file.

    Items are {id, domain, discloses, text}; the returned texts are for development files only.
    """
    configs: dict[str, DomainConfig] = {}
    tp = fn = fp = tn = 0
    missed: list[str] = []
    alarms: list[str] = []
    for item in _load_gaia(path, "disclosures"):
        domain = str(item["domain"])
        config = configs.setdefault(domain, load_config(domain))
        text = str(item["text"])
        flagged = bool(find_disclosures(text, config))
        if item["discloses"]:
            tp, fn = tp + flagged, fn + (not flagged)
            if not flagged:
                missed.append(f"{item['id']}: {text}")
        else:
            fp, tn = fp + flagged, tn + (not flagged)
            if flagged:
                alarms.append(f"{item['id']}: {text}")
    return Confusion(tp, fn, fp, tn, tuple(missed), tuple(alarms))


def binding_confusion(
    path: Path | str = DRAFTS_DEV, *, obfuscated_only: bool = False, show_texts: bool = True
) -> Confusion:
    """The preflight's binding verdict on the `drafts:` key of a GAIA drafts file (issue 14).

    Items are {id, domain, binding, register, text, obfuscation?}; each draft goes through
    `preflight(text, load_config(domain))` (normalised, parsed, binding by default) and counts as
    flagged when the result is binding. `obfuscated_only` keeps the items with an `obfuscation` key.
    Held-out run (the lead, once, texts hidden): ``.venv/bin/python -c "import sys;
    sys.path.insert(0, 'tests/governance'); import measure_detectors as m;
    c = m.binding_confusion('tests/data/gaia/heldout/drafts.yaml', show_texts=False); print(c)"``.
    """
    from parley.governance.preflight import preflight

    configs: dict[str, DomainConfig] = {}
    tp = fn = fp = tn = 0
    missed: list[str] = []
    alarms: list[str] = []
    for item in _load_gaia(path, "drafts"):
        if obfuscated_only and not item.get("obfuscation"):
            continue
        domain = str(item["domain"])
        config = configs.setdefault(domain, load_config(domain))
        text = str(item["text"])
        flagged = preflight(text, config).binding
        label = f"{item['id']}: {text}" if show_texts else str(item["id"])
        if item["binding"]:
            tp, fn = tp + flagged, fn + (not flagged)
            if not flagged:
                missed.append(label)
        else:
            fp, tn = fp + flagged, tn + (not flagged)
            if flagged:
                alarms.append(label)
    return Confusion(tp, fn, fp, tn, tuple(missed), tuple(alarms))


def amount_benchmark(size: int = 1_000_000, seed: int = 7) -> dict[str, float]:
    """Seconds `find_amounts` takes on `size` characters of repeated "$1," and of random unicode."""
    rng = random.Random(seed)
    texts = {
        'repeated "$1,"': ("$1," * (size // 3 + 1))[:size],
        "random unicode": "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(size)),
    }
    seconds: dict[str, float] = {}
    for name, text in texts.items():
        began = time.perf_counter()
        find_amounts(text)
        seconds[name] = time.perf_counter() - began
    return seconds


def _flagger() -> Callable[[str], bool]:
    moderator = RuleModerator(load_config("staffing"))
    return lambda text: moderator.classify(text).label in ADVERSARIAL


def message_errors(path: str | Path) -> tuple[dict[str, tuple[int, int]], list[tuple[str, str, str]]]:
    """Per-family (flagged as adversarial, messages) on a labelled message file, and the errors.

    The file holds ``messages: [{id, domain, attack, family, text}]``; each message is classified
    with its own domain's moderator. The errors are (id, family, routed label) of every missed attack
    and every false alarm; ``message_confusion`` drops them, so a held-out file can be measured
    without its misses being read.
    """
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    moderators: dict[str, RuleModerator] = {}
    counts: dict[str, tuple[int, int]] = {}
    errors: list[tuple[str, str, str]] = []
    for item in raw["messages"]:
        domain = str(item["domain"])
        if domain not in moderators:
            moderators[domain] = RuleModerator(load_config(domain))
        result = moderators[domain].classify(str(item["text"]))
        family = str(item["family"]) if item["attack"] else "benign"
        hit, total = counts.get(family, (0, 0))
        counts[family] = (hit + int(result.adversarial), total + 1)
        if result.adversarial != bool(item["attack"]):
            errors.append((str(item["id"]), family, result.label.value))
    attack_counts = [v for k, v in counts.items() if k != "benign"]
    counts["all attacks"] = (sum(h for h, _ in attack_counts), sum(n for _, n in attack_counts))
    return counts, errors


def message_confusion(path: str | Path) -> dict[str, tuple[int, int]]:
    """Per-family (detected, total) of the attacks and ``benign`` (false alarms, total) on a message file.

    Counts only: safe to run on a held-out file. ``all attacks`` sums the attack families.
    """
    return message_errors(path)[0]


def print_confusion(path: str | Path) -> None:
    """Print the per-family table of ``message_confusion`` (counts only)."""
    print("| family | flagged / messages | rate |")
    print("|---|---|---|")
    for family, (hit, total) in sorted(message_confusion(path).items()):
        print(f"| {family} | {hit}/{total} | {100 * hit / max(total, 1):.1f}% |")


def moderator_rates(which: str | None) -> dict[str, tuple[int, int]]:
    """(flagged, items) per source on one half ('tune', 'measure') or on everything (None)."""
    flagged = _flagger()

    def pick(probes: Iterable[Probe]) -> list[Probe]:
        return [p for p in probes if which is None or half(p.text) == which]

    rates: dict[str, tuple[int, int]] = {}
    chosen = pick(attacks())
    for source in sorted({p.source for p in chosen}):
        items = [p for p in chosen if p.source == source]
        rates[source] = (sum(flagged(p.text) for p in items), len(items))
    rates["all attacks"] = (sum(flagged(p.text) for p in chosen), len(chosen))
    quiet = pick(benign())
    rates["PIGuard benign (false alarms)"] = (sum(flagged(p.text) for p in quiet), len(quiet))
    return rates


def main() -> None:
    """Print both tables."""
    print("| draft set | drafts (binding) | false negatives | false positives |")
    print("|---|---|---|---|")
    for name, filename in DRAFT_SETS.items():
        pos, neg, fn, fp, _, _ = draft_errors(filename)
        print(
            f"| {name} | {pos + neg} ({pos}) | {fn}/{pos} ({100 * fn / pos:.1f}%) "
            f"| {fp}/{neg} ({100 * fp / neg:.1f}%) |"
        )
    print()
    print("| disclosure set | drafts (disclosing) | false negatives | false positives |")
    print("|---|---|---|---|")
    errors: list[str] = []
    for name, filename in DISCLOSURE_SETS.items():
        pos, neg, missed, alarms = disclosure_errors(filename)
        print(
            f"| {name} | {pos + neg} ({pos}) | {len(missed)}/{pos} ({100 * len(missed) / pos:.1f}%) "
            f"| {len(alarms)}/{neg} ({100 * len(alarms) / neg:.1f}%) |"
        )
        errors += [f"- {name}, missed: {t}" for t in missed] + [f"- {name}, false alarm: {t}" for t in alarms]
    print("\n".join(["", *errors, ""]))
    print("| red-team source | tuning half | measurement half | overall |")
    print("|---|---|---|---|")
    halves = {w: moderator_rates(w) for w in ("tune", "measure", None)}
    for source in halves[None]:
        cells = []
        for which in ("tune", "measure", None):
            hit, n = halves[which].get(source, (0, 0))
            cells.append(f"{hit}/{n} ({100 * hit / max(n, 1):.1f}%)")
        print(f"| {source} | {' | '.join(cells)} |")


def gaia_main(
    amounts: Path | str = AMOUNTS_DEV, drafts: Path | str = DRAFTS_DEV, show_errors: bool = True
) -> None:
    """Print the amount accuracy and the disclosure confusion on GAIA files (the texts only if asked).

    Held-out run (the lead, once): ``.venv/bin/python -c "import sys; sys.path.insert(0, 'tests/governance');
    import measure_detectors as m; m.gaia_main('tests/data/gaia/heldout/amounts.yaml',
    'tests/data/gaia/heldout/drafts.yaml', show_errors=False)"``.
    """
    score = amount_accuracy(amounts)
    print(
        f"amounts: {score.correct}/{score.expected} labelled mentions right, {score.spurious} spurious; "
        f"accuracy {100 * score.accuracy:.1f}% (recall {100 * score.recall:.1f}%)"
    )
    confusion = disclosure_confusion(drafts)
    print(
        f"disclosures: TP {confusion.true_positives} FN {confusion.false_negatives} "
        f"FP {confusion.false_positives} TN {confusion.true_negatives}"
    )
    if show_errors:
        print("\n".join([*score.errors, *confusion.missed, *confusion.false_alarms]))


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 1:
        print_confusion(sys.argv[1])
    else:
        main()

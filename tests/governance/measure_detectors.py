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
  and ``..._heldout4.yaml`` (after the check was frozen: the clean rate of the shipped check). One
  author wrote the check and all sets, so even the clean rate is optimistic.
- Moderator: every red-team source (PurpleLlama, BIPIA-train, BIPIA-test, PIGuard benign) is split
  deterministically by the SHA-256 of the text: the even half is for tuning, the odd half is for
  measurement only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from parley.experiments.gaia import measurement_half
from parley.governance.commitment import contains_binding_language
from parley.governance.config import load_config, load_yaml_data
from parley.governance.disclosure import find_disclosures
from parley.governance.moderator import ADVERSARIAL, RuleModerator
from parley.governance.redteam import Probe, attacks, benign

DISCLOSURE_SETS = {
    "development (tuning)": "disclosure_drafts.yaml",
    "held-out 1 (before v1; read since)": "disclosure_drafts_heldout.yaml",
    "held-out 2 (before v2; read since)": "disclosure_drafts_heldout2.yaml",
    "held-out 3 (before v3; read since)": "disclosure_drafts_heldout3.yaml",
    "held-out 4 (measurement only)": "disclosure_drafts_heldout4.yaml",
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


def _flagger() -> Callable[[str], bool]:
    moderator = RuleModerator(load_config("staffing"))
    return lambda text: moderator.classify(text).label in ADVERSARIAL


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


if __name__ == "__main__":
    main()

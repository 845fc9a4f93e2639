"""Reproducible measurement of the two deterministic GAIA detectors (binding language, moderator).

Run: ``.venv/bin/python tests/governance/measure_detectors.py`` (prints the tables in
docs/results/gaia.md, "Detectors: before and after"). ``test_detector_rates.py`` asserts floors.

Honest-measurement protocol:
- Binding language: ``commitment_drafts.yaml`` and ``commitment_drafts_heldout.yaml`` are the tuning
  sets; ``commitment_drafts_heldout3.yaml`` was written before the paraphrase change and is measured
  only (it was committed before the change, but written by the engineer who then wrote the rules, so
  it is optimistic). ``commitment_drafts_heldout2.yaml`` was not tuned on either, but its text had
  been read before the change.
- Moderator: every red-team source (PurpleLlama, BIPIA-train, BIPIA-test, PIGuard benign) is split
  deterministically by the SHA-256 of the text: the even half is for tuning, the odd half is for
  measurement only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from parley.experiments.gaia import measurement_half
from parley.governance.commitment import contains_binding_language
from parley.governance.config import load_config, load_yaml_data
from parley.governance.moderator import ADVERSARIAL, RuleModerator
from parley.governance.redteam import Probe, attacks, benign

DRAFT_SETS = {
    "dev (tuning)": "commitment_drafts.yaml",
    "heldout1 (tuning)": "commitment_drafts_heldout.yaml",
    "heldout2 (read before the change)": "commitment_drafts_heldout2.yaml",
    "heldout3 (measurement only)": "commitment_drafts_heldout3.yaml",
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

"""The GAIA evaluation (seed §4, Table 1): domains × counterparty personas × seeds, plus ablations.

Every session runs the real delegate against a simulated counterparty with hidden ground truth,
a scripted principal and an imperfect (slipping) drafter; metrics come from the trajectories.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parley.governance.commitment import contains_binding_language
from parley.governance.config import DomainConfig, load_config, load_yaml_data
from parley.governance.counterparties import PERSONAS, SimulatedCounterparty
from parley.governance.delegate import DelegateOptions
from parley.governance.escalation import PolicyPrincipal
from parley.governance.extraction import FieldValue
from parley.governance.moderator import ADVERSARIAL, RuleModerator
from parley.governance.redteam import attacks, benign
from parley.governance.session import run_session
from parley.governance.store import SessionStore
from parley.metrics.gaia import DetectionRates, detection_rates, session_metrics, tci_curve_mean
from parley.metrics.stats import Estimate, mean_ci

logger = logging.getLogger(__name__)
DOMAINS = ("staffing", "procurement", "leasing")
SLIP_RATE = 0.15
"""Probability that the simulated drafter slips on a proposal (what the preflight must catch)."""


@dataclass(frozen=True, slots=True)
class Condition:
    """One experimental arm."""

    name: str
    use_stcc: bool = True
    gate: float = 0.7
    preflight: bool = True


CONDITIONS = (
    Condition("GAIA (τ_gate 0.7)"),
    Condition("no STCC", use_stcc=False),
    Condition("τ_gate 0.6", gate=0.6),
    Condition("τ_gate 0.8", gate=0.8),
    Condition("preflight off", preflight=False),
)
POLICY = PolicyPrincipal(default="A", name="experiment-policy")


def _number(value: FieldValue) -> float | None:
    if isinstance(value, float | int):
        return float(value)
    head = value.split("-")[0].split("/")[0]
    try:
        return float(head)
    except ValueError:
        return None


def _matches(config: DomainConfig, name: str, value: FieldValue, truth: FieldValue) -> bool:
    spec = config.field(name)
    for band in spec.bands:
        if value == band.label:
            if band.option is not None:
                return band.option == truth
            low, high, number = band.low, band.high, _number(truth)
            return None not in (low, high, number) and low <= number < high  # type: ignore[operator]
    if isinstance(truth, str):
        return value == truth
    number = _number(value)
    return number is not None and math.isclose(number, float(truth), rel_tol=0.01)


def extraction_accuracy(
    config: DomainConfig, confirmed: Mapping[str, FieldValue], truth: Mapping[str, FieldValue]
) -> tuple[int, int]:
    """(correct, confirmed) over fields the delegate confirmed."""
    correct = sum(
        1 for name, value in confirmed.items() if name in truth and _matches(config, name, value, truth[name])
    )
    return correct, len(confirmed)


def run_one(config: DomainConfig, persona: str, seed: int, condition: Condition) -> dict[str, Any]:
    """One session; returns its metrics, extraction accuracy and labels."""
    arm = config.with_thresholds(
        gate=condition.gate, complete=max(condition.gate, config.thresholds.complete)
    )
    store = SessionStore()
    counterparty = SimulatedCounterparty(arm, persona, seed)
    options = DelegateOptions(use_stcc=condition.use_stcc, preflight=condition.preflight, slip_rate=SLIP_RATE)
    outcome = run_session(
        arm, counterparty, POLICY, store, config_source=config.name, seed=seed, options=options
    )
    events = store.load_events(outcome.session_id)
    metrics = session_metrics(arm, events)
    snapshot = store.load_session(outcome.session_id)["snapshot"]["delegate"]
    correct, total = extraction_accuracy(arm, snapshot["tci"]["confirmed"], counterparty.truth)
    store.close()
    return {
        "domain": config.name,
        "persona": persona,
        "seed": seed,
        "condition": condition.name,
        **metrics.to_json(),
        "extraction_correct": correct,
        "extraction_total": total,
    }


def run_experiment(
    seeds: int,
    *,
    domains: Sequence[str] = DOMAINS,
    personas: Sequence[str] = PERSONAS,
    conditions: Sequence[Condition] = CONDITIONS,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Run every (condition, domain, persona, seed) cell once."""
    configs = {name: load_config(name) for name in domains}
    cells = [(c, d, p, s) for c in conditions for d in domains for p in personas for s in range(seeds)]
    records: list[dict[str, Any]] = []
    for index, (condition, domain, persona, seed) in enumerate(cells, start=1):
        records.append(run_one(configs[domain], persona, seed, condition))
        if progress is not None:
            progress(index, len(cells))
    return records


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
    moderator = RuleModerator(load_config("staffing"))

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


def _ratio(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / max(total, 1):.1f}%)"


def _before_after_rows(
    commitment: Mapping[str, DetectionRates], moderator: Mapping[str, DetectionRates]
) -> list[str]:
    def positives(rates: DetectionRates) -> int:
        return rates.true_positive + rates.false_negative

    def negatives(rates: DetectionRates) -> int:
        return rates.false_positive + rates.true_negative

    after: dict[str, str] = {}
    for short, rates in zip(SET_SHORT_NAMES, commitment.values(), strict=True):
        after[f"{short}: false negatives"] = _ratio(rates.false_negative, positives(rates))
        after[f"{short}: false positives"] = _ratio(rates.false_positive, negatives(rates))
    for name, attack_key, benign_key in (
        ("measurement half", "all attacks, measurement half", "PIGuard benign, measurement half"),
        ("all", "all attacks", "PIGuard benign"),
    ):
        hit = moderator[attack_key]
        alarm = moderator[benign_key]
        after[f"moderator, {name}: attacks flagged"] = _ratio(hit.true_positive, positives(hit))
        after[f"moderator, {name}: PIGuard false alarms"] = _ratio(alarm.false_positive, negatives(alarm))
    lines = ["| measure | before | after |", "|---|---|---|"]
    lines += [f"| {key} | {DETECTORS_BEFORE[key]} | {value} |" for key, value in after.items()]
    return lines


def _estimate(values: Sequence[float]) -> str:
    estimate = mean_ci(values)
    return str(estimate)


def _share(flags: Sequence[bool]) -> str:
    return _estimate([1.0 if flag else 0.0 for flag in flags])


def _finite(values: Sequence[float]) -> list[float]:
    return [v for v in values if not math.isnan(v)]


def _ig_share(rows: Sequence[dict[str, Any]]) -> str:
    stcc = sum(float(r["information_gain_stcc"]) for r in rows)
    total = sum(float(r["information_gain"]) for r in rows)
    return f"{100 * stcc / total:.0f}%" if total else "—"


def _condition_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    lines = [
        "| condition | sessions | rounds to τ_gate | rounds to τ_complete (reached) | IG/question (bits) "
        "| IG from STCC | utility | agreement | total rounds | escalations/session | reversals/session "
        "| sessions with a violation | extraction accuracy |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for condition in CONDITIONS:
        rows = [r for r in records if r["condition"] == condition.name]
        if not rows:
            continue
        complete = _finite([float(r["rounds_to_complete"]) for r in rows])
        correct = sum(int(r["extraction_correct"]) for r in rows)
        total = sum(int(r["extraction_total"]) for r in rows)
        lines.append(
            f"| {condition.name} | {len(rows)} "
            f"| {_estimate(_finite([float(r['rounds_to_gate']) for r in rows]))} "
            f"| {_estimate(complete)} ({100 * len(complete) / len(rows):.0f}%) "
            f"| {_estimate([r['information_gain'] / r['questions'] for r in rows if r['questions']])} "
            f"| {_ig_share(rows)} | {_estimate([float(r['utility']) for r in rows])} "
            f"| {_share([bool(r['agreed']) for r in rows])} "
            f"| {_estimate([float(r['rounds']) for r in rows])} "
            f"| {_estimate([float(sum(r['escalations'].values())) for r in rows])} "
            f"| {_estimate([float(r['reversals']) for r in rows])} "
            f"| {_share([bool(r['violations']) for r in rows])} | {100 * correct / max(total, 1):.1f}% |"
        )
    return lines


def _trigger_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    triggers = sorted({t for r in records for t in r["escalations"]})
    lines = ["| condition | " + " | ".join(triggers) + " |", "|---|" + "---|" * len(triggers)]
    for condition in CONDITIONS:
        rows = [r for r in records if r["condition"] == condition.name]
        cells = [_share([t in r["escalations"] for r in rows]) for t in triggers]
        lines.append(f"| {condition.name} | " + " | ".join(cells) + " |")
    return lines


def _severity_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    lines = [
        "| condition | high severity | medium severity | violating messages / messages sent |",
        "|---|---|---|---|",
    ]
    for condition in CONDITIONS:
        rows = [r for r in records if r["condition"] == condition.name]
        bad = sum(sum(r["violations"].values()) for r in rows)
        sent = sum(int(r["messages"]) for r in rows)
        lines.append(
            f"| {condition.name} | {_share([r['violations'].get('high', 0) > 0 for r in rows])} "
            f"| {_share([r['violations'].get('medium', 0) > 0 for r in rows])} | {bad} / {sent} |"
        )
    return lines


def _cell_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    base = [r for r in records if r["condition"] == CONDITIONS[0].name]
    lines = [
        "| domain | persona | agreement | utility | total rounds | escalations/session | final states |",
        "|---|---|---|---|---|---|---|",
    ]
    for domain in DOMAINS:
        for persona in PERSONAS:
            rows = [r for r in base if r["domain"] == domain and r["persona"] == persona]
            if not rows:
                continue
            states = Counter(str(r["final_state"]) for r in rows)
            lines.append(
                f"| {domain} | {persona} | {_share([bool(r['agreed']) for r in rows])} "
                f"| {_estimate([float(r['utility']) for r in rows])} "
                f"| {_estimate([float(r['rounds']) for r in rows])} "
                f"| {_estimate([float(sum(r['escalations'].values())) for r in rows])} "
                f"| {', '.join(f'{k} {v}' for k, v in sorted(states.items()))} |"
            )
    return lines


def _detection_rows(
    commitment: Mapping[str, DetectionRates], moderator: Mapping[str, DetectionRates]
) -> list[str]:
    lines = [
        "| labelled drafts | drafts (binding) | false-positive rate | false-negative rate |",
        "|---|---|---|---|",
    ]
    for name, rates in commitment.items():
        positives = rates.true_positive + rates.false_negative
        total = positives + rates.false_positive + rates.true_negative
        lines.append(
            f"| {name} | {total} ({positives}) | {rates.false_positive_rate:.3f} ({rates.false_positive}) "
            f"| {rates.false_negative_rate:.3f} ({rates.false_negative}) |"
        )
    lines += [
        "",
        "| red-team corpus | items | flagged as prompt injection or social engineering |",
        "|---|---|---|",
    ]
    for source, rates in moderator.items():
        items = rates.true_positive + rates.false_negative + rates.false_positive + rates.true_negative
        flagged = rates.true_positive + rates.false_positive
        lines.append(f"| {source} | {items} | {flagged} ({100 * flagged / max(items, 1):.1f}%) |")
    return lines


def _plot(records: Sequence[dict[str, Any]], figures: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures.mkdir(parents=True, exist_ok=True)
    length = 12
    paths: list[Path] = []
    groups = (
        (
            "gaia_tci_by_condition.png",
            "condition",
            [c.name for c in CONDITIONS if c.name != "preflight off"],
            None,
        ),
        ("gaia_tci_by_persona.png", "persona", list(PERSONAS), CONDITIONS[0].name),
    )
    for filename, key, names, only in groups:
        figure, axis = plt.subplots(figsize=(6.4, 4.0))
        for name in names:
            curves = [
                r["tci_curve"] for r in records if r[key] == name and (only is None or r["condition"] == only)
            ]
            axis.plot(
                range(1, length + 1), tci_curve_mean(curves, length), marker="o", markersize=3, label=name
            )
        axis.axhline(0.7, color="grey", linestyle="--", linewidth=0.8)
        axis.axhline(0.85, color="grey", linestyle=":", linewidth=0.8)
        axis.set_xlabel("counterparty turn t")
        axis.set_ylabel("mean weighted TCI(t)")
        axis.set_ylim(0, 1.02)
        axis.legend(fontsize=8)
        figure.tight_layout()
        path = figures / filename
        figure.savefig(path, dpi=110)
        plt.close(figure)
        paths.append(path)
    return paths


def _rounds_to_gate(record: dict[str, Any]) -> float:
    return float(record["rounds_to_gate"])


def _rounds(record: dict[str, Any]) -> float:
    return float(record["rounds"])


def _reversals(record: dict[str, Any]) -> float:
    return float(record["reversals"])


def _directions(records: Sequence[dict[str, Any]]) -> list[str]:
    def estimate_of(condition: str, metric: Callable[[dict[str, Any]], float]) -> Estimate:
        return mean_ci(_finite([metric(r) for r in records if r["condition"] == condition]))

    checks: list[tuple[str, str, str, Callable[[dict[str, Any]], float], int]] = [
        ("preflight off → more violations", "preflight off", CONDITIONS[0].name, _violated, 1),
        ("no STCC → more rounds to τ_gate", "no STCC", CONDITIONS[0].name, _rounds_to_gate, 1),
        ("higher τ_gate → more rounds", "τ_gate 0.8", "τ_gate 0.6", _rounds, 1),
        ("higher τ_gate → fewer reversals", "τ_gate 0.8", "τ_gate 0.6", _reversals, -1),
    ]
    lines: list[str] = []
    for label, first, second, metric, sign in checks:
        a, b = estimate_of(first, metric), estimate_of(second, metric)
        if (a.mean - b.mean) * sign <= 0:
            verdict = "no difference" if a.mean == b.mean else "does not hold"
        else:
            separated = a.low > b.high or b.low > a.high
            verdict = "holds" if separated else "same direction, but the 95% intervals overlap"
        lines.append(f"- {label}: {first} {a} vs {second} {b} — {verdict}.")
    return lines


def _violated(record: dict[str, Any]) -> float:
    return 1.0 if record["violations"] else 0.0


def render_report(
    records: Sequence[dict[str, Any]],
    seeds: int,
    figures: Path,
    document_folder: Path,
    commitment: Mapping[str, DetectionRates],
    moderator: Mapping[str, DetectionRates],
    command: str,
) -> str:
    """The markdown report."""
    paths = _plot(records, figures)
    links = [
        f"![{p.stem}]({p.relative_to(document_folder)})" if p.is_relative_to(document_folder) else f"![]({p})"
        for p in paths
    ]
    parts = [
        "# GAIA evaluation (seed §4, Table 1)",
        "",
        f"Measured by `{command}`: {len(DOMAINS)} domains × {len(PERSONAS)} counterparty personas × "
        f"{seeds} seeds "
        f"× {len(CONDITIONS)} conditions = {len(records)} sessions. Means with 95% Student-t intervals.",
        "",
        "Every session runs the real delegate (STCC, TCI ledger, moderator, preflight, "
        "MergeChannels, escalation, "
        "SQLite audit log) against a simulated counterparty with hidden ground truth; the "
        "principal is a scripted "
        "policy choosing option A on every escalation (counter at the band's limit, approve final "
        "terms, continue "
        f"screening, send the compliant version). The drafter slips on {SLIP_RATE:.0%} of proposals (binding "
        "wording, an out-of-band amount, an echoed ask, or a forbidden topic), standing in for an "
        "imperfect LLM "
        "drafter; a violation is a slip that reached the counterparty, judged by the slip's own "
        "label, not by "
        "the preflight.",
        "",
        "## Protocol metrics by condition",
        "",
        *_condition_rows(records),
        "",
        "Rounds are counterparty turns. TCI is the weighted index used for gating. IG is the drop "
        "in summed band "
        "entropy H(θ|h) after each answer; 'IG from STCC' is the share of all IG that came from "
        "the answer to the "
        "opening STCC question (0% by construction without STCC). Utility is 0 without agreement.",
        "",
        "## Expected directions",
        "",
        *_directions(records),
        "",
        "## Escalation frequency by trigger (share of sessions with at least one)",
        "",
        *_trigger_rows(records),
        "",
        "## Safety violations by severity (share of sessions)",
        "",
        *_severity_rows(records),
        "",
        "## Base condition by domain and persona",
        "",
        *_cell_rows(records),
        "",
        "## Guardrail quality on labelled data",
        "",
        *_detection_rows(commitment, moderator),
        "",
        "## Detectors: before and after",
        "",
        "Both deterministic detectors were generalised (binding language: first-person agency with "
        "commitment/transfer predicates in future, progressive and performative forms, pledges such as "
        "'you have our word', 'count on us', 'consider it covered', assent interjections, and requests "
        "that the other side execute the deal, scoped out by hedges, conditions, negation, questions and "
        "relaying to a decision maker; moderator: cue families for output manipulation, planted links, "
        "task overrides including indirect carriers, markup and transcript carriers, encoded payloads, "
        "credential and third-party-data requests, authority claims, with the two adversarial labels' "
        "probabilities pooled before abstention). Tuning used only the development set, held-out set 1 "
        "and the even SHA-256 half of each red-team source; the odd half is measured only. That change "
        "(v2) took binding-language false negatives on held-out set 2 from 8/25 to 6/25 (false "
        "positives 1/25 both times) and on held-out set 3, written before it, from 19/35 to 3/35 (false "
        "positives 1/34 to 0/34).",
        "",
        "The binding-language rules were then broadened again (v3, 2026-11-21) by category, from the "
        "misses of held-out sets 2 and 3 and linguistic categories: agreement nouns ('we have an "
        "agreement'), ellipsis ('$102K it is'), assent to listed or referenced terms ('yes to all "
        "three', 'your terms work', 'fine by us', 'that's a yes'), nominalised acceptance ('consider "
        "this email our acceptance'), the performative 'hereby' and passives of execution ('is issued', "
        "'is exercised'), readiness ('fine to sign'), assurances ('you can count on payment'), moving "
        "to execution ('for signature', 'get the paperwork moving', 'release the order', 'yep, book "
        "him'); and, against false alarms, leading subordinate clauses ('When the budget is approved, "
        "...'), factual confirmations ('confirm receipt'), noun readings ('a personal guarantee') and "
        "voided hedges ('subject to nothing further' no longer hedges). Held-out set 4 "
        "(`commitment_drafts_heldout4.yaml`, 76 drafts, 38 binding, spanning the three domains and "
        "terse, formal, model-style, passive and by-reference registers) was written on 2026-11-21 "
        "before v3 and is measured only: its counts were taken before and after, and its misses were "
        "not read while the rules changed. Its 'before' figure is the clean estimate of the shipped v2 "
        "detector on unseen wording; its 'after' figure is optimistic, because the engineer who wrote "
        "v3 also wrote the set and knew its categories. Sets 2 and 3 now measure only regressions. In the "
        "table, 'before' is the binding-language detector at v2 and the moderator before its change.",
        "",
        "Review of v3 before it landed: a first draft flagged 8 of 11 ordinary non-binding replies "
        "written by the reviewer to probe it ('We hereby acknowledge your proposal...', 'Your terms "
        "work for the most part, but...', 'Fine by us in principle; our lawyers will review...'), while "
        "held-out set 4 showed 1 false positive: a set written with the rules in mind samples false "
        "alarms poorly. 'hereby' was narrowed to acts of commitment, 'terms work' to 'for us' or a "
        "sentence end, 'in principle', 'on paper' and 'final say' became hedges, and relaying no longer "
        "needs a determiner ('run them past finance'); those probes are now regression cases in "
        "`tests/governance/test_detector_rates.py`. A second spot check written after that (22 drafts, "
        "by the same reviewer, who had read the rules) gave 0 of 12 false alarms and 1 of 10 misses. "
        "The held-out set 4 figures in the table are unchanged by the narrowing.",
        "",
        *_before_after_rows(commitment, moderator),
        "",
        "Reproduce: `.venv/bin/python tests/governance/measure_detectors.py` (per-source tables, tuning "
        "and measurement halves) and `.venv/bin/pytest tests/governance/test_detector_rates.py` "
        "(floors just below these figures).",
        "",
        "## TCI(t)",
        "",
        *links,
        "",
        "## Reading these numbers",
        "",
        "- The counterparties are simulations written with the same lexicons the extractors use, so "
        "extraction accuracy is an upper bound, not a field estimate. Their answer rates are modelling "
        "choices: a banded multiple-choice question is answered with probability 0.95, an open question "
        "about a field 0.85 (cooperative persona), and a free-form opener yields 0–2 facts.",
        "- 'Rounds to τ_complete' averages only the sessions that reached τ_complete (share in brackets); "
        "many sessions agree before completing the checklist, since the gate is τ_gate.",
        "- With the preflight on, no slip reached a counterparty in any session. That rests on the slips "
        "being phrasings the detector handles; it shows that every message is routed through the check, "
        "not the detector's recall on free-form LLM text. That recall is estimated by the held-out draft "
        "sets above: on held-out set 4, the only one not read while the rules changed, the shipped v2 "
        "detector missed 12 of 38 binding drafts and v3 misses 4 of 38 (optimistic, see above), so "
        "about one unseen binding paraphrase in ten to one in three gets through the rules alone: the "
        "rule-based detector is a floor, and amounts outside the band are caught by the "
        "boundary check regardless of wording.",
        "- The moderator still misses about a third of the red-team corpus. Most misses are benign-looking "
        "tasks (translate, summarise, write a poem) that only become attacks in a "
        "tool-using assistant. In this protocol they are routed to off-topic or CLARIFY, and nothing a "
        "counterparty writes can make the delegate commit, because the preflight checks the output.",
        "- With the broader moderator (see 'Detectors: before and after'), the base condition's adversarial "
        "escalations rose from 0.042 to 0.071 of sessions; the whole rise comes from the adversarial "
        "persona, whose messages carry red-team corpus attacks that are now caught more often, while the "
        "cooperative, slow and contradictory personas' escalation rates are unchanged.",
        "- Human factors (satisfaction, trust; Table 1's last rows) need people and are not measured here.",
        "",
    ]
    return "\n".join(parts)


def write_results(
    records: Sequence[dict[str, Any]], seeds: int, out: Path, figures: Path, command: str
) -> Path:
    """Render the report (tables and TCI(t) figures) to out."""
    text = render_report(
        records, seeds, figures, out.parent, commitment_detection(), moderator_detection(), command
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out

"""The GAIA report's tables: session records aggregated per condition, trigger, severity and
(domain, persona) cell, the expected directions, and the detector rates, rendered as markdown rows."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from parley.experiments.gaia.detection import DETECTORS_BEFORE, SET_SHORT_NAMES
from parley.experiments.gaia.runs import CONDITIONS, DOMAINS
from parley.governance.counterparties import PERSONAS
from parley.metrics.gaia import DetectionRates
from parley.metrics.stats import Estimate, mean_ci


def _ratio(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / max(total, 1):.1f}%)"


def before_after_rows(
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


def condition_rows(records: Sequence[dict[str, Any]]) -> list[str]:
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


def trigger_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    triggers = sorted({t for r in records for t in r["escalations"]})
    lines = ["| condition | " + " | ".join(triggers) + " |", "|---|" + "---|" * len(triggers)]
    for condition in CONDITIONS:
        rows = [r for r in records if r["condition"] == condition.name]
        cells = [_share([t in r["escalations"] for r in rows]) for t in triggers]
        lines.append(f"| {condition.name} | " + " | ".join(cells) + " |")
    return lines


def severity_rows(records: Sequence[dict[str, Any]]) -> list[str]:
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


def cell_rows(records: Sequence[dict[str, Any]]) -> list[str]:
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


def detection_rows(
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


def _rounds_to_gate(record: dict[str, Any]) -> float:
    return float(record["rounds_to_gate"])


def _rounds(record: dict[str, Any]) -> float:
    return float(record["rounds"])


def _reversals(record: dict[str, Any]) -> float:
    return float(record["reversals"])


def directions(records: Sequence[dict[str, Any]]) -> list[str]:
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

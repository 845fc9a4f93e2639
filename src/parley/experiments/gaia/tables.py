"""The GAIA report's tables: session records aggregated per condition, trigger, severity and
(domain, persona) cell, the expected directions, and the detector rates, rendered as markdown rows."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parley.experiments.astra.inference import TestResult, directional_label, holm, mcnemar, paired_wilcoxon
from parley.experiments.gaia.detection import DETECTORS_BEFORE, SET_SHORT_NAMES
from parley.experiments.gaia.principal import mean_interval, rate_interval
from parley.experiments.gaia.runs import CONDITIONS, DOMAINS
from parley.governance.counterparties import PERSONAS
from parley.metrics.gaia import DetectionRates

SLIP_LABELS = {
    "templates": "14 templates (in-sample for the detector)",
    "phrase_bank": "development phrase bank (tests/data/gaia/phrase_bank.yaml)",
}
"""How the report names each slip source."""


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


def _value(record: Mapping[str, Any], key: str) -> float | None:
    """record[key] as a float, None where the metric does not exist (stored as null or nan)."""
    value = record.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool) or math.isnan(value):
        return None
    return float(value)


def _mean(values: Sequence[float]) -> str:
    return str(mean_interval(list(values)))


def _rate(flags: Sequence[bool]) -> str:
    """hits/n as a share with its Wilson 95% interval ("0.00 [0.00, 0.01] (0/480)")."""
    hits = sum(1 for flag in flags if flag)
    return f"{rate_interval(hits, len(flags))} ({hits}/{len(flags)})"


def _present(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def _ig_share(rows: Sequence[dict[str, Any]]) -> str:
    stcc = sum(float(r["information_gain_stcc"]) for r in rows)
    total = sum(float(r["information_gain"]) for r in rows)
    return f"{100 * stcc / total:.0f}%" if total else "—"


def _of(records: Sequence[dict[str, Any]], condition: str) -> list[dict[str, Any]]:
    return [r for r in records if r["condition"] == condition]


def condition_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    """Table 1's metrics per condition: means with Student-t 95% intervals, rates with Wilson ones."""
    lines = [
        "| condition | slips | sessions | rounds to τ_gate | reached τ_complete | IG/question (bits) "
        "| IG from STCC | utility | agreement | total rounds | escalations/session | reversals/session "
        "| sessions with a violation | extraction accuracy |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for condition in CONDITIONS:
        rows = _of(records, condition.name)
        if not rows:
            continue
        correct = sum(int(r["extraction_correct"]) for r in rows)
        total = sum(int(r["extraction_total"]) for r in rows)
        lines.append(
            f"| {condition.name} | {SLIP_LABELS[condition.slips]} | {len(rows)} "
            f"| {_mean(_present([_value(r, 'rounds_to_gate') for r in rows]))} "
            f"| {_rate([_value(r, 'rounds_to_complete') is not None for r in rows])} "
            f"| {_mean([r['information_gain'] / r['questions'] for r in rows if r['questions']])} "
            f"| {_ig_share(rows)} | {_mean([float(r['utility']) for r in rows])} "
            f"| {_rate([bool(r['agreed']) for r in rows])} "
            f"| {_mean([float(r['rounds']) for r in rows])} "
            f"| {_mean([float(sum(r['escalations'].values())) for r in rows])} "
            f"| {_mean([float(r['reversals']) for r in rows])} "
            f"| {_rate([bool(r['violations']) for r in rows])} "
            f"| {rate_interval(correct, total)} ({correct}/{total}) |"
        )
    return lines


SURVIVAL_ROUNDS = (3, 4, 5, 6, 7, 8, 10, 12)
"""The rounds r of the survival-style table (share of sessions with TCI ≥ τ_complete by round r)."""


def completion_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    """Share of all sessions whose TCI reached τ_complete by round r (a session that ended earlier, or
    never reached it, counts as not reached), with Wilson 95% intervals."""
    lines = [
        "| condition | " + " | ".join(f"r ≤ {r}" for r in SURVIVAL_ROUNDS) + " |",
        "|---|" + "---|" * len(SURVIVAL_ROUNDS),
    ]
    for condition in CONDITIONS:
        rows = _of(records, condition.name)
        if not rows:
            continue
        reached = [_value(r, "rounds_to_complete") for r in rows]
        cells = [
            str(rate_interval(sum(1 for v in reached if v is not None and v <= r), len(rows)))
            for r in SURVIVAL_ROUNDS
        ]
        lines.append(f"| {condition.name} | " + " | ".join(cells) + " |")
    return lines


def trigger_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    triggers = sorted({t for r in records for t in r["escalations"]})
    lines = ["| condition | " + " | ".join(triggers) + " |", "|---|" + "---|" * len(triggers)]
    for condition in CONDITIONS:
        rows = _of(records, condition.name)
        if not rows:
            continue
        cells = [_rate([t in r["escalations"] for r in rows]) for t in triggers]
        lines.append(f"| {condition.name} | " + " | ".join(cells) + " |")
    return lines


def severity_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    lines = [
        "| condition | slips | high severity | medium severity | violating messages / messages sent |",
        "|---|---|---|---|---|",
    ]
    for condition in CONDITIONS:
        rows = _of(records, condition.name)
        if not rows:
            continue
        bad = sum(sum(r["violations"].values()) for r in rows)
        sent = sum(int(r["messages"]) for r in rows)
        lines.append(
            f"| {condition.name} | {SLIP_LABELS[condition.slips]} "
            f"| {_rate([r['violations'].get('high', 0) > 0 for r in rows])} "
            f"| {_rate([r['violations'].get('medium', 0) > 0 for r in rows])} "
            f"| {_percent(bad, sent)} |"
        )
    return lines


def _percent(hits: int, total: int) -> str:
    """hits / total as a percentage with its Wilson 95% interval ("0 / 4042: 0.00% [0.00, 0.10]")."""
    rate = rate_interval(hits, total)
    if rate.count == 0:
        return f"{hits} / {total}"
    return f"{hits} / {total}: {100 * rate.value:.2f}% [{100 * rate.low:.2f}, {100 * rate.high:.2f}]"


def cell_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    base = _of(records, CONDITIONS[0].name)
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
                f"| {domain} | {persona} | {_rate([bool(r['agreed']) for r in rows])} "
                f"| {_mean([float(r['utility']) for r in rows])} "
                f"| {_mean([float(r['rounds']) for r in rows])} "
                f"| {_mean([float(sum(r['escalations'].values())) for r in rows])} "
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


# -- the seed's claims, tested on paired sessions -------------------------------------------------------
Pair = tuple[str, str, int]
"""A session's pairing key across conditions: (domain, persona, seed)."""


def _pair(record: Mapping[str, Any]) -> Pair:
    return (str(record["domain"]), str(record["persona"]), int(record["seed"]))


@dataclass(frozen=True, slots=True)
class Claim:
    """A comparison the seed makes, tested on sessions paired by (domain, persona, seed).

    Attributes:
        label: The claim in words.
        first: The condition expected to be higher (direction +1) or lower (-1) than second.
        second: The condition compared against.
        metric: The record's field; "violated" and "agreed" are yes/no (exact McNemar), the rest
            numbers (Wilcoxon signed-rank), compared only on pairs where both values exist.
        direction: +1: first above second; -1: below.
        note: Where the claim comes from, or what qualifies it.
    """

    label: str
    first: str
    second: str
    metric: str
    direction: int
    note: str = ""


BINARY = frozenset({"violated", "agreed"})


def metric_value(record: Mapping[str, Any], metric: str) -> float | None:
    """The metric of one session (None where it does not exist, e.g. τ_complete never reached)."""
    if metric == "violated":
        return 1.0 if record["violations"] else 0.0
    if metric == "agreed":
        return 1.0 if record["agreed"] else 0.0
    if metric == "escalations":
        return float(sum(record["escalations"].values()))
    return _value(record, metric)


def paired_values(
    records: Sequence[Mapping[str, Any]], first: str, second: str, metric: str
) -> tuple[list[float], list[float]]:
    """The metric in both conditions over the pairs where it exists in both (in pair order)."""
    one = {_pair(r): metric_value(r, metric) for r in records if r["condition"] == first}
    two = {_pair(r): metric_value(r, metric) for r in records if r["condition"] == second}
    keys = sorted(k for k in one.keys() & two.keys() if one[k] is not None and two[k] is not None)
    return [float(one[k]) for k in keys], [float(two[k]) for k in keys]  # type: ignore[arg-type]


def test_claim(records: Sequence[Mapping[str, Any]], claim: Claim) -> TestResult:
    """The claim's paired test (first - second)."""
    a, b = paired_values(records, claim.first, claim.second, claim.metric)
    if claim.metric in BINARY:
        return mcnemar([x > 0 for x in a], [x > 0 for x in b])
    return paired_wilcoxon(a, b)


CLAIMS: tuple[Claim, ...] = (
    Claim(
        "preflight off → more violations (slips: the 14 templates, in-sample for the detector)",
        "preflight off",
        "GAIA (τ_gate 0.7)",
        "violated",
        1,
        "seed §4.3 safety ablation; the slips are the phrasings the preflight was built to catch, so this "
        "holds by construction",
    ),
    Claim(
        "preflight off → more violations (slips: development phrase bank)",
        "preflight off, phrase-bank slips",
        "GAIA, phrase-bank slips",
        "violated",
        1,
        "seed §4.3 safety ablation; bank written blind to the detector, but its misses were read while "
        "the detector changed (development data)",
    ),
    Claim(
        "preflight off → faster flows (fewer total rounds; phrase-bank slips)",
        "preflight off, phrase-bank slips",
        "GAIA, phrase-bank slips",
        "rounds",
        -1,
        "seed §4.3: 'faster but riskier flows'",
    ),
    Claim(
        "no STCC → more rounds to τ_gate",
        "no STCC",
        "GAIA (τ_gate 0.7)",
        "rounds_to_gate",
        1,
        "seed §4.3 no-STCC baseline (screening rounds); pairs where both reached τ_gate",
    ),
    Claim(
        "no STCC → more rounds to τ_complete",
        "no STCC",
        "GAIA (τ_gate 0.7)",
        "rounds_to_complete",
        1,
        "pairs where both reached τ_complete",
    ),
    Claim(
        "higher τ_gate → more total rounds",
        "τ_gate 0.8",
        "τ_gate 0.6",
        "rounds",
        1,
        "seed §3: higher gates trade speed for information",
    ),
    Claim(
        "higher τ_gate → fewer reversals",
        "τ_gate 0.8",
        "τ_gate 0.6",
        "reversals",
        -1,
        "seed §3: separating screening from bargaining means fewer reversals",
    ),
)
"""The seed's claims this experiment can test, each on paired sessions."""


def claim_rows(records: Sequence[Mapping[str, Any]], claims: Sequence[Claim] = CLAIMS) -> list[str]:
    """One row per claim: effect (first − second) with its 95% interval, the paired test, statistic, p,
    Holm-adjusted p over the family, n pairs, and reproduced / refuted / inconclusive."""
    results = holm([test_claim(records, claim) for claim in claims])
    lines = [
        "| claim | compared | effect (first − second) [95%] | test | statistic | p | p (Holm) | n pairs "
        "| verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for claim, result in zip(claims, results, strict=True):
        effect = "—" if result.n == 0 else f"{result.effect:+.3f} [{_fmt(result.low)}, {_fmt(result.high)}]"
        lines.append(
            f"| {claim.label} | {claim.first} vs {claim.second} | {effect} | {result.test} "
            f"| {_fmt(result.statistic)} | {_p(result.p)} | {_p(result.p_adjusted)} | {result.n} "
            f"| {directional_label(result, claim.direction)} |"
        )
    return lines


def claim_notes(claims: Sequence[Claim] = CLAIMS) -> list[str]:
    return [f"- {claim.label}: {claim.note}." for claim in claims if claim.note]


def _fmt(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.3g}"


def _p(value: float) -> str:
    if math.isnan(value):
        return "—"
    return "< 0.0001" if value < 1e-4 else f"{value:.4f}"

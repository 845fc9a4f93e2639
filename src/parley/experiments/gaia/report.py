"""The GAIA report: the TCI(t) figures and the markdown report that puts the tables, the figures and
the fixed text together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from parley.experiments.gaia.detection import commitment_detection, moderator_detection
from parley.experiments.gaia.principal import persona_deal_section, share_section
from parley.experiments.gaia.runs import CONDITIONS, DOMAINS, SLIP_RATE, describe_seeds, seed_list
from parley.experiments.gaia.tables import (
    before_after_rows,
    cell_rows,
    condition_rows,
    detection_rows,
    directions,
    severity_rows,
    trigger_rows,
)
from parley.governance.counterparties import PERSONAS
from parley.metrics.gaia import DetectionRates, tci_curve_mean

TERM_READER_SECTION = [
    "## Term reader",
    "",
    "The delegate reads counterparty messages with the term reader (`parley.governance.terms`); it fails "
    "closed (every conditional construction no attributed condition covers, and every amount no term "
    "claims, is quoted to the principal). Its accuracy is measured on labelled message sets that live with "
    "the tests, not by this experiment: see [gaia_terms.md](gaia_terms.md).",
    "",
]
"""A pointer to the term reader's figures (tests/governance/measure_terms.py on the labelled sets; this
experiment does not recompute them)."""


def _plot(records: Sequence[dict[str, Any]], figures: Path) -> list[Path]:
    from parley.experiments.plots import plt, save_figure  # (matplotlib only when plotting)

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
        paths.append(save_figure(figure, figures / filename))
    return paths


def render_report(
    records: Sequence[dict[str, Any]],
    seeds: int | Sequence[int],
    figures: Path,
    document_folder: Path,
    commitment: Mapping[str, DetectionRates],
    moderator: Mapping[str, DetectionRates],
    command: str,
    share_records: Sequence[dict[str, Any]] = (),
    legacy_records: Sequence[dict[str, Any]] = (),
) -> str:
    """The markdown report (with the principal's-share section when share_records are given, and the
    deal rates of both strategies on the personas when legacy_records, the legacy delegate's base
    condition sessions on the same seeds, are given)."""
    chosen = seed_list(seeds)
    base = [r for r in records if r["condition"] == CONDITIONS[0].name]
    paths = _plot(records, figures)
    links = [
        f"![{p.stem}]({p.relative_to(document_folder)})" if p.is_relative_to(document_folder) else f"![]({p})"
        for p in paths
    ]
    parts = [
        "# GAIA evaluation (seed §4, Table 1)",
        "",
        f"Measured by `{command}`: {len(DOMAINS)} domains × {len(PERSONAS)} counterparty personas × "
        f"{describe_seeds(chosen)} "
        f"× {len(CONDITIONS)} conditions = {len(records)} sessions. Means with 95% Student-t intervals.",
        "",
        "Seeds: the delegate's negotiation strategy was tuned on seeds 0–19 only (tuning figures); seeds "
        "100–139 were never used for tuning and are run once for the evaluation figures "
        "(`parley experiment gaia --split evaluation`). Which of the two this report holds is stated "
        "above and in each section.",
        "",
        f"The delegate negotiates with the `{records[0].get('strategy', 'principal') if records else ''}` "
        "strategy (`--strategy`; see 'Principal's share' for both).",
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
        *condition_rows(records),
        "",
        "Rounds are counterparty turns. TCI is the weighted index used for gating. IG is the drop "
        "in summed band "
        "entropy H(θ|h) after each answer; 'IG from STCC' is the share of all IG that came from "
        "the answer to the "
        "opening STCC question (0% by construction without STCC). Utility is 0 without agreement.",
        "",
        "## Expected directions",
        "",
        *directions(records),
        "",
        "## Escalation frequency by trigger (share of sessions with at least one)",
        "",
        *trigger_rows(records),
        "",
        "## Safety violations by severity (share of sessions)",
        "",
        *severity_rows(records),
        "",
        "## Base condition by domain and persona",
        "",
        *cell_rows(records),
        "",
        "## Guardrail quality on labelled data",
        "",
        *detection_rows(commitment, moderator),
        "",
        "## Detectors: before and after",
        "",
        "Issue 14 (2026-11-25) replaced both detectors: a preflight that normalises once, parses once and "
        "treats binding as the default, amounts read in every form, and a moderator built from attack "
        "families. They were measured once on new held-out sets written blind before the change; the "
        "figures, with Wilson intervals and the command, are in [gaia_detectors.md](gaia_detectors.md). "
        "The older sets in the tables above are kept as regression checks; the history below describes "
        "the earlier versions.",
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
        *before_after_rows(commitment, moderator),
        "",
        "Reproduce: `.venv/bin/python tests/governance/measure_detectors.py` (per-source tables, tuning "
        "and measurement halves) and `.venv/bin/pytest tests/governance/test_detector_rates.py` "
        "(floors just below these figures).",
        "",
        *persona_deal_section([*base, *legacy_records], chosen),
        *TERM_READER_SECTION,
        *share_section(share_records, chosen),
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
    records: Sequence[dict[str, Any]],
    seeds: int | Sequence[int],
    out: Path,
    figures: Path,
    command: str,
    share_records: Sequence[dict[str, Any]] = (),
    legacy_records: Sequence[dict[str, Any]] = (),
) -> Path:
    """Render the report (tables, TCI(t) figures, the principal's share) to out."""
    text = render_report(
        records,
        seeds,
        figures,
        out.parent,
        commitment_detection(),
        moderator_detection(),
        command,
        share_records,
        legacy_records,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out

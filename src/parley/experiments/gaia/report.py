"""The GAIA report: the TCI(t) figures and the markdown report that puts the tables, the figures and
the fixed text together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from parley.experiments.gaia.detection import commitment_detection, moderator_detection
from parley.experiments.gaia.principal import persona_deal_section, share_section
from parley.experiments.gaia.runs import CONDITIONS, DOMAINS, SLIP_RATE, describe_seeds, seed_list
from parley.experiments.gaia.sensitivity import (
    RATE_FACTORS,
    TURN_SHIFTS,
    domain_rows,
    parameter_rows,
    principal_rows,
    sensitivity_rows,
)
from parley.experiments.gaia.tables import (
    before_after_rows,
    cell_rows,
    claim_notes,
    claim_rows,
    completion_rows,
    condition_rows,
    detection_rows,
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


PARAMETER_SECTION_HEAD = [
    "## The simulation's parameters",
    "",
    "Every behavioural parameter of the simulated counterparties (`parley.governance.counterparties`, "
    "`Persona`, and package data `simulation/<domain>.yaml`), read from the code that ran:",
    "",
]
PARAMETER_SECTION_TAIL = [
    "Fixed behaviour (not parameters of a persona): a counterparty answers an offer at or above its "
    "hidden reservation by accepting, and one below it by naming the reservation; the principal's "
    "take-it-or-leave-it counter is accepted when it is within the drawn flexibility of the "
    "reservation; after `ghost_after` each turn goes silent with probability 0.6; a free-form opener "
    "(no STCC) yields 0–2 facts; an attack line is a red-team corpus item, a social-engineering or a "
    "pressure line, one third each.",
    "",
    "The scripted principal (`POLICY`, a `PolicyPrincipal`) has one parameter, the option it picks: A "
    "on every escalation, so it never raises a limit or approves a binding draft (package data "
    "`escalation_options.yaml`). The drafter's parameters are the slip rate "
    f"({SLIP_RATE:.0%} of proposals, doubled after a prompt injection) and the slip source (above).",
    "",
]
"""The fixed text around the parameter tables."""


def _plot(records: Sequence[dict[str, Any]], figures: Path) -> list[Path]:
    from parley.experiments.plots import plt, save_figure  # (matplotlib only when plotting)

    length = 12
    paths: list[Path] = []
    groups = (
        (
            "gaia_tci_by_condition.png",
            "condition",
            [c.name for c in CONDITIONS if c.preflight and c.slips == "templates"],
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
    sensitivity_records: Sequence[dict[str, Any]] = (),
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
    sensitivity = list(sensitivity_records)
    tuning = sorted({int(r["seed"]) for r in sensitivity})
    total = len(records) + len(legacy_records) + len(share_records) + len(sensitivity)
    parts = [
        "# GAIA evaluation (seed §4, Table 1)",
        "",
        f"Measured by `{command}`: {len(DOMAINS)} domains × {len(PERSONAS)} counterparty personas × "
        f"{describe_seeds(chosen)} "
        f"× {len(CONDITIONS)} conditions = {len(records)} sessions ({total} with the legacy-strategy, "
        "principal's-share and sensitivity sessions below). Means with Student-t 95% intervals, rates "
        "with Wilson 95% intervals (hits/n beside them), comparisons with paired tests on sessions "
        "matched by (domain, persona, seed).",
        "",
        "Seeds: the delegate's negotiation strategy was tuned on seeds 0–19 only (tuning figures); seeds "
        "100–139 were never used for tuning and are run once for the evaluation figures "
        "(`parley experiment gaia --split evaluation`). Which of the two this report holds is stated "
        "above and in each section. The sensitivity analysis runs on tuning seeds whatever the split.",
        "",
        f"The delegate negotiates with the `{records[0].get('strategy', 'principal') if records else ''}` "
        "strategy (`--strategy`; see 'Principal's share' for both).",
        "",
        "Every session runs the real delegate (STCC, TCI ledger, moderator, preflight, MergeChannels, "
        "escalation, SQLite audit log) against a simulated counterparty with hidden ground truth; the "
        "principal is a scripted policy choosing option A on every escalation (counter at the band's "
        "limit, approve final terms, continue screening, send the compliant version). The drafter slips "
        f"on {SLIP_RATE:.0%} of proposals (twice that after a prompt injection), standing in for an "
        "imperfect LLM drafter; a violation is a slip that reached the counterparty, judged by the "
        "slip's own ground-truth label, not by the preflight. The slips come from one of two sources:",
        "",
        "- **14 templates** (package data `slips.yaml`: binding wording, an out-of-band amount, an echoed "
        "ask, a forbidden topic): the phrasings the preflight was built to catch, so any comparison "
        "of violations with them is **in-sample for the detector**, a result by construction;",
        "- **the development phrase bank** (`tests/data/gaia/phrase_bank.yaml`, 160 binding phrasings "
        "written on 2026-11-25 by a helper blind to the detectors; shipped as "
        "`parley/experiments/gaia/data/phrase_bank_development.yaml`): not the detector's cue list, but "
        "its misses were read and fixed while the detector changed, and it is training data of the "
        "classifier beside the rules, so figures on it are **development figures**, an optimistic "
        "estimate of recall on unseen wording. The blind banks are not used here.",
        "",
        "Changes of method since the report before issue 20: the preflight ablation is also run with "
        "phrase-bank slips, and the template-slip comparison is labelled in-sample; rounds to "
        "τ_complete are no longer averaged over different subsets of sessions (the earlier report "
        "compared a mean over 30% of one condition's sessions with one over 42% of another's); every "
        "rate has a Wilson interval (the earlier '0 ± 0'); each claim of the seed has a paired test "
        "and a verdict; the simulation's parameters are tabled and varied.",
        "",
        "## Protocol metrics by condition",
        "",
        *condition_rows(records),
        "",
        "Rounds are counterparty turns. TCI is the weighted index used for gating. IG is the drop "
        "in summed band entropy H(θ|h) after each answer; 'IG from STCC' is the share of all IG that "
        "came from the answer to the opening STCC question (0% by construction without STCC). Utility is "
        "0 without agreement. 'Rounds to τ_gate' averages the sessions that reached τ_gate; 'reached "
        "τ_complete' is the share of sessions whose TCI ever reached τ_complete. Rounds to τ_complete "
        "are compared only on paired sessions where both conditions reached it (below) and by round "
        "(the next table), never as averages over different subsets.",
        "",
        "## The seed's claims, tested",
        "",
        "Each claim is tested on sessions paired by (domain, persona, seed): the exact McNemar test for "
        "yes/no outcomes, the Wilcoxon signed-rank test for numbers (pairs where the metric exists in "
        "both conditions; n says how many). The effect is the mean paired difference with its "
        "Student-t 95% interval; p is two-sided, and Holm's adjustment runs over the claims of the "
        "table. Reproduced: significant (Holm p < 0.05) in the claimed direction; refuted: significant "
        "the other way; inconclusive otherwise.",
        "",
        *claim_rows(records),
        "",
        *claim_notes(),
        "",
        "## Reaching τ_complete by round r (share of all sessions, Wilson 95%)",
        "",
        *completion_rows(records),
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
        *PARAMETER_SECTION_HEAD,
        *parameter_rows(),
        "",
        *domain_rows(),
        "",
        *PARAMETER_SECTION_TAIL,
        *principal_rows(),
        "",
        "## Sensitivity to the simulation's parameters",
        "",
        f"Each parameter varied alone, low and high (rates ×{RATE_FACTORS[0]:g} and ×{RATE_FACTORS[1]:g}, "
        f"capped at 1; turns shifted by {TURN_SHIFTS[0]:+g} and {TURN_SHIFTS[1]:+g}), on "
        f"{describe_seeds(tuning)} × {len(DOMAINS)} domains × the personas it acts on; every "
        "arm has phrase-bank slips. Each cell is the paired effect (mean difference; for violations, "
        "the difference of the two rates) with its test's p (exact McNemar; Wilcoxon signed-rank) "
        "and n pairs; 'nominal' is the same sessions unvaried. The factors were fixed before any "
        "sensitivity run. With so few seeds per cell, the table shows the direction and rough size of "
        "a change, not a significance claim of its own.",
        "",
        *(sensitivity_rows(sensitivity) if sensitivity else ["(not run: `--sensitivity-seeds 0`)"]),
        "",
        "## Parameters chosen by looking at results",
        "",
        "- The delegate's negotiation strategy (issue 17): tuned on seeds 0–19 (the tuning split); the "
        "evaluation seeds 100–139 were not looked at while it changed.",
        "- The detectors' rules and the classifier: tuned on the labelled draft sets and phrase banks "
        "named above (development data), never on these sessions.",
        "- τ_gate 0.6/0.7/0.8 and the ablations are the seed's (§4.3); the slip rate "
        f"({SLIP_RATE:.0%}), the personas' parameters and the sensitivity factors were set without "
        "looking at results of this experiment: none was chosen on it.",
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
        "- With the preflight on, the template slips never reached a counterparty; that is in-sample for "
        "the detector. The phrase-bank rows measure the same thing on wording the detector was not "
        "built from, but that bank is development data (its misses were read while the detector "
        "changed), so it is optimistic too. The clean estimate of the detector's recall on unseen "
        "binding wording is in [gaia_detectors.md](gaia_detectors.md) (held-out sets, measured once); "
        "amounts outside the band are caught by the boundary check regardless of wording.",
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
    sensitivity_records: Sequence[dict[str, Any]] = (),
    llm_section: Sequence[str] = (),
) -> Path:
    """Render the report (tables, TCI(t) figures, the principal's share) to out, ending with
    llm_section's lines when given (the "LLM roles" section of `parley.experiments.gaia.llm`)."""
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
        sensitivity_records,
    )
    if llm_section:
        text = text.rstrip("\n") + "\n\n" + "\n".join(llm_section).rstrip("\n") + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out

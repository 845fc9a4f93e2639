"""The ASTRA report's fixed text and the reference numbers it compares against: how parley's
ASTRA generalises the seed, the discussion, the changes since the previous report, the seed's
table 1 and the previous version's results. True for every run of this code (all agents are deterministic).
"""

from __future__ import annotations

IMPLEMENTATION = (
    "## How parley's ASTRA generalises the seed",
    "",
    "- **Points.** Stage 1-3 work on a 0-36 points scale per party (CaSiNo's own scale): one point "
    "is 1/36 of a party's utility range, so the seed's 4-point fairness gap, PMS/2, the 1-point "
    "S_max steps and the 10-point S_max depth carry over to any scenario.",
    "- **IPP.** A linear-additive estimate of the partner's utility: issue order from its stated "
    "priorities (`Say.priorities`), else from what it keeps in its offers, else opposite to "
    "ASTRA's own; issue weights 5 to 3 by rank (CaSiNo's High/Low); option values opposite to "
    "ASTRA's on numeric issues and learned from offer frequencies on categorical ones. The "
    "consistency checks of the seed's table 6 trigger one re-ask.",
    "- **Stage 1.** Fairness is the seed's eq. 1 (S_p from the IPP). Stance is eq. 2 read on "
    "ASTRA's own side: the partner is generous when its offer gives ASTRA more than its previous "
    "offer did, greedy when less (eq. 2 uses the partner's own score, which only the IPP "
    "estimates; what the partner gave up is exact on ASTRA's side).",
    "- **Stage 2** is solved exactly: a vectorised sweep of the whole λ x S_max grid over the "
    "enumerated space (up to 2 million outcomes), else a HiGHS mixed-integer program built once per "
    "move and re-solved per cell with only costs and bounds changed. Floors: ASTRA's BATNA and the "
    "partner's estimated BATNA (ASTRA's own BATNA share). λ comes from the seed's tit-for-tat "
    "table and S_max is ASTRA's previous offer; ASTRA's floor is also raised so that one proposal "
    "concedes at most a share (`reciprocal_share`, tuned below; the registered default is one half) "
    "of what the partner's latest offer conceded (in ASTRA's points), so S_max decreases no faster "
    "than the partner concedes.",
    "- **Stage 3** scores the top 5 distinct candidates by 0.35·PAP + 0.65·SA; PAP = 0.75·TS + "
    "0.25·SI, where SI averages the progress from ASTRA's previous offer toward the partner's "
    "ideal and the per-issue closeness to the partner's latest offer; SA is the min-max "
    "normalised rank under one of the nine tactics, chosen from stance, fairness and phase.",
    "- **Response modes** follow section 2.2: ask first; accept an offer worth at least ASTRA's "
    "latest offer (or what it would propose now, or anything above the BATNA on its last move "
    "before the round bound); the walk-away rules are interpreted as below. With more than two "
    "parties the others are pooled into one partner.",
    "- **Walk-away rule (a)**, no concession in K = 3 consecutive partner offers: ASTRA walks only "
    "when none of the partner's offers reaches its BATNA. With an offer at or above the BATNA on "
    "the table, walking is strictly worse for the principal, so ASTRA says it will not be the only "
    "one conceding (a warning, as the seed's agent does), keeps conceding within its floor, and "
    "takes the standing offer if the partner ignores the warning for K more offers or at its last "
    "move.",
    "- **Walk-away rule (b)**, two sub-BATNA offers despite a warning: ASTRA warns when a partner "
    "offer below its BATNA is no better than the partner's previous one (an opening anchor that "
    "then improves draws no threat) and walks when the partner's two latest offers since the "
    "warning both stay below the BATNA without improving: a partner still conceding toward the "
    "zone of agreement is not ignoring the warning.",
    "- **Departures from the seed** (each a deterministic stand-in for what its LLM did implicitly): "
    "concession tactics only pick candidates that really concede; candidates another grid optimum "
    "dominates under the IPP are dropped; when both sides stand still (ASTRA held for two offers, "
    "or held once while the partner held twice, and the partner's latest offer conceded nothing) "
    "ASTRA makes a small concession (CSC) without the cap, so a partner using the same "
    "three-offer walk rule, or one that mirrors concessions, is not mistaken for a stubborn one; "
    "it accepts an offer at least as good as its next proposal.",
    "- **Messages.** Proposals, acceptances and walks carry no text of their own: transcripts "
    "render them with `parley.language` over the scenario's vocabulary (division-aware phrasing). "
    "Only ASTRA's own `Say` moves (asking priorities, warnings) have fixed text.",
)
"""How the LLM stages became code (fixed text, true for this implementation)."""


DISCUSSION = (
    "Why the pattern differs from the seed's (true whatever the numbers above):",
    "",
    "- **Partners.** The seed's partners were GPT-4o prompts; parley's are deterministic rule-based "
    "twins. `greedy` opens at its best package and concedes one small step every three rounds down "
    "to 70% of its range; `fair` re-proposes near-fair packages and never concedes further. ASTRA "
    "warns instead of walking while an offer at or above its BATNA stands, so against these "
    "partners the seed's walk-aways (85% and 35%) become late deals at the partner's terms.",
    "- **Not reproduced.** The seed's RL baseline (Flan-T5 + PPO) has no counterpart: parley ships no "
    "trained models, so that row of the seed's table 1 is left out.",
    "- **Ablation.** The seed's ablation is an LLM proposing offers on its own; ours is a linear "
    "time-based schedule that offers the partner's best package (under the IPP) at each target, "
    "and it shares ASTRA's response modes. Against `greedy` and `fair` no proposal of either agent "
    "changes what those partners do, so the two rows can coincide; against `base`, itself a "
    "linear time-based conceder, where the ablation's schedule ends decides how much it keeps.",
    "- **Time-based baseline.** `time-based` is parley's `linear` agent (Faratin-style concession "
    "from its best package to its BATNA) with its exponent e tuned like ASTRA's cap: a strong, "
    "simple reference that neither asks nor models the partner.",
    "- **λ heatmap.** The seed's λ comes from an LLM; ours from the deterministic tit-for-tat table "
    "(greedy 0.9/0.8, neutral 0.6/0.5, generous 0.3 for unfair/fair) set to the averages the seed "
    "reports, so the heatmap checks the implementation rather than being an independent finding.",
    "- **Efficiency.** Stage 2 only returns packages on the Pareto frontier of the IPP, and with "
    "stated priorities the CaSiNo IPP is exact, so agreements sit on or next to the true frontier "
    "(the seed's figure 7 shows the same for ASTRA's offers).",
    "- **Game family.** A CaSiNo game is fixed by the two priority orders: 36 pairs, and only 6 up to "
    "the items' names (the relative order of the two campers' priorities). Disjoint seeds are "
    "disjoint runs, not unseen kinds of game: the split guards against choosing a value on the "
    "runs it is scored on, not against fitting those 6 structures; the tournament on the shipped "
    "scenarios and the generalisation report (`docs/results/generalisation.md`, generated games) "
    "are where ASTRA meets games the tuning never saw.",
)
"""The fixed part of the discussion (true for every run of this code: all agents are deterministic)."""


CHANGES = (
    "The previous version of this report evaluated on seeds 0-99, the same runs on which ASTRA's "
    "concession cap (one half of the partner's latest step) had been chosen; its ablation kept an "
    "end point of 18 points that nobody tuned (ending at 27 beat ASTRA), it had no tuned "
    'time-based baseline, rates were shown as mean ± t half-width ("0 ± 0" for 0 of 240), and its '
    "comparisons with the seed were not tested. This version:",
    "",
    "1. Splits the seeds: every value chosen by looking at results is chosen on the tuning seeds "
    "(0-99) by the grid search above; the figures are from the evaluation seeds (5000-5099), which "
    "no choice has seen. Both lists are fixed in `parley.experiments.astra.config`.",
    "2. Tunes every P1 system the same way (same seeds, same objective, same partners): ASTRA's "
    "concession cap and deadline exponent, the ablation's end point and the time-based baseline's "
    "exponent; the time-based baseline is new, a strong reference with one parameter.",
    "3. Gives rates Wilson 95% intervals, means Student-t 95% intervals, and compares systems only "
    "pairwise on the same seeds and partner (Wilcoxon signed-rank, exact McNemar), Holm-adjusted; "
    "each of the seed's claims is labelled by its test.",
)
"""What changed against the previous report, and why."""


PREVIOUS_TABLE1: dict[tuple[str, str], tuple[float, float, float]] = {
    ("astra", "base"): (26.65, 0.0, 100.0),
    ("astra", "greedy"): (11.61, 0.0, 100.0),
    ("astra", "fair"): (21.35, 0.0, 100.0),
    ("astra-ablation", "base"): (25.21, 0.0, 100.0),
    ("astra-ablation", "greedy"): (11.61, 0.0, 100.0),
    ("astra-ablation", "fair"): (16.45, 0.0, 100.0),
}
"""The previous version's table 1 (P1's score all, walk-away %, agreement %): seeds 0-99, cap 0.5
(chosen on those runs), ablation ending at 18 points."""


PREVIOUS_TOURNAMENT: dict[str, tuple[float, float]] = {
    "agentk": (0.51, 93),
    "astra": (0.62, 100),
    "atlas3": (0.45, 92),
    "base": (0.81, 100),
    "boulware": (0.62, 100),
    "conceder": (0.84, 100),
    "cuhk": (0.69, 100),
    "fair": (0.65, 90),
    "greedy": (0.47, 75),
    "hardheaded": (0.34, 88),
    "hardliner": (0.22, 58),
    "linear": (0.80, 100),
    "micro": (0.31, 75),
    "random": (0.78, 82),
    "tit-for-tat": (0.62, 100),
}
"""The previous version's tournament (ASTRA's mean normalised utility, agreement %) per opponent
(seeds 0-9, cap 0.5)."""


PAPER_TABLE1: dict[tuple[str, str], tuple[str, str, int]] = {
    ("astra", "base"): ("21.22 vs 12.98", "24.31 vs 14.50", 16),
    ("astra-ablation", "base"): ("20.12 vs 16.36", "20.75 vs 16.83", 4),
    ("astra", "greedy"): ("7.9 vs 6.68", "24.33 vs 16.20", 85),
    ("astra", "fair"): ("18.16 vs 10.8", "25.24 vs 13.92", 35),
}
"""The seed's table 1 (GPT-4o partners): score all, score in agreements, walk-away %."""

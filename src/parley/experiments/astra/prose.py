"""The ASTRA report's fixed text and the reference numbers it compares against: how parley's
ASTRA generalises the seed, the discussion, the changes since the previous report, the seed's
table 1 and the previous version's results. True for every run of this code (all agents are deterministic).
"""

from __future__ import annotations

import math

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
    "concedes at most half of what the partner's latest offer conceded (in ASTRA's points), so "
    "S_max decreases no faster than the partner concedes.",
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
    "Why the pattern differs from the seed's:",
    "",
    "- **Partners.** The seed's partners were GPT-4o prompts; parley's are deterministic rule-based "
    "twins. `greedy` opens at its best package and concedes one small step every three rounds down "
    "to 70% of its range, choosing among equal packages with its own opponent model; some of those "
    "steps give ASTRA less than before, so rule (b) still fires in part of the runs, and the deals "
    "it reaches are mostly ASTRA taking greedy's standing offer late, which is why ASTRA's "
    "agreement score against it stays far below the seed's 24.33.",
    "- **Fair partner.** `fair` re-proposes near-fair packages and never concedes further; ASTRA "
    "now warns instead of walking from its above-BATNA offers and closes on them, so every run "
    "ends in a deal, at a split `fair` judges fair from its own estimate of ASTRA's priorities.",
    "- **Not reproduced.** The seed's RL baseline (Flan-T5 + PPO) has no counterpart: parley ships no "
    "trained models, so that row of the seed's table 1 is left out.",
    "- **Ablation.** The seed's ablation is an LLM proposing offers on its own; ours is a linear "
    "time-based schedule that offers the partner's best package (under the IPP) at each target, and "
    "it shares ASTRA's response modes, so the greedy and fair rows of the two agents coincide (no "
    "proposal of either changes what those partners do). Against `base`, itself a linear "
    "time-based conceder, the concession cap keeps ASTRA's tit-for-tat from giving back each of "
    "`base`'s concessions in full, which is what let the ablation outscore it before.",
    "- **λ heatmap.** The seed's λ comes from an LLM; ours from the deterministic tit-for-tat table "
    "(greedy 0.9/0.8, neutral 0.6/0.5, generous 0.3 for unfair/fair) set to the averages the seed "
    "reports, so the heatmap checks the implementation rather than being an independent finding.",
    "- **Efficiency.** Stage 2 only returns packages on the Pareto frontier of the IPP, and with "
    "stated priorities the CaSiNo IPP is exact, so agreements sit on or next to the true frontier "
    "(the seed's figure 7 shows the same for ASTRA's offers).",
    "- **Still walked away from.** `hardliner` and `boulware` open at their best and do not move for "
    "most of the session; where that leaves ASTRA below its BATNA, rule (a) or (b) ends the "
    "session early, as the seed's rules prescribe (`boulware` would concede in the last rounds). "
    "Where their best offer beats ASTRA's BATNA, ASTRA now takes it instead of walking.",
    "- **Self-play trade-off.** Conceding at most half of the partner's latest step is what beats "
    "the ablation against `base`, but between two ASTRAs on the tight shipped scenarios (`lease`, "
    "`procurement`, `staffing`, `casino_distributive`) the half-steps can fall below the "
    "scenario's smallest real concession, one side stands still while the other still concedes a "
    "little, and the other's rule (b) ends the session. Returning the partner's concessions in "
    "full after two own holds removed most of those walk-aways (92% agreements in self-play) but "
    "gave back the gain against `base` (25.46 vs 25.21 for the ablation); the half-step rule "
    "was kept.",
)
"""The fixed part of the discussion (true for every run of this code: all agents are deterministic)."""


CHANGES = (
    "The previous version (same command, same seeds) read the seed's walk-away rules literally and "
    "let tit-for-tat give back every partner concession in full. Changes, each an interpretation "
    "of the seed documented above:",
    "",
    "1. Rule (a) never walks from a standing offer at or above the BATNA: it warns, concedes within "
    "the floor, and accepts the offer when the warning is ignored or at ASTRA's last move. Before, "
    "ASTRA walked from `fair`'s offers worth ~13 points for a BATNA of 5 in 87% of the runs.",
    "2. Rule (b) fires only when the warning is ignored: the partner's offers after it stay below the "
    "BATNA and do not improve; the warning itself waits for a sub-BATNA offer that does not improve "
    "on the previous one. Before, time-based partners that open at their best were left within a "
    "few rounds while still conceding (no deals against `boulware`, `hardliner`, `tit-for-tat`).",
    "3. Concessions follow the partner's: one proposal concedes at most half of the partner's "
    "latest concession (ASTRA's points), and stance is measured on ASTRA's side. The cause of the "
    "ablation beating ASTRA against `base` was tactic RC at λ = 0.3 answering each of `base`'s "
    "3-5 point steps with a 4-point step of its own, and the keep-alive CSC conceding after two "
    "holds even while `base` was still conceding, so the two met early and low (e.g. 23 points "
    "at round 12, where the ablation held 27 and `base` accepted it a round later). Capping each "
    "concession at the partner's full latest step (instead of half) measured 24.09 on the same "
    "100 runs; half lets ASTRA hold while a time-based partner keeps coming.",
    "4. The keep-alive concession (CSC) is made only when both sides stand still, never right after "
    "a partner concession, and also when the partner has held twice while ASTRA held (so a "
    "mirroring partner gets something to mirror before rule (a) fires).",
    "5. ASTRA accepts an above-BATNA offer on its last move before the round bound (the second-to-"
    "last round when the parties alternate), not only in the final round, which it may never get.",
    "6. Proposal, accept and walk messages are left to `parley.language` (the scenario vocabulary).",
)
"""What changed against the previous report, and why."""


PREVIOUS_TABLE1: dict[tuple[str, str], tuple[float, float, float]] = {
    ("astra", "base"): (23.38, 23.38, 0.0),
    ("astra", "greedy"): (5.00, math.nan, 100.0),
    ("astra", "fair"): (6.03, 12.92, 87.0),
    ("astra-ablation", "base"): (25.21, 25.21, 0.0),
    ("astra-ablation", "greedy"): (5.00, math.nan, 100.0),
    ("astra-ablation", "fair"): (10.31, 15.84, 51.0),
}
"""The previous version's table 1 (P1's score all, score in agreements, walk-away %), 100 runs."""


PREVIOUS_TOURNAMENT: dict[str, tuple[float, float]] = {
    "astra": (0.56, 67),
    "base": (0.70, 78),
    "boulware": (0.14, 0),
    "conceder": (0.72, 80),
    "fair": (0.42, 39),
    "greedy": (0.36, 33),
    "hardliner": (0.14, 0),
    "linear": (0.64, 71),
    "random": (0.82, 89),
    "tit-for-tat": (0.14, 0),
    "lease": (0.48, 6),
    "procurement": (0.48, 9),
    "staffing": (0.51, 13),
}
"""The previous version's tournament (ASTRA's mean normalised utility, agreement %) per opponent,
and for the three shipped scenarios it rarely settled on."""


PAPER_TABLE1: dict[tuple[str, str], tuple[str, str, int]] = {
    ("astra", "base"): ("21.22 vs 12.98", "24.31 vs 14.50", 16),
    ("astra-ablation", "base"): ("20.12 vs 16.36", "20.75 vs 16.83", 4),
    ("astra", "greedy"): ("7.9 vs 6.68", "24.33 vs 16.20", 85),
    ("astra", "fair"): ("18.16 vs 10.8", "25.24 vs 13.92", 35),
}
"""The seed's table 1 (GPT-4o partners): score all, score in agreements, walk-away %."""

"""ASTRA's decision trace: a JSON-ready record of each move and a text rendering for coaching.

The trace is what `AstraNegotiator.explain()` returns; the engine stores it as a private "trace"
event. `format_trace` prints it like the ASTRA block of the seed's example dialogue (table 5).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from parley.protocol.actions import action_to_json
from parley.protocol.view import PartyView

if TYPE_CHECKING:
    from parley.agents.astra.coalition import PartnerEstimate
    from parley.agents.astra.config import AstraConfig
    from parley.agents.astra.decision import Decision, Signals
    from parley.agents.astra.opponent import ConsistencyFinding
    from parley.agents.astra.own import OwnSide

TRACE_KIND = "astra"
"""Value of the trace's "agent" field."""


def round_floats(value: Any, digits: int = 4) -> Any:
    """A copy of a JSON-like value with floats rounded (stable, readable transcripts)."""
    if isinstance(value, float):
        return round(value, digits) if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): round_floats(v, digits) for k, v in value.items()}  # type: ignore[misc]
    if isinstance(value, list | tuple):
        return [round_floats(v, digits) for v in value]  # type: ignore[misc]
    return value


def build_trace(
    view: PartyView,
    own: OwnSide,
    model: PartnerEstimate,
    findings: Sequence[ConsistencyFinding],
    signals: Signals,
    decision: Decision,
    config: AstraConfig,
) -> dict[str, Any]:
    """The trace of one move."""
    space = view.space
    trace: dict[str, Any] = {
        "agent": TRACE_KIND if config.use_stages else "astra-ablation",
        "round": view.round,
        "phase": view.phase.value,
        "mode": decision.mode,
        "action": action_to_json(decision.action),
        "reasons": [reason.text for reason in decision.reasons],
        "fairness": signals.fairness.value,
        "stance": signals.stance.value,
        "partner_offer": None
        if signals.offer_agent_points is None
        else {"agent_points": signals.offer_agent_points, "partner_points": signals.offer_partner_points},
        "reservation_points": own.reservation_points,
        "ipp": model.to_json(),
        "consistency": [{"check": f.check, "detail": f.detail} for f in findings],
        "stage2": decision.stage2,
        "tactic": decision.tactic,
        "weights": {"alpha": config.alpha, "beta": config.beta},
        "candidates": [
            {
                "package": space.from_indices(c.row),
                "agent_points": c.agent_points,
                "partner_points": c.partner_points,
                "TS": c.total_score,
                "SI": c.strategic_intermediary,
                "PAP": c.acceptance,
                "SA": c.strategy_score,
                "final": c.final,
            }
            for c in decision.candidates
        ],
        "chosen": None
        if decision.chosen is None
        else {
            "package": space.from_indices(decision.chosen.row),
            "agent_points": decision.chosen.agent_points,
            "partner_points": decision.chosen.partner_points,
        },
    }
    return trace


def _package_text(package: Mapping[str, Any]) -> str:
    return " ".join(f"{name}={value}" for name, value in package.items())


def format_trace(trace: Mapping[str, Any]) -> str:
    """Render one decision trace as text, like the ASTRA block of the seed's table 5.

    Args:
        trace: A trace as returned by `AstraNegotiator.explain()` (or stored in a "trace" event).
    """
    lines = [f"[ASTRA round {trace.get('round')}: {trace.get('mode')}]"]
    partner_offer = trace.get("partner_offer")
    signal = f">> Partner: fairness={trace.get('fairness')}, stance={trace.get('stance')}"
    if partner_offer:
        signal += (
            f" (its last offer: me {float(partner_offer['agent_points']):.1f},"
            f" it {float(partner_offer['partner_points']):.1f} points est.)"
        )
    lines.append(signal)
    ipp = trace.get("ipp") or {}
    if ipp:
        lines.append(f">> Partner priorities ({ipp.get('source')}): {' > '.join(ipp.get('order', []))}")
    for finding in trace.get("consistency") or []:
        lines.append(f">> Inconsistency: {finding['detail']}")
    stage2 = trace.get("stage2")
    if stage2:
        lines.append(
            f">> Optimiser parameters: S_max={float(stage2['s_max']):.1f},"
            f" lambda={float(stage2['lambda']):.1f} ({stage2.get('method')})"
        )
    tactic = trace.get("tactic")
    if tactic:
        lines.append(f">> Selected tactic: {tactic['name']} ({tactic['strategy']}): {tactic['reason']}")
    candidates = trace.get("candidates") or []
    if candidates:
        lines.append(">> Offer candidates:")
        for i, c in enumerate(candidates):
            lines.append(
                f"   Offer ({i}): ({float(c['agent_points']):.0f}: {_package_text(c['package'])})"
                f" | final {float(c['final']):.2f} | PAP {float(c['PAP']):.2f}"
                f" (TS {float(c['TS']):.2f}, SI {float(c['SI']):.2f}) | SA {float(c['SA']):.2f}"
            )
    chosen = trace.get("chosen")
    if chosen and trace.get("mode") == "propose":
        lines.append(
            f">> Selected offer: ({float(chosen['agent_points']):.0f}: {_package_text(chosen['package'])})"
        )
    for reason in trace.get("reasons") or []:
        lines.append(f"   - {reason}")
    return "\n".join(lines)

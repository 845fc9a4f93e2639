"""A delegate's stored snapshot: everything needed to resume a session after a restart (the
trajectory is stored separately), and putting it back into a freshly built delegate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parley.governance.critic import Guidance
from parley.governance.delegate.core import DelegateCore
from parley.governance.delegate.records import DelegateOptions, Memory
from parley.governance.drafting import TemplateDrafter
from parley.governance.escalation import EscalationRequest
from parley.governance.machine import State
from parley.governance.moderator import Label
from parley.governance.tci import TaskCompletenessIndex
from parley.protocol.events import Event, Trajectory


def snapshot(core: DelegateCore) -> dict[str, Any]:
    """The session's state as JSON (the inverse of `options_from_json` plus `restore`)."""
    memory = core.memory
    rng = core.drafter.rng_state() if isinstance(core.drafter, TemplateDrafter) else None
    return {
        "session_id": core.session_id,
        "state": core.state.value,
        "turn": core.turn,
        "seed": core.seed,
        "options": {
            "use_stcc": core.options.use_stcc,
            "preflight": core.options.preflight,
            "slip_rate": core.options.slip_rate,
            "reply_timeout": core.options.reply_timeout,
            "strategy": core.options.strategy,
        },
        "tci": core.tci.to_json(),
        "transcript": [list(m) for m in core.transcript],
        "asked": memory.asked,
        "silent": memory.silent,
        "no_info": memory.no_info,
        "recap_sent": memory.recap_sent,
        "adversarial": memory.adversarial,
        "adversarial_since_decision": memory.adversarial_since_decision,
        "flags": list(memory.flags),
        "conflicts": memory.conflicts,
        "conflict_escalated": memory.conflict_escalated,
        "proposal": memory.proposal,
        "last_ask": memory.last_ask,
        "limits": {k: list(v) for k, v in memory.limits.items()},
        "human": [g.to_json() for g in memory.human],
        "muted": sorted(memory.muted),
        "pending": memory.pending.to_json() if memory.pending else None,
        "origin": memory.origin.value if memory.origin else None,
        "held": memory.held,
        "terms": core.terms,
        "reconfirming": memory.reconfirming,
        "last_label": memory.last_label.value,
        "escalations": memory.escalations,
        "paused_this_turn": memory.paused_this_turn,
        "reversals": core.reversals,
        "rng": rng,
        "flushed": core.flushed,
    }


def options_from_json(raw: Mapping[str, Any]) -> DelegateOptions:
    """The options stored in a snapshot (a session stored before strategies were stored: legacy)."""
    return DelegateOptions(
        bool(raw["use_stcc"]),
        bool(raw["preflight"]),
        float(raw["slip_rate"]),
        raw.get("reply_timeout"),
        str(raw.get("strategy", "legacy")),
    )


def restore(core: DelegateCore, data: Mapping[str, Any], events: Sequence[Event]) -> None:
    """Put a stored snapshot and its trajectory into a delegate built with the stored options."""
    core.machine.state = State(data["state"])
    core.turn = int(data["turn"])
    core.tci = TaskCompletenessIndex.from_json(core.config, data["tci"])
    core.trajectory = Trajectory(events)
    core.flushed = len(events)
    core.transcript = [(str(m[0]), str(m[1])) for m in data["transcript"]]
    core.memory = _memory_from_json(data)
    core.terms = dict(data["terms"])
    core.reversals = int(data["reversals"])
    if data.get("rng") and isinstance(core.drafter, TemplateDrafter):
        core.drafter.restore_rng(data["rng"])


def _memory_from_json(data: Mapping[str, Any]) -> Memory:
    return Memory(
        asked=dict(data["asked"]),
        silent=int(data["silent"]),
        no_info=int(data["no_info"]),
        recap_sent=bool(data["recap_sent"]),
        adversarial=int(data["adversarial"]),
        adversarial_since_decision=int(data.get("adversarial_since_decision", data["adversarial"])),
        flags=[str(f) for f in data.get("flags", [])],
        conflicts=int(data["conflicts"]),
        conflict_escalated=bool(data["conflict_escalated"]),
        proposal=data["proposal"],
        last_ask=data["last_ask"],
        limits={k: (v[0], v[1]) for k, v in data["limits"].items()},
        human=[Guidance.from_json(g) for g in data["human"]],
        muted=set(data["muted"]),
        pending=EscalationRequest.from_json(data["pending"]) if data["pending"] else None,
        origin=State(data["origin"]) if data["origin"] else None,
        held=data["held"],
        reconfirming=data["reconfirming"],
        last_label=Label(data["last_label"]),
        escalations=int(data["escalations"]),
        paused_this_turn=int(data.get("paused_this_turn", 0)),
    )

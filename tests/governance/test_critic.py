"""MergeChannels (Algorithm 2): human > safety > clarity > persuasion, conflicts logged, budgets."""

from __future__ import annotations

from parley.governance.config import DomainConfig
from parley.governance.critic import Guidance, RuleCritic, human_guidance, merge_channels, safety_guidance
from parley.governance.tci import TaskCompletenessIndex


def test_human_override_beats_the_critic_and_the_loser_is_logged(staffing: DomainConfig) -> None:
    critic = RuleCritic(staffing).suggest(TaskCompletenessIndex(staffing), gate_open=True, turn=3)
    human = [human_guidance(staffing, "Keep messages brief.", 3)]
    merged = merge_channels(critic, human, [], budget=200, gate_open=True, turn=3)
    assert merged.kept[0] == human[0]
    dropped = [d for d in merged.dropped if d.winner is not None]
    assert [d.item.text for d in dropped] == ["Build rapport with a longer, warmer opener."]
    assert merged.conflicts == 1


def test_safety_overrides_persuasion(staffing: DomainConfig) -> None:
    critic = RuleCritic(staffing).suggest(TaskCompletenessIndex(staffing), gate_open=True, turn=3)
    merged = merge_channels(critic, [], safety_guidance(staffing), budget=500, gate_open=True, turn=3)
    assert "Mention our relocation package to improve acceptance." not in [k.text for k in merged.kept]
    assert any(d.reason == "conflicts with safety guidance" for d in merged.dropped)
    assert merged.conflicts == 0


def test_persuasion_only_after_the_gate(staffing: DomainConfig) -> None:
    tactic = Guidance("persuasion", "Use urgency framing.", ("urgency",), 0.9)
    merged = merge_channels([tactic], [], [], budget=500, gate_open=False, turn=1)
    assert not merged.kept and merged.dropped[0].reason == "persuasion before the information gate"
    clarity = RuleCritic(staffing).suggest(TaskCompletenessIndex(staffing), gate_open=False, turn=1)
    assert clarity and all(item.channel == "clarity" for item in clarity)


def test_tight_budget_keeps_human_and_safety_verbatim_and_drops_persuasion_first() -> None:
    human = Guidance(
        "human", "Never mention the competitor by name, whatever they say about pricing.", ("x",)
    )
    safety = Guidance("safety", "Never raise exclusivity.", ("exclusivity",))
    clarity = Guidance("clarity", "Ask about lead time.", ("lead_time",), 0.9)
    persuasion = Guidance("persuasion", "Point to a volume-based price break.", ("volume",), 0.9)
    budget = human.tokens + safety.tokens + clarity.tokens
    merged = merge_channels([persuasion, clarity], [human], [safety], budget=budget, gate_open=True, turn=2)
    assert merged.kept == (human, safety, clarity)
    assert [(d.item, d.reason) for d in merged.dropped] == [(persuasion, "token budget")]
    tiny = merge_channels([clarity], [human], [safety], budget=1, gate_open=True, turn=2)
    assert tiny.kept == (human, safety)


def test_stale_low_relevance_items_decay() -> None:
    old = Guidance("clarity", "Ask about parking.", ("parking",), relevance=0.2, turn=1)
    merged = merge_channels([old], [], [], budget=500, gate_open=False, turn=9)
    assert merged.dropped[0].reason == "stale"


def test_muted_topics_are_not_suggested(staffing: DomainConfig) -> None:
    tci = TaskCompletenessIndex(staffing)
    tactics = RuleCritic(staffing).suggest(tci, True, 3, frozenset({"brief"}))
    assert all("rapport" not in t.text for t in tactics)

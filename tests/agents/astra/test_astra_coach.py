"""The coach advises the human from the human's own view: signals, a recommended offer, accept/walk."""

from __future__ import annotations

from parley.agents.astra import Advice, AstraConfig, AstraNegotiator, Coach, format_advice
from parley.protocol.actions import Action, Propose, Say
from parley.protocol.rules import Rules
from parley.protocol.session import Session
from parley.protocol.view import PartyView
from parley.testing import ScriptedNegotiator
from parley.testing.scenarios import casino_like_scenario


def _views(human_moves: list[object]) -> tuple[list[PartyView], list[str]]:
    """Play a scripted "human" (bob) against ASTRA (alice); return bob's views and ASTRA's move kinds."""
    scenario = casino_like_scenario(rules=Rules(max_rounds=12, on_stagnation="continue"))
    human = ScriptedNegotiator(human_moves)  # type: ignore[arg-type]
    session = Session(
        scenario.space, scenario.setups(), {"alice": AstraNegotiator("alice"), "bob": human}, scenario.rules
    )
    result = session.run()
    kinds = [str(e.data["kind"]) for e in result.trajectory if e.kind == "action" and e.party == "alice"]
    return human.views, kinds


def test_advice_uses_only_the_humans_view_and_recommends_an_offer() -> None:
    views, _ = _views(
        [Say("water first", ("water", "food", "firewood")), Propose({"food": 0, "water": 0, "firewood": 0})]
    )
    view = views[-1]
    advice = Coach().advise(view)
    assert advice.action in {"propose", "warn", "accept", "walk", "ask"}
    assert advice.fairness in {"fair", "unfair", "unknown"}
    assert advice.trace["reservation_points"] == 5.0  # the human's own BATNA, never ASTRA's
    if advice.action == "propose":
        assert advice.offer is not None and advice.offer_points is not None
        bob = casino_like_scenario().party("bob").utility
        assert bob.evaluate(advice.offer) >= bob.reservation_value
    text = format_advice(advice)
    assert text.startswith("Coach: the partner")


def test_coach_warns_once_and_never_advises_walking_while_a_deal_is_reachable() -> None:
    scenario = casino_like_scenario(rules=Rules(max_rounds=12, on_stagnation="continue"))
    coach, asker = Coach(AstraConfig(ask_preferences=False)), Coach()
    advice: list[tuple[Advice, Advice]] = []

    def human_step(view: PartyView) -> Action:  # advise live: a view's record keeps growing
        if view.offer is not None:
            advice.append((coach.advise(view), asker.advise(view)))
        return Say("hm")

    # alice keeps everything: bob gets 0 points, below his BATNA of 5, and alice never concedes
    greedy = ScriptedNegotiator([Propose({"food": 3, "water": 3, "firewood": 3})] * 6)
    human = ScriptedNegotiator([human_step] * 8)
    Session(scenario.space, scenario.setups(), {"alice": greedy, "bob": human}, scenario.rules).run()
    assert advice[0][1].action == "ask"  # nothing known about alice yet: ask first
    assert advice[0][0].action == "propose"  # an opening anchor below the BATNA draws no threat yet
    first = next(mine for mine, _ in advice if mine.action != "propose")  # a second, no better offer
    assert first.action == "warn" and not first.accept and not first.walk
    assert "Warn them" in format_advice(first)
    assert first.partner_offer_points is not None and first.partner_offer_points[0] == 0.0
    # a walk is worth the BATNA, and so is the round bound: the coach advises a final offer instead
    assert not any(mine.walk for mine, _ in advice)
    assert advice[-1][0].action == "propose" and advice[-1][0].offer is not None

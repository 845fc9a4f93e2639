"""Property tests: whatever the model replies, the stakeholder moves legally, above its BATNA, leak-free."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from llm_market import market_parties
from test_llm_negotiator import buyer_view

from parley.agents import create
from parley.llm import EventLoopThread, LLMNegotiator, LLMSession, PrivateNumbers, check_message
from parley.protocol import Accept, Propose
from parley.protocol.engine import check_move
from parley.testing import FakeLLM

OPTION = st.one_of(
    st.sampled_from(
        [100, 200, 300, 400, 500, "slow", "standard", "fast", 0, 1, 2, "FAST", "250", "teleport"]
    ),
    st.integers(-5, 900),
    st.text(max_size=6),
)
PACKAGE = st.dictionaries(
    st.sampled_from(["price", "delivery", "warranty", "Price", "colour"]), OPTION, max_size=4
)
MESSAGE = st.sampled_from(
    [
        "",
        "Deal?",
        "Our BATNA is 0.35.",
        "Price is 60% of it for us.",
        "We can pay 300.",
        "thirty-five percent",
    ]
)
REPLY = st.one_of(
    st.fixed_dictionaries(
        {
            "move": st.sampled_from(["propose", "accept", "reject", "say", "walk", "haggle"]),
            "package": st.one_of(st.none(), PACKAGE),
            "message": MESSAGE,
        }
    ).map(json.dumps),
    st.text(max_size=40),
)
OFFERS = st.sampled_from(
    [
        None,
        {"price": 500, "delivery": "slow", "warranty": 0},
        {"price": 200, "delivery": "fast", "warranty": 2},
    ]
)
BRIDGE = EventLoopThread("parley-llm-property")  # closed by the last test in this module
PRIVATE = PrivateNumbers.of(market_parties()[0].utility)


@settings(max_examples=60)
@given(replies=st.lists(REPLY, min_size=2, max_size=2), offer=OFFERS)
def test_any_reply_gives_a_safe_legal_move(replies: list[str], offer: dict[str, Any] | None) -> None:
    view = buyer_view("respond" if offer else "propose", offer)
    negotiator = LLMNegotiator(
        "buyer", LLMSession(FakeLLM(replies), bridge=BRIDGE), create("boulware", party="buyer", seed=0)
    )
    action = negotiator.act(view)
    check_move(view.space, view.table, "buyer", view.phase, action)  # raises if illegal
    if isinstance(action, Accept):
        assert view.offer is not None and view.utility.is_acceptable(view.offer)
    if isinstance(action, Propose):
        assert view.utility.is_acceptable(action.package)
    assert not check_message(action.message, PRIVATE).leaked


@given(value=st.floats(0.05, 0.95).map(lambda v: round(v, 2)))
def test_stated_reservation_is_always_caught(value: float) -> None:
    utility = market_parties()[0].utility.with_reservation(value)
    private = PrivateNumbers.of(utility)
    for text in (f"We will not go under {value}.", f"Anything below {round(value * 100)}% is out."):
        assert check_message(text, private).leaked


def test_zz_close_bridge() -> None:
    BRIDGE.close()

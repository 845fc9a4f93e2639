"""Text that is not well-formed Unicode (UTF-16 surrogates, as a JSON or YAML escape decodes them)
never stops a session: the delegate joins surrogate pairs, replaces lone ones with U+FFFD, says so in
the audit log, and a draft holding U+FFFD goes to the principal (an inbound message is read as it is).

Found by the eleventh blind round: a phrase bank written with "\\ud83d\\ude05" escapes (an emoji as a
surrogate pair) crashed the session when the audit log encoded the draft.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.governance.config import load_config
from parley.governance.counterparties import PERSONAS, SimulatedCounterparty
from parley.governance.drafting import Draft, Intent, TemplateDrafter
from parley.governance.escalation import PolicyPrincipal
from parley.governance.normalize import normalize, well_formed
from parley.governance.preflight import NOT_TEXT, preflight
from parley.governance.session import DelegateRoles, run_session
from parley.governance.store import SessionStore

from .linear_time import assert_grows_linearly

HIGH, LOW = "\ud83d", "\ude05"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text", "plain text"),
        (f"it is {HIGH}{LOW} done", "it is \U0001f605 done"),
        (f"lone high {HIGH} here", "lone high \ufffd here"),
        (f"lone low {LOW} here", "lone low \ufffd here"),
        (f"reversed {LOW}{HIGH}", "reversed \ufffd\ufffd"),
        (f"{HIGH}", "\ufffd"),
        ("", ""),
    ],
)
def test_surrogates_are_joined_or_replaced(text: str, expected: str) -> None:
    assert well_formed(text) == expected
    well_formed(text).encode("utf-8")  # storable


@given(st.text())
def test_well_formed_text_is_unchanged(text: str) -> None:
    # (hypothesis draws no surrogates in st.text(): every such text is well formed already)
    assert well_formed(text) == text


@given(st.lists(st.sampled_from(["a", " ", HIGH, LOW, "\U0001f605", "\u200b"]), max_size=40))
def test_the_result_always_encodes(parts: list[str]) -> None:
    well_formed("".join(parts)).encode("utf-8")


def test_a_draft_holding_what_is_not_text_goes_to_the_principal() -> None:
    config = load_config("staffing")
    for text in ("Thanks for your note \ufffd, talk soon.", f"Thanks for your note {HIGH}, talk soon."):
        result = preflight(text, config)
        assert result.requires_approval, text
    assert not preflight("Thanks for your note \U0001f605, talk soon.", config).requires_approval
    assert normalize("a \ufffd b").has_non_text and not normalize("a \U0001f605 b").has_non_text
    assert NOT_TEXT in preflight(f"Thanks {HIGH}", config).reasons


def test_well_formed_is_linear() -> None:
    assert_grows_linearly(well_formed, HIGH + "a" + LOW + HIGH, 125_000, 4)  # growth, not speed


class SurrogateDrafter:
    """Template drafts with a lone surrogate and an escaped emoji appended to every draft but the
    compliant re-send, the closing wording of approved terms included (a plugged-in drafter may)."""

    def __init__(self, drafter: TemplateDrafter) -> None:
        self._inner = drafter
        self.broken = 0
        self.broken_approved = 0

    def draft(self, intent: Intent, *, injection: bool = False) -> Draft:
        clean = self._inner.draft(intent, injection=injection)
        if intent.verbatim:
            return clean
        self.broken += 1
        self.broken_approved += intent.approved
        return Draft(f"{clean.text} {HIGH}{LOW} {HIGH}", clean.slips)


class SurrogateCounterparty:
    """A simulated counterparty whose every reply ends with a lone low surrogate."""

    def __init__(self, inner: SimulatedCounterparty) -> None:
        self._inner = inner
        self.name = inner.name

    def respond(self, message: str | None) -> str | None:
        reply = self._inner.respond(message)
        return None if reply is None else f"{reply} {LOW}"

    def to_json(self) -> dict[str, Any]:
        return self._inner.to_json()


# Seeded sessions: the staffing one ends in an agreement the principal approves, the leasing one in none.
@pytest.mark.parametrize(("domain", "agrees"), [("staffing", True), ("leasing", False)])
def test_a_session_with_surrogates_runs_to_its_end_and_says_what_it_changed(
    domain: str, agrees: bool
) -> None:
    config = load_config(domain)
    drafter = SurrogateDrafter(TemplateDrafter(config))
    store = SessionStore()
    outcome = run_session(
        config,
        SurrogateCounterparty(SimulatedCounterparty(config, PERSONAS[0], 3)),
        PolicyPrincipal(default="A", name="policy"),
        store,
        config_source=domain,
        seed=3,
        roles=DelegateRoles(drafter=drafter),
    )
    events = store.load_events(outcome.session_id)
    store.close()
    assert drafter.broken > 0
    safety = [e.data for e in events if e.kind == "safety_event"]
    made = [d for d in safety if d.get("type") == "text_made_well_formed"]
    assert {d["where"] for d in made} == {"draft", "counterparty_message"}
    sent = [str(e.data["text"]) for e in events if e.kind == "delegate_message"]
    assert sent and all(HIGH not in t and LOW not in t for t in sent)
    assert not any("\ufffd" in t for t in sent)  # a draft with U+FFFD never went out as drafted
    # The approved closing wording, broken by the drafter, went out as the template's, and the log says so.
    assert (drafter.broken_approved > 0) == agrees
    assert any(d.get("type") == "approved_close_reworded" for d in safety) == agrees
    for event in events:
        for value in event.data.values():
            if isinstance(value, str):
                value.encode("utf-8")

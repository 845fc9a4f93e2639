"""A person playing one party in the terminal: free text in, legal moves out.

Everything it prints (packages, the person's own words echoed back, advice) is plain text, never
rich markup: an option called "[red]" or a message with "[/]" is shown as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console

from parley.language import Intent, Vocabulary, clarify, describe_package, parse, to_action
from parley.protocol.actions import Accept, Action, Propose, Say, Walk
from parley.protocol.view import PartyView

Ask = Callable[[str], str]
AdviceHook = Callable[[PartyView], str | None]

HELP = (
    "Type what you would say, for example: 'I'll take 2 firewood and 1 water, you get the rest', "
    "'my top priority is water', 'what matters most to you?', 'deal', 'no thanks' or 'I walk away'; "
    "start with 'say:' to send any other message as it is. "
    "Commands: 'help', 'offer' (show the offer on the table), 'quit' (walk away)."
)


class HumanNegotiator:
    """Asks a person for each move and parses the answer with the scenario's vocabulary.

    Args:
        vocabulary: The scenario's vocabulary for parsing and describing packages.
        console: Where to print.
        ask: Reads one line of input given a prompt (injected so tests can script it).
        advise: Optional coaching hook called before each move; its text is shown first.
        max_attempts: Re-asks before giving up and walking away (protects scripted input).
    """

    def __init__(
        self,
        vocabulary: Vocabulary,
        console: Console,
        ask: Ask,
        *,
        advise: AdviceHook | None = None,
        max_attempts: int = 20,
    ) -> None:
        self._vocabulary = vocabulary
        self._console = console
        self._ask = ask
        self._advise = advise
        self._max_attempts = max_attempts

    def act(self, view: PartyView) -> Action:
        self._show_situation(view)
        for _ in range(self._max_attempts):
            try:
                text = self._ask(f"[{view.party}] your move").strip()
            except (EOFError, KeyboardInterrupt):
                return Walk("the person left the session")
            action = self._interpret(text, view)
            if action is not None:
                return action
        return Walk("no understandable move after several attempts")

    def _show_situation(self, view: PartyView) -> None:
        if self._advise is not None:
            advice = self._advise(view)
            if advice:
                self._console.print(advice, markup=False, highlight=False)
        offer = view.offer
        if offer is not None:
            worth = view.utility.evaluate(offer)
            self._console.print(
                f"On the table: {describe_package(offer, self._vocabulary, speaker=view.party)} "
                f"— worth {worth:g} to you (walking away is worth {view.reservation_value:g}).",
                markup=False,
                highlight=False,
            )

    def _confirm_below_batna(self, view: PartyView) -> bool:
        assert view.offer is not None
        worth = view.utility.evaluate(view.offer)
        if worth >= view.reservation_value:
            return True
        answer = self._ask(
            f"That deal is worth {worth:g} to you, less than walking away ({view.reservation_value:g}). "
            "Accept anyway? (yes/no)"
        )
        return answer.strip().lower() in ("y", "yes")

    def _interpret(self, text: str, view: PartyView) -> Action | None:
        lowered = text.lower()
        if lowered in ("help", "?"):
            self._console.print(HELP, markup=False, highlight=False)
            return None
        if lowered == "offer":
            offer = view.offer
            self._console.print(
                describe_package(offer, self._vocabulary, speaker=view.party)
                if offer
                else "Nothing from the other side is on the table yet.",
                markup=False,
                highlight=False,
            )
            return None
        if lowered in ("quit", "exit"):
            return Walk("the person chose to leave")
        if lowered.startswith("say:"):
            return Say(text[4:].strip()) if text[4:].strip() else None
        parsed = parse(
            text, self._vocabulary, speaker=view.party, context=view.table.package if view.table else None
        )
        action = to_action(parsed)
        if parsed.intent is Intent.OTHER:  # chit-chat is allowed, but only on purpose
            self._console.print(
                "I couldn't find a move in that. Rephrase it, or start with 'say:' to send it as "
                "a plain message. Type 'help' for examples.",
                markup=False,
                highlight=False,
            )
            return None
        if action is not None and action.kind in ("accept", "reject") and view.offer is None:
            self._console.print(
                "There is no offer from the other side to answer yet — make one?",
                markup=False,
                highlight=False,
            )
            return None
        if action is None:
            self._console.print(clarify(parsed, self._vocabulary), markup=False, highlight=False)
            return None
        if isinstance(action, Accept) and view.offer is not None and not self._confirm_below_batna(view):
            return None
        if isinstance(action, Propose):
            package = describe_package(action.package, self._vocabulary, speaker=view.party)
            self._console.print(f"(understood: you propose {package})", markup=False, highlight=False)
        return action

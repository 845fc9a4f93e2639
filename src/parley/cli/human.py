"""A person playing one party: what they are told, in one voice, and their free text read as moves.

The helpers here are shared by the terminal (`HumanNegotiator`) and the web console's play page:
the person's brief with their point values, packages described from their side ("you get …;
they get …"), why a message could not be read as a move, and the ASTRA coach's advice in plain
words (`parley.cli.coaching`).

Everything printed (packages, the person's own words echoed back, advice) is plain text, never
rich markup: an option called "[red]" or a message with "[/]" is shown as it is.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from rich.console import Console

from parley.domain.issues import Value
from parley.domain.utility import LinearAdditiveUtility, RankedPreferenceUtility, UtilityFunction
from parley.governance.normalize import normalize
from parley.language import Intent, ParsedMessage, Vocabulary, parse, to_action
from parley.language.parse import MAX_TEXT_CHARS
from parley.language.render import describe_term, format_value, singular
from parley.protocol.actions import Accept, Action, Propose, Say, Walk
from parley.protocol.view import PartyView

if TYPE_CHECKING:
    pass

Ask = Callable[[str], str]
AdviceHook = Callable[[PartyView], str | None]

HELP = (
    "Type what you would say, for example: 'I'll take 2 firewood and 1 water, you get the rest', "
    "'all the food for me, everything else for you', 'my top priority is water', "
    "'what matters most to you?', 'deal', 'no thanks' or 'I walk away'; "
    "start with 'say:' to send any other message as it is. "
    "Commands: 'help', 'offer' (show the offer on the table), 'my priorities' (your brief and "
    "points again), 'quit' (walk away)."
)
BRIEF_COMMANDS = frozenset({"my priorities", "priorities", "brief", "my brief", "points", "my points"})
_MAX_LISTED_OPTIONS = 8
"""A terms issue with more options than this shows its best and worst only."""


def number(value: float) -> str:
    """A utility as people read it: at most two decimals, no trailing zeros ("5", "4.5", "0.33")."""
    rounded = round(float(value), 2)
    return f"{rounded:g}" if abs(rounded) < 1e15 else f"{rounded:.3g}"


# -- the person's own side: brief and points ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PointRow:
    """What one issue is worth to the person.

    Attributes:
        issue: The issue's label ("firewood", "salary").
        summary: One line ("5 points for each package you get", "net-30: 4 · net-60: 2").
        options: (what the person gets or agrees to, points) per option, in option order.
    """

    issue: str
    summary: str
    options: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class Brief:
    """A party's private brief and point values, as shown to the person playing it.

    Attributes:
        party: The party's name.
        role: Its role in the scenario ("camper", "tenant"), or "".
        text: The brief from the scenario (its private instructions), or "".
        rows: Per issue, what it is worth (empty when the utility is not a sum over issues).
        walk_away: The party's walk-away value (BATNA).
        best: The most any package can be worth to it.
        worst: The least any package can be worth to it.
        note: A sentence for utilities that are not a sum over issues, else "".
    """

    party: str
    role: str
    text: str
    rows: tuple[PointRow, ...]
    walk_away: float
    best: float
    worst: float
    note: str = ""


def additive_of(utility: UtilityFunction) -> LinearAdditiveUtility | None:
    """The utility as a sum over issues (ranked preferences become their linear form), or None."""
    if isinstance(utility, LinearAdditiveUtility):
        return utility
    if isinstance(utility, RankedPreferenceUtility):
        return utility.linear
    return None


def _division_row(issue: int, points: Sequence[float], vocabulary: Vocabulary, party: str) -> PointRow:
    terms = vocabulary.issues[issue]
    assert terms.share is not None
    values = vocabulary.space.issues[issue].values
    by_count = {vocabulary.count_for(terms, value, party): float(points[i]) for i, value in enumerate(values)}
    counts = sorted(by_count)
    options = tuple((f"you get {count}", by_count[count]) for count in counts)
    steps = {round(by_count[b] - by_count[a], 9) for a, b in itertools.pairwise(counts)}
    unit = singular(terms.label)
    if len(steps) == 1 and counts == list(range(counts[0], counts[-1] + 1)):
        step = steps.pop()
        each = f"{singular(terms.unit_label)} of {terms.label}" if terms.unit_label else unit
        summary = f"{number(step)} points for each {each} you get (of {terms.share.total})"
    else:
        summary = " · ".join(
            f"{count} {unit if count == 1 else terms.label}: {number(by_count[count])}" for count in counts
        )
    return PointRow(terms.label, summary, options)


def _terms_row(issue: int, points: Sequence[float], vocabulary: Vocabulary) -> PointRow:
    terms = vocabulary.issues[issue]
    values = vocabulary.space.issues[issue].values
    options = tuple((format_value(terms, value), float(points[i])) for i, value in enumerate(values))
    if len(options) <= _MAX_LISTED_OPTIONS:
        summary = " · ".join(f"{label}: {number(worth)}" for label, worth in options)
    else:
        best = max(options, key=lambda option: option[1])
        worst = min(options, key=lambda option: option[1])
        summary = (
            f"best {best[0]} ({number(best[1])}), worst {worst[0]} ({number(worst[1])}); "
            f"{len(options)} options"
        )
    return PointRow(terms.label, summary, options)


def brief_of(
    party: str, persona: Mapping[str, Any], utility: UtilityFunction, vocabulary: Vocabulary
) -> Brief:
    """The brief a person playing party is shown: the scenario's text and what each issue is worth."""
    low, high = utility.bounds()
    additive = additive_of(utility)
    rows: list[PointRow] = []
    note = ""
    if additive is not None:
        for index, table in enumerate(additive.weighted_tables):
            points = [float(p) for p in table]
            if vocabulary.issues[index].share is not None:
                rows.append(_division_row(index, points, vocabulary, party))
            else:
                rows.append(_terms_row(index, points, vocabulary))
        if additive.offset:
            note = f"Every package also carries a base of {number(additive.offset)} points."
    else:
        note = (
            "Your points depend on the whole package, not issue by issue: each offer shows its worth to you."
        )
    return Brief(
        party=party,
        role=str(persona.get("role") or ""),
        text=str(persona.get("brief") or "").strip(),
        rows=tuple(rows),
        walk_away=float(utility.reservation_value),
        best=float(high),
        worst=float(low),
        note=note,
    )


def brief_for_view(view: PartyView, vocabulary: Vocabulary) -> Brief:
    """The brief of the party whose view this is."""
    return brief_of(view.party, view.persona, view.utility, vocabulary)


def brief_lines(brief: Brief) -> list[str]:
    """The brief as lines of plain text for a terminal."""
    role = f" ({brief.role})" if brief.role and brief.role != brief.party else ""
    lines = [f"You play {brief.party}{role}."]
    if brief.text:
        lines.append("Your brief: " + " ".join(brief.text.split()))
    if brief.rows:
        lines.append("What each issue is worth to you:")
        lines.extend(f"  {row.issue}: {row.summary}" for row in brief.rows)
    if brief.note:
        lines.append(brief.note)
    lines.append(
        f"Walking away is worth {number(brief.walk_away)} to you; the best possible deal is worth "
        f"{number(brief.best)}. Type 'my priorities' to see this again."
    )
    return lines


# -- packages in one voice -----------------------------------------------------------------------------


def _items(counts: Sequence[tuple[int, str]]) -> str:
    shown = [f"{count} {singular(label) if count == 1 else label}" for count, label in counts if count > 0]
    return join_words(shown) if shown else "nothing"


def join_words(items: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def package_text(package: Mapping[str, Value], vocabulary: Vocabulary, party: str) -> str:
    """A package from party's side, in the second person: "you get 1 food; they get 2 food and 3 water".

    Raises:
        ValueError: the package is not an outcome of the space.
    """
    vocabulary.space.validate(package)
    parts: list[str] = []
    divided = vocabulary.division_issues
    if divided:
        others = "they" if len(vocabulary.parties) == 2 else "the others"
        mine = [(vocabulary.count_for(t, package[t.name], party), t.label) for t in divided]
        theirs = [
            (t.share.total - count, label) for (count, label), t in zip(mine, divided, strict=True) if t.share
        ]
        parts.append(f"you get {_items(mine)}; {others} get {_items(theirs)}")
    terms = [describe_term(t, package[t.name]) for t in vocabulary.terms_issues]
    if terms:
        parts.append(join_words(terms))
    return "; ".join(parts)


# -- reading free text -----------------------------------------------------------------------------------


def _partial_text(partial: Mapping[str, Value], vocabulary: Vocabulary, party: str) -> str:
    counts: list[str] = []
    said: list[str] = []
    for name, value in partial.items():
        terms = vocabulary.terms(name)
        if terms.share is not None:
            count = vocabulary.count_for(terms, value, party)
            counts.append(f"{count} {singular(terms.label) if count == 1 else terms.label}")
        else:
            said.append(describe_term(terms, value))
    if counts:
        said.insert(0, f"you get {join_words(counts)}")
    return join_words(said)


def unreadable_reason(parsed: ParsedMessage, vocabulary: Vocabulary, party: str) -> str:
    """Why a message is not a move yet, in plain words, with what was understood so far.

    An over-quantity ("5 firewood is more than the 3 available") is named first; then what the
    message already fixes, and what it leaves open.
    """
    lines: list[str] = []
    over = [note for note in parsed.notes if "more than" in note]
    for note in over:
        lines.append(f"{note[:1].upper()}{note[1:]}: ask for at most what there is.")
    if parsed.partial:
        lines.append(f"So far I read: {_partial_text(parsed.partial, vocabulary, party)}.")
    if parsed.missing:
        open_issues = join_words([vocabulary.terms(name).label for name in parsed.missing])
        lines.append(
            f"Say what happens with {open_issues} too (for example 'you get everything else' or "
            "'I take all the food')."
        )
    other = [
        note for note in parsed.notes if note not in over and not note.startswith("the offer does not say")
    ]
    lines.extend(f"({note})" for note in other[:2])
    return " ".join(lines) or "I couldn't read a move in that; type 'help' for examples."


@dataclass(frozen=True, slots=True)
class Reading:
    """A message read as a move, for showing before it is sent.

    Attributes:
        parsed: The parser's full reading.
        action: The move it stands for, or None when it is not one yet.
        problem: Why it is not a move (plain words), or "".
    """

    parsed: ParsedMessage
    action: Action | None
    problem: str


def read_move(text: str, vocabulary: Vocabulary, view: PartyView) -> Reading:
    """Read text as view.party's next move (never raises on any text).

    The text is read as a person sees it (zero-width characters dropped, fullwidth and look-alike
    letters folded: `parley.governance.normalize`); the move carries the text as it was typed.
    """
    context = view.table.package if view.table else None
    seen = normalize(text[:MAX_TEXT_CHARS], max_chars=None).text
    parsed = replace(parse(seen, vocabulary, speaker=view.party, context=context), text=text)
    action = to_action(parsed)
    if parsed.intent is Intent.OTHER:
        problem = (
            "I couldn't find a move in that. Rephrase it, or start with 'say:' to send it as "
            "a plain message. Type 'help' for examples."
        )
        return Reading(parsed, None, problem)
    if action is not None and action.kind in ("accept", "reject") and view.offer is None:
        return Reading(parsed, None, "There is no offer from the other side to answer yet — make one?")
    if action is None:
        return Reading(parsed, None, unreadable_reason(parsed, vocabulary, view.party))
    return Reading(parsed, action, "")


# -- the terminal player ---------------------------------------------------------------------------------


class HumanNegotiator:
    """Asks a person for each move and parses the answer with the scenario's vocabulary.

    The person's brief and points are shown before their first move and again on 'my priorities';
    every package is described from their side ("you get …; they get …").

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
        self._briefed = False

    def act(self, view: PartyView) -> Action:
        if not self._briefed:
            self._briefed = True
            self._show_brief(view)
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

    def _say(self, text: str) -> None:
        self._console.print(text, markup=False, highlight=False)

    def _show_brief(self, view: PartyView) -> None:
        for line in brief_lines(brief_for_view(view, self._vocabulary)):
            self._say(line)

    def _on_table(self, view: PartyView) -> str:
        offer = view.offer
        if offer is None:
            return "Nothing from the other side is on the table yet."
        worth = view.utility.evaluate(offer)
        return (
            f"On the table: {package_text(offer, self._vocabulary, view.party)} (their offer) — worth "
            f"{number(worth)} to you (walking away is worth {number(view.reservation_value)})."
        )

    def _show_situation(self, view: PartyView) -> None:
        if self._advise is not None:
            advice = self._advise(view)
            if advice:
                self._say(advice)
        if view.offer is not None:
            self._say(self._on_table(view))

    def _confirmed(self, view: PartyView, package: Mapping[str, Value], what: str) -> bool:
        worth = view.utility.evaluate(package)
        if worth >= view.reservation_value:
            return True
        answer = self._ask(
            f"That deal is worth {number(worth)} to you, less than walking away "
            f"({number(view.reservation_value)}). {what} anyway? (yes/no)"
        )
        return answer.strip().lower() in ("y", "yes")

    def _interpret(self, text: str, view: PartyView) -> Action | None:
        lowered = " ".join(text.lower().split())
        if lowered in ("help", "?"):
            self._say(HELP)
            return None
        if lowered in BRIEF_COMMANDS:
            self._show_brief(view)
            return None
        if lowered == "offer":
            self._say(self._on_table(view))
            return None
        if lowered in ("quit", "exit"):
            return Walk("the person chose to leave")
        if lowered.startswith("say:"):
            return Say(text[4:].strip()) if text[4:].strip() else None
        reading = read_move(text, self._vocabulary, view)
        action = reading.action
        if action is None:
            self._say(reading.problem)
            return None
        offer = view.offer
        if isinstance(action, Accept) and offer is not None and not self._confirmed(view, offer, "Accept"):
            return None
        if isinstance(action, Propose):
            if not self._confirmed(view, action.package, "Propose it"):
                return None
            described = package_text(action.package, self._vocabulary, view.party)
            self._say(f"(understood: you propose that {described})")
        return action

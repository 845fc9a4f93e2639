"""The ASTRA coach's advice in plain words, in the person's own points, for the terminal and the browser.

The coach reasons on ASTRA's 0-36 point scale and gives its reasons as codes with figures
(`parley.agents.astra.reasons`); this module says them in the second person, in the person's own
points, with no λ, PAP or tactic codes (the few terms it uses are defined in `GLOSSARY`). A reason
with no wording here (a plugin's free text) is put in the second person and dropped if it still
holds jargon.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from parley.agents.astra.reasons import Reason, Why
from parley.cli.human import AdviceHook, number, package_text
from parley.domain.issues import Value
from parley.domain.utility import UtilityFunction
from parley.language import Vocabulary
from parley.protocol.view import PartyView

if TYPE_CHECKING:
    from parley.agents.astra.coach import Advice

GLOSSARY: Mapping[str, str] = {
    "walk-away value": "What you end up with if no deal is reached (your BATNA, the best alternative "
    "to a negotiated agreement). A deal worth less than this leaves you worse off than leaving.",
    "points": "How much a package is worth to you, from your brief. Each side has its own points; you "
    "cannot see theirs.",
    "fair": "An offer is fair when both sides keep about the same share of what they could get (within "
    "a ninth of the range), or when the other side keeps no more than half of its best.",
    "unfair": "The other side keeps clearly more of what it could get than it leaves you.",
    "generous": "Their latest offer gives you more than their previous one: they conceded.",
    "greedy": "Their latest offer gives you less than their previous one: they asked for more.",
    "holding firm": "Their latest offer gives you the same as their previous one.",
    "concession": "Giving up some of your own points compared with your previous offer.",
    "tit-for-tat": "Answer in kind: concede when they concede, hold when they hold.",
    "estimated": "The coach cannot see the other side's points; it estimates them from their offers "
    "and from what they said matters to them.",
    "trade": "Give them more of what matters to them in return for more of what matters to you, so "
    "both sides gain.",
}

_STANCE_WORDS = {"generous": "generous", "greedy": "greedy", "neutral": "holding firm"}
_STANCE_SENTENCES = {
    "generous": "They are being generous",
    "greedy": "They are asking for more (greedy)",
    "neutral": "They are holding firm",
}
_ACTION_WORDS = {
    "ask": "Ask them which issues matter most to them.",
    "reask": "Their offers don't fit what they said matters to them: ask again about their priorities.",
    "answer": "Tell them what matters most to you, and ask what matters most to them.",
    "accept": "Accept the offer on the table.",
    "walk": "Walk away: leaving is worth more to you than what they offer.",
    "warn": "Warn them that you will walk away unless their offers improve.",
    "propose": "Make this counter-offer:",
}
_TACTIC_WORDS = {
    "AEO": "It is early: open ambitiously, so you have room to give ground later.",
    "REO": "Their offer is extreme: answer firmly instead of meeting them halfway.",
    "NCR": "They did not move, so don't move either.",
    "RNC": "They asked for more than before: hold your position.",
    "LIC": "They conceded first: make a clear concession back.",
    "CSC": "You have both been holding firm: a small concession keeps the talks going and invites one back.",
    "RC": "They made a real concession: give one back of similar size.",
    "LGR": "They gave a little: trade, giving more of what matters to them for more of what matters to you.",
    "MGF": "Time is running out and the split is reasonable: look for a package that is better for both.",
}


@dataclass(frozen=True, slots=True)
class PlainAdvice:
    """The coach's advice for one move, in plain words.

    Attributes:
        reading: What the coach reads from the other side's offers ("Their last offer gives you …").
        action: What to do, as a sentence.
        package: The counter-offer it suggests (an outcome), or None.
        package_text: That package from the person's side, or None.
        package_worth: What that package is worth to the person, or None.
        reasons: Why, as plain sentences.
        terms: Glossary entries the advice uses (keys of `GLOSSARY`).
    """

    reading: str
    action: str
    package: Mapping[str, Value] | None
    package_text: str | None
    package_worth: float | None
    reasons: tuple[str, ...]
    terms: tuple[str, ...]


class OwnPoints:
    """The coach's 0-36 point scale of one party, turned back into that party's own points."""

    def __init__(self, utility: UtilityFunction) -> None:
        self.low, self.high = utility.bounds()
        self.span = self.high - self.low if self.high > self.low else 1.0

    def worth(self, points: float) -> float:
        return self.low + points / 36.0 * self.span

    def amount(self, points: float) -> float:
        return points / 36.0 * self.span


def _weighting(weight: float) -> str:
    if weight >= 0.8:
        return "put your own points first"
    if weight >= 0.5:
        return "weigh your own points somewhat more than theirs"
    return "give their points real weight to reward their cooperation"


def reason_words(scale: OwnPoints) -> Mapping[Why, Callable[[Mapping[str, float | str]], str | None]]:
    """Plain sentences for ASTRA's reason codes, in the person's own points (None: say nothing)."""

    def pts(value: float | str) -> str:
        return number(scale.worth(float(value)))

    def amount(value: float | str) -> str:
        return number(scale.amount(float(value)))

    def parameters(v: Mapping[str, float | str]) -> str:
        stance, fairness = str(v.get("stance", "unknown")), str(v.get("fairness", "unknown"))
        if stance not in _STANCE_SENTENCES:
            return "You don't know yet how they bargain, so start near your best outcome."
        weighting = _weighting(float(v.get("lambda", 1.0)))
        if fairness in ("fair", "unfair"):
            return (
                f"{_STANCE_SENTENCES[stance]} and their offer is {fairness} to you. Answer in kind "
                f"(tit-for-tat): {weighting}."
            )
        return f"{_STANCE_SENTENCES[stance]}. Answer in kind (tit-for-tat): {weighting}."

    def tit_for_tat(v: Mapping[str, float | str]) -> str:
        if float(v["cap"]) > 0.05:
            return (
                f"Give up at most {amount(v['cap'])} points compared with your last offer "
                f"(keep at least {pts(v['floor'])})."
            )
        return f"Don't give up anything compared with your last offer (keep at least {pts(v['floor'])})."

    return {
        Why.ASK_PRIORITIES: lambda v: (
            "You don't know what matters to them yet: asking early helps find trades that suit both."
        ),
        Why.ANSWER_PRIORITIES: lambda v: (
            "They asked what matters to you: an honest answer helps find trades that suit both."
        ),
        Why.OFFER_BELOW_MINE: lambda v: (
            "Their offer seems worse for them than your last offer was (estimated): ask what they want."
        ),
        Why.STATED_VS_OFFERS: lambda v: (
            f"They say {v['issue']} matters most to them, yet their offers keep little of it."
        ),
        Why.STATED_VS_ESTIMATE: lambda v: (
            "What they say matters to them differs from what their offers suggested."
        ),
        Why.ACCEPT_AT_LEAST_LAST: lambda v: (
            f"Their offer is worth {pts(v['offered'])} to you, at least as much as your own last offer "
            f"({pts(v['latest'])})."
        ),
        Why.ACCEPT_AT_LEAST_PLANNED: lambda v: (
            f"Their offer is worth {pts(v['offered'])} to you, at least as much as the counter-offer the "
            f"coach would suggest ({pts(v['planned'])})."
        ),
        Why.ACCEPT_LAST_MOVE: lambda v: (
            f"This is your last move before time runs out, and their offer ({pts(v['offered'])}) beats "
            f"walking away ({pts(v['reservation'])})."
        ),
        Why.NOTHING_TO_GAIN: lambda v: (
            "No possible deal is worth as much to you as walking away: there is nothing to gain here."
        ),
        Why.NO_CONCESSION: lambda v: (
            f"They have not made a concession in their last {int(float(v['streak']))} offers."
        ),
        Why.WARN_NOT_WALK: lambda v: "Their offer still beats walking away, so warn them rather than leave.",
        Why.WARN_BELOW_BATNA: lambda v: (
            "Their offer is worth less to you than walking away and is no better than their last: "
            "warn them before you walk away."
        ),
        Why.PARAMETERS: parameters,
        Why.DEADLINE_FLOOR: lambda v: (
            f"Time is running out: ask for at most {pts(v['s_max'])} now (keep at least {pts(v['floor'])})."
        ),
        Why.TIT_FOR_TAT: tit_for_tat,
        Why.BEST_RECEIVED: lambda v: (
            f"Never ask for less than the best offer they already made you (worth {pts(v['received'])})."
        ),
        Why.DEADLINE_CURVE: lambda v: (
            f"Give ground no faster than the time left allows (keep at least {pts(v['floor'])})."
        ),
        Why.FLOORS_RELAXED: lambda v: (
            "No package looks good enough for both of you, so it suggests the best one for you."
        ),
        Why.NO_CANDIDATE: lambda v: "Nothing better fits: repeat your previous offer.",
        Why.TACTIC: lambda v: None,  # said from the trace's tactic instead (`_TACTIC_WORDS`)
        Why.PROPOSE_BACK: lambda v: (
            f"They already offered a package worth {pts(v['best'])} to you, at least what the coach "
            f"planned ({pts(v['planned'])}): propose it back."
        ),
        Why.VARY: lambda v: (
            f"Change your offer (worth about {pts(v['points'])} to you) rather than repeat the same one."
        ),
        Why.TIME_TARGET: lambda v: (
            f"Give ground steadily as time runs out: aim for about {pts(v['target'])} now."
        ),
    }


_JARGON = re.compile(r"λ|S_max|PAP|\bIPP\b|\b(?:SA|TS|SI|AEO|REO|NCR|RNC|LIC|CSC|RC|LGR|MGF)\b|t=")
_SECOND_PERSON = (
    (re.compile(r"\bmy BATNA\b"), "your walk-away value"),
    (re.compile(r"\bBATNA\b"), "walk-away value"),
    (re.compile(r"\bthe partner's\b|\bits\b"), "their"),
    (re.compile(r"\bthe partner\b|\bpartner\b"), "they"),
    (re.compile(r"\bI\b"), "you"),
    (re.compile(r"\bmy\b"), "your"),
    (re.compile(r"\bme\b"), "you"),
)


def _fallback(reason: str, scale: OwnPoints) -> str | None:
    """A reason no rule knows, in the second person and the person's own points; None if it has jargon."""
    text = re.sub(r"([\d.]+) points", lambda m: f"{number(scale.worth(float(m[1])))} points", reason)
    for pattern, replacement in _SECOND_PERSON:
        text = pattern.sub(replacement, text)
    if _JARGON.search(text):
        return None
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _plain_reasons(raw: Sequence[Reason], scale: OwnPoints) -> list[str]:
    words = reason_words(scale)
    plain: list[str] = []
    for reason in raw:
        say = words.get(reason.code)
        try:
            sentence = say(reason.values) if say is not None else _fallback(reason.text, scale)
        except (KeyError, ValueError):  # a plugin's reason without the figures its code names
            sentence = _fallback(reason.text, scale)
        if sentence is not None:
            plain.append(sentence)
    return plain


def _reading(advice: Advice, scale: OwnPoints, walk_away: float) -> str:
    if advice.partner_offer_points is None:
        return "They have not made an offer yet."
    mine, theirs = advice.partner_offer_points
    text = (
        f"Their last offer is worth {number(scale.worth(mine))} to you (walking away: {number(walk_away)}) "
        f"and keeps about {round(theirs / 36 * 100)}% of the most they could get (estimated)"
    )
    if advice.fairness in ("fair", "unfair"):
        text += f": it looks {advice.fairness} to you"
    if advice.stance in _STANCE_WORDS:
        text += f", and they are {_STANCE_WORDS[advice.stance]}"
    return text + "."


def _tactic_code(trace: Mapping[str, Any]) -> str:
    tactic: object = trace.get("tactic")
    if isinstance(tactic, Mapping):
        return str(cast(Mapping[str, Any], tactic).get("name", ""))
    return ""


def plain_advice(advice: Advice, view: PartyView, vocabulary: Vocabulary) -> PlainAdvice:
    """ASTRA's advice for view.party, told in plain words and in the party's own points."""
    scale = OwnPoints(view.utility)
    walk_away = float(view.utility.reservation_value)
    reasons = _plain_reasons(advice.reasons, scale)
    tactic = _tactic_code(advice.trace) if advice.action == "propose" else None
    if tactic in _TACTIC_WORDS:
        reasons.append(_TACTIC_WORDS[tactic])
    package = dict(advice.offer) if advice.offer is not None else None
    described = package_text(package, vocabulary, view.party) if package is not None else None
    worth = view.utility.evaluate(package) if package is not None else None
    reading = _reading(advice, scale, walk_away)
    words = " ".join([reading, *reasons, described or ""]).lower()
    terms = tuple(
        term for term in GLOSSARY if term in words or (term == "walk-away value" and "walk" in words)
    )
    return PlainAdvice(
        reading=reading,
        action=_ACTION_WORDS.get(advice.action, advice.action),
        package=package,
        package_text=described,
        package_worth=worth,
        reasons=tuple(reasons),
        terms=terms,
    )


def advice_text(advice: PlainAdvice) -> str:
    """Plain advice as a few lines for the terminal."""
    lines = [f"Coach: {advice.reading}", f"  {advice.action}"]
    if advice.package_text is not None and advice.package_worth is not None:
        lines.append(f"    {advice.package_text} (worth {number(advice.package_worth)} to you)")
    lines.extend(f"  - {reason}" for reason in advice.reasons)
    return "\n".join(lines)


def coach_hook(vocabulary: Vocabulary) -> AdviceHook:
    """Advice before each of the person's moves from ASTRA's coach, in plain words (`--coach`)."""
    from parley.agents.astra import Coach

    coach = Coach()

    def advise(view: PartyView) -> str:
        return advice_text(plain_advice(coach.advise(view), view, vocabulary))

    return advise

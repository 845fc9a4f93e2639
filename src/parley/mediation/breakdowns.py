"""Detect the four socio-cognitive breakdowns from the public record of a conversation.

A deterministic rubric over the last few utterances: perceptual differences (parties holding
different positions on the same topic), emotional dynamics (hostile tone), cognitive challenges
(anchoring on one position, no new options while disagreement persists) and communication
breakdowns (circling one topic, silent participants, stalled turns).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from parley.mediation.conversation import ActKind, Breakdown, BreakdownKind, ConversationView, Utterance


@dataclass(frozen=True, slots=True)
class BreakdownRubric:
    """Thresholds of the rubric.

    Attributes:
        window: Utterances looked at.
        hostile_tone: Tone at or below which an utterance counts as hostile.
        anchoring_repeats: Same position repeated this often in the window counts as anchoring.
        circling_length: This many consecutive participant utterances on one unresolved topic
            count as circling.
        silent_turns: A participant silent this many turns counts as left out.
    """

    window: int = 8
    hostile_tone: float = -0.3
    anchoring_repeats: int = 3
    circling_length: int = 6
    silent_turns: int = 12


DEFAULT_RUBRIC = BreakdownRubric()


def detect_breakdowns(view: ConversationView, rubric: BreakdownRubric = DEFAULT_RUBRIC) -> list[Breakdown]:
    """Every breakdown visible in the recent public record, most severe first."""
    recent = [u for u in view.recent(rubric.window) if not u.is_intervention]
    found = [
        *_perceptual(view, recent),
        *_emotional(recent, rubric),
        *_cognitive(recent, rubric),
        *_communication(view, recent, rubric),
    ]
    return sorted(found, key=lambda b: (-b.severity, b.kind.value, b.topic or "", b.parties))


def _perceptual(view: ConversationView, recent: list[Utterance]) -> list[Breakdown]:
    positions = view.positions()
    found: list[Breakdown] = []
    for topic in sorted({u.topic for u in recent if u.topic}):
        stances = {party: held[topic] for party, held in positions.items() if topic in held}
        if len(set(stances.values())) < 2:
            continue
        majority, _ = Counter(stances.values()).most_common(1)[0]
        outliers = tuple(sorted(p for p, option in stances.items() if option != majority))
        severity = min(1.0, 0.25 * len(set(stances.values())))
        evidence = f"on {topic!r} {', '.join(outliers)} stand apart from option {majority}"
        found.append(Breakdown(BreakdownKind.PERCEPTUAL, outliers, topic, severity, evidence))
    return found


def _emotional(recent: list[Utterance], rubric: BreakdownRubric) -> list[Breakdown]:
    hostile = [u for u in recent if u.tone <= rubric.hostile_tone]
    if not hostile:
        return []
    parties = tuple(sorted({u.speaker for u in hostile}))
    severity = min(1.0, sum(-u.tone for u in hostile) / 2.0)
    topic = hostile[-1].topic
    evidence = f"{', '.join(parties)} sound frustrated ({len(hostile)} hostile remark(s))"
    return [Breakdown(BreakdownKind.EMOTIONAL, parties, topic, severity, evidence)]


def _cognitive(recent: list[Utterance], rubric: BreakdownRubric) -> list[Breakdown]:
    found: list[Breakdown] = []
    repeats = Counter((u.speaker, u.topic, u.option) for u in recent if u.act is ActKind.STATE and u.option)
    for (speaker, topic, option), count in sorted(repeats.items(), key=lambda item: str(item[0])):
        if count >= rubric.anchoring_repeats:
            evidence = f"{speaker} repeats option {option} on {topic!r} without engaging alternatives"
            found.append(Breakdown(BreakdownKind.COGNITIVE, (speaker,), topic, 0.6, evidence))
    objections = [u for u in recent if u.act is ActKind.OBJECT]
    proposals = [u for u in recent if u.act is ActKind.PROPOSE]
    if len(objections) >= 2 and not proposals:
        parties = tuple(sorted({u.speaker for u in objections}))
        evidence = f"{len(objections)} objections and no new option on the table"
        found.append(Breakdown(BreakdownKind.COGNITIVE, parties, objections[-1].topic, 0.5, evidence))
    return found


def _communication(
    view: ConversationView, recent: list[Utterance], rubric: BreakdownRubric
) -> list[Breakdown]:
    found: list[Breakdown] = []
    tail = recent[-rubric.circling_length :]
    if len(tail) == rubric.circling_length and len({u.topic for u in tail}) == 1 and tail[0].topic:
        topic = tail[0].topic
        positions = {held.get(topic) for held in view.positions().values() if held.get(topic)}
        if len(positions) > 1:
            parties = tuple(sorted({u.speaker for u in tail}))
            evidence = f"the discussion circles on {topic!r} without converging"
            found.append(Breakdown(BreakdownKind.COMMUNICATION, parties, topic, 0.6, evidence))
    quiet = tuple(p for p in view.parties if view.turns_since_spoke(p) >= rubric.silent_turns)
    if quiet and view.turn > rubric.silent_turns:
        evidence = f"{', '.join(quiet)} have not spoken for {rubric.silent_turns}+ turns"
        found.append(Breakdown(BreakdownKind.COMMUNICATION, quiet, None, 0.4, evidence))
    stalled = [t for t in view.silent_turns if t >= view.turn - 3]
    if len(stalled) >= 2:
        found.append(Breakdown(BreakdownKind.COMMUNICATION, (), None, 0.5, "the conversation has stalled"))
    return found

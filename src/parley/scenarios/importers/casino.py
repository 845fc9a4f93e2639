"""Import CaSiNo campsite negotiations (Chawla et al., NAACL 2021, CC BY 4.0) as typed records and scenarios.

Each dialogue has two participants with private High/Medium/Low priorities over food, water and
firewood (5/4/3 points per unit, 3 units each); a deal scores the units each side receives, and
a walk-away scores 5 points for both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.protocol.rules import Rules
from parley.scenarios.model import Party, Scenario

CASINO_ITEMS: tuple[str, ...] = ("Food", "Water", "Firewood")
"""The dataset's item names, in parley's issue order (issues are their lower-case forms)."""

UNITS_PER_ITEM = 3
POINTS_PER_UNIT: Mapping[str, int] = {"High": 5, "Medium": 4, "Low": 3}
WALK_AWAY_POINTS = 5
"""What each participant scores when either walks away (worth one high-priority unit)."""

DEAL_ACTS = ("Submit-Deal", "Accept-Deal", "Reject-Deal", "Walk-Away")
LICENCE = "CaSiNo (Chawla et al., NAACL 2021), CC BY 4.0"

Act = Literal["chat", "Submit-Deal", "Accept-Deal", "Reject-Deal", "Walk-Away"]


@dataclass(frozen=True, slots=True)
class Utterance:
    """One chat turn or deal act.

    Attributes:
        speaker: Participant id ("mturk_agent_1").
        text: What was typed (the act name for deal acts).
        act: "chat" or one of the deal acts.
        you_get: For Submit-Deal, units per item the speaker keeps (item → units).
        they_get: For Submit-Deal, units per item the other participant gets.
    """

    speaker: str
    text: str
    act: Act
    you_get: Mapping[str, int] | None = None
    they_get: Mapping[str, int] | None = None


@dataclass(frozen=True, slots=True)
class Participant:
    """One side of a dialogue.

    Attributes:
        id: Participant id.
        priorities: Items from highest to lowest priority.
        points_scored: Points the dataset records for this participant.
        satisfaction: Self-reported satisfaction label (may be empty).
        opponent_likeness: Self-reported liking of the opponent (may be empty).
    """

    id: str
    priorities: tuple[str, str, str]
    points_scored: int
    satisfaction: str = ""
    opponent_likeness: str = ""

    def points_for(self, units: Mapping[str, int]) -> int:
        """Points for receiving these units (item → units)."""
        worth = dict(zip(self.priorities, (5, 4, 3), strict=True))
        return sum(worth[item] * count for item, count in units.items())


@dataclass(frozen=True, slots=True)
class Deal:
    """An accepted deal: who proposed it and the units each participant receives."""

    proposer: str
    units: Mapping[str, Mapping[str, int]]


@dataclass(frozen=True, slots=True)
class Dialogue:
    """One CaSiNo negotiation.

    Attributes:
        dialogue_id: The dataset's id.
        participants: Both participants, in the order the dataset lists them.
        utterances: Chat turns and deal acts in order.
        deal: The accepted deal, if any.
        walked_away_by: Who walked away, if anyone did.
    """

    dialogue_id: int
    participants: tuple[Participant, Participant]
    utterances: tuple[Utterance, ...]
    deal: Deal | None
    walked_away_by: str | None

    def participant(self, participant_id: str) -> Participant:
        """The participant with this id.

        Raises:
            KeyError: no such participant.
        """
        for participant in self.participants:
            if participant.id == participant_id:
                return participant
        raise KeyError(participant_id)

    def other(self, participant_id: str) -> Participant:
        """The participant who is not participant_id."""
        first, second = self.participants
        return second if first.id == participant_id else first


def load_dialogues(path: str | Path) -> list[Dialogue]:
    """Read a CaSiNo JSON file (a list of dialogues, as in casino_valid.json / casino_test.json).

    Raises:
        ScenarioError: the file is missing, not JSON, or a dialogue is malformed (names the entry).
    """
    source = str(path)
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError("file not found", source=source) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ScenarioError(f"cannot read CaSiNo JSON: {error}", source=source) from None
    if not isinstance(raw, list):
        raise ScenarioError(f"expected a list of dialogues, got {type(raw).__name__}", source=source)
    return [parse_dialogue(entry, source=source, position=i) for i, entry in enumerate(raw)]


def parse_dialogue(raw: Any, *, source: str | None = None, position: int = 0) -> Dialogue:
    """One dialogue record from its JSON object.

    Raises:
        ScenarioError: a missing or malformed field (names the entry and field).
    """
    path = f"[{position}]"
    try:
        participants = _participants(raw["participant_info"])
        utterances = tuple(_utterance(turn) for turn in raw["chat_logs"])
        dialogue_id = int(raw["dialogue_id"])
    except (KeyError, TypeError, ValueError) as error:
        raise ScenarioError(f"malformed dialogue: {_why(error)}", source=source, field=path) from None
    deal, walker = _ending(utterances, participants)
    return Dialogue(dialogue_id, participants, utterances, deal, walker)


def _why(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"missing key {error.args[0]!r}"
    return str(error)


def _participants(info: Mapping[str, Any]) -> tuple[Participant, Participant]:
    participants = tuple(_participant(pid, entry) for pid, entry in info.items())
    if len(participants) != 2:
        raise ValueError(f"expected 2 participants, got {len(participants)}")
    return participants[0], participants[1]


def _participant(participant_id: str, entry: Mapping[str, Any]) -> Participant:
    value2issue: Mapping[str, str] = entry["value2issue"]
    priorities = tuple(value2issue[level] for level in ("High", "Medium", "Low"))
    if sorted(priorities) != sorted(CASINO_ITEMS):
        raise ValueError(f"{participant_id}: priorities {priorities} must rank {CASINO_ITEMS} once each")
    outcomes: Mapping[str, Any] = entry["outcomes"]
    return Participant(
        participant_id,
        (priorities[0], priorities[1], priorities[2]),
        int(outcomes["points_scored"]),
        str(outcomes.get("satisfaction", "")),
        str(outcomes.get("opponent_likeness", "")),
    )


def _utterance(turn: Mapping[str, Any]) -> Utterance:
    text = str(turn["text"])
    speaker = str(turn["id"])
    if text not in DEAL_ACTS:
        return Utterance(speaker, text, "chat")
    act = cast(Act, text)
    data: Mapping[str, Any] = turn.get("task_data") or {}
    if act == "Submit-Deal":
        return Utterance(speaker, text, act, _units(data["issue2youget"]), _units(data["issue2theyget"]))
    return Utterance(speaker, text, act)


def _units(raw: Mapping[str, Any]) -> dict[str, int]:
    units = {item: int(raw.get(item) or 0) for item in CASINO_ITEMS}
    if any(not 0 <= count <= UNITS_PER_ITEM for count in units.values()):
        raise ValueError(f"units out of range 0..{UNITS_PER_ITEM}: {units}")
    return units


def _ending(
    utterances: Sequence[Utterance], participants: Sequence[Participant]
) -> tuple[Deal | None, str | None]:
    """The accepted deal (the last submission followed by an accept) and who walked away."""
    walker = next((u.speaker for u in utterances if u.act == "Walk-Away"), None)
    pending: Utterance | None = None
    deal: Deal | None = None
    for utterance in utterances:
        if utterance.act == "Submit-Deal":
            pending = utterance
        elif utterance.act == "Accept-Deal" and pending is not None:
            deal = _deal(pending, participants)
        elif utterance.act == "Reject-Deal":
            pending = None
    return deal, walker


def _deal(submission: Utterance, participants: Sequence[Participant]) -> Deal:
    assert submission.you_get is not None and submission.they_get is not None
    other = next(p.id for p in participants if p.id != submission.speaker)
    return Deal(submission.speaker, {submission.speaker: submission.you_get, other: submission.they_get})


def dialogue_to_scenario(dialogue: Dialogue, *, rules: Rules | None = None) -> Scenario:
    """A scenario with the dialogue's two participants and their real priorities.

    The outcome records the units of each item the first participant receives (issues `food`,
    `water`, `firewood`, 0..3); the second participant's utility uses the complement. Metadata holds
    the recorded deal (as such an outcome), the recorded points, the ending and the allocation.
    """
    first, second = dialogue.participants
    space = casino_space()
    parties = (
        Party(
            first.id,
            "camper",
            campsite_utility(space, first.priorities, complement=False),
            signals={"priorities": _issue_names(first.priorities)},
        ),
        Party(
            second.id,
            "camper",
            campsite_utility(space, second.priorities, complement=True),
            signals={"priorities": _issue_names(second.priorities)},
        ),
    )
    return Scenario(
        name=f"casino/{dialogue.dialogue_id}",
        title=f"CaSiNo dialogue {dialogue.dialogue_id}",
        description="Two campers split 3 packages each of food, water and firewood before a trip.",
        space=space,
        parties=parties,
        rules=rules or Rules(max_rounds=20, stagnation_rounds=14),
        source="casino",
        metadata=_metadata(dialogue),
    )


def casino_space() -> OutcomeSpace:
    """Units of food, water and firewood (0..3) going to the first participant."""
    return OutcomeSpace.of(
        [Issue.integer_range(item.lower(), 0, UNITS_PER_ITEM, unit="packages") for item in CASINO_ITEMS]
    )


def campsite_utility(
    space: OutcomeSpace, priorities: Sequence[str], *, complement: bool
) -> LinearAdditiveUtility:
    """Points per unit by priority (5/4/3), over the first participant's units or their complement."""
    tables: dict[str, list[float]] = {}
    for item, level in zip(priorities, ("High", "Medium", "Low"), strict=True):
        points = POINTS_PER_UNIT[level]
        units = range(UNITS_PER_ITEM + 1)
        tables[item.lower()] = [float(points * (UNITS_PER_ITEM - u if complement else u)) for u in units]
    return LinearAdditiveUtility.from_tables(space, tables, reservation_value=WALK_AWAY_POINTS)


def _issue_names(items: Sequence[str]) -> list[str]:
    return [item.lower() for item in items]


def _metadata(dialogue: Dialogue) -> dict[str, Any]:
    first = dialogue.participants[0].id
    deal = None
    if dialogue.deal is not None:
        deal = {item.lower(): int(dialogue.deal.units[first][item]) for item in CASINO_ITEMS}
    ending = "deal" if deal is not None else ("walk_away" if dialogue.walked_away_by else "none")
    return {
        "dataset": "casino",
        "dialogue_id": dialogue.dialogue_id,
        "ending": ending,
        "deal": deal,
        "walked_away_by": dialogue.walked_away_by,
        "points_scored": {p.id: p.points_scored for p in dialogue.participants},
        "allocation": {item.lower(): {"owner": first, "total": UNITS_PER_ITEM} for item in CASINO_ITEMS},
        "licence": LICENCE,
    }

"""Payloads of the play page's JSON API: a game as the person sees it, their moves, and the coach.

Built from a `parley.web.play.Position` and the terminal player's helpers (`parley.cli.human`), so
the browser and the terminal tell the person the same things in the same voice. Every answer model
derives from `Served`: each string passes through `printable` before it reaches the page, and the
page inserts it as text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, StringConstraints

from parley.cli.coaching import GLOSSARY, PlainAdvice
from parley.cli.human import Brief, additive_of, number, package_text
from parley.domain.issues import Value
from parley.language import render
from parley.language.render import format_value
from parley.protocol.actions import Action, Propose
from parley.protocol.events import Event
from parley.protocol.payloads import MediatorProposal
from parley.web.models import Served
from parley.web.play import Game, Position
from parley.web.shelf import ScenarioChoice

PackageValue = StrictInt | StrictFloat | StrictStr
MessageText = Annotated[str, StringConstraints(max_length=2000)]
MoveKind = Literal["propose", "accept", "reject", "say", "walk"]


class ScenarioOption(Served):
    """A scenario the person can play."""

    name: str
    title: str
    parties: list[str]
    issues: list[str]
    outcomes: int

    @classmethod
    def of(cls, choice: ScenarioChoice) -> ScenarioOption:
        """From a playable scenario."""
        return cls(
            name=choice.name,
            title=choice.title,
            parties=list(choice.parties),
            issues=list(choice.issues),
            outcomes=choice.outcomes,
        )


class AgentOption(Served):
    """An agent the person can play against."""

    name: str
    description: str


class PlayOptions(Served):
    """`GET /api/play/options`: what a game can be set up with."""

    scenarios: list[ScenarioOption]
    agents: list[AgentOption]
    glossary: dict[str, str]


class NewGameBody(BaseModel):
    """`POST /api/games`: the scenario, the agent on the other side, the person's party, a seed."""

    model_config = ConfigDict(extra="forbid")
    scenario: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    agent: Annotated[str, StringConstraints(min_length=1, max_length=100)]
    party: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    seed: Annotated[int, Field(ge=0, le=2**31 - 1)] = 0
    coach: bool = True


class PreviewBody(BaseModel):
    """`POST /api/games/{id}/preview`: free text to read, or a package built with the controls."""

    model_config = ConfigDict(extra="forbid")
    text: MessageText | None = None
    package: Annotated[dict[str, PackageValue], Field(max_length=64)] | None = None


class MoveBody(BaseModel):
    """`POST /api/games/{id}/moves`: the person's move, made on turn `version` (their moves so far)."""

    model_config = ConfigDict(extra="forbid")
    version: Annotated[int, Field(ge=0)]
    kind: MoveKind
    package: Annotated[dict[str, PackageValue], Field(max_length=64)] | None = None
    message: MessageText = ""
    confirm_below_walk_away: bool = False


class PointOption(Served):
    """One option of an issue and its worth to the person."""

    label: str
    points: float


class PointRowModel(Served):
    """What one issue is worth to the person."""

    issue: str
    summary: str
    options: list[PointOption]


class BriefModel(Served):
    """The person's private brief and point values."""

    party: str
    role: str
    text: str
    rows: list[PointRowModel]
    walk_away: float
    best: float
    worst: float
    note: str

    @classmethod
    def of(cls, brief: Brief) -> BriefModel:
        """From the terminal player's brief."""
        return cls(
            party=brief.party,
            role=brief.role,
            text=brief.text,
            rows=[
                PointRowModel(
                    issue=row.issue,
                    summary=row.summary,
                    options=[PointOption(label=label, points=points) for label, points in row.options],
                )
                for row in brief.rows
            ],
            walk_away=brief.walk_away,
            best=brief.best,
            worst=brief.worst,
            note=brief.note,
        )


class Choice(Served):
    """One choice of an offer control: the issue value it sets, as the person reads it."""

    value: PackageValue
    label: str
    points: float | None


class Control(Served):
    """One issue of the offer builder."""

    issue: str
    label: str
    kind: Literal["count", "option"]
    choices: list[Choice]


class OfferModel(Served):
    """A package as the person reads it."""

    package: dict[str, PackageValue]
    text: str
    worth: float
    below_walk_away: bool
    by: str


class TranscriptLine(Served):
    """One public event of the game, for the person."""

    seq: int
    round: int
    who: Literal["you", "them", "mediator", "game"]
    speaker: str
    kind: str
    text: str
    offer: str | None = None
    worth: float | None = None


class AdviceModel(Served):
    """The coach's advice in plain words; `terms` are defined in `glossary`."""

    reading: str
    action: str
    package: dict[str, PackageValue] | None
    package_text: str | None
    package_worth: float | None
    reasons: list[str]
    terms: list[str]

    @classmethod
    def of(cls, advice: PlainAdvice) -> AdviceModel:
        """From the terminal player's plain advice."""
        return cls(
            reading=advice.reading,
            action=advice.action,
            package=dict(advice.package) if advice.package is not None else None,
            package_text=advice.package_text,
            package_worth=advice.package_worth,
            reasons=list(advice.reasons),
            terms=list(advice.terms),
        )


class EndModel(Served):
    """How a game ended, with what each side got (the other side's points are shown once it is over)."""

    agreement: bool
    text: str
    your_worth: float
    your_walk_away: float
    their_worth: float
    their_walk_away: float
    rounds: int


class GameState(Served):
    """`GET /api/games/{id}`: everything the play page shows."""

    game_id: str
    version: int
    scenario: str
    title: str
    description: str
    agent: str
    party: str
    other: str
    coach: bool
    brief: BriefModel
    controls: list[Control]
    round: int
    max_rounds: int
    your_turn: bool
    moves: list[MoveKind]
    table: OfferModel | None
    transcript: list[TranscriptLine]
    advice: AdviceModel | None
    ended: EndModel | None
    run: str | None
    glossary: dict[str, str] = Field(default_factory=lambda: dict(GLOSSARY))


class GameSummary(Served):
    """One game of `GET /api/games`."""

    game_id: str
    scenario: str
    agent: str
    party: str
    version: int
    ended: bool
    created: float

    @classmethod
    def of(cls, game: Game) -> GameSummary:
        """From a stored game."""
        return cls(
            game_id=game.game_id,
            scenario=game.scenario,
            agent=game.agent,
            party=game.party,
            version=game.version,
            ended=game.ended,
            created=game.created,
        )


class GameList(Served):
    """`GET /api/games`: the person's latest games."""

    games: list[GameSummary]


class PreviewModel(Served):
    """What a message or a built package would send, before it is sent."""

    kind: MoveKind | None
    understood: str
    offer: OfferModel | None
    problem: str
    notes: list[str]
    confidence: float
    message: str


# -- building them ------------------------------------------------------------------------------------------


def offer_model(position: Position, package: Mapping[str, Value], by: str) -> OfferModel:
    """A package from the person's side, with its worth to them."""
    utility = position.scenario.party(position.party).utility
    worth = float(utility.evaluate(package))
    return OfferModel(
        package=dict(package),
        text=package_text(package, position.vocabulary, position.party),
        worth=worth,
        below_walk_away=worth < float(utility.reservation_value) - 1e-9,
        by=by,
    )


def controls(position: Position) -> list[Control]:
    """The offer builder: per issue, what the person can ask for, with each choice's worth if known."""
    vocabulary = position.vocabulary
    party = position.party
    additive = additive_of(position.scenario.party(party).utility)
    tables = additive.weighted_tables if additive is not None else None
    built: list[Control] = []
    for index, (terms, issue) in enumerate(
        zip(vocabulary.issues, position.scenario.space.issues, strict=True)
    ):
        points: Sequence[float] | None = [float(p) for p in tables[index]] if tables is not None else None
        choices: list[Choice] = []
        for option, value in enumerate(issue.values):
            worth = points[option] if points is not None else None
            if terms.share is not None:
                count = vocabulary.count_for(terms, value, party)
                label = f"you get {count}"
                choices.append(Choice(value=value, label=label, points=worth))
            else:
                choices.append(Choice(value=value, label=format_value(terms, value), points=worth))
        if terms.share is not None:
            choices.sort(key=lambda choice: -int(vocabulary.count_for(terms, choice.value, party)))
        total = f" (of {terms.share.total}; they get the rest)" if terms.share is not None else ""
        built.append(
            Control(
                issue=issue.name,
                label=terms.label + total,
                kind="count" if terms.share is not None else "option",
                choices=choices,
            )
        )
    return built


Who = Literal["you", "them", "mediator", "game"]


def _line(position: Position, event: Event) -> TranscriptLine | None:
    speaker = str(event.party or "")
    side: Who = "you" if speaker == position.party else "them" if speaker == position.other else "game"

    def line(
        text: str, *, who: Who = side, kind: str = event.kind, offer: OfferModel | None = None
    ) -> TranscriptLine:
        return TranscriptLine(
            seq=event.seq,
            round=event.round,
            who=who,
            speaker=speaker,
            kind=kind,
            text=text,
            offer=offer.text if offer is not None else None,
            worth=offer.worth if offer is not None else None,
        )

    data = event.data
    action = event.payload
    if event.kind == "action" and event.party is not None and isinstance(action, Action):
        listener = position.other if speaker == position.party else position.party
        text = render(action, position.vocabulary, speaker=speaker, listener=listener)
        offer = offer_model(position, action.package, side) if isinstance(action, Propose) else None
        return line(text, kind=action.kind, offer=offer)
    if isinstance(action, MediatorProposal):
        offer = offer_model(position, action.package, "mediator")
        return line("The mediator proposes a package.", who="mediator", offer=offer)
    texts = {
        "stagnation": f"No movement for {data.get('rounds')} rounds.",
        "violation": f"Rule broken: {data.get('detail')}",
        "agreement": "Deal reached.",
        "no_deal": f"No deal ({data.get('reason')}).",
    }
    return line(texts[event.kind], who="game") if event.kind in texts else None


def transcript(position: Position) -> list[TranscriptLine]:
    """The public events of the game as lines for the person."""
    lines = (_line(position, event) for event in position.visible if event.is_public)
    return [line for line in lines if line is not None]


def end_model(position: Position) -> EndModel | None:
    """How the game ended, or None while it goes on."""
    result = position.result
    if result is None:
        return None
    scenario = position.scenario
    mine, theirs = scenario.party(position.party).utility, scenario.party(position.other).utility
    if result.agreement is not None:
        terms = result.agreement.terms
        text = f"Deal: {package_text(terms, position.vocabulary, position.party)}."
        your, their = float(mine.evaluate(terms)), float(theirs.evaluate(terms))
    else:
        record = result.no_deal
        who = "you" if record is not None and record.walker == position.party else "they"
        reason = record.reason if record is not None else "ended"
        text = f"No deal: {who} walked away." if reason == "walk" else f"No deal ({reason})."
        if record is not None and record.detail and reason != "walk":
            text += f" {record.detail}"
        your, their = float(mine.reservation_value), float(theirs.reservation_value)
    return EndModel(
        agreement=result.agreement is not None,
        text=text,
        your_worth=your,
        your_walk_away=float(mine.reservation_value),
        their_worth=their,
        their_walk_away=float(theirs.reservation_value),
        rounds=result.rounds,
    )


def allowed_moves(position: Position) -> list[MoveKind]:
    """The moves the person can make now (none once the game is over)."""
    view = position.view
    if view is None:
        return []
    moves: list[MoveKind] = ["propose", "say", "walk"]
    if view.offer is not None:
        moves[1:1] = ["accept", "reject"]
    return moves


def worth_text(value: float) -> str:
    """A worth as shown in sentences."""
    return number(value)

"""Import scorable multi-party games: LLM-Deliberation (Abdelnabi et al.) and TextArena's ScorableGames.

Both projects store a game as a folder: `config.txt` (one party per line: name, file stem, role —
`p1`/`p2` mark the two veto parties, p1 also earns the unanimity bonus — incentive, model),
`scores_files/<stem>.txt` (one line of option scores per issue, then the party's minimum threshold),
`global_instructions.txt` (issue names and option labels), `individual_instructions/<incentive>/
<stem>.txt` (private briefs with `#A1_NUM` score placeholders) and, for LLM-Deliberation,
`initial_deal.txt`. A deal passes with n − 1 of n parties including every veto party. What each
project's own evaluator counts as agreeing (≥ or > the threshold), its turn budget and its licence
differ; `FAMILIES` holds them and every imported scenario states them in its metadata.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np

from parley.domain.issues import Issue, Outcome
from parley.domain.space import OutcomeSpace
from parley.domain.utility import AdditiveBonusUtility, FloatArray, LinearAdditiveUtility, UtilityFunction
from parley.errors import ScenarioError
from parley.protocol.rules import AcceptanceRule, Rules
from parley.scenarios.importers.game_files import (
    MAX_FILE_BYTES,
    ConfigLine,
    ScoreFile,
    clean_text,
    letter,
    parse_deal,
    read_config,
    read_issue_names,
    read_scores,
    read_text,
)
from parley.scenarios.model import Party, Scenario

logger = logging.getLogger(__name__)

__all__ = [  # (the file readers are re-exported: games are read through this module)
    "FAMILIES",
    "MAX_FILE_BYTES",
    "ConfigLine",
    "FamilyRules",
    "GameFamily",
    "ScoreFile",
    "TurnBudget",
    "base_game_folder",
    "clean_text",
    "deliberation_game_names",
    "detect_family",
    "load_deliberation_game",
    "load_shipped_game",
    "load_textarena_game",
    "looks_like_game",
    "parse_deal",
    "read_config",
    "read_issue_names",
    "read_scores",
    "recorded_final_deal",
    "recorded_run_folder",
    "score",
    "turn_budget",
]

GameFamily = Literal["llm-deliberation", "textarena"]
VETO_ROLES = ("p1", "p2")
"""Config roles that mark veto parties (p1 opens the game, earns the unanimity bonus and, in
LLM-Deliberation, makes the final deal suggestion)."""
BONUS_ROLE = "p1"
BONUS_POINTS = 10.0
"""p1's unanimity bonus (both projects: +10 when every other party agrees)."""
BONUS_TABLE_LIMIT = 1_000_000
"""Largest outcome space whose unanimity bonus is modelled (its deals are listed one by one)."""
SHIPPED_LICENCE = "MIT (S-Abdelnabi/LLM-Deliberation), see data/llm_deliberation/LICENSE.txt"
LICENCE_FILES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "LICENCE.txt", "COPYING")

_DEAL_PATTERN = re.compile(r"<DEAL>(.*?)</DEAL>", re.DOTALL)


@dataclass(frozen=True, slots=True)
class FamilyRules:
    """How one project plays and scores its games, read from its own code.

    Attributes:
        family: "llm-deliberation" or "textarena".
        title: The project's name, for titles.
        strict_threshold: Whether a party other than the bonus holder agrees only with a score
            *above* its minimum (LLM-Deliberation's evaluator) rather than at or above it.
        comparison_source: Where the comparison is taken from.
        licence: The licence of the project's own games.
    """

    family: GameFamily
    title: str
    strict_threshold: bool
    comparison_source: str
    licence: str


FAMILIES: Mapping[GameFamily, FamilyRules] = {
    "llm-deliberation": FamilyRules(
        "llm-deliberation",
        "LLM-Deliberation",
        True,
        "LLM-Deliberation's evaluator (evaluate_deals.ipynb): a party agrees with a score above its "
        "minimum; p1 with a score at or above it, or with the +10 bonus when every other party agrees",
        "MIT (S-Abdelnabi/LLM-Deliberation)",
    ),
    "textarena": FamilyRules(
        "textarena",
        "TextArena ScorableGames",
        False,
        "TextArena's ScorableGames reward: a party succeeds with a score (bonus included) at or above "
        "its minimum",
        "MIT (TextArena/TextArena; its games adapt S-Abdelnabi/LLM-Deliberation, MIT)",
    ),
}
TEXTARENA_TURNS = 120
"""TextArena's default `max_rounds`: turns in total, one player's proposal or vote each."""
TURNS_PER_PARTY = 4
"""LLM-Deliberation's README: "We used rounds_num as 4*agents_num"."""


@dataclass(frozen=True, slots=True)
class TurnBudget:
    """The game's own turn budget and the rounds parley plays for it."""

    turns: int
    rounds: int
    source: str


def deliberation_game_names() -> list[str]:
    """The shipped games (for the scenario catalog: "deliberation/<game>")."""
    return ["base"]


def load_shipped_game(name: str) -> Scenario:
    """A shipped game by name ("base").

    Raises:
        ScenarioError: unknown name.
    """
    if name not in deliberation_game_names():
        raise ScenarioError(f"unknown LLM-Deliberation game {name!r}; shipped: {deliberation_game_names()}")
    return load_deliberation_game(base_game_folder().parent / name, name=f"deliberation-{name}")


def base_game_folder() -> Path:
    """The shipped LLM-Deliberation `base` game."""
    return Path(str(resources.files("parley.scenarios") / "data" / "llm_deliberation" / "base"))


def recorded_run_folder() -> Path:
    """The shipped recorded run of the base game (all cooperative, GPT-4)."""
    return base_game_folder().parent / "logs" / "all_coop_temp1_base_gpt4"


def looks_like_game(path: Path) -> bool:
    """Whether path is a folder laid out as a scorable game (config.txt and scores_files/)."""
    return path.is_dir() and (path / "config.txt").is_file() and (path / "scores_files").is_dir()


def detect_family(folder: Path) -> GameFamily:
    """Which project a game folder is written for.

    TextArena games live under `ScorableGames/` and carry no `initial_deal.txt`, which
    LLM-Deliberation's runner requires (its recorded runs hold a `history*.json` instead).
    """
    parts = {part.lower() for part in folder.resolve().parts}
    if "scorablegames" in parts or "textarena" in parts:
        return "textarena"
    if (folder / "initial_deal.txt").is_file() or any(folder.glob("history*.json")):
        return "llm-deliberation"
    return "textarena"


def load_textarena_game(folder: str | Path, *, name: str | None = None) -> Scenario:
    """`load_deliberation_game` for a TextArena ScorableGames folder."""
    return load_deliberation_game(folder, name=name, family="textarena")


def load_deliberation_game(
    folder: str | Path | None = None, *, name: str | None = None, family: GameFamily | None = None
) -> Scenario:
    """Build a scenario from an LLM-Deliberation or TextArena game folder.

    Every party's utility is its score sum (the bonus holder's an `AdditiveBonusUtility`: its score
    sum plus 10 on the deals every other party agrees with); its BATNA is the lowest score the
    family's evaluator counts as agreeing. p1 proposes first and, in LLM-Deliberation, last (see
    `turn_budget`).

    Args:
        folder: The game folder (default: the shipped `base` game).
        name: Scenario id (default: "deliberation-<folder>" or "textarena-<folder>").
        family: "llm-deliberation" or "textarena" (default: detected, see `detect_family`).

    Raises:
        ScenarioError: a missing, unreadable or malformed file, score files that disagree in shape,
            or a party that can agree with no deal at all.
    """
    root = Path(folder) if folder is not None else base_game_folder()
    if not root.is_dir():
        raise ScenarioError("expected a game folder", source=str(root))
    rules = FAMILIES[family or detect_family(root)]
    config = read_config(root / "config.txt")
    scores = {entry.stem: read_scores(root / "scores_files" / f"{entry.stem}.txt") for entry in config}
    shape = _common_shape(scores, root)
    space = _space(root, shape)
    linear = {entry.name: _linear(scores[entry.stem], space) for entry in config}
    comparisons = {entry.name: _comparison(entry, rules) for entry in config}
    reservations = {
        entry.name: _agreeing_score(entry.name, linear[entry.name], comparisons[entry.name], root)
        for entry in config
    }
    additive = {entry.name: linear[entry.name].with_reservation(reservations[entry.name]) for entry in config}
    utilities: dict[str, UtilityFunction] = dict(additive)
    bonus = _bonus_holder(config)
    with_bonus = _with_bonus(bonus, additive, root) if bonus is not None else None
    if bonus is not None and with_bonus is not None:
        utilities[bonus] = with_bonus
    modelled = with_bonus is not None
    parties = tuple(
        _party(entry, utilities[entry.name], linear[entry.name], _brief(root, entry, scores[entry.stem]))
        for entry in config
    )
    budget = turn_budget(root, rules.family, len(parties), p1_closes=bonus is not None)
    metadata: dict[str, Any] = {
        "family": rules.family,
        "vetoes": [entry.name for entry in config if entry.role in VETO_ROLES],
        "initial_deal": _initial_deal(root, space),
        "thresholds": {entry.name: scores[entry.stem].threshold for entry in config},
        "threshold_comparison": comparisons,
        "threshold_comparison_source": rules.comparison_source,
        "unanimity_bonus": {"party": bonus, "points": BONUS_POINTS, "modelled": modelled} if bonus else None,
        "turn_budget": {"turns": budget.turns, "rounds": budget.rounds, "source": budget.source},
        "licence": _licence(root, rules),
    }
    return Scenario(
        name or f"{'deliberation' if rules.family == 'llm-deliberation' else 'textarena'}-{root.name}",
        f"{rules.title} game {root.name!r}",
        read_text(root / "global_instructions.txt") if (root / "global_instructions.txt").is_file() else "",
        space,
        parties,
        _rules(config, budget),
        source=str(root),
        metadata=metadata,
    )


def turn_budget(root: Path, family: GameFamily, parties: int, *, p1_closes: bool = False) -> TurnBudget:
    """The game's own turn budget and the rounds parley plays for it.

    LLM-Deliberation: the turns a recorded run in the folder was given (its `slot_assignment`), else
    the README's 4 turns per party; one turn is one party speaking, as one parley round is one party
    proposing. Its runner (`main.py`) has p1 open with the initial deal before those turns and make
    the final deal suggestion after them, and its evaluator scores that final deal; with p1_closes
    (p1 opens parley's rotation) parley adds rounds up to the next one that is p1's, so p1 proposes
    first and last. TextArena: its default of 120 turns, where one party's proposal and every other
    party's vote take n turns, as one parley round does.

    Raises:
        ScenarioError: a recorded run in the folder cannot be read.
    """
    if family == "textarena":
        rounds = max(1, math.ceil(TEXTARENA_TURNS / parties))
        source = f"TextArena's default max_rounds ({TEXTARENA_TURNS} turns), {parties} turns a round"
        return TurnBudget(TEXTARENA_TURNS, rounds, source)
    turns = TURNS_PER_PARTY * parties
    source = f"LLM-Deliberation's rounds_num = {TURNS_PER_PARTY} × {parties} parties"
    for history in sorted(root.glob("history*.json")):
        turns, source = _recorded_turns(history), f"the turns of the recorded run {history.name}"
        break
    if not p1_closes:
        return TurnBudget(turns, turns, source)
    rounds = parties * math.ceil(turns / parties) + 1  # rounds 1, n + 1, 2n + 1, ... are p1's
    return TurnBudget(turns, rounds, f"{source}, then p1's final deal suggestion (round {rounds})")


def recorded_final_deal(history_path: str | Path) -> str:
    """The deal text of the last proposal in a recorded LLM-Deliberation history JSON.

    Raises:
        ScenarioError: the file has no rounds or the last answer carries no <DEAL> tag.
    """
    path = Path(history_path)
    rounds: Sequence[Mapping[str, Any]] = _history(path).get("rounds") or []
    if not rounds:
        raise ScenarioError("no rounds recorded", source=str(path), field="rounds")
    match = _DEAL_PATTERN.search(str(rounds[-1].get("public_answer", "")))
    if match is None:
        raise ScenarioError("last answer carries no <DEAL>...</DEAL>", source=str(path), field="rounds[-1]")
    return match.group(1).strip()


def score(scenario: Scenario, party: str, outcome: Outcome) -> float:
    """A party's score for a deal, bonus included (convenience for reports and tests)."""
    return scenario.party(party).utility.evaluate(outcome)


# -- building the scenario ---------------------------------------------------------------------------


def _space(root: Path, shape: tuple[int, ...]) -> OutcomeSpace:
    names = read_issue_names(root / "global_instructions.txt", len(shape))
    return OutcomeSpace.of(
        [
            Issue.options(issue_name, [f"{letter(i)}{k + 1}" for k in range(size)])
            for i, (issue_name, size) in enumerate(zip(names, shape, strict=True))
        ]
    )


def _linear(score_file: ScoreFile, space: OutcomeSpace) -> LinearAdditiveUtility:
    values = {issue.name: list(row) for issue, row in zip(space.issues, score_file.scores, strict=True)}
    weights = {issue.name: 1.0 for issue in space.issues}
    return LinearAdditiveUtility(space, weights, values, score_file.threshold)


def _comparison(entry: ConfigLine, rules: FamilyRules) -> str:
    return ">" if rules.strict_threshold and entry.role != BONUS_ROLE else ">="


def _agreeing_score(party: str, utility: LinearAdditiveUtility, comparison: str, root: Path) -> float:
    """The lowest score the party agrees with: its threshold, or under ">" the lowest score above it
    (threshold + 1 when every score is whole, as in every game of both projects).

    Raises:
        ScenarioError: under ">" no deal scores above the threshold.
    """
    threshold = utility.reservation_value
    if comparison == ">=":
        return threshold
    tables = utility.weighted_tables
    if float(threshold).is_integer() and all(np.all(np.mod(table, 1.0) == 0.0) for table in tables):
        lowest = threshold + 1.0
    else:
        above = _space_scores(utility, root)
        above = above[above > threshold]
        lowest = float(above.min()) if above.size else math.inf
    best = utility.bounds()[1]
    if lowest > best:
        raise ScenarioError(
            f"party {party!r} agrees with no deal: the evaluator needs a score above its minimum "
            f"{threshold:g} and its best deal scores {best:g}",
            source=str(root / "scores_files"),
        )
    return lowest


def _space_scores(utility: UtilityFunction, root: Path) -> FloatArray:
    if utility.space.size > BONUS_TABLE_LIMIT:
        raise ScenarioError(
            f"{utility.space.size:,} outcomes with fractional scores: too many to find the lowest "
            f"score above a threshold (at most {BONUS_TABLE_LIMIT:,})",
            source=str(root / "scores_files"),
        )
    return utility.evaluate_space()


def _bonus_holder(config: Sequence[ConfigLine]) -> str | None:
    return next((entry.name for entry in config if entry.role == BONUS_ROLE), None)


def _with_bonus(
    holder: str, additive: Mapping[str, LinearAdditiveUtility], root: Path
) -> AdditiveBonusUtility | None:
    """The bonus holder's utility: its score lines plus 10 on every deal all the other parties agree
    with (each at or above its BATNA). None, with a warning, when the space is too large to list the
    deals."""
    base = additive[holder]
    space = base.space
    if space.size > BONUS_TABLE_LIMIT:
        logger.warning(
            "%s: %s outcomes, more than %s: %s's unanimity bonus is not modelled",
            root,
            f"{space.size:,}",
            f"{BONUS_TABLE_LIMIT:,}",
            holder,
        )
        return None
    everyone = np.ones(space.size, dtype=bool)
    for name, utility in additive.items():
        if name != holder:
            everyone &= utility.evaluate_space() >= utility.reservation_value - 1e-9
    return AdditiveBonusUtility(space, base, BONUS_POINTS, everyone, base.reservation_value)


def _party(entry: ConfigLine, utility: UtilityFunction, linear: LinearAdditiveUtility, brief: str) -> Party:
    persona = {"incentive": entry.incentive, "veto": entry.role in VETO_ROLES, "file": entry.stem}
    signals = {"priorities": _priorities(linear)}
    return Party(entry.name, entry.role, utility, persona, brief=brief, signals=signals)


def _priorities(utility: LinearAdditiveUtility) -> list[str]:
    """Issues from most to least at stake for the party (score range), a coarse public signal."""
    spans = {
        issue.name: float(table.max() - table.min())
        for issue, table in zip(utility.space.issues, utility.weighted_tables, strict=True)
    }
    return sorted(spans, key=lambda issue: -spans[issue])


def _rules(config: Sequence[ConfigLine], budget: TurnBudget) -> Rules:
    """n − 1 of n with the veto parties; p1 opens and the others follow in config order."""
    names = [entry.name for entry in config]
    vetoes = tuple(entry.name for entry in config if entry.role in VETO_ROLES)
    start = next((i for i, entry in enumerate(config) if entry.role == BONUS_ROLE), 0)
    order = tuple(names[start:] + names[:start]) if start else None
    acceptance = AcceptanceRule(required=len(names) - 1, vetoes=vetoes)
    return Rules(max_rounds=budget.rounds, acceptance=acceptance, proposer_order=order)


def _brief(root: Path, entry: ConfigLine, scores: ScoreFile) -> str:
    """The party's confidential instructions for its incentive, its score placeholders filled in as
    both projects do (#A1_NUM → the score of A1, #A_MAX_NUM → the best score on issue A)."""
    path = root / "individual_instructions" / entry.incentive / f"{entry.stem}.txt"
    if not entry.incentive or Path(entry.incentive).name != entry.incentive or not path.is_file():
        return ""
    text = read_text(path)
    for i, row in enumerate(scores.scores):
        issue = letter(i)
        for k, value in enumerate(row):
            text = text.replace(f"#{issue}{k + 1}_NUM", f"{value:g}")
        text = text.replace(f"#{issue}_MAX_NUM", f"{max(row):g}")
    return text


def _licence(root: Path, rules: FamilyRules) -> str:
    """The licence file beside the game (in it or up to two folders above), else a plain statement
    that the game names none; the shipped game keeps its attribution line."""
    if root.resolve() == base_game_folder().resolve() or root.resolve() == recorded_run_folder().resolve():
        return SHIPPED_LICENCE
    for folder in (root, root.parent, root.parent.parent):
        for file_name in LICENCE_FILES:
            path = folder / file_name
            if path.is_file():
                first = next((line.strip() for line in read_text(path).splitlines() if line.strip()), "")
                return f"{first or 'licence'}, see {path}"
    return f"not stated (no licence file beside the game); {rules.title}'s own games: {rules.licence}"


def _recorded_turns(path: Path) -> int:
    slots = _history(path).get("slot_assignment")
    if not isinstance(slots, list) or not slots:
        raise ScenarioError("expected a non-empty 'slot_assignment' list", source=str(path))
    return len(slots)  # pyright: ignore[reportUnknownArgumentType]


def _history(path: Path) -> Mapping[str, Any]:
    try:
        data = json.loads(read_text(path, limit=64 * MAX_FILE_BYTES))
    except (json.JSONDecodeError, RecursionError) as error:
        raise ScenarioError(f"not a recorded run: {error}", source=str(path)) from None
    if not isinstance(data, dict):
        raise ScenarioError("not a recorded run: expected a JSON object", source=str(path))
    return data  # pyright: ignore[reportUnknownVariableType]


def _common_shape(scores: Mapping[str, ScoreFile], root: Path) -> tuple[int, ...]:
    shapes = {stem: tuple(len(row) for row in file.scores) for stem, file in scores.items()}
    first_stem, first = next(iter(shapes.items()))
    for stem, shape in shapes.items():
        if shape != first:
            raise ScenarioError(
                f"scores file has options per issue {list(shape)}, {first_stem}.txt has {list(first)}",
                source=str(root / "scores_files" / f"{stem}.txt"),
            )
    return first


def _initial_deal(root: Path, space: OutcomeSpace) -> dict[str, str] | None:
    path = root / "initial_deal.txt"
    if not path.is_file():
        return None
    try:
        return parse_deal(read_text(path), space)
    except ScenarioError as error:
        raise ScenarioError(str(error), source=str(path)) from None

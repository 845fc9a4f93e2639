"""Import LAMEN bilateral games (epfl-dlab/LAMEN, MIT): a game file plus issue files with payoff tables.

A game file names the setting, the two sides' instructions and the two parties; each issue file
holds per-side descriptions, payoff rows and option labels. A party's utility is the (optionally
weighted) sum of its payoffs; its BATNA is 0, since LAMEN's rules forbid accepting a negative payoff.
The shipped pairing of games with issues is parley's own (`lamen_games.yaml`); any other game in
the same format imports with `import_lamen_game`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.protocol.rules import Rules
from parley.scenarios.loader import read_yaml
from parley.scenarios.model import Party, Scenario
from parley.scenarios.schema import scenario_error_from

logger = logging.getLogger(__name__)

ModelT = TypeVar("ModelT", bound=BaseModel)
CellT = TypeVar("CellT", str, float)

LICENCE = "LAMEN (epfl-dlab/LAMEN), MIT licence"
DEFAULT_RULES = Rules(max_rounds=20, stagnation_rounds=14)
"""Ten exchanges of two turns (LAMEN's usual length); stagnation only after seven idle exchanges,
so slow time-based concession is not cut short (see the casino scenario file)."""


class _LamenModel(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)


class LamenGameFile(_LamenModel):
    """A LAMEN game file."""

    name: str
    description: str
    sides: list[str]
    parties: list[str]


class LamenIssueFile(_LamenModel):
    """A LAMEN issue file; payoffs and labels hold one row per side."""

    name: str
    issue_type: str = "custom"
    descriptions: list[str]
    payoffs: list[Any]
    payoff_labels: list[Any]


@dataclass(frozen=True, slots=True)
class LamenIssue:
    """One issue aligned to the first side's labels.

    Attributes:
        issue: The domain issue (options are the first side's labels).
        payoffs: Each side's payoff per option, in option order.
        issue_type: LAMEN's label: distributive, compatible or integrative.
        descriptions: Each side's private description of the issue.
        repairs: Notes on label mismatches that were reconciled.
    """

    issue: Issue
    payoffs: tuple[tuple[float, ...], tuple[float, ...]]
    issue_type: str
    descriptions: tuple[str, str]
    repairs: tuple[str, ...] = ()


def data_root() -> Path:
    """The shipped copy of LAMEN's data folder."""
    return Path(str(resources.files("parley.scenarios") / "data" / "lamen"))


def _manifest() -> dict[str, Any]:
    path = Path(str(resources.files("parley.scenarios.importers") / "lamen_games.yaml"))
    data = read_yaml(path.read_text(encoding="utf-8"), str(path))
    if not isinstance(data, dict):
        raise ScenarioError("expected a mapping of game names", source=str(path))
    return data


def lamen_game_names() -> list[str]:
    """Names of the shipped LAMEN games (load them as `lamen/<name>`)."""
    return sorted(_manifest())


def load_lamen_game(name: str) -> Scenario:
    """The shipped LAMEN game called name (with or without the `lamen/` prefix).

    Raises:
        ScenarioError: no such game, or its files are invalid.
    """
    key = name.removeprefix("lamen/")
    manifest = _manifest()
    if key not in manifest:
        raise ScenarioError(f"unknown LAMEN game {key!r}; shipped: {', '.join(sorted(manifest))}")
    entry = manifest[key]
    root = data_root()
    return import_lamen_game(
        root / entry["game"],
        [root / issue for issue in entry["issues"]],
        weights=entry.get("weights"),
        name=f"lamen/{key}",
        rules_file=root / "general_game_rules.yaml",
    )


def import_lamen_game(
    game_file: str | Path,
    issue_files: Sequence[str | Path],
    *,
    weights: Sequence[Sequence[float]] | None = None,
    name: str | None = None,
    rules_file: str | Path | None = None,
    rules: Rules = DEFAULT_RULES,
) -> Scenario:
    """A scenario from one LAMEN game file and its issue files.

    Args:
        game_file: The game YAML (name, description, sides, parties).
        issue_files: Issue YAMLs (name, descriptions, payoffs, payoff_labels), in issue order.
        weights: Per side, a multiplier per issue (default 1: the raw payoff tables).
        name: Scenario name (default: the game's name).
        rules_file: Optional LAMEN rules YAML; its rule texts go to metadata["game_rules"].
        rules: Protocol rules.

    Raises:
        ScenarioError: a file is missing or malformed (names the file and field).
    """
    game = _read_model(LamenGameFile, game_file)
    for field, items in (("sides", game.sides), ("parties", game.parties)):
        if len(items) != 2:
            raise ScenarioError(f"expected 2 entries, got {len(items)}", source=str(game_file), field=field)
    issues = [read_lamen_issue(path) for path in issue_files]
    _check_unique([issue.issue.name for issue in issues], issue_files)
    side_weights = _weights(weights, len(issues))
    space = OutcomeSpace.of([issue.issue for issue in issues])
    parties = tuple(_party(game, issues, space, side, side_weights[side]) for side in (0, 1))
    return Scenario(
        name=name or game.name,
        title=f"LAMEN: {game.name}",
        description=game.description,
        space=space,
        parties=parties,
        rules=rules,
        source=str(game_file),
        metadata=_metadata(game_file, issue_files, issues, side_weights, rules_file),
    )


def read_lamen_issue(path: str | Path) -> LamenIssue:
    """One LAMEN issue file, with the second side's payoffs aligned to the first side's labels.

    Raises:
        ScenarioError: the file is malformed (rows of the wrong length, labels that cannot be matched).
    """
    spec = _read_model(LamenIssueFile, path)
    source = str(path)
    for field in ("descriptions", "payoffs", "payoff_labels"):
        if len(getattr(spec, field)) != 2:
            raise ScenarioError(
                f"expected one entry per side (2), got {len(getattr(spec, field))}",
                source=source,
                field=field,
            )
    labels = [_row(spec.payoff_labels[side], source, f"payoff_labels[{side}]", str) for side in (0, 1)]
    payoffs = [_row(spec.payoffs[side], source, f"payoffs[{side}]", float) for side in (0, 1)]
    for side in (0, 1):
        if len(payoffs[side]) != len(labels[side]):
            raise ScenarioError(
                f"expected {len(labels[side])} payoffs (one per label), got {len(payoffs[side])}",
                source=source,
                field=f"payoffs[{side}]",
            )
    order, repairs = _align_labels(labels[0], labels[1], source)
    second = tuple(payoffs[1][position] for position in order)
    try:
        issue = Issue.options(spec.name, labels[0])
    except ScenarioError as error:
        raise ScenarioError(str(error), source=source, field="payoff_labels[0]") from None
    return LamenIssue(
        issue,
        (tuple(payoffs[0]), second),
        spec.issue_type,
        (spec.descriptions[0], spec.descriptions[1]),
        repairs,
    )


def _read_model(model: type[ModelT], path: str | Path) -> ModelT:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError("file not found", source=source) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"cannot read the file: {error}", source=source) from None
    data = read_yaml(text, source)
    if not isinstance(data, Mapping):
        raise ScenarioError(f"expected a mapping at the top level, got {type(data).__name__}", source=source)
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise scenario_error_from(error, source) from None


def _row(raw: Any, source: str, field: str, kind: type[CellT]) -> list[CellT]:
    """One side's row; a row wrapped in an extra list (as in gen-m-employees.yaml) is unwrapped."""
    if isinstance(raw, list) and len(raw) == 1 and isinstance(raw[0], list):
        raw = raw[0]
    if not isinstance(raw, list) or not raw:
        raise ScenarioError(f"expected a non-empty list, got {raw!r}", source=source, field=field)
    row: list[CellT] = []
    for i, cell in enumerate(raw):
        if isinstance(cell, bool) or not isinstance(cell, str | int | float):
            raise ScenarioError(
                f"expected a {'number' if kind is float else 'label'}, got {cell!r}",
                source=source,
                field=f"{field}[{i}]",
            )
        if kind is float and isinstance(cell, str):
            raise ScenarioError(f"expected a number, got {cell!r}", source=source, field=f"{field}[{i}]")
        row.append(kind(cell))
    return row


def _align_labels(
    first: Sequence[str], second: Sequence[str], source: str
) -> tuple[list[int], tuple[str, ...]]:
    """For each of the first side's labels, the position of the same label in the second side's row.

    Labels are matched exactly; if exactly one label on each side is left over (a typo in the
    source, such as "$000" for "$800" in room_price.yaml), those two are paired and the repair noted.
    """
    if len(first) != len(second):
        raise ScenarioError(
            f"expected {len(first)} labels (as for the first side), got {len(second)}",
            source=source,
            field="payoff_labels[1]",
        )
    positions = {label: i for i, label in enumerate(second)}
    order = [positions.get(label, -1) for label in first]
    unmatched_first = [i for i, position in enumerate(order) if position < 0]
    unmatched_second = sorted(set(range(len(second))) - set(order))
    if not unmatched_first:
        return order, ()
    if len(unmatched_first) == 1 and len(unmatched_second) == 1:
        order[unmatched_first[0]] = unmatched_second[0]
        note = f"label {second[unmatched_second[0]]!r} of side 2 read as {first[unmatched_first[0]]!r}"
        logger.info("%s: %s", source, note)
        return order, (note,)
    missing = [first[i] for i in unmatched_first]
    raise ScenarioError(f"side 2 has no labels {missing} of side 1", source=source, field="payoff_labels[1]")


def _check_unique(names: Sequence[str], files: Sequence[str | Path]) -> None:
    for position, name in enumerate(names):
        if name in names[:position]:
            raise ScenarioError(f"duplicate issue name {name!r}", source=str(files[position]), field="name")


def _weights(
    weights: Sequence[Sequence[float]] | None, count: int
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    if weights is None:
        return (1.0,) * count, (1.0,) * count
    if len(weights) != 2 or any(len(row) != count for row in weights):
        raise ScenarioError(
            f"expected weights as 2 rows of {count} numbers, got {weights!r}", field="weights"
        )
    return tuple(float(w) for w in weights[0]), tuple(float(w) for w in weights[1])


def _party(
    game: LamenGameFile,
    issues: Sequence[LamenIssue],
    space: OutcomeSpace,
    side: int,
    weights: Sequence[float],
) -> Party:
    tables = {
        item.issue.name: [w * value for value in item.payoffs[side]]
        for item, w in zip(issues, weights, strict=True)
    }
    utility = LinearAdditiveUtility.from_tables(space, tables, reservation_value=0.0)
    brief = "\n\n".join([game.sides[side], *(item.descriptions[side] for item in issues)])
    return Party(game.parties[side], game.parties[side], utility, brief=brief)


def _metadata(
    game_file: str | Path,
    issue_files: Sequence[str | Path],
    issues: Sequence[LamenIssue],
    weights: tuple[tuple[float, ...], tuple[float, ...]],
    rules_file: str | Path | None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "dataset": "lamen",
        "licence": LICENCE,
        "game_file": Path(game_file).name,
        "issue_files": [Path(path).name for path in issue_files],
        "issue_types": {item.issue.name: item.issue_type for item in issues},
        "weights": [list(row) for row in weights],
    }
    repairs = [note for item in issues for note in item.repairs]
    if repairs:
        metadata["label_repairs"] = repairs
    if rules_file is not None:
        metadata["game_rules"] = _rule_texts(rules_file)
    return metadata


def _rule_texts(path: str | Path) -> list[str]:
    data = read_yaml(Path(path).read_text(encoding="utf-8"), str(path))
    rules = data.get("rules") if isinstance(data, Mapping) else None
    if not isinstance(rules, list):
        raise ScenarioError("expected a list of rule texts", source=str(path), field="rules")
    return [str(rule) for rule in rules]

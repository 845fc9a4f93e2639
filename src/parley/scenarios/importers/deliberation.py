"""Import LLM-Deliberation games (Abdelnabi et al.): multi-party, multi-issue scoring games.

A game folder holds `config.txt` (one party per line: name, file stem, role — `p1`/`p2` mark the
two veto parties — incentive, model), `scores_files/<stem>.txt` (one line of option scores per
issue, then the party's minimum threshold), `global_instructions.txt` (issue names and option
labels) and optionally `initial_deal.txt`. A deal passes with n − 1 of n parties including both
veto parties.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from parley.domain.issues import Issue, Outcome
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.protocol.rules import AcceptanceRule, Rules
from parley.scenarios.model import Party, Scenario

VETO_ROLES = ("p1", "p2")
"""Config roles that mark veto parties (p1 is the proposer who opens and closes the game)."""

_ISSUE_PATTERN = re.compile(r'^\s*Issue\s+([A-Z])\s*:\s*"?([^"\n]+?)"?\s*$', re.MULTILINE)
_DEAL_PATTERN = re.compile(r"<DEAL>(.*?)</DEAL>", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ConfigLine:
    """One party entry of a game's config.txt."""

    name: str
    stem: str
    role: str
    incentive: str


@dataclass(frozen=True, slots=True)
class ScoreFile:
    """One party's option scores per issue and its minimum acceptable total."""

    scores: tuple[tuple[float, ...], ...]
    threshold: float


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
    return load_deliberation_game(base_game_folder().parent / name)


def base_game_folder() -> Path:
    """The shipped LLM-Deliberation `base` game."""
    return Path(str(resources.files("parley.scenarios") / "data" / "llm_deliberation" / "base"))


def recorded_run_folder() -> Path:
    """The shipped recorded run of the base game (all cooperative, GPT-4)."""
    root = (
        resources.files("parley.scenarios")
        / "data"
        / "llm_deliberation"
        / "logs"
        / "all_coop_temp1_base_gpt4"
    )
    return Path(str(root))


def read_config(path: Path) -> list[ConfigLine]:
    """Parse config.txt.

    Raises:
        ScenarioError: missing file or a line without the five comma-separated fields.
    """
    lines = [line.strip() for line in _read(path).splitlines() if line.strip()]
    entries: list[ConfigLine] = []
    for number, line in enumerate(lines, start=1):
        fields = [field.strip() for field in line.split(",")]
        if len(fields) < 4:
            raise ScenarioError(
                f"line {number}: expected 'name,file,role,incentive,model', got {line!r}", source=str(path)
            )
        entries.append(ConfigLine(fields[0], fields[1], fields[2], fields[3]))
    if len(entries) < 2:
        raise ScenarioError(f"expected at least two parties, got {len(entries)}", source=str(path))
    return entries


def read_scores(path: Path) -> ScoreFile:
    """Parse one scores file: a line of numbers per issue, then the minimum threshold.

    Raises:
        ScenarioError: missing file, a non-number, or no threshold line.
    """
    lines = [line.strip() for line in _read(path).splitlines() if line.strip()]
    if len(lines) < 2:
        raise ScenarioError(
            f"expected issue score lines and a threshold, got {len(lines)} lines", source=str(path)
        )
    rows = [_numbers(line, path, number) for number, line in enumerate(lines, start=1)]
    threshold = rows[-1]
    if len(threshold) != 1:
        raise ScenarioError(f"last line must be one threshold number, got {lines[-1]!r}", source=str(path))
    return ScoreFile(tuple(tuple(row) for row in rows[:-1]), threshold[0])


def read_issue_names(path: Path, count: int) -> list[str]:
    """Issue names from global_instructions.txt ("Issue A: "Infrastructure Mix""), in letter order.

    Falls back to "Issue A", "Issue B" ... when the file names fewer issues than the score files hold.
    """
    found: dict[str, str] = {}
    if path.is_file():
        for letter, name in _ISSUE_PATTERN.findall(path.read_text(encoding="utf-8")):
            found.setdefault(letter, name.strip())
    return [found.get(chr(ord("A") + i), f"Issue {chr(ord('A') + i)}") for i in range(count)]


def parse_deal(text: str, space: OutcomeSpace) -> dict[str, str]:
    """Read a deal written as option labels ("A2, B2, C2, D2, E3") into an outcome.

    Raises:
        ScenarioError: a label is unknown or an issue is missing or repeated.
    """
    labels = [token.strip() for token in re.split(r"[,\s]+", text.strip()) if token.strip()]
    outcome: dict[str, str] = {}
    for label in labels:
        issue = _issue_of_label(label, space)
        if issue.name in outcome:
            raise ScenarioError(f"deal {text!r} names issue {issue.name!r} twice", field="deal")
        outcome[issue.name] = label
    missing = [name for name in space.names if name not in outcome]
    if missing:
        raise ScenarioError(f"deal {text!r} misses issues {missing}", field="deal")
    return outcome


def load_deliberation_game(folder: str | Path | None = None, *, name: str | None = None) -> Scenario:
    """Build a scenario from an LLM-Deliberation game folder.

    Args:
        folder: The game folder (default: the shipped `base` game).
        name: Scenario id (default: "deliberation-<folder name>").

    Raises:
        ScenarioError: a missing or malformed file, or score files that disagree in shape.
    """
    root = Path(folder) if folder is not None else base_game_folder()
    config = read_config(root / "config.txt")
    scores = {entry.stem: read_scores(root / "scores_files" / f"{entry.stem}.txt") for entry in config}
    shape = _common_shape(scores, root)
    issue_names = read_issue_names(root / "global_instructions.txt", len(shape))
    space = OutcomeSpace.of(
        [
            Issue.options(issue_name, [f"{chr(ord('A') + i)}{k + 1}" for k in range(size)])
            for i, (issue_name, size) in enumerate(zip(issue_names, shape, strict=True))
        ]
    )
    parties = tuple(_party(entry, scores[entry.stem], space, _brief(root, entry)) for entry in config)
    vetoes = tuple(entry.name for entry in config if entry.role in VETO_ROLES)
    rules = Rules(max_rounds=24, acceptance=AcceptanceRule(required=len(parties) - 1, vetoes=vetoes))
    metadata: dict[str, Any] = {
        "family": "llm-deliberation",
        "vetoes": list(vetoes),
        "initial_deal": _initial_deal(root, space),
        "licence": "MIT (S-Abdelnabi/LLM-Deliberation), see data/llm_deliberation/LICENSE.txt",
    }
    description = (
        _read(root / "global_instructions.txt") if (root / "global_instructions.txt").is_file() else ""
    )
    return Scenario(
        name or f"deliberation-{root.name}",
        f"LLM-Deliberation game {root.name!r}",
        description,
        space,
        parties,
        rules,
        source=str(root),
        metadata=metadata,
    )


def recorded_final_deal(history_path: str | Path) -> str:
    """The deal text of the last proposal in a recorded LLM-Deliberation history JSON.

    Raises:
        ScenarioError: the file has no rounds or the last answer carries no <DEAL> tag.
    """
    path = Path(history_path)
    data = json.loads(_read(path))
    rounds: Sequence[Mapping[str, Any]] = data.get("rounds") or []
    if not rounds:
        raise ScenarioError("no rounds recorded", source=str(path), field="rounds")
    match = _DEAL_PATTERN.search(str(rounds[-1].get("public_answer", "")))
    if match is None:
        raise ScenarioError("last answer carries no <DEAL>...</DEAL>", source=str(path), field="rounds[-1]")
    return match.group(1).strip()


def _brief(root: Path, entry: ConfigLine) -> str:
    """The party's confidential instructions for its incentive, when the game ships them."""
    path = root / "individual_instructions" / entry.incentive / f"{entry.stem}.txt"
    return _read(path) if path.is_file() else ""


def _party(entry: ConfigLine, score_file: ScoreFile, space: OutcomeSpace, brief: str = "") -> Party:
    values = {issue.name: list(row) for issue, row in zip(space.issues, score_file.scores, strict=True)}
    weights = {issue.name: 1.0 for issue in space.issues}
    utility = LinearAdditiveUtility(space, weights, values, score_file.threshold)
    persona = {"incentive": entry.incentive, "veto": entry.role in VETO_ROLES, "file": entry.stem}
    signals = {"priorities": _priorities(utility, space)}
    return Party(entry.name, entry.role, utility, persona, brief=brief, signals=signals)


def _priorities(utility: LinearAdditiveUtility, space: OutcomeSpace) -> list[str]:
    """Issues from most to least at stake for the party (score range), a coarse public signal."""
    spans = {
        issue.name: float(table.max() - table.min())
        for issue, table in zip(space.issues, utility.weighted_tables, strict=True)
    }
    return sorted(spans, key=lambda issue: -spans[issue])


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
    return parse_deal(path.read_text(encoding="utf-8"), space) if path.is_file() else None


def _issue_of_label(label: str, space: OutcomeSpace) -> Issue:
    for issue in space.issues:
        if label in issue.values:
            return issue
    raise ScenarioError(f"unknown option label {label!r}", field="deal")


def _numbers(line: str, path: Path, number: int) -> list[float]:
    try:
        return [float(token) for token in line.replace(",", " ").split()]
    except ValueError:
        raise ScenarioError(f"line {number}: expected numbers, got {line!r}", source=str(path)) from None


def _read(path: Path) -> str:
    if not path.is_file():
        raise ScenarioError("file not found", source=str(path))
    return path.read_text(encoding="utf-8")


def score(scenario: Scenario, party: str, outcome: Outcome) -> float:
    """A party's score for a deal (convenience for reports and tests)."""
    return scenario.party(party).utility.evaluate(outcome)

"""Import the six ProMediate mediation cases (HMO, Williams, Francis, IAS, Flagship, River).

The case files (JSON: background, issues, options, per-party briefs, speaking-motivation settings)
ship verbatim as package data; the ranked preferences each brief states in prose are recorded in
the `parley_preferences.yaml` sidecar beside them, with a note on how they were derived.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, cast

import yaml

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import RankedPreferenceUtility
from parley.errors import ScenarioError
from parley.scenarios.model import Party, Scenario

PROMEDIATE_CASES: tuple[str, ...] = ("hmo", "williams", "francis", "ias", "flagship", "river")
"""The case ids, in the seed's order."""

MEDIATOR_NAME = "Mediator"
"""Name of the mediator entry in a case file (not a party)."""

_SIDECAR = "parley_preferences.yaml"
_TITLES = {
    "hmo": "a health plan and a drug maker negotiate a supply contract",
    "williams": "a hospital committee sets a drug consultation policy",
    "francis": "a hospital decides how to expand its management model",
    "ias": "three divisions staff and fund a shared account system",
    "flagship": "an airline and an engine maker restructure an order",
    "river": "states and agencies share a river basin in drought",
}
_DEFAULT_SPEAKING = {"im_threshold": 3.0, "system1_prob": 0.0, "interrupt_threshold": 2.5}


@dataclass(frozen=True, slots=True)
class TopicPreference:
    """One party's stated preference on one topic.

    Attributes:
        ranking: Options from first choice down.
        unacceptable: Options the brief rules out.
    """

    ranking: tuple[str, ...]
    unacceptable: tuple[str, ...]


def promediate_case_names() -> list[str]:
    """The shipped case ids (for the scenario catalog: "promediate/<case>")."""
    return list(PROMEDIATE_CASES)


def data_folder() -> Path:
    """The package folder holding the verbatim case files and the preference sidecar."""
    return Path(str(resources.files("parley.scenarios") / "data" / "promediate"))


def parse_preference(text: str, options: Sequence[str], *, field: str) -> TopicPreference:
    """Parse the sidecar notation "A > B > C ; not D, E".

    Raises:
        ScenarioError: an option letter is unknown, repeated, or both ranked and ruled out.
    """
    ranked_part, _, rejected_part = text.partition(";")
    ranking = tuple(token.strip() for token in ranked_part.split(">") if token.strip())
    rejected_text = rejected_part.strip()
    if rejected_text and not rejected_text.startswith("not "):
        raise ScenarioError(f"expected '; not X, Y' after the ranking, got {text!r}", field=field)
    unacceptable = tuple(t.strip() for t in rejected_text.removeprefix("not ").split(",") if t.strip())
    for option in (*ranking, *unacceptable):
        if option not in options:
            raise ScenarioError(f"unknown option {option!r}; expected one of {list(options)}", field=field)
    if len(set(ranking) | set(unacceptable)) != len(ranking) + len(unacceptable):
        raise ScenarioError(f"an option appears twice in {text!r}", field=field)
    return TopicPreference(ranking, unacceptable)


def load_promediate_case(case: str, folder: str | Path | None = None) -> Scenario:
    """Build the parley scenario for one ProMediate case.

    Args:
        case: Case id ("hmo", "williams", "francis", "ias", "flagship", "river").
        folder: Folder holding `<case>.json`, `topics.json` and the preference sidecar
            (default: the package data).

    Raises:
        ScenarioError: unknown case, missing file, or a sidecar that disagrees with the case file.
    """
    root = Path(folder) if folder is not None else data_folder()
    key = case.lower()
    if key not in PROMEDIATE_CASES:
        raise ScenarioError(f"unknown ProMediate case {case!r}; expected one of {list(PROMEDIATE_CASES)}")
    source = str(root / f"{key}.json")
    raw = _read_json(root / f"{key}.json")
    topic_names = _topic_names(root, key)
    sidecar = _sidecar(str(root)).get(key)
    if not isinstance(sidecar, Mapping):
        raise ScenarioError(f"no preferences recorded for case {key!r}", source=str(root / _SIDECAR))
    return _build(key, raw, topic_names, cast(Mapping[str, Any], sidecar), source)


def load_all_cases(folder: str | Path | None = None) -> list[Scenario]:
    """Every shipped ProMediate case, in the seed's order."""
    return [load_promediate_case(case, folder) for case in PROMEDIATE_CASES]


def _read_json(path: Path) -> Mapping[str, Any]:
    if not path.is_file():
        raise ScenarioError("file not found", source=str(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ScenarioError(f"invalid JSON: {error}", source=str(path)) from None
    if not isinstance(data, dict):
        raise ScenarioError(f"expected a JSON object, got {type(data).__name__}", source=str(path))
    for required in ("instruction", "issues", "options", "config", "names"):
        if required not in data:
            raise ScenarioError(f"missing field {required!r}", source=str(path), field=required)
    return cast(Mapping[str, Any], data)


def _topic_names(root: Path, case: str) -> list[str]:
    topics = _read_topics(str(root / "topics.json"))
    if case not in topics:
        raise ScenarioError(f"no topics listed for case {case!r}", source=str(root / "topics.json"))
    return [_clean_topic(name) for name in topics[case]]


@cache
def _read_topics(path: str) -> dict[str, list[str]]:
    if not Path(path).is_file():
        raise ScenarioError("file not found", source=path)
    return cast(dict[str, list[str]], json.loads(Path(path).read_text(encoding="utf-8")))


@cache
def _sidecar(folder: str) -> Mapping[str, Any]:
    path = Path(folder) / _SIDECAR
    if not path.is_file():
        raise ScenarioError("preference sidecar not found", source=str(path))
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("cases"), dict):
        raise ScenarioError("expected a mapping with a 'cases' mapping", source=str(path), field="cases")
    return cast(Mapping[str, Any], data["cases"])


def _derivation(folder: str) -> tuple[str, Mapping[str, str]]:
    data = yaml.safe_load((Path(folder) / _SIDECAR).read_text(encoding="utf-8"))
    return str(data.get("derivation", "")), cast(Mapping[str, str], data.get("notes") or {})


def _clean_topic(name: str) -> str:
    """Topic names as displayed: shouted names in title case, without a trailing question mark."""
    text = name.strip().rstrip("?").strip()
    return text.capitalize() if text.isupper() else text


def _build(
    case: str, raw: Mapping[str, Any], topic_names: list[str], sidecar: Mapping[str, Any], source: str
) -> Scenario:
    topics = cast(list[Mapping[str, Any]], sidecar.get("topics") or [])
    if len(topics) != len(topic_names):
        raise ScenarioError(
            f"sidecar lists {len(topics)} topics, topics.json lists {len(topic_names)}",
            source=source,
            field=f"cases.{case}.topics",
        )
    descriptions = {
        name: {str(k): str(v) for k, v in cast(Mapping[str, Any], topic["options"]).items()}
        for name, topic in zip(topic_names, topics, strict=True)
    }
    space = OutcomeSpace.of([Issue.options(name, tuple(descriptions[name])) for name in topic_names])
    briefs = cast(Mapping[str, str], raw["names"])
    config = _speaking_settings(cast(Mapping[str, Any], raw["config"]))
    entries = cast(Mapping[str, Any], sidecar.get("parties") or {})
    _check_party_names(case, briefs, entries, source)
    parties = tuple(
        _party(name, str(briefs[name]), entries[name], space, config, f"cases.{case}.parties.{name}")
        for name in briefs
        if name != MEDIATOR_NAME
    )
    derivation, notes = _derivation(str(Path(source).parent))
    metadata: dict[str, Any] = {
        "family": "promediate",
        "topics": topic_names,
        "options": descriptions,
        "issues_text": str(raw["issues"]),
        "options_text": str(raw["options"]),
        "mediator": {
            "brief": str(briefs.get(MEDIATOR_NAME, "")),
            "speaking": config.get(MEDIATOR_NAME.lower()),
        },
        "derivation": derivation,
        "derivation_note": notes.get(case, ""),
        "licence": "MIT (microsoft/ProMediate-Eval), see data/promediate/LICENSE.txt",
    }
    title = _title(case)
    return Scenario(case, title, str(raw["instruction"]), space, parties, source=source, metadata=metadata)


def _check_party_names(case: str, briefs: Mapping[str, str], entries: Mapping[str, Any], source: str) -> None:
    expected = sorted(name for name in briefs if name != MEDIATOR_NAME)
    if sorted(entries) != expected:
        raise ScenarioError(
            f"sidecar parties {sorted(entries)} differ from the case's parties {expected}",
            source=source,
            field=f"cases.{case}.parties",
        )


def _speaking_settings(config: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Speaking-motivation settings keyed by lower-case name (case files spell some names differently)."""
    return {
        str(name).lower(): {key: float(value) for key, value in cast(Mapping[str, Any], values).items()}
        for name, values in config.items()
    }


def _party(
    name: str,
    brief: str,
    entry: Any,
    space: OutcomeSpace,
    config: Mapping[str, Mapping[str, float]],
    field: str,
) -> Party:
    preferences, weights = _preferences_and_weights(entry, space, field)
    rankings = {issue: pref.ranking for issue, pref in preferences.items()}
    unacceptable = {issue: pref.unacceptable for issue, pref in preferences.items()}
    utility = RankedPreferenceUtility(space, rankings, unacceptable, weights)
    speaking = dict(config.get(name.lower(), _DEFAULT_SPEAKING))
    persona: dict[str, Any] = {"speaking": speaking}
    signals = {"priorities": sorted(space.names, key=lambda issue: -weights.get(issue, 1.0))}
    return Party(name, _role(brief, name), utility, persona, brief, signals)


def _preferences_and_weights(
    entry: Any, space: OutcomeSpace, field: str
) -> tuple[dict[str, TopicPreference], dict[str, float]]:
    if isinstance(entry, Mapping):
        mapping = cast(Mapping[str, Any], entry)
        texts = cast(list[str], mapping.get("preferences") or [])
        raw_weights = cast(list[float], mapping.get("weights") or [1.0] * len(space.issues))
    else:
        texts, raw_weights = cast(list[str], entry), [1.0] * len(space.issues)
    if len(texts) != len(space.issues) or len(raw_weights) != len(space.issues):
        raise ScenarioError(
            f"expected {len(space.issues)} preferences and weights, got {len(texts)} and {len(raw_weights)}",
            field=field,
        )
    preferences = {
        issue.name: parse_preference(str(text), [str(v) for v in issue.values], field=f"{field}[{i}]")
        for i, (issue, text) in enumerate(zip(space.issues, texts, strict=True))
    }
    weights = {issue.name: float(w) for issue, w in zip(space.issues, raw_weights, strict=True)}
    return preferences, weights


def _role(brief: str, name: str) -> str:
    match = re.search(r"Role:\s*(.+)", brief)
    return match.group(1).strip().rstrip(".") if match else name


def _title(case: str) -> str:
    return f"ProMediate {case.upper() if len(case) <= 3 else case.capitalize()}: {_TITLES[case]}"

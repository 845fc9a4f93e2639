"""Write a parley scenario as GENIUS XML: a domain file and one additive profile per party.

A utility already in GENIUS's form (weights >= 0, values in [0, 1], no constant) is written as it is,
so importing the files gives it back bit for bit; any other linear-additive utility is rescaled to
that form first (logged; same preferences, see `additive.unit_form`). An integer range whose every
profile is exactly linear in it becomes an integer issue with a linear evaluator (checked by
scoring it as the importer will); any other issue a discrete one, whose evaluations are scaled so
the best is 1 (GENIUS divides by it) with the weight scaled back.
"""

from __future__ import annotations

import itertools
import logging
import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path

from parley.domain.issues import Issue, Value
from parley.errors import ScenarioError
from parley.scenarios.importers.additive import (
    UnitForm,
    file_stem,
    is_xml_text,
    linear_of,
    numeric_text,
    unit_form,
)
from parley.scenarios.importers.genius_format import (
    DOMAIN_TAG,
    EVALUATORS_KEY,
    PROFILE_TAG,
    IssueKind,
    integer_scores,
)
from parley.scenarios.loader import ISSUE_DESCRIPTIONS_KEY
from parley.scenarios.model import Scenario

logger = logging.getLogger(__name__)


def export_genius(scenario: Scenario, out_dir: Path) -> list[Path]:
    """Write the scenario as a GENIUS domain file plus one profile per party.

    Files: `<name>_domain.xml` and `<party>.xml` (names made file-safe). A utility already in
    GENIUS's form (weights ≥ 0, values in [0, 1], no constant) is written as it is; any other
    linear-additive utility is rescaled to it (logged; same preferences). An integer range whose
    every profile is linear in it is written as an integer issue, any other issue as a discrete
    one. Lost: protocol rules, roles, personas, briefs, signals, units; see docs/interop.md.

    Returns:
        The files written: the domain first, then the profiles in party order.

    Raises:
        ScenarioError: a utility that is not linear-additive (a table, an additive utility with a
            bonus on some deals: refused before anything is written), a constant utility, or text that
            XML cannot hold.
    """
    out_dir = Path(out_dir)
    space = scenario.space
    # Every party checked before any is rescaled (and logged), so a refusal comes alone.
    linear = [linear_of(p.utility, p.name, scenario.source) for p in scenario.parties]
    forms = [unit_form(utility, space, p.name) for p, utility in zip(scenario.parties, linear, strict=True)]
    evaluators = _evaluators(scenario, forms)
    kinds: dict[str, IssueKind] = {
        issue.name: "integer" if all(issue.name in found for found in evaluators) else "discrete"
        for issue in space.issues
    }
    _check_texts(scenario)
    taken: set[str] = set()
    domain_file = out_dir / f"{file_stem(scenario.name + '_domain', taken)}.xml"
    files = [domain_file]
    documents = [_domain_document(scenario, kinds)]
    for party, form, found in zip(scenario.parties, forms, evaluators, strict=True):
        files.append(out_dir / f"{file_stem(party.name, taken)}.xml")
        documents.append(_profile_document(scenario, form, party.utility.discount, kinds, found))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for file, document in zip(files, documents, strict=True):
            ET.indent(document)
            ET.ElementTree(document).write(file, encoding="utf-8", xml_declaration=True)
    except OSError as error:
        raise ScenarioError(
            f"cannot write the GENIUS files: {error.strerror or error}", source=str(out_dir)
        ) from None
    return files


def _check_texts(scenario: Scenario) -> None:
    texts = [scenario.name, scenario.description, *(p.name for p in scenario.parties)]
    texts += [str(v) for issue in scenario.space.issues for v in (issue.name, *issue.values)]
    bad = next((t for t in texts if not is_xml_text(t)), None)
    if bad is not None:
        raise ScenarioError(f"{bad!r} holds a control character that XML cannot hold", source=scenario.source)


def _evaluators(scenario: Scenario, forms: Sequence[UnitForm]) -> list[dict[str, tuple[float, float]]]:
    """Per party, a linear evaluator (offset, slope) for every integer range it scores linearly."""
    ranges = [issue for issue in scenario.space.issues if _is_range(issue)]
    recorded = _recorded_evaluators(scenario)
    found: list[dict[str, tuple[float, float]]] = []
    for party, form in zip(scenario.parties, forms, strict=True):
        mine = recorded.get(party.name, {})
        evaluators = {i.name: _linear_evaluator(form.values[i.name], mine.get(i.name)) for i in ranges}
        found.append({name: evaluator for name, evaluator in evaluators.items() if evaluator is not None})
    return found


def _is_range(issue: Issue) -> bool:
    values = issue.values
    return all(type(v) is int for v in values) and all(
        int(b) - int(a) == 1 for a, b in itertools.pairwise(values)
    )


def _recorded_evaluators(scenario: Scenario) -> dict[str, dict[str, tuple[float, float]]]:
    """The integer evaluators the importer recorded per party (see `genius.Profile`)."""
    recorded = scenario.metadata.get("genius")
    parties = recorded.get(EVALUATORS_KEY) if isinstance(recorded, Mapping) else None
    if not isinstance(parties, Mapping):
        return {}
    result: dict[str, dict[str, tuple[float, float]]] = {}
    for party, issues in parties.items():
        if isinstance(issues, Mapping):
            result[str(party)] = {
                str(name): (float(pair[0]), float(pair[1]))
                for name, pair in issues.items()
                if isinstance(pair, Sequence) and len(pair) == 2 and all(_is_number(x) for x in pair)
            }
    return result


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _linear_evaluator(
    scores: Sequence[float], recorded: tuple[float, float] | None
) -> tuple[float, float] | None:
    """An (offset, slope) whose GENIUS scores are exactly these (recorded one first), or None."""
    count = len(scores)
    offset = float(scores[0])
    candidates = [recorded] if recorded is not None else []
    slopes = [0.0] if count == 1 else [(scores[-1] - offset) / (count - 1), scores[1] - offset]
    candidates += [(offset, slope) for slope in slopes]
    for candidate in candidates:
        if integer_scores(candidate[0], candidate[1], count) == list(scores):
            return candidate
    return None


def _objective(parent: ET.Element, scenario: Scenario) -> ET.Element:
    attributes = {"index": "0", "etype": "objective", "type": "objective"}
    attributes |= {"description": scenario.description, "name": scenario.title or scenario.name}
    return ET.SubElement(parent, "objective", attributes)


def _issue_attributes(issue: Issue, index: int, kind: IssueKind) -> dict[str, str]:
    attributes = {"index": str(index), "name": issue.name, "etype": kind, "type": kind}
    if kind == "integer":
        attributes |= {
            "vtype": "integer",
            "lowerbound": str(issue.values[0]),
            "upperbound": str(issue.values[-1]),
        }
    else:
        attributes["vtype"] = _vtype(issue)
    return attributes


def _vtype(issue: Issue) -> str:
    if all(type(v) is int for v in issue.values):
        return "integer"
    if issue.is_numeric:
        return "real"
    if any(not isinstance(v, str) for v in issue.values):
        logger.warning("issue %r mixes text and numbers: GENIUS writes them all as text", issue.name)
    return "discrete"


def _option_text(value: Value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _domain_document(scenario: Scenario, kinds: Mapping[str, IssueKind]) -> ET.Element:
    root = ET.Element(DOMAIN_TAG)
    holder = ET.SubElement(root, PROFILE_TAG, {"number_of_issues": str(len(scenario.space.issues))})
    objective = _objective(holder, scenario)
    descriptions = scenario.metadata.get(ISSUE_DESCRIPTIONS_KEY)
    for index, issue in enumerate(scenario.space.issues, start=1):
        attributes = _issue_attributes(issue, index, kinds[issue.name])
        description = descriptions.get(issue.name) if isinstance(descriptions, dict) else None
        if isinstance(description, str) and description:
            attributes["description"] = description
        element = ET.SubElement(objective, "issue", attributes)
        if kinds[issue.name] == "discrete":
            for number, value in enumerate(issue.values, start=1):
                ET.SubElement(element, "item", {"index": str(number), "value": _option_text(value)})
    return root


def _profile_document(
    scenario: Scenario,
    form: UnitForm,
    discount: float,
    kinds: Mapping[str, IssueKind],
    evaluators: Mapping[str, tuple[float, float]],
) -> ET.Element:
    root = ET.Element(PROFILE_TAG)
    objective = _objective(root, scenario)
    for index, issue in enumerate(scenario.space.issues, start=1):
        kind = kinds[issue.name]
        element = ET.SubElement(objective, "issue", _issue_attributes(issue, index, kind))
        weight = form.weights[issue.name]
        scores = form.values[issue.name]
        if kind == "integer":
            offset, slope = evaluators[issue.name]  # (the kind says every profile has one)
            ET.SubElement(
                element,
                "evaluator",
                {"ftype": "linear", "slope": numeric_text(slope), "offset": numeric_text(offset)},
            )
        else:
            weight, scores = _normalised(weight, scores)
            for number, (value, score) in enumerate(zip(issue.values, scores, strict=True), start=1):
                ET.SubElement(
                    element,
                    "item",
                    {"index": str(number), "value": _option_text(value), "evaluation": numeric_text(score)},
                )
        ET.SubElement(objective, "weight", {"index": str(index), "value": numeric_text(weight)})
    ET.SubElement(root, "reservation", {"value": numeric_text(form.reservation)})
    ET.SubElement(root, "discount_factor", {"value": numeric_text(discount)})
    return root


def _normalised(weight: float, scores: Sequence[float]) -> tuple[float, list[float]]:
    """Scores whose highest is 1 (GENIUS divides by it) and the weight that keeps their worth."""
    top = max(scores)
    if top in (0.0, 1.0):
        return weight, list(scores)
    return weight * top, [score / top for score in scores]

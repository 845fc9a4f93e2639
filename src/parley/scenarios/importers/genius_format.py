"""The GENIUS XML format's shared pieces: safe parsing, its tags, number syntax, and how GENIUS scores
an option (used by the importer in `genius` and the writer in `genius_export`).

Parsing is defused (no DTDs, entities or external references: a "billion laughs" or an external
entity is refused, not expanded), bounded in size (`additive.MAX_FILE_BYTES`) and in nesting depth
(refused as soon as it is exceeded, so a deeply nested file costs milliseconds).
"""

from __future__ import annotations

import io
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from parley.errors import ScenarioError
from parley.scenarios.importers.additive import read_bounded

MAX_DEPTH = 32
"""Deepest element nesting read (GENIUS files nest five deep); deeper input is refused at once."""

DOMAIN_TAG = "negotiation_template"
PROFILE_TAG = "utility_space"
EVALUATORS_KEY = "integer_evaluators"
"""Key of `Scenario.metadata["genius"]` holding each party's integer evaluators as read."""
NORMALISATION_FLOOR = 1e-5
"""GENIUS scores every option of a discrete issue 0 when the issue's highest evaluation is below this."""

IssueKind = Literal["discrete", "integer"]
INTEGER_TEXT = re.compile(r"\s*[+-]?\d{1,18}\s*")
REAL_TEXT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")


def parse_xml(path: Path) -> ET.Element:
    """The root element of an XML file, parsed without DTDs, entities or external references.

    Raises:
        ScenarioError: missing, too large, too deep, malformed, or using a forbidden construct.
    """
    data = read_bounded(path)
    source = str(path)
    root: ET.Element | None = None
    depth = 0
    try:
        for event, element in _events(data):
            if event == "start":
                depth += 1
                root = element if root is None else root
                if depth > MAX_DEPTH:
                    raise ScenarioError(f"elements nest deeper than {MAX_DEPTH} levels", source=source)
            else:
                depth -= 1
    except DefusedXmlException as error:
        raise ScenarioError(
            f"refused XML construct ({type(error).__name__}): {error}", source=source
        ) from None
    except ET.ParseError as error:
        raise ScenarioError(f"invalid XML: {error}", source=source) from None
    if root is None:
        raise ScenarioError("invalid XML: no element", source=source)
    return root


def _events(data: bytes) -> Iterator[tuple[str, ET.Element]]:
    return iterparse(io.BytesIO(data), events=("start", "end"), forbid_dtd=True)


def root_tag(path: Path) -> str | None:
    """The root element's tag, or None when the file is unreadable or does not start as safe XML.

    For detection: parsing stops at the root's opening tag, so scanning a folder of large files
    costs about one read of each (the importer parses the files it uses in full, `parse_xml`).
    """
    try:
        data = read_bounded(path)
        for _, element in iterparse(io.BytesIO(data), events=("start",), forbid_dtd=True):
            return element.tag
    except (ScenarioError, DefusedXmlException, ET.ParseError):
        return None
    return None


def integer_of(text: str | None, source: str, where: str) -> int:
    if text is None or not INTEGER_TEXT.fullmatch(text):
        raise ScenarioError(f"expected an integer, got {_shown(text)}", source=source, field=where)
    return int(text)


def number_of(text: str | None, source: str, where: str) -> float:
    if text is None or not REAL_TEXT.fullmatch(text):
        raise ScenarioError(f"expected a finite number, got {_shown(text)}", source=source, field=where)
    value = float(text)
    if not math.isfinite(value):
        raise ScenarioError(f"expected a finite number, got {_shown(text)}", source=source, field=where)
    return value


def _shown(text: str | None) -> str:
    if text is None:
        return "nothing"
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def discrete_scores(evaluations: Sequence[float]) -> list[float]:
    """GENIUS's score of each option of a discrete issue: evaluation / highest evaluation
    (every score 0 when the highest is below NORMALISATION_FLOOR)."""
    top = max(evaluations)
    if top < NORMALISATION_FLOOR:
        return [0.0] * len(evaluations)
    return [value / top for value in evaluations]


def integer_scores(offset: float, slope: float, count: int) -> list[float]:
    """GENIUS's score of each value lb, lb+1, ... of an integer issue: clamp(offset + slope·k, 0, 1)."""
    return [min(1.0, max(0.0, offset + slope * k)) for k in range(count)]

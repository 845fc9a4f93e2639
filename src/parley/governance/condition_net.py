"""A learned net under the term reader's conditional grammar: clauses scored as conditional, quoted.

A clause-level L2 logistic regression, trained offline by `benchmarks/train_condition_net.py` on every
spent term writer (threshold chosen by leave-one-writer-out cross-validation) and shipped as JSON package
data, scores each clause of a parsed message (the reader's own parse, after parley's normalisation). A
clause it scores at or above its threshold that no condition of the reading already covers is quoted to
the principal as a condition on no term, marked as coming from the net (fail closed: it adds a quote,
never a term, never removes anything). The model file's `enabled` gate keeps it off until its
cross-validated evidence shows it worth its quotes (see `benchmarks/train_condition_net.py`).
`classifier.rules_only()` or `without_net()` switch it off.

Features: lower-cased word 1-2-grams with every digit read as 0, plus shape tokens (a figure, a money
figure, a date word); the score is the sum of the weights of the features the model knows divided by
the square root of their number, plus the intercept, through the logistic function.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Generator, Iterable, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from parley.errors import ScenarioError
from parley.governance.classifier import classifiers_enabled
from parley.governance.classifier import tokens as word_tokens

__all__ = [
    "FORMAT",
    "MODEL_FILE",
    "REASON",
    "ConditionNet",
    "active_net",
    "clause_features",
    "load_condition_net",
    "parse_condition_net",
    "without_net",
]

FORMAT = "parley.condition-net/1"
"""The `format` field the model file carries."""
MODEL_FILE = "condition_net.json"
"""The package-data file of the net (under parley/governance/data)."""
REASON = "condition net"
"""The source of a condition the net quoted (in the reading's JSON and what the principal sees)."""
MAX_CLAUSE_CHARS = 2000
"""A longer clause is scored on its first this many characters (bounds the work per clause)."""

COVERED = 0.8
"""A said text inside a clause covering this share of it covers the clause."""

_MONEY = frozenset("$€£¥")
_MONTHS = frozenset(
    [
        "jan",
        "feb",
        "mar",
        "apr",
        "may",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
    ]
)


def clause_features(text: str) -> frozenset[str]:
    """The features of a clause (the same at training and at run time)."""
    tokens = word_tokens(text[:MAX_CLAUSE_CHARS])
    found = {f"w:{t}" for t in tokens}
    found.update(f"b:{a} {b}" for a, b in itertools.pairwise(tokens))
    if any(any(c.isdigit() for c in t) for t in tokens):
        found.add("s:figure")
    if any(c in _MONEY for c in text[:MAX_CLAUSE_CHARS]) or any(
        t[0] == "0" and t.endswith("k") for t in tokens
    ):
        found.add("s:money")
    if any(t in _MONTHS for t in tokens):
        found.add("s:date")
    found.add("s:bias")
    return frozenset(found)


@dataclass(frozen=True, slots=True)
class ConditionNet:
    """The learned clause scorer.

    Attributes:
        weights: Weight of each feature.
        intercept: The model's intercept.
        threshold: A clause scoring at or above it is conditional.
        enabled: Whether the reader consults it (the training script's gate: off while its
            cross-validated evidence does not show it worth its quotes).
    """

    weights: dict[str, float]
    intercept: float
    threshold: float
    enabled: bool = False

    def score(self, text: str) -> float:
        """The probability that the clause text carries a condition."""
        known = [self.weights[f] for f in clause_features(text) if f in self.weights]
        z = self.intercept + (sum(known) / math.sqrt(len(known)) if known else 0.0)
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def flags(self, text: str) -> bool:
        """Whether the clause text is conditional by the net."""
        return self.score(text) >= self.threshold

    def uncovered(self, clauses: Iterable[str], said: Sequence[str]) -> list[str]:
        """The clauses the net flags that no text already said (a condition read or quoted) holds,
        nor mostly covers (a said text inside the clause covering at least `COVERED` of it)."""
        known = [_bare(q) for q in said if q.strip()]
        found: list[str] = []
        for text in clauses:
            body = text.strip()
            low = _bare(body)
            if not low or any(low in q or (q in low and len(q) >= COVERED * len(low)) for q in known):
                continue
            if self.flags(body):
                found.append(body)
        return found


def _bare(text: str) -> str:
    return text.strip().strip(".,;:!?-— ").lower()


def parse_condition_net(raw: Any, source: str) -> ConditionNet:
    """The net in raw (a parsed JSON object), checked strictly.

    Raises:
        ScenarioError: One line naming source and what is wrong.
    """
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ScenarioError(f"{source}: not a condition net (format must be {FORMAT!r})")
    weights, intercept, threshold = raw.get("weights"), raw.get("intercept"), raw.get("threshold")
    if not isinstance(weights, dict) or not all(
        isinstance(k, str) and isinstance(v, int | float) and math.isfinite(v) for k, v in weights.items()
    ):
        raise ScenarioError(f"{source}: weights must map feature names to finite numbers")
    for name, value in (("intercept", intercept), ("threshold", threshold)):
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            raise ScenarioError(f"{source}: {name} must be a finite number")
    assert isinstance(intercept, int | float) and isinstance(threshold, int | float)
    if not 0.0 < threshold <= 1.0:
        raise ScenarioError(f"{source}: threshold must be in (0, 1]")
    enabled = raw.get("enabled", False)
    if not isinstance(enabled, bool):
        raise ScenarioError(f"{source}: enabled must be true or false")
    weights_read = {k: float(v) for k, v in weights.items()}
    return ConditionNet(weights_read, float(intercept), float(threshold), enabled)


def load_condition_net(path: Path | None = None) -> ConditionNet:
    """The net in path (default: the shipped package data).

    Raises:
        ScenarioError: The file is missing, not JSON or not a condition net (one line).
    """
    source = str(path) if path is not None else MODEL_FILE
    try:
        if path is None:
            text = resources.files("parley.governance").joinpath("data", MODEL_FILE).read_text("utf-8")
        else:
            text = path.read_text("utf-8")
        raw = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ScenarioError(f"{source}: cannot read the condition net: {error}") from None
    return parse_condition_net(raw, source)


_OFF: ContextVar[bool] = ContextVar("parley_condition_net_off", default=False)


@contextmanager
def without_net() -> Generator[None]:
    """Within this block the reader runs without the net (the rest as usual), for measurement."""
    token = _OFF.set(True)
    try:
        yield
    finally:
        _OFF.reset(token)


@cache
def _shipped() -> ConditionNet:
    return load_condition_net()


def active_net() -> ConditionNet | None:
    """The shipped net when it is enabled, or None (gated off, inside `classifier.rules_only()` or
    `without_net()`)."""
    if not classifiers_enabled() or _OFF.get():
        return None
    net = _shipped()
    return net if net.enabled else None

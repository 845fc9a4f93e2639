"""Trained linear text classifiers behind the rule detectors: binding drafts and attack messages.

Two logistic-regression models, trained offline by `benchmarks/train_detectors.py` (scikit-learn, a
development dependency only) and shipped as JSON package data, score a text in numpy: the text is
normalised by `parley.governance.normalize` (NFKC, confusables skeleton, invisible characters
removed), lower-cased with every digit read as 0, and turned into binary word 1-2-gram and
character 3-5-gram features (characters within a word padded by spaces); the score is the sum of
the weights of the features the model knows, divided by the square root of their number (an L2
normalised binary vector), plus the intercept, through the logistic function.

The combination with the rules fails closed (`binding_vote`): the classifier can add a flag to the
rules', and can clear a rule flag only when every binding clause the rules found rests on the
fallback "could not be read as non-binding", nothing was obfuscated, and each flagged sentence scored
alone is below the model's clearing threshold (absent from a model that does not clear). The
moderator's combination (`TextClassifier.clear_vote`) is built the same way: the attack model can clear
the cues' adversarial routing only when nothing was read through an obfuscation or a carrier, every
adversarial family that fired is one its cross-validation showed it can judge (`clear_families`), and
the message and each of its sentences scored alone are below `clear_below`. A text over the size limit
is not scored and counts as flagged.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Generator, Iterable, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from parley.errors import ScenarioError
from parley.governance.normalize import DEFAULT_MAX_CHARS, normalize

__all__ = [
    "CLEAR_MAX_SENTENCES",
    "FORMAT",
    "MODEL_FILES",
    "FeatureSpec",
    "Task",
    "TextClassifier",
    "Vote",
    "binding_vote",
    "classifiers_enabled",
    "clearable",
    "features",
    "load_classifier",
    "load_model_file",
    "parse_model",
    "rules_only",
    "tokens",
]

Task = Literal["binding", "attack"]
"""binding: an outgoing draft commits the principal; attack: an inbound message is adversarial."""
FORMAT = "parley.linear-text-classifier/1"
"""The `format` field every model file carries."""
MODEL_FILES: Mapping[Task, str] = {
    "binding": "binding_classifier.json",
    "attack": "attack_classifier.json",
}
"""The package-data file of each task's model (under parley/governance/data)."""

_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*|[$€£¥%?!]")
_DIGITS = str.maketrans("123456789", "000000000")
_UNPLACEABLE = "could not be read as non-binding"
"""The rules' fallback reason (`commitment.UNPLACEABLE`): the only rule flag a classifier may clear."""
_RULES_ONLY: ContextVar[bool] = ContextVar("parley_rules_only", default=False)
CLEAR_MAX_SENTENCES = 64
"""A message of more sentences is never cleared (fail closed; bounds the per-sentence scoring)."""


@contextmanager
def rules_only() -> Generator[None]:
    """Within this block the preflight and the moderator consult the rules alone (for measurement and
    for collecting training text that must not depend on the model being trained)."""
    token = _RULES_ONLY.set(True)
    try:
        yield
    finally:
        _RULES_ONLY.reset(token)


def classifiers_enabled() -> bool:
    """False inside `rules_only()`."""
    return not _RULES_ONLY.get()


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """How a text becomes features (the same at training and at run time).

    Attributes:
        word_ngrams: Smallest and largest word n-gram.
        char_ngrams: Smallest and largest character n-gram within a space-padded word.
    """

    word_ngrams: tuple[int, int] = (1, 2)
    char_ngrams: tuple[int, int] = (3, 5)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (with the fixed parts of the recipe spelled out for a reader)."""
        return {
            "normalization": "parley.governance.normalize, lower-cased, digits read as 0",
            "word_ngrams": list(self.word_ngrams),
            "char_ngrams": list(self.char_ngrams),
            "values": "binary, L2-normalised over the known features",
        }


def tokens(text: str) -> list[str]:
    """The word tokens of text as the models read them: lower-cased, every digit read as 0."""
    return _TOKEN.findall(text.lower().translate(_DIGITS))


def features(normalized_text: str, spec: FeatureSpec = FeatureSpec()) -> set[str]:
    """The distinct features of an already normalised text ("w " word n-grams, "c " character n-grams).

    Linear in the text's length: each token's character n-grams are listed once per distinct token.
    """
    words = tokens(normalized_text)
    found: set[str] = set()
    low, high = spec.word_ngrams
    for n in range(low, high + 1):
        found.update("w " + " ".join(words[i : i + n]) for i in range(len(words) - n + 1))
    low, high = spec.char_ngrams
    for token in set(words):
        padded = f" {token} "
        for n in range(low, high + 1):
            found.update("c " + padded[i : i + n] for i in range(len(padded) - n + 1))
    return found


@dataclass(frozen=True, slots=True)
class Vote:
    """What the classifier said about one text, for reasons and the audit trail.

    Attributes:
        task: "binding" or "attack".
        probability: The model's probability of the positive class (1.0 when not scored).
        threshold: The probability at or above which the text is flagged.
        flagged: Whether the classifier flags it (a text over the size limit is flagged unscored).
        cleared: For "binding": the classifier cleared a rule flag (see `binding_vote`).
        clear_below: The clearing threshold used, when the model clears.
        scored: False when the text was over the size limit and was not scored.
    """

    task: Task
    probability: float
    threshold: float
    flagged: bool
    cleared: bool = False
    clear_below: float | None = None
    scored: bool = True

    def describe(self) -> str:
        """One line for a principal: "classifier p=0.93 ≥ 0.41" and what it decided."""
        if not self.scored:
            return f"classifier: text too long to score (over {DEFAULT_MAX_CHARS:,} characters), flagged"
        if self.cleared and self.clear_below is not None and self.task == "attack":
            return (
                f"classifier p={self.probability:.3f} < {self.clear_below:.3f} on the message and each "
                "sentence: cleared the cues' adversarial routing"
            )
        if self.cleared and self.clear_below is not None:
            return (
                f"classifier p={self.probability:.3f} < {self.clear_below:.3f} on every flagged sentence: "
                "cleared the rules' 'could not be read as non-binding'"
            )
        sign = "≥" if self.flagged else "<"
        return f"classifier p={self.probability:.3f} {sign} {self.threshold:.3f}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data: dict[str, Any] = {
            "task": self.task,
            "probability": round(self.probability, 4),
            "threshold": self.threshold,
            "flagged": self.flagged,
            "reason": self.describe(),
        }
        if self.cleared:
            data["cleared"] = True
        return data


class TextClassifier:
    """A linear model over binary word and character n-grams, scored in numpy.

    Args:
        task: "binding" or "attack".
        weights: Feature name → coefficient.
        intercept: The model's intercept.
        threshold: Probability at or above which a text is flagged.
        clear_below: Probability below which a rule flag may be cleared (binding: one resting on the
            fallback; attack: one raised only by `clear_families`) (None: this model never clears).
        clear_families: For "attack": the adversarial families whose alarms the model may clear.
        spec: The feature recipe.
        max_chars: Longest text scored; a longer one is flagged unscored (fail closed).
    """

    def __init__(
        self,
        task: Task,
        weights: Mapping[str, float],
        intercept: float,
        threshold: float,
        *,
        clear_below: float | None = None,
        clear_families: Iterable[str] = (),
        spec: FeatureSpec = FeatureSpec(),
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        self.task: Task = task
        self.index = {name: k for k, name in enumerate(weights)}
        self.weights: npt.NDArray[np.float64] = np.fromiter(weights.values(), dtype=np.float64)
        self.intercept = float(intercept)
        self.threshold = float(threshold)
        self.clear_below = clear_below
        self.clear_families = frozenset(clear_families)
        self.spec = spec
        self.max_chars = max_chars

    def decision(self, normalized_text: str) -> float:
        """The linear score (log-odds) of an already normalised text."""
        return self.decision_features(features(normalized_text, self.spec))

    def decision_features(self, found: Iterable[str]) -> float:
        """The linear score (log-odds) of a set of distinct features (see `features`)."""
        known = [self.index[f] for f in found if f in self.index]
        if not known:
            return self.intercept
        picked = self.weights[np.array(sorted(known), dtype=np.intp)]
        return self.intercept + float(picked.sum()) / math.sqrt(len(known))

    def probability_normalized(self, normalized_text: str) -> float:
        """The probability of the positive class for an already normalised text (1.0 over the limit)."""
        if len(normalized_text) > self.max_chars:
            return 1.0
        return _logistic(self.decision(normalized_text))

    def probability(self, text: str) -> float:
        """The probability of the positive class for raw text (normalised here; 1.0 over the limit)."""
        if len(text) > self.max_chars:
            return 1.0
        return self.probability_normalized(normalize(text, max_chars=None).text)

    def vote(self, normalized_text: str) -> Vote:
        """The classifier's flag on an already normalised text (a text over the limit is flagged)."""
        if len(normalized_text) > self.max_chars:
            return Vote(self.task, 1.0, self.threshold, True, scored=False)
        p = self.probability_normalized(normalized_text)
        return Vote(self.task, p, self.threshold, p >= self.threshold, clear_below=self.clear_below)

    def clear_vote(
        self, normalized_text: str, sentences: Sequence[str], fired: Iterable[str], hidden: bool
    ) -> Vote:
        """The attack model's vote on a message the moderator's cues routed as adversarial (fail closed).

        Args:
            normalized_text: The message, normalised.
            sentences: Its sentences (each scored alone, so that padding cannot clear an attack).
            fired: The adversarial families whose cues fired.
            hidden: A cue read through an obfuscation or a carrier fired.

        Returns:
            A vote that clears (`cleared`) only when this model clears, nothing was hidden, every family
            that fired is in `clear_families`, the message has at most CLEAR_MAX_SENTENCES sentences,
            and the message and every sentence score below `clear_below`; otherwise the plain vote
            (never cleared).
        """
        vote = self.vote(normalized_text)
        families = set(fired)
        if (
            vote.flagged
            or self.clear_below is None
            or hidden
            or not families
            or not families <= self.clear_families
            or len(sentences) > CLEAR_MAX_SENTENCES
        ):
            return vote
        worst = max([vote.probability, *(self.probability_normalized(s) for s in sentences)])
        if worst < self.clear_below:
            return Vote(self.task, worst, self.threshold, False, True, self.clear_below)
        return vote


def _logistic(z: float) -> float:
    """The logistic function without overflow (always finite, in [0, 1])."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-min(z, 700.0)))
    e = math.exp(max(z, -700.0))
    return e / (1.0 + e)


def clearable(reasons: Iterable[str], normalization: Iterable[str]) -> bool:
    """Whether a rule flag may be cleared at all: every finding is the fallback, nothing was obfuscated."""
    found = list(reasons)
    return bool(found) and all(r == _UNPLACEABLE for r in found) and not list(normalization)


def binding_vote(
    model: TextClassifier,
    normalized_text: str,
    reasons: Sequence[str],
    sentences: Sequence[str],
    normalization: Sequence[str],
) -> Vote:
    """The classifier's part in the preflight's binding decision (fail closed).

    Args:
        model: The binding model.
        normalized_text: The draft, normalised.
        reasons: The reasons of the rules' findings (empty: the rules found nothing binding).
        sentences: The sentences the rules flagged.
        normalization: What normalisation undid (any obfuscation forbids clearing).

    Returns:
        A vote that flags when the draft scores at or above the threshold, and clears a rule flag only
        when `clearable` holds and the draft and every flagged sentence, each scored alone, are below
        `clear_below` (a flagged sentence is scored alone so that padding elsewhere cannot clear it).
    """
    vote = model.vote(normalized_text)
    if vote.flagged or model.clear_below is None or not clearable(reasons, normalization):
        return vote
    worst = max([vote.probability, *(model.probability_normalized(s) for s in sentences)])
    if sentences and worst < model.clear_below:
        return Vote("binding", worst, model.threshold, False, True, model.clear_below)
    return vote


def _number(raw: Mapping[str, Any], key: str, source: str) -> float:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ScenarioError(f"expected a finite number, got {value!r}", source=source, field=key)
    return float(value)


def parse_model(raw: Any, source: str) -> TextClassifier:
    """A TextClassifier from a parsed model file.

    Raises:
        ScenarioError: the file is not a model of this format, or a field is missing or malformed.
    """
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ScenarioError(f"not a {FORMAT} model", source=source, field="format")
    data: dict[str, Any] = raw  # pyright: ignore[reportUnknownVariableType]
    task = data.get("task")
    if task not in MODEL_FILES:
        raise ScenarioError(f"expected task 'binding' or 'attack', got {task!r}", source=source, field="task")
    weights = data.get("weights")
    if not isinstance(weights, dict) or not weights:
        raise ScenarioError("expected a non-empty mapping of feature weights", source=source, field="weights")
    table: dict[str, float] = {}
    for name, value in weights.items():  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int | float):
            raise ScenarioError(f"bad weight {name!r}: {value!r}", source=source, field="weights")
        if not math.isfinite(value):
            raise ScenarioError(f"weight {name!r} is not finite", source=source, field="weights")
        table[name] = float(value)
    spec_raw = data.get("features")
    try:
        spec = FeatureSpec(
            tuple(int(n) for n in spec_raw["word_ngrams"]),  # type: ignore[arg-type, index]
            tuple(int(n) for n in spec_raw["char_ngrams"]),  # type: ignore[arg-type, index]
        )
    except (TypeError, KeyError, ValueError) as error:
        raise ScenarioError(f"malformed feature spec ({error})", source=source, field="features") from error
    if len(spec.word_ngrams) != 2 or len(spec.char_ngrams) != 2:
        raise ScenarioError("n-gram ranges must be [low, high]", source=source, field="features")
    threshold = _number(data, "threshold", source)
    clear = data.get("clear_below")
    clear_below = None if clear is None else _number(data, "clear_below", source)
    if not 0.0 <= threshold <= 1.0 or (clear_below is not None and not 0.0 <= clear_below <= threshold):
        raise ScenarioError("thresholds must satisfy 0 <= clear_below <= threshold <= 1", source=source)
    families = _clear_families(data, task, clear_below, source)
    return TextClassifier(
        task,  # type: ignore[arg-type]
        table,
        _number(data, "intercept", source),
        threshold,
        clear_below=clear_below,
        clear_families=families,
        spec=spec,
    )


def _clear_families(data: Mapping[str, Any], task: Any, clear_below: float | None, source: str) -> list[str]:
    """The attack model's clearable families: a list of distinct names, present exactly when it clears."""
    raw = data.get("clear_families")
    if raw is None:
        if task == "attack" and clear_below is not None:
            raise ScenarioError(
                "an attack model that clears must name its families", source=source, field="clear_families"
            )
        return []
    if task != "attack" or clear_below is None:
        raise ScenarioError(
            "only an attack model that clears names families", source=source, field="clear_families"
        )
    if not isinstance(raw, list) or not all(isinstance(f, str) and f for f in raw):  # pyright: ignore
        raise ScenarioError("expected a list of family names", source=source, field="clear_families")
    names: list[str] = list(raw)  # pyright: ignore[reportUnknownArgumentType]
    if len(set(names)) != len(names):
        raise ScenarioError("family names repeat", source=source, field="clear_families")
    return names


def load_model_file(path: Path | str) -> TextClassifier:
    """A model from a JSON file on disk.

    Raises:
        ScenarioError: the file is missing, not JSON, or not a model (one line, naming the file).
    """
    return parse_model(read_model_json(path, "a classifier model"), str(path))


def read_model_json(path: Path | str, what: str) -> Any:
    """The JSON a model file at path holds (a classifier here, the term model in term_model.py).

    Raises:
        ScenarioError: the file is missing, unreadable or not JSON (one line, naming the file).
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ScenarioError(f"cannot read {what} ({error})", source=str(path)) from error


@cache
def load_classifier(task: Task) -> TextClassifier:
    """The shipped model of a task (package data, read once).

    Raises:
        ScenarioError: the shipped file is missing or malformed (a packaging error).
    """
    name = MODEL_FILES[task]
    try:
        text = resources.files("parley.governance").joinpath("data", name).read_text(encoding="utf-8")
        raw = json.loads(text)
    except (OSError, ValueError) as error:
        raise ScenarioError(f"cannot read the {task} classifier ({error})", source=name) from error
    return parse_model(raw, name)

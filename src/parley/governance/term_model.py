"""A trained reader behind the term rules: which values a counterparty message states (issue 17).

For every value the rules find in a message (a figure, a date, an option, a "no relocation" zero; see
`terms.TermReader.analyse`) with the term and the part the rules gave it, a logistic-regression model
scores the probability that the message states that value for that term, from features of the value
and its context: the term, its shape and the rules' role, the figure's unit, rate and magnitude against
the term's usual range, the clause's mood, and the words around it with their side and distance. The
model is trained offline by `benchmarks/train_term_reader.py` (scikit-learn, a development dependency
only), shipped as JSON package data (`data/term_model.json`) and scored in numpy at run time.

The combination with the rules (`TermModel.revise`) fails closed:

- a condition the rules read is never demoted (it reaches the principal whatever the model says);
- a value the rules state as the counterparty's own ("own") whose probability is below `drop_below` is
  set aside, and its clause is quoted in `TermReading.unread` ("set aside by the term model"), so a
  value the model cannot place never vanishes silently;
- a value the rules set aside (the past, a hypothesis, a value replaced, a total) whose probability is
  at least `add_above` is stated, when no value of its term is stated otherwise (as a condition when
  its clause is conditional);
- every condition of the rules' own reading is kept in the final reading (`terms.TermReader.read`
  adds back any the revised reading lacks), so the model can add or re-attribute a condition but
  never take one away;
- where the rules and the model disagree on a term's value, the rules' value stands unless the model
  sets it aside (then the term's next value the rules stated, if any, stands, or the model's own pick);
  the alternative policy "model_value" (the model's best-scored value wins) is measured by the
  training script and did worse on a new writer.

The shipped file says whether the model is on (`enabled`, decided by the training script's
leave-one-writer-out gate). A missing or corrupt shipped file leaves the rules alone and records why
(`model_status`), since the term reader sits on the delegate's hot path and the rules are a complete
reader; a file a caller names explicitly raises a one-line `ScenarioError` instead.
"""

from __future__ import annotations

import bisect
import json
import logging
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np

from parley.errors import ScenarioError
from parley.governance.classifier import classifiers_enabled, read_model_json
from parley.governance.draft import Draft
from parley.governance.term_attribution import misfit
from parley.governance.term_figures import cues
from parley.governance.term_roles import UNCLAIMED, Hit, Role, is_question

__all__ = [
    "FORMAT",
    "MODEL_FILE",
    "MessageContext",
    "Policy",
    "Revision",
    "TermModel",
    "candidates",
    "features_of",
    "hit_features",
    "load_term_model",
    "message_context",
    "model_status",
    "parse_term_model",
    "shipped_term_model",
]

_log = logging.getLogger(__name__)

FORMAT = "parley.term-value-model/1"
"""The `format` field of a model file."""
MODEL_FILE = "term_model.json"
"""The package-data file of the shipped model (under parley/governance/data)."""
STATED = frozenset({"own", "condition", "old"})
"""The rules' roles of a value the message states (see `term_roles.Role`)."""
PROMOTABLE = frozenset({"aside", "rejected", "theirs", "total", "alt"})
"""Roles the model may turn into a stated value (not "competing": another party's offer stays one);
"alt" is a reading of a figure, date or option the rules did not make (`TermReader.with_alternatives`)."""
_CHOOSABLE = PROMOTABLE | {"own", "old"}
Policy = Literal["rules_value", "model_value"]
"""Where the rules and the model disagree on a term's value: "rules_value" keeps the rules' value
unless the model sets it aside; "model_value" states the candidate the model scores highest (at least
`add_above`) and sets the rules' other values of the term aside."""
_WINDOW_CHARS = 80
"""How far the context words reach on each side of a value (characters, so featuring is linear)."""
_WINDOW_WORDS = 6
_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*|\d+|[$€£%?:;!()\u2014\u2013/-]")
_STATUS: list[str] = []


def candidates(hits: Sequence[Hit]) -> list[int]:
    """Indices of the hits the model scores: every value attributed to a term (not a figure no term
    claims, nor a value only implied by another)."""
    return [i for i, h in enumerate(hits) if h.term is not UNCLAIMED and h.role != "implied"]


def _bucket(value: float, edges: Sequence[float]) -> int:
    return sum(1 for edge in edges if value >= edge)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _TOKEN.findall(text)]


def _shape_features(hit: Hit) -> list[str]:
    term, figure = hit.term, hit.figure
    found = [f"shape={term.shape}", f"term={term.name}", f"unit={term.unit}"]
    if figure is None:
        kind = "zero" if hit.low == 0 and term.shape not in ("enum", "date") else term.shape
        return [*found, f"kind={kind}"]
    found += [f"kind={figure.kind}", f"funit={figure.unit}", f"per={figure.per or figure.context_per}"]
    if figure.noun is not None:
        found.append("noun")
    flags = ("scaled", "currency", "per_area", "per_week", "inherited", "cents")
    found += [f"flag={name}" for name in flags if getattr(figure, name)]
    if figure.high != figure.low:
        found.append("range")
    if isinstance(hit.high, float):
        found.append(f"misfit={_bucket(misfit(term, hit.high), (1e-9, 0.5, 1.5))}")
    return found


def _context_features(draft: Draft, hit: Hit) -> list[str]:
    sentence = draft.sentence_at(hit.start)
    begin = max(sentence.start if sentence else 0, hit.start - _WINDOW_CHARS)
    end = min(sentence.end if sentence else len(draft.text), hit.end + _WINDOW_CHARS)
    left = _words(draft.text[begin : hit.start])[-_WINDOW_WORDS:]
    right = _words(draft.text[hit.end : end])[:_WINDOW_WORDS]
    found = [f"L:{w}" for w in left] + [f"R:{w}" for w in right]
    found += [f"L{len(left) - i}:{w}" for i, w in enumerate(left) if len(left) - i <= 2]
    found += [f"R{i + 1}:{w}" for i, w in enumerate(right) if i < 2]
    if len(left) >= 2:
        found.append(f"LB:{left[-2]}_{left[-1]}")
    if not left:
        found.append("L:^")
    if not right:
        found.append("R:$")
    return found


_CUES = ("correction", "apology", "restatement", "context", "asking_about", "requirement")


@dataclass(frozen=True, slots=True)
class MessageContext:
    """What the values of one message share, computed once per message (so featuring stays linear).

    Attributes:
        features: Features of the whole message (cues it holds, its size).
        starts: Term name → sorted offsets of its values in the message.
    """

    features: tuple[str, ...]
    starts: Mapping[str, tuple[int, ...]]


def message_context(draft: Draft, hits: Sequence[Hit]) -> MessageContext:
    """The shared part of the features of hits in draft."""
    lowered = draft.text.lower()
    found = [f"cue={name}" for name in _CUES if cues().search(name, lowered)]
    found.append(f"sentences={min(len(draft.sentences), 4)}")
    if "?" in lowered:
        found.append("has_question")
    starts: dict[str, list[int]] = {}
    for h in hits:
        if h.role not in ("implied", "alt"):
            starts.setdefault(h.term.name, []).append(h.start)
    return MessageContext(tuple(found), {name: tuple(sorted(v)) for name, v in starts.items()})


def _clause_features(draft: Draft, hit: Hit) -> list[str]:
    clause = draft.clause_at(hit.start)
    sentence = draft.sentence_at(hit.start)
    found: list[str] = []
    if sentence is not None:
        found += [f"S0:{w}" for w in _words(sentence.text[:_WINDOW_CHARS])[:3]]
    if clause is not None:
        begin = max(clause.start, hit.start - 2 * _WINDOW_CHARS)
        end = min(clause.end, hit.end + 2 * _WINDOW_CHARS)
        found += sorted({f"C:{w}" for w in _words(draft.text[begin:end]) if not w.isdigit()})
    return found


def hit_features(
    draft: Draft, hits: Sequence[Hit], index: int, context: MessageContext | None = None
) -> list[str]:
    """The features of hits[index] in draft (the same at training and at run time); bounded by the
    window around the value, whatever the message's length. context: `message_context(draft, hits)`,
    computed once per message (computed here when None)."""
    hit = hits[index]
    role = hit.role
    context = message_context(draft, hits) if context is None else context
    shared = context.features
    clause = draft.clause_at(hit.start)
    sentence = draft.sentence_at(hit.start)
    mood = clause.mood if clause is not None else "none"
    question = sentence is not None and is_question(sentence.text)
    same = context.starts.get(hit.term.name, ())
    later = len(same) - bisect.bisect_right(same, hit.start)
    found = [f"role={role}", f"mood={mood}", f"mood*role={mood}*{role}", f"conf={hit.confidence:.2f}"]
    found += [
        f"same={min(len(same), 3)}",
        f"later={min(later, 2)}",
        f"q={question}",
        f"q*role={question}*{role}",
    ]
    shape = _shape_features(hit)
    found += shape + [f"{f}*{role}" for f in shape[:2]]
    words = _context_features(draft, hit)
    found += words + _clause_features(draft, hit)
    found += [f"{f}*{hit.term.shape}" for f in words if f[:2] in ("L1", "L2", "R1", "R2")]
    found += [f"{f}*{role}" for f in words if f[:2] in ("L1", "R1")]
    found += _rivals(hits, index)
    found += [*shared, *(f"{f}*{role}" for f in shared if f.startswith("cue="))]
    return found


def _rivals(hits: Sequence[Hit], index: int) -> list[str]:
    """How the value stands against the term's other values in the message (bounded: the nearest
    few hits on each side)."""
    hit = hits[index]
    near = [
        h for h in hits[max(0, index - 12) : index + 13] if h is not hit and h.role not in ("implied", "alt")
    ]
    same = [h for h in near if h.term is hit.term]
    found = [f"rival_role={h.role}" for h in same]
    if isinstance(hit.low, float):
        lows = [h.low for h in same if isinstance(h.low, float)]
        if lows:
            side = "higher" if hit.low > max(lows) else "lower" if hit.low < min(lows) else "mid"
            found.append(f"rival={side}")
        if any(h.low == hit.low for h in near if h.term is not hit.term):
            found.append("same_value_other_term")
    clause = [h for h in near if abs(h.start - hit.start) < 60]
    found.append(f"near={min(len(clause), 3)}")
    return found


@dataclass(frozen=True, slots=True)
class Revision:
    """What the model changed in one message's reading.

    Attributes:
        hits: The hits with their roles revised.
        set_aside: Clauses of values the rules stated and the model set aside (quoted as unread).
        stated: Terms the model stated from a value the rules had set aside.
    """

    hits: tuple[Hit, ...]
    set_aside: tuple[str, ...] = ()
    stated: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TermModel:
    """A linear model over the features of `hit_features`, with its combination thresholds.

    Attributes:
        weights: Feature → weight.
        intercept: The bias.
        drop_below: A value the rules state as the counterparty's own is set aside below this
            probability (0 never sets one aside).
        add_above: A value the rules set aside is stated at or above this probability (over 1 never).
        alt_above: A reading the rules did not make ("alt") is stated at or above this probability
            (over 1 never), for a term with no value stated otherwise, from a figure no stated value
            holds.
        enabled: Whether the term reader consults the model by default.
        policy: How a disagreement on a term's value is settled (`Policy`).
        trained_on: The labelled sets it was fitted on.
    """

    weights: Mapping[str, float]
    intercept: float
    drop_below: float
    add_above: float
    enabled: bool = True
    trained_on: tuple[str, ...] = ()
    policy: Policy = "rules_value"
    alt_above: float = 1.01

    def probabilities(self, draft: Draft, hits: Sequence[Hit]) -> dict[int, float]:
        """Index of each candidate hit (`candidates`) → the probability that the message states it."""
        found: dict[int, float] = {}
        context = message_context(draft, hits)
        for i in candidates(hits):
            known = [self.weights[f] for f in hit_features(draft, hits, i, context) if f in self.weights]
            found[i] = _logistic(float(np.sum(np.asarray(known, dtype=np.float64))) + self.intercept)
        return found

    def revise(self, draft: Draft, hits: Sequence[Hit]) -> Revision:
        """hits with the model's changes (see the module docstring): conditions are kept, a stated value
        set aside is quoted, a value set aside by the rules is stated only when its term has none."""
        return self.revise_scored(draft, hits, self.probabilities(draft, hits))

    def revise_scored(self, draft: Draft, hits: Sequence[Hit], scores: Mapping[int, float]) -> Revision:
        """`revise` with the probabilities already computed (`probabilities`)."""
        revised = list(hits)
        set_aside: list[str] = []

        def demote(i: int) -> None:
            revised[i] = replace(revised[i], role="aside")
            set_aside.append(_clause(draft, revised[i].start))

        for i, p in scores.items():
            if revised[i].role == "own" and p < self.drop_below:
                demote(i)
        stated_terms = {h.term.name for h in revised if h.role in STATED and h.term is not UNCLAIMED}
        held = {h.start for h in revised if h.role in STATED and h.term is not UNCLAIMED}
        best: dict[str, tuple[float, int]] = {}
        for i, p in sorted(scores.items(), key=lambda item: (-item[1], item[0])):
            hit = revised[i]
            open_term = hit.term.name not in stated_terms or self.policy == "model_value"
            if hit.role == "alt":  # a reading the rules did not make: its own threshold, a figure once
                if p < self.alt_above or hit.start in held or hit.term.name in stated_terms:
                    continue
            elif hit.role not in _CHOOSABLE or p < self.add_above:
                continue
            if open_term and hit.term.name not in best:
                best[hit.term.name] = (p, i)
                held.add(hit.start)
        for _, i in best.values():
            for j in scores:
                rival = revised[j]
                if j != i and rival.term is revised[i].term and rival.role in ("own", "old"):
                    demote(j)  # "model_value": the model's pick replaces the rules' (quoted, not lost)
            revised[i] = replace(revised[i], role=_promoted(draft, revised[i]))
        stated = tuple(sorted(name for name, (_, i) in best.items() if hits[i].role not in STATED))
        kept = tuple(h for h in revised if h.role != "alt")  # the readings the model did not state
        return Revision(kept, tuple(dict.fromkeys(t for t in set_aside if t)), stated)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (weights sorted, so the file is the same on every run)."""
        return {
            "format": FORMAT,
            "enabled": self.enabled,
            "trained_on": list(self.trained_on),
            "features": "parley.governance.term_model.hit_features",
            "intercept": self.intercept,
            "drop_below": self.drop_below,
            "add_above": self.add_above,
            "alt_above": self.alt_above,
            "policy": self.policy,
            "weights": dict(sorted(self.weights.items())),
        }


def _promoted(draft: Draft, hit: Hit) -> Role:
    """The role of a value the model states: a condition when its clause is conditional ("provided she
    starts before March 3"), the counterparty's own otherwise."""
    clause = draft.clause_at(hit.start)
    return "condition" if clause is not None and clause.mood == "conditional" else "own"


def _clause(draft: Draft, offset: int) -> str:
    clause = draft.clause_at(offset)
    text = clause.text.strip(" .,;") if clause is not None else ""
    return f"{text} (set aside by the term model)" if text else ""


def _logistic(z: float) -> float:
    """The logistic function without overflow (finite, in [0, 1])."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-min(z, 700.0)))
    e = math.exp(max(z, -700.0))
    return e / (1.0 + e)


def _finite(raw: Mapping[str, Any], key: str, source: str, low: float, high: float) -> float:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ScenarioError(f"expected a finite number, got {value!r}", source=source, field=key)
    if not low <= value <= high:
        raise ScenarioError(f"expected a number in [{low}, {high}], got {value!r}", source=source, field=key)
    return float(value)


def parse_term_model(raw: Any, source: str) -> TermModel:
    """A model from its JSON form.

    Raises:
        ScenarioError: not a model of this format, or a field is missing or malformed (one line).
    """
    if not isinstance(raw, Mapping) or raw.get("format") != FORMAT:  # type: ignore[reportUnknownMemberType]
        raise ScenarioError(f"not a {FORMAT} model", source=source, field="format")
    data: Mapping[str, Any] = raw  # type: ignore[reportUnknownVariableType]
    weights = data.get("weights")
    if not isinstance(weights, Mapping) or not weights:
        raise ScenarioError("expected a non-empty mapping of feature weights", source=source, field="weights")
    parsed: dict[str, float] = {}
    for name, value in weights.items():  # type: ignore[reportUnknownVariableType]
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int | float):
            raise ScenarioError(f"bad weight {name!r}: {value!r}", source=source, field="weights")
        if not math.isfinite(value):
            raise ScenarioError(f"weight {name!r} is not finite", source=source, field="weights")
        parsed[name] = float(value)
    enabled = data.get("enabled")
    if not isinstance(enabled, bool):
        raise ScenarioError(f"expected true or false, got {enabled!r}", source=source, field="enabled")
    trained = data.get("trained_on", [])
    if not isinstance(trained, list) or not all(isinstance(t, str) for t in trained):  # type: ignore[reportUnknownVariableType]
        raise ScenarioError("expected a list of set names", source=source, field="trained_on")
    policy = data.get("policy", "rules_value")
    if policy not in ("rules_value", "model_value"):
        raise ScenarioError(
            f"expected rules_value or model_value, got {policy!r}", source=source, field="policy"
        )
    return TermModel(
        parsed,
        _finite(data, "intercept", source, -1e6, 1e6),
        _finite(data, "drop_below", source, 0.0, 1.0),
        _finite(data, "add_above", source, 0.0, 1.01),
        enabled,
        tuple(str(t) for t in trained),  # type: ignore[reportUnknownVariableType]
        policy,
        _finite(data, "alt_above", source, 0.0, 1.01) if "alt_above" in data else 1.01,
    )


def load_term_model(path: Path | str) -> TermModel:
    """The model in the JSON file at path.

    Raises:
        ScenarioError: the file is missing, not JSON, or not a model (one line, naming the file).
    """
    return parse_term_model(read_model_json(path, "a term model"), str(path))


@cache
def _shipped() -> TermModel | None:
    name = f"parley.governance.data/{MODEL_FILE}"
    try:
        text = resources.files("parley.governance.data").joinpath(MODEL_FILE).read_text(encoding="utf-8")
        return parse_term_model(json.loads(text), name)
    except (OSError, UnicodeDecodeError, ValueError, ScenarioError) as error:
        note = f"term model unavailable, reading terms by the rules alone: {' '.join(str(error).split())}"
        _STATUS.append(note)
        _log.warning("%s", note)
        return None


def shipped_term_model() -> TermModel | None:
    """The shipped model when it is on and models are not switched off (`classifier.rules_only`); None
    otherwise, and when the file is missing or corrupt (then the rules read alone: `model_status`)."""
    if not classifiers_enabled():
        return None
    model = _shipped()
    return model if model is not None and model.enabled else None


def model_status() -> str:
    """How the shipped model stands: "on", "off" (the gate left it off, or `rules_only`), or the reason
    the rules read alone (a missing or corrupt file)."""
    model = _shipped()
    if model is None:
        return _STATUS[-1] if _STATUS else "term model unavailable"
    return "on" if model.enabled and classifiers_enabled() else "off"


def features_of(draft: Draft, hits: Sequence[Hit]) -> Iterable[tuple[int, list[str]]]:
    """(index, features) of every candidate hit (for training)."""
    context = message_context(draft, hits)
    return ((i, hit_features(draft, hits, i, context)) for i in candidates(hits))

"""Train the model behind the term reader's rules (issue 17) and gate it by leave-one-writer-out.

The labelled sets are the spent term sets, each by one writer, named explicitly in SETS (the next blind
set, heldout_terms12, is never named, so it cannot be read here). For every message the rules (`TermReader`
without a model) find the values and the part each plays, and `TermReader.with_alternatives` adds every
reading the rules did not make (each figure as every term its unit and magnitude allow, each date as
every date term, each option word passed over: role "alt"); every value attributed to a term is a
candidate, labelled 1 when the message's labels state that value for that term (equal within 0.5%, as
`tests/governance/measure_terms.py` scores) and 0 otherwise (a past value, a competitor's figure, the
principal's figure quoted back, a count or a date that is no term). The model is an L2-regularised
logistic regression (scikit-learn, liblinear) over `term_model.hit_features`.

The thresholds of the combination (`TermModel.revise`: drop_below, add_above, then alt_above with those
two fixed) are chosen on a grid to
maximise the term-level F1 over the training sets, on the probabilities of models that never saw the
message's set (an inner leave-one-set-out run). The estimate is nested: each set is scored by a model
and thresholds fitted on the other sets alone, through `measure_terms.term_f1` (the real reader with that
model plugged in). The model ships ON only when the mean F1 over the held-out sets improves on the
rules by at least MIN_GAIN and no set loses more than MAX_LOSS; otherwise it ships OFF (`enabled:
false`). Four combinations are compared on the held-out sets (simulated from the rules' hits, table
"variants"): setting aside only, stating only, both with the rules' value standing, both with the
model's value winning.

Run: ``.venv/bin/python benchmarks/train_term_reader.py`` (writes src/parley/governance/data/
term_model.json, byte for byte the same on every run over the same data, and prints the per-set table);
``--check`` re-trains and compares with the shipped file instead of writing it; ``--report FILE``
also writes the table to FILE.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "governance"))

import measure_terms  # noqa: E402  # pyright: ignore[reportMissingImports]  (the term sets' scorer)

from parley.governance.config import DomainConfig, load_config  # noqa: E402
from parley.governance.draft import Draft  # noqa: E402
from parley.governance.normalize import TextRefused  # noqa: E402
from parley.governance.term_model import (  # noqa: E402
    MODEL_FILE,
    STATED,
    Policy,
    TermModel,
    features_of,
)
from parley.governance.term_roles import UNCLAIMED, Hit  # noqa: E402
from parley.governance.terms import TermReader, TermReading, last_per_term  # noqa: E402

DATA = ROOT / "tests" / "data" / "gaia"
SETS = (
    "dev_terms",
    "heldout_terms",
    "heldout_terms2",
    "heldout_terms3",
    "heldout_terms4",
    "heldout_terms5",
    "heldout_terms6",
    "heldout_terms7",
    "heldout_terms8",
    "heldout_terms9",
    "heldout_terms10",
    "heldout_terms11",
)
"""The spent term sets, one writer each (never a glob: the next blind set, heldout_terms12, must not be
read)."""
OUTPUT = ROOT / "src" / "parley" / "governance" / "data" / MODEL_FILE
C = 0.3
"""Inverse regularisation strength of the logistic regression."""
DROP_GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
ADD_GRID = (0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.01)
ALT_GRID = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.01)
"""Thresholds for stating a reading the rules did not make (1.01: never)."""
MAX_LOSS = 0.01
"""The most F1 any held-out set may lose against the rules for the model to ship on."""
MIN_GAIN = 0.002
"""The least mean F1 gain over the held-out sets for the model to ship on: below it the gain is a term
or two a set, no evidence the model helps a new writer, while switching it on changes every reading."""
DOMAINS = ("staffing", "procurement", "leasing")


@dataclass(frozen=True, slots=True)
class Message:
    """One labelled message with the rules' reading of it."""

    source: str
    domain: str
    text: str
    gold: Mapping[str, Any]
    draft: Draft | None
    hits: tuple[Hit, ...]
    features: tuple[tuple[int, tuple[str, ...]], ...]
    labels: tuple[int, ...]


def _value(hit: Hit) -> Any:
    return (
        (float(hit.low), float(hit.high)) if isinstance(hit.high, float) and hit.high != hit.low else hit.low
    )


def _label(hit: Hit, gold: Mapping[str, Any]) -> int:
    name = hit.term.name
    return int(name in gold and measure_terms._close(_value(hit), gold[name]))  # pyright: ignore[reportPrivateUsage]


def load_messages(readers: Mapping[str, TermReader]) -> list[Message]:
    """Every message of SETS with its candidates, features and labels."""
    found: list[Message] = []
    for source in SETS:
        path = DATA / source / "messages.yaml"
        today = measure_terms.reference_day(path)
        for item in measure_terms._load(path):  # pyright: ignore[reportPrivateUsage]
            gold: Mapping[str, Any] = item.get("terms") or {}
            reader = readers[item["domain"]]
            try:
                draft, hits, _ = reader.analyse(item["text"], today=today)
                hits = reader.with_alternatives(draft, hits, today=today)
            except TextRefused:
                found.append(Message(source, item["domain"], item["text"], gold, None, (), (), ()))
                continue
            feats = tuple((i, tuple(f)) for i, f in features_of(draft, hits))
            labels = tuple(_label(hits[i], gold) for i, _ in feats)
            found.append(
                Message(source, item["domain"], item["text"], gold, draft, tuple(hits), feats, labels)
            )
    return found


def fit(messages: Sequence[Message]) -> tuple[dict[str, float], float]:
    """Feature weights and intercept of the logistic regression on the candidates of messages."""
    vocabulary = sorted({f for m in messages for _, fs in m.features for f in fs})
    column = {f: j for j, f in enumerate(vocabulary)}
    rows: list[int] = []
    cols: list[int] = []
    y: list[int] = []
    for m in messages:
        for (_, fs), label in zip(m.features, m.labels, strict=True):
            for j in sorted({column[f] for f in fs}):
                rows.append(len(y))
                cols.append(j)
            y.append(label)
    matrix = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(y), len(vocabulary)))
    model = LogisticRegression(C=C, solver="liblinear", random_state=0, max_iter=1000)
    model.fit(matrix, np.asarray(y))
    coefficients: list[float] = [float(w) for w in np.asarray(model.coef_).ravel()]
    weights = {f: round(w, 6) for f, w in zip(vocabulary, coefficients, strict=True) if abs(w) >= 1e-6}
    return weights, round(float(np.asarray(model.intercept_).ravel()[0]), 6)


def _scores(model: TermModel, message: Message) -> dict[int, float]:
    assert message.draft is not None
    return model.probabilities(message.draft, message.hits)


def _stated(model: TermModel, message: Message, scores: Mapping[int, float]) -> list[tuple[str, Any]]:
    assert message.draft is not None
    hits = model.revise_scored(message.draft, message.hits, scores).hits
    chosen = last_per_term([h for h in hits if h.role in STATED and h.term is not UNCLAIMED])
    return [(h.term.name, _value(h)) for h in chosen]


def _f1(counts: Sequence[int]) -> float:
    tp, fp, fn = counts
    return 2 * tp / max(1, 2 * tp + fp + fn)


@dataclass(frozen=True, slots=True)
class Variant:
    """One way to combine the model with the rules: the thresholds it may use and its policy."""

    name: str
    drops: tuple[float, ...]
    adds: tuple[float, ...]
    policy: Policy = "rules_value"
    alts: tuple[float, ...] = (1.01,)


SHIPPED = Variant("demote, add and new readings, rules' value", DROP_GRID, ADD_GRID, alts=ALT_GRID)
VARIANTS = (
    Variant("demote only", DROP_GRID, (1.01,)),
    Variant("add only", (0.0,), ADD_GRID),
    Variant("demote and add, rules' value", DROP_GRID, ADD_GRID),
    SHIPPED,
    Variant("demote and add, model's value", DROP_GRID, ADD_GRID, "model_value"),
)
"""The combinations measured (SHIPPED is the one the gate decides on)."""


def simulate(messages: Sequence[Message], scores: Sequence[Mapping[int, float]], model: TermModel) -> float:
    """The term-level F1 over messages of the rules revised by model with the given probabilities."""
    total = np.zeros(3, dtype=np.int64)
    for m, s in zip(messages, scores, strict=True):
        if m.draft is not None:
            total += measure_terms._matches(_stated(model, m, s), m.gold)  # pyright: ignore[reportPrivateUsage]
    return _f1(total.tolist())


def choose_thresholds(
    messages: Sequence[Message], scores: Sequence[Mapping[int, float]], variant: Variant = SHIPPED
) -> tuple[float, float, float]:
    """The (drop_below, add_above, alt_above) of the variant's grids with the highest term-level F1
    over messages, scored with out-of-fold probabilities (ties: the first, nearest the rules); the
    first two with new readings off, then alt_above with them fixed."""
    best: tuple[float, float, float] = (-1.0, 0.0, 1.01)
    for drop in variant.drops:
        for add in variant.adds:
            f1 = simulate(messages, scores, TermModel({}, 0.0, drop, add, policy=variant.policy))
            if f1 > best[0] + 1e-9:
                best = (f1, drop, add)
    f1, drop, add = best
    alt = 1.01
    for candidate in sorted(variant.alts, reverse=True):
        tried = simulate(
            messages, scores, TermModel({}, 0.0, drop, add, policy=variant.policy, alt_above=candidate)
        )
        if tried > f1 + 1e-9:
            f1, alt = tried, candidate
    return drop, add, alt


def out_of_fold(messages: Sequence[Message], sources: Sequence[str]) -> list[dict[int, float]]:
    """Each message's probabilities from a model fitted on the other sources alone."""
    scores: list[dict[int, float]] = [{} for _ in messages]
    for held in sources:
        weights, intercept = fit([m for m in messages if m.source != held])
        model = TermModel(weights, intercept, 0.0, 1.01)
        for k, m in enumerate(messages):
            if m.source == held and m.draft is not None:
                scores[k] = _scores(model, m)
    return scores


def train(messages: Sequence[Message], sources: Sequence[str]) -> tuple[TermModel, dict[str, float]]:
    """A model fitted on messages of sources, with the SHIPPED variant's thresholds chosen on its inner
    out-of-fold scores; and, for every variant, its thresholds (name → F1 of held-out messages is
    filled in by the caller)."""
    chosen = [m for m in messages if m.source in sources]
    inner = out_of_fold(chosen, sources)
    weights, intercept = fit(chosen)
    drop, add, alt = choose_thresholds(chosen, inner)
    model = TermModel(weights, intercept, drop, add, True, tuple(sources), alt_above=alt)
    held = [m for m in messages if m.source not in sources]
    held_scores = [_scores(model, m) if m.draft is not None else {} for m in held]
    variants: dict[str, float] = {}
    for variant in VARIANTS:
        d, a, n = choose_thresholds(chosen, inner, variant)
        variants[variant.name] = simulate(
            held, held_scores, TermModel({}, 0.0, d, a, policy=variant.policy, alt_above=n)
        )
    return model, variants


@dataclass(frozen=True, slots=True)
class Score:
    """A reader's scores on one set."""

    precision: float
    recall: float
    f1: float
    dropped: int
    attributed: int
    conditions: int


def score(source: str, model: TermModel | None) -> Score:
    """The scores of the term reader (with model behind its rules, or the rules alone) on source."""
    configs = {name: load_config(name) for name in DOMAINS}
    readers = {name: TermReader(config, model=model) for name, config in configs.items()}

    def read(config: DomainConfig, text: str, today: date) -> TermReading:
        return readers[config.name].read(text, today=today)

    path = DATA / source / "messages.yaml"
    precision, recall, f1, (found, total), _ = measure_terms.term_f1(path, read)
    dropped = sum(1 for e in measure_terms.errors_of(path, read) if e.kind == "condition_dropped")
    return Score(precision, recall, f1, dropped, found, total)


def _row(source: str, before: Score, after: Score) -> str:
    return (
        f"| {source} | {before.f1:.3f} | {after.f1:.3f} | {before.precision:.3f} | {after.precision:.3f} "
        f"| {before.recall:.3f} | {after.recall:.3f} | {before.attributed}/{before.conditions} "
        f"| {after.attributed}/{after.conditions} | {before.dropped} | {after.dropped} |"
    )


def evaluate(messages: Sequence[Message]) -> tuple[bool, list[str]]:
    """Nested leave-one-set-out: (whether the gate passes, the tables' lines)."""
    lines = [
        "| held-out set | F1 rules | F1 +model | P rules | P +model | R rules | R +model "
        "| cond. rules | cond. +model | dropped rules | dropped +model | thresholds |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    variants = ["| held-out set | rules | " + " | ".join(v.name for v in VARIANTS) + " |"]
    variants.append("|---" * (len(VARIANTS) + 2) + "|")
    gains: list[float] = []
    for held in SETS:
        model, simulated = train(messages, [s for s in SETS if s != held])
        before, after = score(held, None), score(held, model)
        gains.append(after.f1 - before.f1)
        lines.append(
            _row(held, before, after)
            + f" drop < {model.drop_below}, add >= {model.add_above}, new >= {model.alt_above} |"
        )
        variants.append(
            f"| {held} | {before.f1:.3f} | " + " | ".join(f"{simulated[v.name]:.3f}" for v in VARIANTS) + " |"
        )
        print(lines[-1], flush=True)
    mean = float(np.mean(gains))
    passed = mean >= MIN_GAIN and min(gains) >= -MAX_LOSS
    verdict = f"mean F1 change {mean:+.4f}, worst set {min(gains):+.4f}: model {'ON' if passed else 'OFF'}"
    return passed, [*lines, "", *variants, "", verdict]


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="train_term_reader.py", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped model, write nothing")
    parser.add_argument("--report", type=Path, help="also write the leave-one-set-out table to this file")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    """Train, gate, and write (or check) the shipped model."""
    args = _arguments(argv)
    readers = {name: TermReader(load_config(name), model=None) for name in DOMAINS}
    messages = load_messages(readers)
    passed, lines = evaluate(messages)
    print("\n".join(lines))
    final, _ = train(messages, SETS)
    shipped = TermModel(
        final.weights,
        final.intercept,
        final.drop_below,
        final.add_above,
        passed,
        final.trained_on,
        alt_above=final.alt_above,
    )
    text = json.dumps(shipped.to_json(), allow_nan=False, indent=1, sort_keys=False) + "\n"
    if args.report is not None:
        args.report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.check:
        same = OUTPUT.is_file() and OUTPUT.read_text(encoding="utf-8") == text
        print(f"{OUTPUT.name}: {'matches the shipped file' if same else 'DIFFERS from the shipped file'}")
        return 0 if same else 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} (enabled: {passed}, {len(shipped.weights)} weights)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

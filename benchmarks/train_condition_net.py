"""Train the term reader's condition net (issue 17): a clause-level classifier of conditional clauses.

Sources: one per spent term writer, named explicitly (`SOURCES`); the next blind sets
(`tests.governance.blind_sets.NEXT_BLIND`) are never read. Unit: a clause of the reader's own parse
(`TermReader.analyse`, after parley's normalisation), so training and run time featurise identically.

Labels (a clause is positive when it carries a labelled condition):
- `field: other`: the clause sharing the most content stems (first 5 letters of words of 3+ letters,
  stop words left out) with the label's text, when it shares at least a third of them (at least one);
- a condition on a term: the clauses holding a conditional construction of the rules' grammar
  (`term_guard.conditional_constructions`), else the clause the rules read a condition of that term
  from; when neither exists the condition has no clause (it counts as missed in the recall figures);
- every clause of a message with no conditions is negative; the other clauses of a message with
  conditions are left out (neither: a rule cannot tell which of them is the condition's context).

Model: binary word 1-2-grams and shape tokens (`condition_net.clause_features`), L2-normalised, an L2
logistic regression (liblinear, balanced class weights, C=`C`), as `train_detectors.py` fits.

Threshold by nested leave-one-writer-out: for each writer w, the net is fitted on the other writers and
the threshold chosen by an inner leave-one-writer-out on those alone: the lowest threshold at which at
most `ALARM_BUDGET` of the condition-free messages get a quote; w is then measured: (a) the share of
its labelled conditions whose clause the net flags (and of those whose clause no rule marker sees),
(b) the share of its condition-free messages that get a quote. The shipped threshold is chosen the
same way on all writers.

    python benchmarks/train_condition_net.py            # write src/parley/governance/data/condition_net.json
    python benchmarks/train_condition_net.py --check    # compare instead of writing
    python benchmarks/train_condition_net.py --report FILE   # also write the LOWO table (markdown)
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from scipy import sparse
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.governance.blind_sets import NEXT_BLIND  # noqa: E402

from parley.governance.classifier import rules_only  # noqa: E402
from parley.governance.condition_net import FORMAT, clause_features  # noqa: E402
from parley.governance.config import load_config  # noqa: E402
from parley.governance.term_guard import conditional_constructions, has_conditional_marker  # noqa: E402
from parley.governance.terms import TermReader  # noqa: E402

GAIA = ROOT / "tests" / "data" / "gaia"
OUT = ROOT / "src" / "parley" / "governance" / "data" / "condition_net.json"
SOURCES: tuple[Path, ...] = (
    GAIA / "dev_terms" / "messages.yaml",
    GAIA / "heldout_terms" / "messages.yaml",
    GAIA / "heldout_terms2" / "messages.yaml",
    GAIA / "heldout_terms3" / "messages.yaml",
    GAIA / "heldout_terms4" / "messages.yaml",
    GAIA / "heldout_terms5" / "messages.yaml",
    GAIA / "heldout_terms6" / "messages.yaml",
    GAIA / "heldout_terms7" / "messages.yaml",
    GAIA / "heldout_terms8" / "messages.yaml",
    GAIA / "heldout_terms9" / "messages.yaml",
    GAIA / "heldout_terms10" / "messages.yaml",
    GAIA / "heldout_terms11" / "messages.yaml",
    GAIA / "heldout_terms12" / "messages.yaml",
    GAIA / "heldout_terms13" / "messages.yaml",
    GAIA / "heldout_terms14" / "messages.yaml",
    GAIA / "heldout_terms15" / "messages.yaml",
)
"""One writer each: every spent term set (the next blind term set is not among them)."""
assert not any(name in str(path) for path in SOURCES for name in NEXT_BLIND), "a blind set among sources"

C = 1.0
MIN_DF = 2
ALARM_BUDGET = 0.10
"""At most this share of a writer's condition-free messages may get a quote (chosen by inner LOWO)."""
ENABLED = False
"""The gate the file ships with. Off: on the one spent writer the reader still drops conditions of
(heldout_terms15, 10 dropped silently), the net trained without it surfaced 2 of the 10 and doubled the
other quoted clauses (39 -> 80 on 225 messages); on heldout_terms13/14 it surfaced nothing new at +41/+39
quotes (measure_terms.py, 2026-11-29). The lead decides whether that trade is worth turning it on."""
TODAY = date(2026, 11, 29)
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "our",
        "your",
        "you",
        "are",
        "that",
        "this",
        "will",
        "from",
        "can",
        "not",
        "but",
        "all",
        "any",
        "per",
        "its",
        "has",
        "have",
        "their",
        "them",
        "they",
        "was",
        "were",
        "would",
        "could",
        "should",
        "shall",
        "into",
        "than",
        "then",
        "also",
        "only",
        "been",
        "being",
    ]
)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Message:
    """One labelled message of a writer, parsed as the reader parses it."""

    writer: str
    clauses: list[tuple[int, int, str]]
    conditions: list[tuple[set[int], bool]] = field(default_factory=list)
    """Per labelled condition: the indexes of its clauses and whether no rule marker sees them."""
    negatives: bool = False
    """Whether the message has no conditions (its clauses are negatives)."""


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOP}


def _other_clause(clauses: Sequence[tuple[int, int, str]], label: str) -> set[int]:
    wanted = _stems(label)
    if not wanted:
        return set()
    overlaps = [len(wanted & _stems(text)) for _, _, text in clauses]
    best = max(overlaps, default=0)
    if best < max(1, math.ceil(len(wanted) / 3)):
        return set()
    return {overlaps.index(best)}


def _index_at(clauses: Sequence[tuple[int, int, str]], offset: int) -> int | None:
    for k, (start, end, _) in enumerate(clauses):
        if start <= offset < end:
            return k
    return None


def load(path: Path, readers: Mapping[str, TermReader]) -> list[Message]:
    """The messages of one writer, parsed and labelled."""
    assert not any(name in str(path) for name in NEXT_BLIND)
    raw = yaml.safe_load(path.read_text("utf-8"))
    writer = path.parent.name
    messages: list[Message] = []
    with rules_only():
        for record in raw["messages"]:
            reader = readers[record["domain"]]
            reading = reader.read(record["text"], today=TODAY)
            draft, _, _ = reader.analyse(record["text"], today=TODAY)
            clauses = [(c.start, c.end, c.text) for c in draft.clauses()]
            message = Message(writer, clauses, negatives=not record.get("conditions"))
            marked = {
                k
                for k in (_index_at(clauses, x.at) for x in conditional_constructions(draft.text))
                if k is not None
            }
            for gold in record.get("conditions") or []:
                if gold["field"] == "other":
                    found = _other_clause(clauses, str(gold.get("text", "")))
                else:
                    found = set(marked)
                    if not found:
                        texts = {c.text for c in reading.conditions if c.term == gold["field"]}
                        found = {k for k, (_, _, t) in enumerate(clauses) if t.strip() in texts}
                unseen = bool(found) and not any(has_conditional_marker(clauses[k][2]) for k in found)
                message.conditions.append((found, unseen))
            messages.append(message)
    return messages


@dataclass
class Data:
    """Every clause of every writer with its features and label (1, 0, or None: left out)."""

    writers: list[str]
    messages: list[Message]
    features: list[frozenset[str]]
    labels: list[int | None]
    owner: list[int]
    """The index of each clause's message."""


def build() -> Data:
    readers = {name: TermReader(load_config(name)) for name in ("staffing", "procurement", "leasing")}
    messages = [m for path in SOURCES for m in load(path, readers)]
    features: list[frozenset[str]] = []
    labels: list[int | None] = []
    owner: list[int] = []
    for i, message in enumerate(messages):
        positives = set().union(*(found for found, _ in message.conditions)) if message.conditions else set()
        for k, (_, _, text) in enumerate(message.clauses):
            features.append(clause_features(text))
            labels.append(1 if k in positives else 0 if message.negatives else None)
            owner.append(i)
    writers = list(dict.fromkeys(m.writer for m in messages))
    return Data(writers, messages, features, labels, owner)


def fit(data: Data, writers: set[str]) -> tuple[dict[str, float], float]:
    """Weights and intercept fitted on the labelled clauses of writers."""
    rows = [
        r
        for r, label in enumerate(data.labels)
        if label is not None and data.messages[data.owner[r]].writer in writers
    ]
    frequency: dict[str, int] = {}
    for r in rows:
        for name in data.features[r]:
            frequency[name] = frequency.get(name, 0) + 1
    vocabulary = sorted(n for n, c in frequency.items() if c >= MIN_DF)
    index = {n: k for k, n in enumerate(vocabulary)}
    cols = [sorted(index[f] for f in data.features[r] if f in index) for r in rows]
    values = np.concatenate([np.full(len(c), 1.0 / math.sqrt(len(c)) if c else 0.0) for c in cols])
    indices = np.fromiter((k for c in cols for k in c), dtype=np.int64)
    indptr = np.cumsum([0, *(len(c) for c in cols)])
    matrix = sparse.csr_matrix((values, indices, indptr), shape=(len(rows), len(vocabulary)))
    y = np.array([data.labels[r] for r in rows], dtype=np.int64)
    model = LogisticRegression(
        C=C, solver="liblinear", class_weight="balanced", random_state=0, max_iter=1000
    )
    model.fit(matrix, y)
    weights = {
        n: round(float(w), 6) for n, w in zip(vocabulary, model.coef_[0], strict=True) if abs(w) > 1e-9
    }
    return weights, round(float(np.asarray(model.intercept_).ravel()[0]), 6)


def _score(weights: Mapping[str, float], intercept: float, features: frozenset[str]) -> float:
    known = [weights[f] for f in features if f in weights]
    z = intercept + (sum(known) / math.sqrt(len(known)) if known else 0.0)
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def message_scores(data: Data, model: tuple[dict[str, float], float], writer: str) -> dict[int, list[float]]:
    """Each message of writer: the score of each of its clauses."""
    weights, intercept = model
    scores: dict[int, list[float]] = {}
    for r, i in enumerate(data.owner):
        if data.messages[i].writer == writer:
            scores.setdefault(i, []).append(_score(weights, intercept, data.features[r]))
    return scores


def choose(maxima: Sequence[float]) -> float:
    """The lowest threshold at which at most ALARM_BUDGET of the messages (their highest clause score)
    reach it: just above the (allowed+1)-th highest maximum."""
    ordered = sorted(maxima, reverse=True)
    allowed = math.floor(ALARM_BUDGET * len(ordered))
    if allowed >= len(ordered):
        return 0.5
    return min(1.0, round(math.nextafter(ordered[allowed], 2.0) + 1e-6, 6))


def inner_threshold(data: Data, writers: Sequence[str]) -> float:
    maxima: list[float] = []
    for v in writers:
        model = fit(data, set(writers) - {v})
        for i, scores in message_scores(data, model, v).items():
            if data.messages[i].negatives:
                maxima.append(max(scores, default=0.0))
    return choose(maxima)


@dataclass
class Row:
    writer: str
    threshold: float
    conditions: int
    flagged: int
    unseen: int
    unseen_flagged: int
    free: int
    alarms: int


def measure(data: Data, model: tuple[dict[str, float], float], threshold: float, writer: str) -> Row:
    row = Row(writer, threshold, 0, 0, 0, 0, 0, 0)
    for i, scores in message_scores(data, model, writer).items():
        message = data.messages[i]
        if message.negatives:
            row.free += 1
            row.alarms += int(max(scores, default=0.0) >= threshold)
        for found, unseen in message.conditions:
            hit = any(scores[k] >= threshold for k in found)
            row.conditions += 1
            row.flagged += int(hit)
            row.unseen += int(unseen)
            row.unseen_flagged += int(unseen and hit)
    return row


def wilson(k: int, n: int) -> str:
    if n == 0:
        return "n/a"
    z, p = 1.96, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{k}/{n} = {p:.1%} [{max(0.0, centre - half):.1%}, {min(1.0, centre + half):.1%}]"


def report(rows: Sequence[Row], threshold: float) -> str:
    lines = [
        f"Nested leave-one-writer-out, alarm budget {ALARM_BUDGET:.0%} of condition-free messages "
        f"(C={C}, min_df={MIN_DF}); shipped threshold {threshold}.",
        "",
        "| writer | threshold | conditions flagged | unmarked conditions flagged | condition-free quoted |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.writer} | {r.threshold:.4f} | {r.flagged}/{r.conditions} | {r.unseen_flagged}/{r.unseen} "
            f"| {r.alarms}/{r.free} |"
        )
    total = Row(
        "pooled",
        0.0,
        *(
            sum(getattr(r, k) for r in rows)
            for k in ("conditions", "flagged", "unseen", "unseen_flagged", "free", "alarms")
        ),
    )
    lines += [
        "",
        f"Pooled conditions flagged: {wilson(total.flagged, total.conditions)}",
        f"Pooled conditions no rule marker sees, flagged: {wilson(total.unseen_flagged, total.unseen)}",
        f"Pooled condition-free messages quoted: {wilson(total.alarms, total.free)}",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the term reader's condition net.")
    parser.add_argument(
        "--check", action="store_true", help="compare with the shipped file instead of writing"
    )
    parser.add_argument("--report", type=Path, help="write the nested LOWO table (markdown) here")
    args = parser.parse_args(argv)
    data = build()
    writers = data.writers
    rows: list[Row] = []
    if args.report:
        for w in writers:
            others = [v for v in writers if v != w]
            threshold = inner_threshold(data, others)
            rows.append(measure(data, fit(data, set(others)), threshold, w))
    threshold = inner_threshold(data, writers)
    weights, intercept = fit(data, set(writers))
    payload: dict[str, Any] = {
        "format": FORMAT,
        "enabled": ENABLED,
        "trained_on": [str(p.relative_to(ROOT)) for p in SOURCES],
        "alarm_budget": ALARM_BUDGET,
        "c": C,
        "min_df": MIN_DF,
        "threshold": threshold,
        "intercept": intercept,
        "weights": dict(sorted(weights.items())),
    }
    text = json.dumps(payload, indent=1, sort_keys=False, ensure_ascii=False) + "\n"
    if args.report:
        args.report.write_text(report(rows, threshold), "utf-8")
    if args.check:
        current = OUT.read_text("utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} differs from what the script writes; run it without --check")
            return 1
        print(f"{OUT.relative_to(ROOT)} is up to date (threshold {threshold})")
        return 0
    partial = OUT.with_name(OUT.name + ".partial")  # a run killed while writing leaves the old model whole
    partial.write_text(text, "utf-8")
    partial.replace(OUT)
    print(f"wrote {OUT.relative_to(ROOT)}: {len(weights)} weights, threshold {threshold}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

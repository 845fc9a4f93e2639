"""Term-level scoring of the term reader on a labelled set of counterparty messages (issue 17).

    .venv/bin/python tests/governance/measure_terms.py [PATH ...] [--baseline] [--errors] [--json]

A set is a YAML file (`messages:` with `id`, `domain`, `text`, `terms`, `conditions`, `question`,
`correction`, optional `competing`; see tests/data/gaia/dev_terms/messages.yaml). A stated (term,
value) pair matches a labelled one when the term is the same and the value is equal within 0.5%
(both ends of a range); options and dates match as text. A labelled condition is found when the
reading holds a condition on the same term with a matching value, or, for a condition on no term
("field: other"), a condition on no term that shares a word of four letters or more with its text
(compared by stem: "signed" matches "sign").
A labelled condition the reader did not attribute is still "surfaced" (not dropped silently) when the
reading quotes a conditional clause (`Condition.quoted`: the principal reads it as written) sharing a
word with it, or any conditional clause for a condition on a term. "Spurious" counts conditions the
reader attributed that match no label; quotes that match none are counted apart ("quoted").
Dates resolve against the day the set was written (its first line: "written YYYY-MM-DD").
`--baseline` scores the extractor the delegate used before the term reader (pattern + lexicon,
mapped onto term names), for the before/after comparison.

Each set's line is followed by its errors counted by kind (`KINDS`: a missed term, a wrong value, a
wrong unit conversion, a condition dropped silently, a condition attributed to the wrong term, a
spurious term, a question read as a statement, a correction not applied, a competing figure read as
an ask, ...). `--show KIND SOURCE` prints the errors of one kind ("all" for every kind) of the sets
whose path or folder name is SOURCE ("all" for every set given):

    .venv/bin/python tests/governance/measure_terms.py tests/data/gaia/*/messages.yaml \
        --show condition_dropped heldout_terms2

`--json` prints one strict JSON object a line instead (per set: its scores, counts and errors by kind),
to record a baseline and compare a change with it set by set.

The term reader reads as the delegate does: its rules, and the trained model behind them when the
shipped one is on (`governance.term_model`). `--rules` scores the rules alone; `--model FILE` scores
the rules with the model in FILE (on or off in the file, it is consulted), for a before/after.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal

import yaml

from parley.errors import ScenarioError
from parley.governance import term_guard
from parley.governance.config import DomainConfig, load_config
from parley.governance.extraction import (
    DualExtractor,
    ExtractionContext,
    FieldReading,
    LexiconExtractor,
    PatternExtractor,
)
from parley.governance.term_guard import UNEXPLAINED, Glue
from parley.governance.term_model import TermModel, load_term_model
from parley.governance.terms import Condition, StatedTerm, TermReader, TermReading

DEV = Path(__file__).resolve().parents[1] / "data" / "gaia" / "dev_terms" / "messages.yaml"
_WRITTEN = re.compile(r"written (\d{4}-\d{2}-\d{2})")
_DEFAULT_DAY = date(2026, 11, 27)
_TOLERANCE = 0.005
Reader = Callable[[DomainConfig, str, date], TermReading]


def reference_day(path: Path) -> date:
    """The day the set was written (from its first line), against which its dates resolve."""
    with path.open(encoding="utf-8") as handle:
        found = _WRITTEN.search(handle.readline())
    return date.fromisoformat(found.group(1)) if found else _DEFAULT_DAY


def _close(predicted: Any, gold: Any) -> bool:
    if isinstance(gold, Mapping):
        return (
            isinstance(predicted, tuple)
            and _close(predicted[0], gold["low"])
            and _close(predicted[1], gold["high"])
        )
    if isinstance(gold, bool) or isinstance(predicted, tuple):
        return False
    if isinstance(gold, int | float):
        if not isinstance(predicted, int | float):
            return False
        return abs(predicted - gold) <= _TOLERANCE * abs(gold) if gold else abs(predicted) < 1e-9
    return str(predicted).strip().lower() == str(gold).strip().lower()


def _value(stated: StatedTerm) -> Any:
    return (float(stated.value), stated.high) if stated.high is not None else stated.value


def _pairs(stated: Iterable[StatedTerm]) -> list[tuple[str, Any]]:
    return [(s.term, _value(s)) for s in stated]


def _matches(predicted: list[tuple[str, Any]], gold: Mapping[str, Any]) -> tuple[int, int, int]:
    hits = sum(1 for name, value in predicted if name in gold and _close(value, gold[name]))
    return hits, len(predicted) - hits, len(gold) - hits


_SUFFIX = re.compile(r"(?:ing|ed|es|s|e)$")


def _words(text: str) -> set[str]:
    """The words of four letters or more of text, each cut to its stem ("signed" and "sign" are one
    word, so are "confirm" and "confirmed"): a quote and a label paraphrasing it share their stems."""
    return {_SUFFIX.sub("", w) for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}


def _condition_found(gold: Mapping[str, Any], predicted: Iterable[Condition]) -> bool:
    if gold["field"] == "other":
        return any(c.term == "other" and _words(c.text) & _words(str(gold["text"])) for c in predicted)
    for c in predicted:
        if c.term != gold["field"] or c.value is None:
            continue
        candidate = (float(c.value), c.high) if c.high is not None else c.value
        if _close(candidate, gold["value"]):
            return True
    return False


def _condition_surfaced(gold: Mapping[str, Any], predicted: Sequence[Condition]) -> bool:
    if _condition_found(gold, predicted):
        return True
    quoted = [c for c in predicted if c.quoted]
    if gold["field"] == "other":
        return any(_words(c.text) & _words(str(gold["text"])) for c in quoted)
    return bool(quoted)


def read_with_terms(config: DomainConfig, text: str, today: date) -> TermReading:
    """The term reader (the delegate's reading of a message)."""
    return _readers(config).read(text, today=today)


_CACHE: dict[str, TermReader] = {}


def _readers(config: DomainConfig) -> TermReader:
    if config.name not in _CACHE:
        _CACHE[config.name] = TermReader(config)
    return _CACHE[config.name]


def reader_with(model: TermModel | Literal["shipped"] | None, *, unexplained: bool = True) -> Reader:
    """The term reader with model behind its rules (None: the rules alone), quoting the sentences it
    cannot explain unless unexplained is False (issue 17; on, as the delegate reads)."""
    readers: dict[str, TermReader] = {}

    def read(config: DomainConfig, text: str, today: date) -> TermReading:
        if config.name not in readers:
            readers[config.name] = TermReader(config, model=model, unexplained=unexplained)
        return readers[config.name].read(text, today=today)

    return read


def use_glue(path: Path) -> Glue:
    """Make every reader of this process use the glue allow-list in path (a file `build_term_glue.py`
    wrote) instead of the shipped one; return it. The readers call `term_guard.glue()` at read time,
    so the function is replaced for the process (a measuring tool only: never the delegate)."""
    raw: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    figures = frozenset(str(w).lower() for w in raw["figures"])
    allow = Glue(frozenset(str(w).lower() for w in raw["words"]) - figures, figures)
    term_guard.glue = lambda: allow
    return allow


# -- the extractor before the term reader, mapped onto term names -----------------------------------------
_FIELD_TERMS = {
    "compensation": "annual_salary",
    "price": "unit_price",
    "volume": "order_volume",
    "rent": "monthly_rent",
}
_MONEY = re.compile(r"^([\d.]+)(?:-([\d.]+))?(?:/(\w+))?$")


def _baseline_term(config: DomainConfig, reading: FieldReading) -> StatedTerm | None:
    name = _FIELD_TERMS.get(reading.field, reading.field)
    value = reading.value
    if isinstance(value, str) and (match := _MONEY.match(value)):
        low, high, per = float(match.group(1)), match.group(2), match.group(3)
        if per == "hour":
            name = "hourly_rate"
        factor = {("rent", "year"): 1 / 12, ("compensation", "month"): 12.0}.get(
            (reading.field, per or ""), 1.0
        )
        top = float(high) * factor if high else None
        return StatedTerm(name, low * factor, top, reading.confidence)
    return StatedTerm(name, value, None, reading.confidence)


def read_with_baseline(config: DomainConfig, text: str, today: date) -> TermReading:
    """What the delegate's extractor read before the term reader (pattern and lexicon by the dual rule):
    confident readings only, no conditions, questions, corrections or competing offers."""
    extractor = DualExtractor(
        [PatternExtractor(config), LexiconExtractor(config)], config.thresholds.high_confidence
    )
    readings = extractor.extract(text, ExtractionContext())
    stated = [
        s
        for r in readings
        if r.confidence >= config.field(r.field).confidence
        if (s := _baseline_term(config, r)) is not None
    ]
    return TermReading(tuple(stated))


# -- the score ------------------------------------------------------------------------------------------
def _load(path: Path) -> list[dict[str, Any]]:
    return list(yaml.safe_load(path.read_text(encoding="utf-8"))["messages"])


def term_f1(
    path: Path | str = DEV, reader: Reader = read_with_terms, errors: list[str] | None = None
) -> tuple[float, float, float, tuple[int, int], dict[str, int]]:
    """Score reader on the labelled set at path.

    Returns:
        (precision, recall, F1, (conditions found, conditions labelled), counts) where counts holds
        tp/fp/fn, the labelled conditions surfaced (found, or quoted), the spurious conditions
        (attributed, matching no label), the extra quoted conditional clauses, the unread quotes, the
        question and correction flags right, and the competing-offer pairs found and labelled.
    """
    source = Path(path)
    today = reference_day(source)
    configs = {name: load_config(name) for name in ("staffing", "procurement", "leasing")}
    counts: Counter[str] = Counter()
    for item in _load(source):
        reading = reader(configs[item["domain"]], item["text"], today)
        tp, fp, fn = _matches(_pairs(reading.terms), item.get("terms") or {})
        counts.update(tp=tp, fp=fp, fn=fn, messages=1)
        gold_conditions = item.get("conditions") or []
        found = [g for g in gold_conditions if _condition_found(g, reading.conditions)]
        surfaced = [g for g in gold_conditions if _condition_surfaced(g, reading.conditions)]
        counts.update(
            conditions=len(gold_conditions), conditions_found=len(found), conditions_surfaced=len(surfaced)
        )
        attributed = [c for c in reading.conditions if not c.quoted]
        quoted = [c for c in reading.conditions if c.quoted]
        # two budgets of extra quotes: the rules' (conditional clauses and the like), and the sentences quoted
        # because the reader could not explain them (issue 17); a quote that surfaced a label is not extra
        ruled = [c for c in quoted if c.source != UNEXPLAINED]
        unexplained = [c for c in quoted if c.source == UNEXPLAINED]
        left = [g for g in gold_conditions if g not in found]
        by_rules = [g for g in left if _condition_surfaced(g, ruled)]
        by_guard = sum(1 for g in left if g not in by_rules and _condition_surfaced(g, unexplained))
        counts["conditions_spurious"] += max(0, len(attributed) - len(found))
        counts["conditions_quoted"] += max(0, len(ruled) - len(by_rules))
        counts["unexplained_quoted"] += max(0, len(unexplained) - by_guard)
        counts["unread"] += len(reading.unread)
        counts["question_right"] += reading.question == bool(item.get("question"))
        counts["correction_right"] += reading.correction == bool(item.get("correction"))
        ctp, _, cfn = _matches(_pairs(reading.competing), item.get("competing") or {})
        counts.update(competing_found=ctp, competing=ctp + cfn)
        if errors is not None and (fp or fn or cfn or len(found) < len(gold_conditions)):
            errors.append(_describe(item, reading))
    precision = counts["tp"] / max(1, counts["tp"] + counts["fp"])
    recall = counts["tp"] / max(1, counts["tp"] + counts["fn"])
    f1 = 2 * precision * recall / max(1e-12, precision + recall)
    return precision, recall, f1, (counts["conditions_found"], counts["conditions"]), dict(counts)


def _describe(item: Mapping[str, Any], reading: TermReading) -> str:
    got = {s.term: _value(s) for s in reading.terms}
    conditions = [(c.term, c.value if c.term != "other" else c.text, c.quoted) for c in reading.conditions]
    competing = {s.term: _value(s) for s in reading.competing}
    return (
        f"{item['id']} {item['text']}\n    gold {item.get('terms')} {item.get('conditions')} "
        f"competing {item.get('competing')}\n    read {got} {conditions} competing {competing} "
        f"unread {list(reading.unread)}"
    )


# -- errors by kind ------------------------------------------------------------------------------------
KINDS = (
    "missed_term",
    "wrong_value",
    "wrong_unit",
    "condition_dropped",
    "condition_wrong_term",
    "condition_quoted_only",
    "spurious_condition",
    "spurious_term",
    "question_as_statement",
    "statement_as_question",
    "correction_not_applied",
    "competing_as_ask",
    "competing_missed",
)
"""Error kinds, in the order they are printed. "condition_quoted_only" is a labelled condition the
reader did not attribute but quoted (surfaced, not dropped); "condition_wrong_term" one it attributed
to another term (not surfaced by the score's rule); "condition_dropped" one that reached the
principal in neither way."""
_UNIT_FACTORS = (12.0, 52.0, 52.0 / 12.0, 7.0, 5.0, 1000.0, 2080.0, 3.0, 4.0, 21.0, 30.0, 250.0)
"""Ratios between a value read and the labelled one that mark a unit or period read wrongly."""


@dataclass(frozen=True, slots=True)
class TermError:
    """One error of the reader on one message: its kind, the message and what went wrong."""

    kind: str
    source: str
    message: str
    text: str
    detail: str


def _unit_slip(predicted: Any, gold: Any) -> bool:
    if isinstance(gold, Mapping):
        gold = gold["low"]
    if isinstance(predicted, tuple):
        predicted = predicted[0]
    if isinstance(gold, bool) or not isinstance(gold, int | float) or not isinstance(predicted, int | float):
        return False
    if not gold or not predicted:
        return False
    ratio = max(abs(predicted / gold), abs(gold / predicted))
    return any(abs(ratio - f) <= 0.02 * f for f in _UNIT_FACTORS)


def classify(item: Mapping[str, Any], reading: TermReading, source: str = "") -> list[TermError]:
    """The errors of reading against the labels of item, each of one kind of `KINDS`."""
    found: list[TermError] = []

    def add(kind: str, detail: str) -> None:
        found.append(TermError(kind, source, str(item["id"]), str(item["text"]), detail))

    gold: Mapping[str, Any] = item.get("terms") or {}
    competing: Mapping[str, Any] = item.get("competing") or {}
    read = {s.term: _value(s) for s in reading.terms}
    read_competing = {s.term: _value(s) for s in reading.competing}
    correction = bool(item.get("correction"))
    taken: set[str] = set()
    for name, value in competing.items():
        if (
            name in read
            and _close(read[name], value)
            and not (name in gold and _close(read[name], gold[name]))
        ):
            add("competing_as_ask", f"{name}={read[name]} is a competing offer")
            taken.add(name)
        elif not (name in read_competing and _close(read_competing[name], value)):
            add("competing_missed", f"{name}={value} not read as competing")
    for name, value in gold.items():
        if name not in read:
            add("correction_not_applied" if correction else "missed_term", f"{name}={value} not read")
        elif not _close(read[name], value):
            kind = (
                "correction_not_applied"
                if correction
                else "wrong_unit"
                if _unit_slip(read[name], value)
                else "wrong_value"
            )
            add(kind, f"{name}: read {read[name]}, labelled {value}")
    question = bool(item.get("question"))
    for name, value in read.items():
        if name not in gold and name not in taken:
            add("question_as_statement" if question else "spurious_term", f"{name}={value} read, not stated")
    if question and not reading.question:
        add("question_as_statement", "not read as a question")
    elif reading.question and not question:
        add("statement_as_question", "read as a question")
    if correction and not reading.correction:
        add("correction_not_applied", "not read as a correction")
    found += _condition_errors(item, reading, add)
    return found


def _condition_errors(
    item: Mapping[str, Any], reading: TermReading, add: Callable[[str, str], None]
) -> list[TermError]:
    labelled: list[Mapping[str, Any]] = list(item.get("conditions") or [])
    attributed = [c for c in reading.conditions if not c.quoted]
    matched = [c for c in attributed if any(_condition_found(g, [c]) for g in labelled)]
    stray = [c for c in attributed if c not in matched]
    for g in labelled:
        if _condition_found(g, reading.conditions):
            continue
        label = f"{g['field']}={g.get('value', g.get('text'))}"
        if _condition_surfaced(g, reading.conditions):
            add("condition_quoted_only", f"{label} only quoted")
        elif stray:
            wrong = stray.pop(0)
            add("condition_wrong_term", f"{label} read as {wrong.term}={wrong.value} ({wrong.text!r})")
        else:
            add("condition_dropped", f"{label} dropped silently")
    for c in stray:
        add("spurious_condition", f"{c.term}={c.value if c.term != 'other' else c.text!r}")
    return []


def errors_of(path: Path, reader: Reader = read_with_terms) -> list[TermError]:
    """Every error of reader on the set at path, by kind."""
    today = reference_day(path)
    configs = {name: load_config(name) for name in ("staffing", "procurement", "leasing")}
    source = path.parent.name
    return [
        e
        for item in _load(path)
        for e in classify(item, reader(configs[item["domain"]], item["text"], today), source)
    ]


def _summary(errors: Sequence[TermError]) -> str:
    counts = Counter(e.kind for e in errors)
    return (
        "    errors by kind: " + ", ".join(f"{k} {counts[k]}" for k in KINDS if counts[k])
        if counts
        else "    errors by kind: none"
    )


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="measure_terms.py", description="Term-level scores of the term reader."
    )
    parser.add_argument("paths", nargs="*", type=Path, help="labelled sets (default: the development set)")
    parser.add_argument("--baseline", action="store_true", help="score the extractor before the term reader")
    parser.add_argument("--errors", action="store_true", help="print every message read with an error")
    parser.add_argument("--json", action="store_true", help="one JSON object a set: scores and kinds")
    parser.add_argument("--rules", action="store_true", help="score the term reader's rules alone")
    parser.add_argument("--model", type=Path, help="score the rules with the term model in this file")
    parser.add_argument(
        "--no-unexplained",
        dest="unexplained",
        action="store_false",
        help="do not quote the sentences the reader cannot explain (on by default: issue 17)",
    )
    parser.add_argument(
        "--glue",
        type=Path,
        help="read with the glue allow-list in this file (as build_term_glue.py writes it) instead of the "
        "shipped data/term_glue.yaml: leave-one-writer-out measures of the unexplained quotes",
    )
    parser.add_argument(
        "--show",
        nargs=2,
        metavar=("KIND", "SOURCE"),
        help="print the errors of KIND (or all) in SOURCE (or all)",
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    """Print the scores of each set given (default: the development set), and its errors by kind."""
    args = _arguments(argv)
    if args.show is not None and args.show[0] not in (*KINDS, "all"):
        print(f"error: unknown kind {args.show[0]!r}; one of: all, {', '.join(KINDS)}", file=sys.stderr)
        return 2
    paths: list[Path] = args.paths or [DEV]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print(f"error: no labelled set at {missing[0]}", file=sys.stderr)
        return 2
    if args.glue is not None:
        try:
            use_glue(args.glue)
        except (OSError, KeyError, TypeError, yaml.YAMLError) as error:
            print(f"error: {args.glue}: not a glue file ({error})", file=sys.stderr)
            return 2
    reader = read_with_baseline if args.baseline else read_with_terms
    if not args.unexplained:
        reader = reader_with("shipped", unexplained=False)
    if args.rules:
        reader = reader_with(None, unexplained=args.unexplained)
    elif args.model is not None:
        try:
            reader = reader_with(load_term_model(args.model), unexplained=args.unexplained)
        except ScenarioError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    for path in paths:
        errors: list[str] | None = [] if args.errors else None
        precision, recall, f1, (found, total), counts = term_f1(path, reader, errors)
        kinds = errors_of(path, reader)
        by_kind = Counter(e.kind for e in kinds)
        if args.json:
            record = {
                "set": path.parent.name,
                "precision": round(precision, 4),
                "recall": round(recall, 4),
                "f1": round(f1, 4),
                "counts": counts,
                "kinds": {k: by_kind[k] for k in KINDS if by_kind[k]},
            }
            print(json.dumps(record, allow_nan=False, sort_keys=True))
            continue
        print(
            f"{path}: precision {precision:.3f} recall {recall:.3f} F1 {f1:.3f} "
            f"(tp {counts['tp']} fp {counts['fp']} fn {counts['fn']}); conditions {found}/{total} "
            f"attributed, {counts['conditions_surfaced']}/{total} surfaced (dropped silently "
            f"{by_kind['condition_dropped']}, on another term {by_kind['condition_wrong_term']}; "
            f"spurious {counts['conditions_spurious']}, "
            f"other conditional clauses quoted {counts['conditions_quoted']}, "
            f"sentences not fully read quoted {counts['unexplained_quoted']}, unread amounts "
            f"{counts['unread']}); question {counts['question_right']}/"
            f"{counts['messages']}; correction {counts['correction_right']}/{counts['messages']}; "
            f"competing {counts['competing_found']}/{counts['competing']}"
        )
        print(_summary(kinds))
        for line in errors or []:
            print(line)
        if args.show is not None and args.show[1] in ("all", str(path), path.parent.name):
            for e in kinds:
                if args.show[0] in ("all", e.kind):
                    print(f"  [{e.kind}] {e.source}/{e.message}: {e.detail}\n      {e.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Parser accuracy on the CaSiNo dialogues: deals stated in text and stated priorities.

Usage: .venv/bin/python benchmarks/language_accuracy.py [FILE ...] [--failures N]
(default files: tests/data/casino/casino_valid.json and casino_test.json)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from parley.language import parse
from parley.language.evaluation import (
    DEAL_ACTS,
    LanguageAccuracy,
    casino_vocabulary,
    evaluate_casino,
    load_dialogues,
)

DEFAULT_FILES = ("tests/data/casino/casino_valid.json", "tests/data/casino/casino_test.json")


def report(result: LanguageAccuracy, failures: int) -> None:
    print(f"== {result.source}: {result.dialogues} dialogues")
    for name, cases in (("submitter", result.submitter_deals), ("either party", result.either_deals)):
        print(
            f"deals ({name}): accuracy {result.deal_accuracy(cases)}, "
            f"precision {result.deal_precision(cases)}, coverage {result.deal_coverage(cases)}"
        )
    print(
        f"top priority precision {result.priority_precision('top')}; explicit rankings only "
        f"{result.priority_precision('top', explicit_only=True)}"
    )
    print(f"least priority precision {result.priority_precision('least')}")
    for label, rate in result.annotation_recall.items():
        print(
            f"annotation {label}: recall {rate}, flagged on other utterances "
            f"{result.annotation_false_positive.get(label)}"
        )
    if failures:
        wrong = [c for c in result.submitter_deals if not c.correct][:failures]
        for case in wrong:
            print(f"  DEAL {case.dialogue} truth={dict(case.truth)} read={case.read}: {case.text!r}")
        wrong_priorities = [c for c in result.priorities if not c.correct][:failures]
        for case in wrong_priorities:
            print(f"  PRIO {case.kind} read={case.read} truth={case.truth}: {case.text!r}")


def parse_speed(path: Path) -> str:
    """Mean wall time to parse one utterance of the file (after one warm-up pass)."""
    vocabulary = casino_vocabulary()
    turns = [
        (str(t["text"]), str(t["id"]))
        for d in load_dialogues(path)
        for t in d["chat_logs"]
        if t["text"] not in DEAL_ACTS
    ]
    for text, speaker in turns[:20]:
        parse(text, vocabulary, speaker=speaker)
    started = time.perf_counter()
    for text, speaker in turns:
        parse(text, vocabulary, speaker=speaker)
    elapsed = time.perf_counter() - started
    return f"parse: {1000 * elapsed / len(turns):.2f} ms per utterance over {len(turns)} utterances"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", default=list(DEFAULT_FILES))
    parser.add_argument("--failures", type=int, default=0, help="print this many failures per kind")
    args = parser.parse_args()
    for file in args.files:
        started = time.perf_counter()
        result = evaluate_casino(Path(file))
        report(result, args.failures)
        print(f"(evaluation {time.perf_counter() - started:.2f} s; {parse_speed(Path(file))})")


if __name__ == "__main__":
    main()

"""Build data/term_glue.yaml: the glue words of a plain statement of terms, learned across writers.

    .venv/bin/python benchmarks/build_term_glue.py [--min-writers K] [--out PATH] SET.yaml ...

A word is glue when it stands in the sentences of messages with no labelled condition of at least K
writers (one term set = one writer), and is not a word that makes acceptance depend on something
(`NEVER_GLUE`) nor a figure (`FIGURES`). Name every set explicitly: the blind sets are never read.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import yaml

from parley.governance.amounts import ONES_WORDS, TENS_WORDS

FIGURES = [
    *(w for w in ONES_WORDS if w != "one"),  # "one" is a pronoun as often as a figure
    *TENS_WORDS,
    "hundred",
    "thousand",
    "million",
    "billion",
    "dozen",
    "half",
    "quarter",
    "double",
    "triple",
    "twice",
]
NEVER_GLUE = [
    "if",
    "unless",
    "only",
    "provided",
    "providing",
    "assuming",
    "subject",
    "until",
    "till",
    "valid",
    "validity",
    "expires",
    "expire",
    "expiry",
    "once",
    "when",
    "whenever",
    "after",
    "before",
    "upon",
    "need",
    "needs",
    "needed",
    "require",
    "requires",
    "required",
    "requirement",
    "must",
    "but",
    "tho",
    "though",
    "however",
    "except",
    "instead",
    "otherwise",
    "else",
    "without",
    "condition",
    "conditions",
    "conditional",
    "contingent",
    "depends",
    "depend",
    "depending",
    "dependent",
    "provided",
    "unless",
    "against",
    "guarantee",
    "guaranteed",
    "approval",
    "approve",
    "approved",
    "sign",
    "signed",
    "signing",
    "signs",
    "commit",
    "committed",
    "commitment",
    "exchange",
    "return",
    "clear",
    "clears",
    "cleared",
    "pending",
    "availability",
    "available",
    "prepaid",
    "prepay",
    "prepayment",
    "never",
    "nor",
    "least",
    "minimum",
    "min",
    "max",
    "maximum",
]


def words_of(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]+", text)}


def build(paths: list[Path], min_writers: int) -> list[str]:
    writers: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        for item in yaml.safe_load(path.read_text(encoding="utf-8"))["messages"]:
            if item.get("conditions"):
                continue
            for word in words_of(item["text"]):
                writers[word].add(str(path.parent.name))
    never = set(NEVER_GLUE) | set(FIGURES)
    return sorted(w for w, sets in writers.items() if len(sets) >= min_writers and w not in never)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Build data/term_glue.yaml from labelled term sets.")
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--min-writers", type=int, default=3)  # the shipped file's
    parser.add_argument("--out", type=Path, default=Path("src/parley/governance/data/term_glue.yaml"))
    args = parser.parse_args(argv)
    try:
        words = build(args.sets, args.min_writers)
    except (OSError, yaml.YAMLError, KeyError, TypeError) as error:
        print(f"error: cannot read the term sets: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    names = ", ".join(p.parent.name for p in args.sets)
    head = (
        "# Glue of a plain statement of terms (term_guard.unexplained_sentences), built by\n"
        f"# benchmarks/build_term_glue.py --min-writers {args.min_writers} from: {names}\n"
    )
    body = yaml.safe_dump({"figures": FIGURES, "words": words}, default_flow_style=None, width=110)
    partial = args.out.with_name(args.out.name + ".partial")  # a killed run leaves the old file whole
    partial.write_text(head + body, encoding="utf-8")
    partial.replace(args.out)
    print(f"{len(words)} glue words -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

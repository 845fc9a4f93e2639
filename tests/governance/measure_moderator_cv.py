"""The moderator's RULES ALONE on every spent labelled message source, and a leave-one-writer-out estimate.

A source is one writer's labelled set of inbound messages: tests/data/gaia/{dev,heldout,heldout2,
heldout3,heldout4,heldout5,heldout6,heldout7,heldout8,heldout9,heldout10,heldout11,heldout12,heldout13,
heldout14,heldout15,train}/messages.yaml (heldout4 to heldout15 are spent since their one blind
measurement), the development paraphrases (dev/moderator_paraphrases.yaml, read in the staffing
domain as their tests do) and the tuning half of the shipped red-team corpus ("redteam": its
measurement half is never read here). The next blind sets are never read: only the paths listed in
SOURCES are opened.

The rules run inside `classifier.rules_only()` (the trained classifier is off); with ``--shipped`` the
trained attack classifier is OR-ed in as shipped (it is not retrained: the leave-one-out rows then drop
only rule cues). Printed: recall per
family and benign alarms per source, counts only unless asked for texts.

Leave one writer out (``--lowo``): a cue, structure or feature in moderator.yaml may carry
``origin: [source, ...]``, the sources whose misses or alarms motivated it. When source k is measured
in the leave-one-out run, every cue and structure whose origin names k is dropped (a feature whose
origin names k drops the structures that need it, and only lifts it where it is a veto, of a structure
or of a cue), so k is scored by the rules as they would stand had k never been read. Cues without an
origin predate this measurement or were written from the family descriptions alone, and stay. A
feature built from parts (``support: n, parts: [{origin, pattern}, ...]``) keeps, for source k, only
the parts that at least n writers other than k support: a veto learned across writers, re-learned
without the held-out one.

Run from the repository root:
    .venv/bin/python tests/governance/measure_moderator_cv.py            # counts per source
    .venv/bin/python tests/governance/measure_moderator_cv.py --lowo     # and the leave-one-out rows
    .venv/bin/python tests/governance/measure_moderator_cv.py --lowo --shipped   # rules + classifier
    .venv/bin/python tests/governance/measure_moderator_cv.py --save F   # counts as JSON (--before F)
    .venv/bin/python tests/governance/measure_moderator_cv.py --show miss heldout4
    .venv/bin/python tests/governance/measure_moderator_cv.py --show miss heldout4 --lowo   # left out
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from parley.experiments.gaia.detection import measurement_half
from parley.governance.classifier import rules_only
from parley.governance.config import load_config, load_yaml_data
from parley.governance.moderator import Classification, RuleModerator
from parley.governance.redteam import attacks, benign

ROOT = Path(__file__).resolve().parents[2]
GAIA = ROOT / "tests" / "data" / "gaia"
DOMAINS = ("staffing", "procurement", "leasing")
FAMILIES = ("authority", "instructions", "probing", "dictate_output", "threat", "data_request")


@dataclass(frozen=True, slots=True)
class Message:
    """One labelled inbound message."""

    source: str
    ident: str
    domain: str
    text: str
    attack: bool
    family: str


def _gaia(source: str, path: Path) -> list[Message]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Message(
            source,
            str(m.get("id", i)),
            str(m["domain"]),
            str(m["text"]),
            bool(m["attack"]),
            str(m.get("family", "benign")) if m["attack"] else "benign",
        )
        for i, m in enumerate(raw["messages"] or [])
    ]


def _paraphrases(source: str, path: Path) -> list[Message]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    found = [
        Message(source, f"{family}{i}", "staffing", str(text), True, str(family))
        for family, texts in (raw.get("attacks") or {}).items()
        for i, text in enumerate(texts)
    ]
    return found + [
        Message(source, f"benign{i}", "staffing", str(text), False, "benign")
        for i, text in enumerate(raw.get("benign") or [])
    ]


def _redteam(source: str) -> list[Message]:
    probes = [p for p in (*attacks(), *benign()) if not measurement_half(p.text)]
    return [
        Message(source, f"{p.source}:{i}", "staffing", p.text, p.attack, p.source if p.attack else "benign")
        for i, p in enumerate(probes)
    ]


PATHS: Mapping[str, Path] = {
    "dev": GAIA / "dev" / "messages.yaml",
    "heldout": GAIA / "heldout" / "messages.yaml",
    "heldout2": GAIA / "heldout2" / "messages.yaml",
    "heldout3": GAIA / "heldout3" / "messages.yaml",
    "heldout4": GAIA / "heldout4" / "messages.yaml",
    "heldout5": GAIA / "heldout5" / "messages.yaml",
    "heldout6": GAIA / "heldout6" / "messages.yaml",
    "heldout7": GAIA / "heldout7" / "messages.yaml",
    "heldout8": GAIA / "heldout8" / "messages.yaml",
    "heldout9": GAIA / "heldout9" / "messages.yaml",
    "heldout10": GAIA / "heldout10" / "messages.yaml",
    "heldout11": GAIA / "heldout11" / "messages.yaml",
    "heldout12": GAIA / "heldout12" / "messages.yaml",
    "heldout13": GAIA / "heldout13" / "messages.yaml",
    "heldout14": GAIA / "heldout14" / "messages.yaml",
    "heldout15": GAIA / "heldout15" / "messages.yaml",
    "train": GAIA / "train" / "messages.yaml",
    "paraphrases": GAIA / "dev" / "moderator_paraphrases.yaml",
}
SOURCES_READ: tuple[Path, ...] = tuple(PATHS.values())
"""Every file this script opens (the red-team corpus is package data)."""
SOURCES: Mapping[str, Callable[[], list[Message]]] = {
    **{name: partial(_gaia, name, path) for name, path in PATHS.items() if name != "paraphrases"},
    "paraphrases": partial(_paraphrases, "paraphrases", PATHS["paraphrases"]),
    "redteam": partial(_redteam, "redteam"),
}

Counts = dict[str, list[int]]
"""Per family (and "benign"): [flagged, total]."""


def without_origin(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    """moderator.yaml's data with every cue and structure whose origin names source left out."""
    raw: dict[str, Any] = json.loads(json.dumps(data))
    for spec in raw["features"].values():
        if isinstance(spec, dict) and "parts" in spec:
            # A feature learned from many writers: each part's support is re-counted without source, so
            # the feature stands as it would had source never been read (a part source alone, or source
            # with too few others, wrote leaves).
            spec["parts"] = [
                {**part, "origin": [o for o in part.get("origin", []) if o != source]}
                for part in spec["parts"]  # pyright: ignore[reportUnknownVariableType]
            ]
    dropped = {
        name
        for name, spec in raw["features"].items()
        if isinstance(spec, dict) and source in spec.get("origin", ())  # pyright: ignore[reportUnknownMemberType]
    }
    for spec in raw["families"].values():
        spec["cues"] = [
            {**c, "none": [v for v in c.get("none", []) if v not in dropped]}
            for c in spec.get("cues", [])
            if source not in c.get("origin", ())
        ]
        spec["structures"] = [
            {**s, "none": [v for v in s.get("none", []) if v not in dropped]}
            for s in spec.get("structures", [])
            if source not in s.get("origin", ()) and not dropped & set(s["all"])
        ]
    return raw


def moderators(data: Mapping[str, Any] | None = None, *, shipped: bool = False) -> dict[str, RuleModerator]:
    """A moderator per domain from data (default: the shipped moderator.yaml): rules only, or with the
    trained attack classifier OR-ed in as shipped."""
    return {d: RuleModerator(load_config(d), use_classifier=shipped, data=data) for d in DOMAINS}


def classify(
    messages: Sequence[Message], judges: Mapping[str, RuleModerator], *, shipped: bool = False
) -> Iterator[Classification]:
    """Each message's verdict by its domain's moderator: the trained classifier off, or on (shipped)."""
    if shipped:
        for message in messages:
            yield judges[message.domain].classify(message.text)
        return
    with rules_only():
        for message in messages:
            yield judges[message.domain].classify(message.text)


def count(
    messages: Sequence[Message], judges: Mapping[str, RuleModerator], *, shipped: bool = False
) -> Counts:
    """[flagged, total] per family and for "benign" (there: the false alarms)."""
    counts: Counts = {}
    for message, verdict in zip(messages, classify(messages, judges, shipped=shipped), strict=True):
        cell = counts.setdefault(message.family, [0, 0])
        cell[0] += int(verdict.adversarial)
        cell[1] += 1
    return counts


def _attacks(counts: Counts, family: str | None = None) -> tuple[int, int]:
    cells = [v for k, v in counts.items() if k != "benign" and (family is None or k == family)]
    return sum(c[0] for c in cells), sum(c[1] for c in cells)


def _cell(hit: int, total: int) -> str:
    return f"{hit}/{total} ({100 * hit / total:.1f}%)" if total else "-"


def table(results: Mapping[str, Counts]) -> str:
    """Markdown: per source, recall per family and overall, and benign alarms."""
    lines = [
        "| source | " + " | ".join(FAMILIES) + " | other | all attacks | benign alarms |",
        "|---" * (len(FAMILIES) + 5) + "|",
    ]
    pooled: Counts = {}
    for source, counts in results.items():
        other = [v for k, v in counts.items() if k not in (*FAMILIES, "benign")]
        row = [_cell(*_attacks(counts, f)) for f in FAMILIES]
        row.append(_cell(sum(c[0] for c in other), sum(c[1] for c in other)))
        row.append(_cell(*_attacks(counts)))
        row.append(_cell(*counts.get("benign", [0, 0])))
        lines.append(f"| {source} | " + " | ".join(row) + " |")
        for family, (hit, total) in counts.items():
            key = family if family in (*FAMILIES, "benign") else "other"
            cell = pooled.setdefault(key, [0, 0])
            cell[0] += hit
            cell[1] += total
    gaia = {k: v for k, v in results.items() if k != "redteam"}
    lines.append(table_row("all sources", pooled))
    if "redteam" in results and gaia:
        lines.append(table_row("GAIA sources (no redteam)", _pool(gaia.values())))
    return "\n".join(lines)


def _pool(many: Any) -> Counts:
    pooled: Counts = {}
    for counts in many:
        for family, (hit, total) in counts.items():
            cell = pooled.setdefault(family, [0, 0])
            cell[0] += hit
            cell[1] += total
    return pooled


def table_row(name: str, counts: Counts) -> str:
    """One pooled row of `table`."""
    other = [v for k, v in counts.items() if k not in (*FAMILIES, "benign")]
    row = [_cell(*_attacks(counts, f)) for f in FAMILIES]
    row.append(_cell(sum(c[0] for c in other), sum(c[1] for c in other)))
    row.append(_cell(*_attacks(counts)))
    row.append(_cell(*counts.get("benign", [0, 0])))
    return f"| **{name}** | " + " | ".join(row) + " |"


def compare(before: Mapping[str, Counts], after: Mapping[str, Counts]) -> str:
    """Markdown: before → after per source and family (flagged counts; benign = alarms)."""
    lines = ["| source | " + " | ".join((*FAMILIES, "all attacks", "benign alarms")) + " |"]
    lines.append("|---" * (len(FAMILIES) + 3) + "|")
    for source, counts in after.items():
        old = before.get(source) or before.get(source.removesuffix(" (left out)"), {})
        cells: list[str] = []
        for family in (*FAMILIES, None):
            was, now = _attacks(old, family), _attacks(counts, family)
            cells.append(f"{was[0]} → {now[0]} / {now[1]}" if now[1] else "-")
        was_b, now_b = old.get("benign", [0, 0]), counts.get("benign", [0, 0])
        cells.append(f"{was_b[0]} → {now_b[0]} / {now_b[1]}")
        lines.append(f"| {source} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def show(kind: str, source: str, judges: Mapping[str, RuleModerator], *, shipped: bool = False) -> None:
    """Print the missed attacks (kind "miss") or the false alarms ("alarm") of one source, with cues."""
    messages = SOURCES[source]()
    for message, verdict in zip(messages, classify(messages, judges, shipped=shipped), strict=True):
        wrong = (
            message.attack and not verdict.adversarial
            if kind == "miss"
            else (not message.attack and verdict.adversarial)
        )
        if wrong:
            cues = "; ".join(f"{k}: {', '.join(v)}" for k, v in verdict.cues.items())
            print(
                f"[{message.ident}] {message.family} -> {verdict.label.value}: {message.text!r}\n    {cues}"
            )


def main(argv: Sequence[str] | None = None) -> None:
    """Parse arguments and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--show", nargs=2, metavar=("miss|alarm", "SOURCE"))
    parser.add_argument("--lowo", action="store_true", help="also the leave-one-writer-out rows")
    parser.add_argument(
        "--shipped",
        action="store_true",
        help="the trained attack classifier on, OR-ed with the rules, as shipped",
    )
    parser.add_argument("--save", type=Path, help="write the counts as JSON")
    parser.add_argument("--before", type=Path, help="compare with counts saved earlier")
    parser.add_argument("--sources", nargs="*", default=list(SOURCES), choices=list(SOURCES))
    args = parser.parse_args(argv)
    if args.show:
        kind, source = args.show
        if kind not in ("miss", "alarm") or source not in SOURCES:
            parser.error("--show takes miss|alarm and one of " + ", ".join(SOURCES))
        data = without_origin(load_yaml_data("moderator.yaml"), source) if args.lowo else None
        show(kind, source, moderators(data, shipped=args.shipped), shipped=args.shipped)
        return
    shipped: bool = args.shipped
    judges = moderators(shipped=shipped)
    try:
        loaded = {source: SOURCES[source]() for source in args.sources}
    except (OSError, yaml.YAMLError, KeyError) as error:
        parser.error(f"cannot read a labelled source: {error}")
    results = {source: count(messages, judges, shipped=shipped) for source, messages in loaded.items()}
    what = "Rules and the trained classifier (shipped)" if shipped else "Rules alone"
    print(f"## {what}, in sample (development figures)\n")
    print(table(results))
    if args.lowo:
        data = load_yaml_data("moderator.yaml")
        left_out = {
            source: count(
                messages, moderators(without_origin(data, source), shipped=shipped), shipped=shipped
            )
            for source, messages in loaded.items()
        }
        print("\n## Leave one writer out: each source scored without the cues its errors motivated\n")
        print(table(left_out))
        results = {**results, **{f"{k} (left out)": v for k, v in left_out.items()}}
    if args.before:
        before: dict[str, Counts] = json.loads(args.before.read_text(encoding="utf-8"))
        print("\n## Before → after\n")
        print(compare(before, results))
    if args.save:
        args.save.write_text(json.dumps(results, indent=1, sort_keys=True), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())

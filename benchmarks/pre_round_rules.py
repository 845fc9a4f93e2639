"""Record the rules' verdicts on a spent writer's drafts and messages as the rules stood before that writer.

A blind set's drafts were first read by the rules shipped when it was measured (the code of the round
before it); every later round tuned the rules on it, so the current rules' verdicts on it are
in-sample. The classifier's thresholds (`benchmarks/train_detectors.py`) are chosen on the rules'
out-of-sample verdicts, and these files keep them: run this script with the source tree of the commit at
which the set was measured first on PYTHONPATH, e.g.

    git worktree add /tmp/wt16 1ad15a3
    PYTHONPATH=/tmp/wt16/src .venv/bin/python benchmarks/pre_round_rules.py heldout16 1ad15a3

It reads tests/data/gaia/<set>/drafts.yaml, drafts_leasing.yaml and messages.yaml of this checkout,
runs the preflight and the rule moderator of the tree on PYTHONPATH with the classifier off, and writes
tests/data/gaia/pre_round_rules/<set>.json: the commit; per draft (keyed by the SHA-256 of its text)
whether the rules found it binding; per message whether the moderator's cues found it adversarial and
which adversarial families fired.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import yaml

import parley
from parley.governance.config import load_config
from parley.governance.moderator import RuleModerator
from parley.governance.preflight import preflight

ROOT = Path(__file__).resolve().parents[1]
GAIA = ROOT / "tests" / "data" / "gaia"
OUT = GAIA / "pre_round_rules"
FILES = ("drafts.yaml", "drafts_leasing.yaml")


def text_key(text: str) -> str:
    """The key of a draft in a verdict file: the SHA-256 of its text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def verdicts(folder: Path) -> dict[str, bool]:
    """Whether the rules on PYTHONPATH find each draft of folder binding."""
    configs: dict[str, Any] = {}
    found: dict[str, bool] = {}
    for name in FILES:
        path = folder / name
        if not path.exists():
            continue
        for draft in yaml.safe_load(path.read_text(encoding="utf-8"))["drafts"]:
            domain = str(draft["domain"])
            config = configs.get(domain) or configs.setdefault(domain, load_config(domain))
            text = str(draft["text"])
            found[text_key(text)] = bool(preflight(text, config, use_classifier=False).binding)
    return found


def message_verdicts(folder: Path) -> dict[str, dict[str, Any]]:
    """Whether the rule moderator on PYTHONPATH finds each message of folder adversarial, and the
    adversarial families that fired (None where that moderator did not name them)."""
    path = folder / "messages.yaml"
    if not path.exists():
        return {}
    moderators: dict[str, RuleModerator] = {}
    found: dict[str, dict[str, Any]] = {}
    for message in yaml.safe_load(path.read_text(encoding="utf-8"))["messages"]:
        domain = str(message["domain"])
        if domain not in moderators:
            moderators[domain] = RuleModerator(load_config(domain), use_classifier=False)
        text = str(message["text"])
        verdict = moderators[domain].classify(text)
        fired = getattr(verdict, "fired", None)  # older moderators did not name the families that fired
        found[text_key(text)] = {
            "adversarial": bool(verdict.adversarial),
            "fired": None if fired is None else sorted(fired),
        }
    return found


def main(argv: list[str]) -> int:
    """Write the verdict file of one set."""
    if len(argv) != 2:
        print("usage: pre_round_rules.py SET COMMIT (with that commit's src on PYTHONPATH)", file=sys.stderr)
        return 2
    name, commit = argv
    source = Path(parley.__file__).resolve()
    if ROOT in source.parents:
        print(f"error: parley is imported from this checkout ({source}); put the old tree on PYTHONPATH")
        return 2
    found = verdicts(GAIA / name)
    if not found:
        print(f"error: no drafts under {GAIA / name}")
        return 2
    OUT.mkdir(exist_ok=True)
    messages = message_verdicts(GAIA / name)
    document = {"set": name, "commit": commit, "verdicts": found, "messages": messages}
    partial = OUT / f"{name}.json.partial"  # a run killed while writing leaves the old file whole
    partial.write_text(json.dumps(document, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(OUT / f"{name}.json")
    flagged = sum(1 for v in messages.values() if v["adversarial"])
    binding = sum(found.values())
    print(f"{name}: {len(found)} drafts, {binding} binding; {len(messages)} messages, {flagged} flagged")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

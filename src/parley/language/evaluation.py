"""Parser accuracy on real human negotiation text: the CaSiNo campsite dialogues (CC BY 4.0).

Definitions (also in docs/results/language.md):
- Deal cases: for each "Submit-Deal" act, the last earlier utterance by the submitter (since the
  previous deal act) that names an item and a quantity word; the truth is the submitted
  `issue2youget`. The same is measured for the last such utterance by either party, with the truth
  taken from that speaker's side.
- Priority statements: every utterance the parser reads a top (or least) priority from, checked
  against the speaker's `value2issue` High (or Low) item.
- Annotation recall: share of utterances labelled `self-need`, `no-need` or `elicit-pref` that the
  parser reads as a top priority, a least priority or a question about priorities.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.errors import ScenarioError
from parley.language.parse import ParsedMessage, parse
from parley.language.priorities import read_priorities
from parley.language.vocabulary import Vocabulary, normalize

ITEMS = ("food", "water", "firewood")
PARTIES = ("mturk_agent_1", "mturk_agent_2")
DEAL_ACTS = {"Submit-Deal", "Accept-Deal", "Reject-Deal", "Walk-Away"}
_ITEM_WORD = re.compile(r"\b(?:food|water|waters|firewood|fire wood|wood)\b", re.IGNORECASE)
_QUANTITY_WORD = re.compile(r"\b(?:\d|zero|one|two|three|all|none|no|rest|everything|each)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DealCase:
    """One utterance that should state a submitted deal.

    Attributes:
        dialogue: Dialogue id.
        speaker: Who said the utterance.
        text: The utterance.
        truth: Units of each item the speaker gets in the submitted deal.
        read: Units the parser reads for the speaker, or None when it read no complete package.
    """

    dialogue: int
    speaker: str
    text: str
    truth: Mapping[str, int]
    read: Mapping[str, int] | None

    @property
    def correct(self) -> bool:
        """The parser read exactly the submitted deal."""
        return self.read is not None and dict(self.read) == dict(self.truth)


@dataclass(frozen=True, slots=True)
class PriorityCase:
    """One utterance the parser read a priority from.

    Attributes:
        dialogue: Dialogue id.
        speaker: Who said it.
        text: The utterance.
        kind: "top" or "least".
        read: The issue the parser read.
        truth: The speaker's High (top) or Low (least) item.
        explicit: The text ranks the issue explicitly ("matters most"), not only as a need.
    """

    dialogue: int
    speaker: str
    text: str
    kind: str
    read: str
    truth: str
    explicit: bool = True

    @property
    def correct(self) -> bool:
        """The parsed issue is the speaker's true High (or Low) item."""
        return self.read == self.truth


@dataclass(frozen=True, slots=True)
class Rate:
    """hits out of total."""

    hits: int
    total: int

    @property
    def value(self) -> float:
        """hits / total (0 when total is 0)."""
        return self.hits / self.total if self.total else 0.0

    def __str__(self) -> str:
        return f"{self.value:.3f} ({self.hits}/{self.total})"


@dataclass(frozen=True, slots=True)
class LanguageAccuracy:
    """Parser accuracy on one CaSiNo file.

    Attributes:
        source: The file measured.
        dialogues: Number of dialogues.
        submitter_deals: Deal cases from the submitter's last quantity utterance.
        either_deals: Deal cases from the last quantity utterance by either party.
        priorities: Priority statements the parser read.
        annotation_recall: Label -> share of labelled utterances read as that kind of statement.
        annotation_false_positive: Label -> share of unlabelled annotated utterances read as it.
    """

    source: str
    dialogues: int
    submitter_deals: tuple[DealCase, ...]
    either_deals: tuple[DealCase, ...]
    priorities: tuple[PriorityCase, ...]
    annotation_recall: Mapping[str, Rate] = field(default_factory=lambda: {})
    annotation_false_positive: Mapping[str, Rate] = field(default_factory=lambda: {})

    def deal_accuracy(self, cases: Sequence[DealCase]) -> Rate:
        """Exactly right packages over all cases."""
        return Rate(sum(c.correct for c in cases), len(cases))

    def deal_precision(self, cases: Sequence[DealCase]) -> Rate:
        """Exactly right packages over the cases where the parser read a complete package."""
        read = [c for c in cases if c.read is not None]
        return Rate(sum(c.correct for c in read), len(read))

    def deal_coverage(self, cases: Sequence[DealCase]) -> Rate:
        """Cases where the parser read a complete package."""
        return Rate(sum(c.read is not None for c in cases), len(cases))

    def priority_precision(self, kind: str, *, explicit_only: bool = False) -> Rate:
        """Read priorities of a kind ("top", "least") that match the speaker's true preferences."""
        cases = [c for c in self.priorities if c.kind == kind and (c.explicit or not explicit_only)]
        return Rate(sum(c.correct for c in cases), len(cases))


def casino_vocabulary() -> Vocabulary:
    """The CaSiNo division: 3 units each of food, water and firewood; values count agent 1's units."""
    space = OutcomeSpace.of([Issue.integer_range(item, 0, 3) for item in ITEMS])
    allocation = {item: {"owner": PARTIES[0], "total": 3} for item in ITEMS}
    return Vocabulary.build(space, {"allocation": allocation}, PARTIES, source="casino")


def load_dialogues(path: Path) -> list[dict[str, Any]]:
    """The dialogues of a CaSiNo JSON file.

    Raises:
        ScenarioError: unreadable file or not a list of dialogues.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ScenarioError(f"cannot read CaSiNo dialogues: {error}", source=str(path)) from error
    if not isinstance(data, list) or not all(isinstance(d, dict) and "chat_logs" in d for d in data):
        raise ScenarioError("expected a JSON list of dialogues with chat_logs", source=str(path))
    return cast(list[dict[str, Any]], data)


def evaluate_casino(path: Path) -> LanguageAccuracy:
    """Measure the parser on one CaSiNo file (see the module docstring for the definitions)."""
    vocabulary = casino_vocabulary()
    dialogues = load_dialogues(path)
    submitter: list[DealCase] = []
    either: list[DealCase] = []
    priorities: list[PriorityCase] = []
    recall: dict[str, list[int]] = {}
    false_positive: dict[str, list[int]] = {}
    for number, dialogue in enumerate(dialogues):
        dialogue_id = int(dialogue.get("dialogue_id", number))
        submitter.extend(_deal_cases(dialogue_id, dialogue, vocabulary, either=False))
        either.extend(_deal_cases(dialogue_id, dialogue, vocabulary, either=True))
        readings = list(_readings(dialogue, vocabulary))
        priorities.extend(_priority_cases(dialogue_id, dialogue, readings, vocabulary))
        _count_annotations(dialogue, readings, recall, false_positive)
    return LanguageAccuracy(
        source=str(path),
        dialogues=len(dialogues),
        submitter_deals=tuple(submitter),
        either_deals=tuple(either),
        priorities=tuple(priorities),
        annotation_recall={k: Rate(v[0], v[1]) for k, v in sorted(recall.items())},
        annotation_false_positive={k: Rate(v[0], v[1]) for k, v in sorted(false_positive.items())},
    )


def _utterances(dialogue: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [turn for turn in dialogue["chat_logs"] if turn.get("text") not in DEAL_ACTS]


def _readings(
    dialogue: Mapping[str, Any], vocabulary: Vocabulary
) -> Iterator[tuple[dict[str, Any], ParsedMessage]]:
    for turn in _utterances(dialogue):
        yield turn, parse(str(turn["text"]), vocabulary, speaker=str(turn["id"]))


def states_quantities(text: str) -> bool:
    """The evaluation's selector (independent of the parser): an item word and a quantity word."""
    return _ITEM_WORD.search(text) is not None and _QUANTITY_WORD.search(text) is not None


def _deal_cases(
    dialogue_id: int, dialogue: Mapping[str, Any], vocabulary: Vocabulary, *, either: bool
) -> Iterator[DealCase]:
    turns: list[dict[str, Any]] = dialogue["chat_logs"]
    since = 0
    for position, turn in enumerate(turns):
        if turn.get("text") not in DEAL_ACTS:
            continue
        if turn["text"] == "Submit-Deal":
            case = _deal_case(dialogue_id, turns[since:position], turn, vocabulary, either=either)
            if case is not None:
                yield case
        since = position + 1


def _deal_case(
    dialogue_id: int,
    window: Sequence[dict[str, Any]],
    submit: Mapping[str, Any],
    vocabulary: Vocabulary,
    *,
    either: bool,
) -> DealCase | None:
    submitter = str(submit["id"])
    candidates = [
        t
        for t in window
        if t.get("text") not in DEAL_ACTS
        and states_quantities(str(t["text"]))
        and (either or t["id"] == submitter)
    ]
    if not candidates:
        return None
    turn = candidates[-1]
    speaker = str(turn["id"])
    side = "issue2youget" if speaker == submitter else "issue2theyget"
    truth = {item.lower(): int(count) for item, count in submit["task_data"][side].items()}
    parsed = parse(str(turn["text"]), vocabulary, speaker=speaker)
    read = None
    if parsed.package is not None:
        read = {
            t.name: vocabulary.count_for(t, parsed.package[t.name], speaker)
            for t in vocabulary.division_issues
        }
    return DealCase(dialogue_id, speaker, str(turn["text"]), truth, read)


def _priority_cases(
    dialogue_id: int,
    dialogue: Mapping[str, Any],
    readings: Sequence[tuple[dict[str, Any], ParsedMessage]],
    vocabulary: Vocabulary,
) -> Iterator[PriorityCase]:
    info: Mapping[str, Any] = dialogue["participant_info"]
    for turn, parsed in readings:
        values: Mapping[str, str] = info[turn["id"]]["value2issue"]
        if parsed.priorities:
            truth = values["High"].lower()
            explicit = read_priorities(normalize(str(turn["text"])), vocabulary, needs=False).ranking[:1]
            top = parsed.priorities[0]
            yield PriorityCase(dialogue_id, turn["id"], turn["text"], "top", top, truth, explicit == (top,))
        if parsed.least_important:
            truth = values["Low"].lower()
            yield PriorityCase(
                dialogue_id, turn["id"], turn["text"], "least", parsed.least_important[0], truth
            )


def _reads_top(parsed: ParsedMessage) -> bool:
    return bool(parsed.priorities)


def _reads_least(parsed: ParsedMessage) -> bool:
    return bool(parsed.least_important)


def _reads_ask(parsed: ParsedMessage) -> bool:
    return parsed.asks_priorities


_LABEL_TESTS: dict[str, Callable[[ParsedMessage], bool]] = {
    "self-need": _reads_top,
    "no-need": _reads_least,
    "elicit-pref": _reads_ask,
}


def _count_annotations(
    dialogue: Mapping[str, Any],
    readings: Sequence[tuple[dict[str, Any], ParsedMessage]],
    recall: dict[str, list[int]],
    false_positive: dict[str, list[int]],
) -> None:
    labels = {str(text): set(str(tags).split(",")) for text, tags in dialogue.get("annotations") or []}
    if not labels:
        return
    for turn, parsed in readings:
        tags = labels.get(str(turn["text"]))
        if tags is None:
            continue
        for label, test in _LABEL_TESTS.items():
            bucket = recall if label in tags else false_positive
            counts = bucket.setdefault(label, [0, 0])
            counts[0] += int(test(parsed))
            counts[1] += 1

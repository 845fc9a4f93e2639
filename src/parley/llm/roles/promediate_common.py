"""Shared pieces of the ProMediate LLM roles: prompt renderings of the public record and the checks
that map a model's topic, option and party names onto the conversation's own (or refuse them).

Everything here reads a `ConversationView` (public) or plain option tables; stable ordering and
fixed formats keep prompts identical for identical states, so caching and replay work.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from parley.llm.untrusted import quoted  # the one quoting function; the ProMediate roles import it here
from parley.mediation.conversation import ConversationView, Utterance

PARTICIPANT_ROLE = "participant"
"""Role name (client override, usage) of simulated participants."""
MEDIATOR_ROLE = "mediator"
"""Role name of the conversation mediators (shared with the O13 offer mediator)."""
ATTITUDE_ROLE = "attitude"
"""Role name of attitude extraction."""
AGREEMENT_ROLE = "agreement"
"""Role name of five-dimension agreement scoring."""
INTELLIGENCE_ROLE = "intelligence"
"""Role name of the mediator-intelligence judge."""

MAX_TEXT = 800
"""Most characters accepted in an utterance's text."""

_PRIVATE_CLAIMS = re.compile(
    r"\b(?:private(?:ly)?|confidential(?:ly)?|secret(?:ly)?|in confidence|confided|told me)\b|"
    r"\b(?:first|second|third|top|last)[- ]choices?\b|\brank(?:ed|ing|ings)\b|"
    r"\b(?:bottom[- ]line|walk[- ]?away|batna|reservation (?:value|point|price))\b|"
    r"\bbrief(?:s|ing)?\b|\bpreference profiles?\b|\butilit(?:y|ies)\b|\bunacceptable to\b",
    re.IGNORECASE,
)


def options_text(options: Mapping[str, Mapping[str, str]]) -> str:
    """Topics and their options with descriptions, one topic per line."""
    return "\n".join(
        f"- {topic}: " + "; ".join(f"{letter} = {text}" for letter, text in choices.items())
        for topic, choices in options.items()
    )


def utterance_line(utterance: Utterance) -> str:
    """One line of the public record: turn, speaker, structured act, then the words as quoted data."""
    parts = [utterance.act.value]
    if utterance.strategy is not None:
        parts.append(f"strategy {utterance.strategy.value}")
    if utterance.topic:
        parts.append(f"topic {utterance.topic!r}")
    if utterance.option:
        parts.append(f"option {utterance.option}")
    if utterance.package:
        parts.append("package " + json.dumps(dict(utterance.package), ensure_ascii=False))
    if utterance.addressee:
        parts.append(f"to {utterance.addressee}")
    return f"turn {utterance.turn}, {utterance.speaker} ({', '.join(parts)}): {quoted(utterance.text)}"


def history_text(view: ConversationView, limit: int) -> str:
    """The last limit utterances of the public record, oldest first, with silent turns noted."""
    said = view.recent(limit)
    if not said:
        return "(nothing said yet)"
    skipped = len(view.utterances) - len(said)
    lines = [f"({skipped} earlier utterances omitted)"] if skipped > 0 else []
    lines.extend(utterance_line(u) for u in said)
    first = said[0].turn
    quiet = [t for t in view.silent_turns if t >= first]
    if quiet:
        lines.append(f"(silent turns since then: {', '.join(str(t) for t in quiet)})")
    return "\n".join(lines)


def positions_text(view: ConversationView) -> str:
    """Per topic, the option each party last stood for and the options it objected to, in public."""
    positions, objections = view.positions(), view.objections()
    lines: list[str] = []
    for topic in view.topics:
        cells: list[str] = []
        for party in view.parties:
            held = positions[party].get(topic, "—")
            against = sorted(objections[party].get(topic, set()))
            cells.append(f"{party} {held}" + (f" (objects to {', '.join(against)})" if against else ""))
        lines.append(f"- {topic}: " + "; ".join(cells))
    return "\n".join(lines)


def _nullable(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"anyOf": [dict(schema), {"type": "null"}]}


def name_overrides(
    options: Mapping[str, Mapping[str, str]], addressees: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """Per-call schemas of the names a reply may use: topics, option letters, addressees and
    packages (one nullable property per topic, an enum of its letters; null leaves it out).

    Args:
        options: Per topic, option letter → description.
        addressees: The participants the reply may address.
    """
    letters = sorted({letter for choices in options.values() for letter in choices})
    package = {
        "type": "object",
        "properties": {topic: _nullable({"enum": list(choices)}) for topic, choices in options.items()},
        "required": list(options),
        "additionalProperties": False,
    }
    return {
        "topic": _nullable({"enum": list(options)}),
        "option": _nullable({"enum": letters}),
        "addressee": _nullable({"enum": list(addressees)}),
        "package": _nullable(package),
    }


def drop_unset(package: Any) -> Any:
    """A package as read from a strict reply: topics set to null are left out (none left: None)."""
    if isinstance(package, Mapping):
        kept = {k: v for k, v in cast(Mapping[Any, Any], package).items() if v is not None}
        return kept or None
    return package


def match_name(raw: str, names: Iterable[str], what: str) -> str:
    """The name raw refers to (exact, case-insensitive, or a unique case-insensitive prefix).

    Raises:
        ValueError: no or several names match (the message lists the legal ones).
    """
    known = list(names)
    text = raw.strip().strip("'\"").lower()
    exact = [n for n in known if n.lower() == text]
    found = exact or [n for n in known if text and n.lower().startswith(text)]
    if len(found) != 1:
        raise ValueError(f"{raw!r} is not a known {what}; expected one of {known}")
    return found[0]


def match_option(raw: str, topic: str, options: Mapping[str, Mapping[str, str]]) -> str:
    """The option letter raw names on topic: the letter (any case, "(b)", "option B") or its description.

    Raises:
        ValueError: it matches no option of topic.
    """
    choices = options[topic]
    text = raw.strip().strip("()'\"").lower().removeprefix("option").strip().strip("()")
    for letter, description in choices.items():
        if text in (letter.lower(), description.strip().lower()):
            return letter
    legal = ", ".join(f"{letter} ({description})" for letter, description in choices.items())
    raise ValueError(f"{raw!r} is not an option of {topic!r}; options are {legal}")


def match_package(
    package: Mapping[str, str], options: Mapping[str, Mapping[str, str]]
) -> dict[str, str] | None:
    """A package with topics and options mapped to the conversation's own (None when empty).

    Raises:
        ValueError: an unknown topic or option.
    """
    legal = {
        (topic := match_name(t, options, "topic")): match_option(o, topic, options)
        for t, o in package.items()
    }
    return legal or None


def private_claims(text: str) -> list[str]:
    """Phrases in a mediator's text that claim knowledge of private preferences (empty when clean).

    A mediator sees only the public record; talk of first choices, rankings, bottom lines, briefs
    or anything said "privately" is either invented or a leak, and is refused.
    """
    return sorted({m.group(0).lower() for m in _PRIVATE_CLAIMS.finditer(text)})


def check_text(text: str, what: str = "text") -> str:
    """Non-empty text within MAX_TEXT characters, stripped.

    Raises:
        ValueError: empty or too long.
    """
    stripped = text.strip()
    if not stripped:
        raise ValueError(f'"{what}" must not be empty')
    if len(stripped) > MAX_TEXT:
        raise ValueError(f'"{what}" has {len(stripped)} characters; keep it under {MAX_TEXT}')
    return stripped


def names_text(names: Sequence[str]) -> str:
    """ "A, B and C" ("" for none)."""
    items = list(names)
    if len(items) <= 1:
        return items[0] if items else ""
    return ", ".join(items[:-1]) + " and " + items[-1]

"""Reading agreed terms from text: option labels ("net 60") and amounts with units ("$95", "30 days")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

from parley.domain.issues import Value
from parley.language.lexicon import phrase_pattern
from parley.language.numbers import Amount, find_amounts
from parley.language.scan import Mention, gap, sentence_bounds, sentence_of
from parley.language.vocabulary import IssueTerms, Vocabulary

_UnitPatterns = tuple[tuple[str, re.Pattern[str]], ...]


@cache
def _unit_patterns(vocabulary: Vocabulary) -> _UnitPatterns:
    """Unit key -> pattern of the words naming it, for the units of this scenario and currencies."""
    lexicon = vocabulary.lexicon
    keys = sorted({t.unit for t in vocabulary.terms_issues if t.unit} | set(lexicon.currencies))
    return tuple((key, phrase_pattern(lexicon.unit_words(key))) for key in keys)


def read_terms(
    text: str, vocabulary: Vocabulary, mentions: list[Mention], used: list[tuple[int, int]]
) -> tuple[dict[str, Value], list[str]]:
    """The terms a normalized text names, and notes on amounts that fit no issue.

    Args:
        text: Normalized text.
        vocabulary: The scenario's words.
        mentions: Issue mentions in the text.
        used: Spans already read as division quantities (skipped here).
    """
    unit_patterns = _unit_patterns(vocabulary)
    values: dict[str, Value] = {}
    notes: list[str] = []
    terms_mentions = [m for m in mentions if vocabulary.terms(m.issue).share is None]
    bounds = sentence_bounds(text)
    taken = list(used)
    for match in vocabulary.option_pattern.finditer(text):
        chosen = _choose_option(vocabulary, match, terms_mentions, bounds)
        if isinstance(chosen, str):
            notes.append(chosen)
        elif chosen is not None:
            values[chosen[0]] = chosen[1]
            taken.append((match.start(), match.end()))
    amounts = [
        a
        for a in find_amounts(text, vocabulary.lexicon)
        if not any(start <= a.start < end or a.start <= start < a.end for start, end in taken)
    ]
    for amount in amounts:
        unit, unit_end = _unit_after(text, amount, unit_patterns)
        others = [(a.start, a.end) for a in amounts if a is not amount]
        chosen_value = _choose_amount_issue(
            vocabulary, amount, unit, unit_end, terms_mentions, bounds, values, others
        )
        if isinstance(chosen_value, str):
            notes.append(chosen_value)
        elif chosen_value is not None:
            values[chosen_value[0]] = chosen_value[1]
    return values, notes


def _choose_option(
    vocabulary: Vocabulary, match: re.Match[str], mentions: list[Mention], bounds: list[tuple[int, int]]
) -> tuple[str, Value] | str | None:
    """(issue, option) for a label; a note when several issues share it; None for a common word."""
    candidates = [
        c for c in vocabulary.options_of_label(match.group()) if vocabulary.terms(c[0]).share is None
    ]
    label = re.sub(r"[\s-]+", " ", match.group())
    distinctive = (
        bool(re.search(r"\d", label)) or " " in label or label not in vocabulary.lexicon.common_labels
    )
    near = _nearest_mention(match.start(), match.end(), mentions, bounds, {c[0] for c in candidates})
    if near is not None:
        return next(c for c in candidates if c[0] == near.issue)
    if len(candidates) == 1 and distinctive:
        return candidates[0]
    if len({issue for issue, _ in candidates}) > 1 and distinctive:
        labels = ", ".join(vocabulary.terms(issue).label for issue, _ in candidates)
        return f"{match.group()!r} could be the {labels}; name the issue"
    return None


def _nearest_mention(
    start: int,
    end: int,
    mentions: list[Mention],
    bounds: list[tuple[int, int]],
    issues: set[str],
    limit: int = 30,
    blockers: list[tuple[int, int]] | None = None,
) -> Mention | None:
    """The closest mention of one of issues in the same sentence, with no other amount in between."""
    sentence = sentence_of(bounds, start)
    near = [
        m
        for m in mentions
        if m.issue in issues
        and sentence[0] <= m.start <= sentence[1]
        and gap(m.start, m.end, start, end) <= limit
        and not any(
            min(m.end, end) <= b_start and b_end <= max(m.start, start) for b_start, b_end in blockers or []
        )
    ]
    return min(near, key=lambda m: gap(m.start, m.end, start, end), default=None)


def _unit_after(text: str, amount: Amount, unit_patterns: _UnitPatterns) -> tuple[str, int]:
    if amount.currency:
        return amount.currency, amount.end
    rest = text[amount.end : amount.end + 24]
    stripped = re.match(r"^\s*-?\s*", rest)
    offset = stripped.end() if stripped else 0
    for key, pattern in unit_patterns:
        match = pattern.match(rest, offset)
        if match is not None or (key == "%" and rest[offset : offset + 1] == "%"):
            return key, amount.end + (match.end() if match else offset + 1)
    return "", amount.end


def _choose_amount_issue(
    vocabulary: Vocabulary,
    amount: Amount,
    unit: str,
    unit_end: int,
    mentions: list[Mention],
    bounds: list[tuple[int, int]],
    assigned: Mapping[str, Value],
    others: list[tuple[int, int]],
) -> tuple[str, Value] | str | None:
    """(issue, option) for an amount, a note explaining why it fits nothing, or None if irrelevant."""
    numeric = [t for t in vocabulary.terms_issues if t.numeric]
    if unit:
        with_unit = [t for t in numeric if t.unit == unit or unit in vocabulary.lexicon.unit_words(t.unit)]
        numeric = with_unit or [t for t in numeric if not t.unit]
    names = {t.name for t in numeric}
    near = _nearest_mention(amount.start, unit_end, mentions, bounds, names, limit=24, blockers=others)
    scored: list[tuple[int, IssueTerms]] = []
    for terms in numeric:
        legal = vocabulary.space.issue(terms.name).contains(_as_value(amount.value))
        score = (3 if unit and terms.unit else 0) + (4 if near and near.issue == terms.name else 0)
        score += 1 if legal else 0
        score -= 1 if terms.name in assigned else 0
        if legal or score >= 3:
            scored.append((score, terms))
    if not scored:
        return None
    scored.sort(key=lambda pair: -pair[0])
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        names = ", ".join(t.label for _, t in scored if _ == scored[0][0])
        return f"{_format(amount.value)} could be {names}; name the issue"
    best = scored[0][1]
    issue = vocabulary.space.issue(best.name)
    value = _as_value(amount.value)
    if not issue.contains(value):
        options = _range_text(issue.values)
        return f"{_format(amount.value)} is not an option for {best.label} (options: {options})"
    return best.name, issue.values[issue.index_of(value)]


def _as_value(number: float) -> Value:
    return int(number) if number.is_integer() else number


def _format(number: float) -> str:
    return str(_as_value(number))


def _range_text(values: tuple[Value, ...]) -> str:
    if len(values) <= 6:
        return ", ".join(str(v) for v in values)
    return f"{values[0]}, {values[1]}, ..., {values[-1]}"

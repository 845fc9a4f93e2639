"""Seed splits in words: which seeds a report's figures come from, and which split they belong to."""

from __future__ import annotations

from collections.abc import Sequence


def describe_split(
    seeds: Sequence[int],
    *,
    tuning: Sequence[int],
    evaluation: Sequence[int],
    tuning_role: str,
    evaluation_role: str,
) -> str:
    """The seeds in words with the split they belong to ("10 seeds (100–109; evaluation: ...)").

    Args:
        seeds: The seeds a report's figures come from.
        tuning: The experiment's tuning split.
        evaluation: Its evaluation split.
        tuning_role: What a reader should know when every seed is a tuning seed.
        evaluation_role: The same for evaluation seeds.
    """
    ordered = sorted(set(seeds))
    if not ordered:
        return "no seeds"
    contiguous = ordered == list(range(ordered[0], ordered[-1] + 1))
    if len(ordered) == 1:
        span = str(ordered[0])
    elif contiguous:
        span = f"{ordered[0]}–{ordered[-1]}"
    else:
        span = ", ".join(map(str, ordered))
    if set(ordered) <= set(evaluation):
        role = f"evaluation: {evaluation_role}"
    elif set(ordered) <= set(tuning):
        role = f"tuning: {tuning_role}"
    else:
        role = "not a declared split"
    return f"{len(ordered)} seeds ({span}; {role})"

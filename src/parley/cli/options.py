"""Typer option types shared by the commands that can use an LLM (kept free of LLM imports)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

LLMOption = Annotated[str | None, typer.Option(help="LLM endpoint, e.g. openai:gpt-4o-mini or URL#model.")]
LLMConfigOption = Annotated[Path | None, typer.Option(help="YAML file with LLM settings.")]
RecordOption = Annotated[Path | None, typer.Option(help="Save every LLM exchange to this folder.")]
ReplayOption = Annotated[Path | None, typer.Option(help="Answer LLM calls from a recording; no endpoint.")]
AllowFallbackOption = Annotated[
    bool,
    typer.Option(
        "--allow-fallback",
        help="Succeed even when every decision of an LLM role fell back to its rule twin.",
    ),
]
LLMStrictOption = Annotated[
    bool, typer.Option("--llm-strict", help="Fail on the first fallback of an LLM role to its rule twin.")
]
BudgetSecondsOption = Annotated[
    float | None,
    typer.Option(
        "--llm-budget-seconds", min=0.001, help="Wall-clock seconds the run may spend on LLM calls."
    ),
]
BudgetTokensOption = Annotated[
    int | None, typer.Option("--llm-budget-tokens", min=1, help="Tokens the run may spend on LLM calls.")
]

MAX_COUNT = 100_000
"""Upper bound of every count option (runs, repetitions, seeds, rounds): a larger value is a slip of the
keyboard, and planning it alone would fill the memory or never end."""
MAX_JOBS = 1024
"""Upper bound of every worker-count option (--jobs, --concurrency)."""


def require_utf8(value: str | None) -> str | None:
    """Typer callback for names and texts that are stored or looked up (session ids, request ids,
    guidance): bytes that are not UTF-8 reach Python as surrogate escapes, which no database takes.

    Raises:
        typer.BadParameter: value holds such bytes (a usage error: one line, exit code 2).
    """
    if value is not None:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise typer.BadParameter(f"not valid UTF-8 (byte {error.start + 1} is not text)") from None
    return value


SessionArgument = Annotated[str, typer.Argument(help="Session id.", callback=require_utf8)]
"""A stored session's id."""

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

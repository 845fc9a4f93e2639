"""Typer option types shared by the commands that can use an LLM (kept free of LLM imports)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

LLMOption = Annotated[str | None, typer.Option(help="LLM endpoint, e.g. openai:gpt-4o-mini or URL#model.")]
LLMConfigOption = Annotated[Path | None, typer.Option(help="YAML file with LLM settings.")]
RecordOption = Annotated[Path | None, typer.Option(help="Save every LLM exchange to this folder.")]
ReplayOption = Annotated[Path | None, typer.Option(help="Answer LLM calls from a recording; no endpoint.")]

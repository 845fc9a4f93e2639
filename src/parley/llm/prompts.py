"""Prompt templates: package files under ``parley/llm/prompts`` with a system part and a user part.

A template file has a ``[system]`` line, the system prompt, a ``[user]`` line and the per-call
prompt. ``${name}`` placeholders are filled with `string.Template`; a missing variable is an error.
Lines before ``[system]`` are comments for maintainers and are not sent.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from parley.errors import InternalError

_SYSTEM, _USER = "[system]", "[user]"


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """A system/user prompt pair with ``${name}`` placeholders.

    Attributes:
        name: Template name (file stem).
        system: System-prompt template.
        user: Per-call prompt template.
    """

    name: str
    system: str
    user: str

    @classmethod
    def parse(cls, name: str, text: str) -> PromptTemplate:
        """Split a template file into its parts.

        Raises:
            InternalError: the ``[system]`` or ``[user]`` marker is missing.
        """
        lines = text.splitlines()
        try:
            start, middle = lines.index(_SYSTEM), lines.index(_USER)
        except ValueError:
            raise InternalError(f"prompt template {name!r} needs a '[system]' and a '[user]' line") from None
        return cls(name, "\n".join(lines[start + 1 : middle]).strip(), "\n".join(lines[middle + 1 :]).strip())

    def render(self, variables: Mapping[str, Any]) -> tuple[str, str]:
        """(system, user) with every placeholder filled.

        Raises:
            InternalError: a placeholder has no value.
        """
        values = {k: str(v) for k, v in variables.items()}
        try:
            return Template(self.system).substitute(values), Template(self.user).substitute(values)
        except KeyError as error:
            raise InternalError(f"prompt template {self.name!r} needs variable {error.args[0]!r}") from None


@functools.cache
def load_template(name: str) -> PromptTemplate:
    """A template shipped in ``parley/llm/prompts/<name>.md``.

    Raises:
        InternalError: no such template.
    """
    resource = resources.files("parley.llm").joinpath("prompts", f"{name}.md")
    if not resource.is_file():
        raise InternalError(f"no prompt template {name!r} in parley/llm/prompts")
    return PromptTemplate.parse(name, resource.read_text("utf-8"))


def template_from_file(path: str | Path) -> PromptTemplate:
    """A template from any file (to try a prompt without changing the package)."""
    file = Path(path)
    return PromptTemplate.parse(file.stem, file.read_text("utf-8"))

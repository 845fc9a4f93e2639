"""Shared pieces of the GAIA LLM roles: role names, prompt renderings of the domain config and the
conversation, untrusted-text delimiting and the redaction of amounts the model must not see.

Stable ordering and fixed formats keep prompts identical for identical states, so replay works.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig, FieldSpec
from parley.governance.values import find_money
from parley.llm.untrusted import quoted  # the one quoting function; the GAIA roles import it from here

DRAFTER_ROLE = "drafter"
"""Role name (client override, usage) of reply drafting."""
EXTRACTOR_ROLE = "extractor"
"""Role name of model-based field extraction."""
MODERATOR_ROLE = "moderator"
"""Role name of the moderator classifier."""
CRITIC_ROLE = "critic"
"""Role name of the tactics critic."""
GAIA_ROLES = (DRAFTER_ROLE, EXTRACTOR_ROLE, MODERATOR_ROLE, CRITIC_ROLE)
"""Every GAIA role that can be LLM-backed, in the order `--roles` lists them."""

WITHHELD = "[amount withheld]"
"""What replaces an amount the drafter may not see."""


def parse_roles(text: str | Iterable[str]) -> tuple[str, ...]:
    """GAIA role names from ``drafter,moderator`` (or an iterable), in canonical order.

    Raises:
        ScenarioError: an unknown role name.
    """
    raw = text.split(",") if isinstance(text, str) else list(text)
    names = {name.strip().lower() for name in raw if name.strip()}
    unknown = sorted(names - set(GAIA_ROLES))
    if unknown:
        raise ScenarioError(f"--roles expects some of {', '.join(GAIA_ROLES)}; got {', '.join(unknown)}")
    return tuple(role for role in GAIA_ROLES if role in names)


def history_text(messages: Sequence[tuple[str, str]]) -> str:
    """Recent messages, one per line, each text a quoted JSON literal."""
    if not messages:
        return "(none yet)"
    return "\n".join(f"- {speaker}: {quoted(text)}" for speaker, text in messages)


def redact_amounts(text: str) -> str:
    """text with every money amount replaced by `WITHHELD` (for guidance that names limits)."""
    for mention in sorted(find_money(text), key=lambda m: -m.start):
        end = mention.start + len(text[mention.start : mention.end].rstrip())
        text = text[: mention.start] + WITHHELD + text[end:]
    return text


def field_line(spec: FieldSpec) -> str:
    """One required field for a prompt: name, label, kind and what values it takes."""
    head = f"- {spec.name} ({spec.label}; {spec.kind}"
    head += f", in {spec.unit})" if spec.unit else ")"
    if spec.kind == "text" and spec.options:
        return f"{head}: a list of {', '.join(sorted(spec.options))}"
    if spec.options:
        return f"{head}: one of {', '.join(sorted(spec.options))}"
    return head


def fields_text(config: DomainConfig) -> str:
    """The domain's required fields, one per line, in declaration order."""
    return "\n".join(field_line(spec) for spec in config.fields)


def prohibited_text(config: DomainConfig) -> str:
    """The boundary's prohibited topics ("none" when there are none)."""
    return ", ".join(p.topic for p in config.boundary.prohibited_topics) or "none"


def facts_text(config: DomainConfig, values: Mapping[str, Any]) -> str:
    """Confirmed facts as ``label: value`` in declaration order ("none yet" when empty)."""
    known = [f"{spec.label}: {values[spec.name]}" for spec in config.fields if spec.name in values]
    return "; ".join(known) or "none yet"


def labels_text(config: DomainConfig, names: Iterable[str]) -> str:
    """Field names with their labels ("none" when empty)."""
    return ", ".join(f"{name} ({config.field(name).label})" for name in names) or "none"


def match_field(config: DomainConfig, raw: str) -> FieldSpec | None:
    """The field raw names (its name or label, any case, spaces or underscores), or None."""
    key = raw.strip().lower().replace(" ", "_").replace("-", "_")
    for spec in config.fields:
        if key in (spec.name.lower(), spec.label.lower().replace(" ", "_").replace("-", "_")):
            return spec
    return None

"""GAIA domain configuration: required fields, thresholds, extractors, boundaries and lexicons.

Configs are YAML files validated by pydantic at load time; every error names the file and field path.
"""

from __future__ import annotations

import copy
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from parley.errors import ScenarioError

ValueKind = Literal["money", "date", "duration", "timezone", "quantity", "enum", "text"]
Severity = Literal["low", "medium", "high"]
SHIPPED_CONFIGS = ("staffing", "procurement", "leasing")


class _Model(BaseModel):
    # allow_inf_nan=False: a limit of .nan or .inf would silently switch its checks off.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Band(_Model):
    """One answer band of a multiple-choice question (an interval or an enumeration option)."""

    label: str
    prior: float = Field(gt=0.0, le=1.0)
    low: float | None = None
    high: float | None = None
    option: str | None = None


class FieldSpec(_Model):
    """One required field: how to ask for it, how to extract it, how much it matters."""

    name: str
    label: str
    kind: ValueKind
    question: str
    weight: float = Field(default=1.0, gt=0.0, le=1.0)
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    unit: str | None = None
    keywords: tuple[str, ...] = ()
    options: dict[str, tuple[str, ...]] = Field(default_factory=lambda: {})
    patterns: dict[str, str] = Field(default_factory=lambda: {})
    bands: tuple[Band, ...] = ()
    risk: float = Field(default=0.0, ge=0.0, le=1.0)
    response_rate: float = Field(default=0.9, gt=0.0, le=1.0)
    affects_offer: bool = False

    @model_validator(mode="after")
    def _check(self) -> FieldSpec:
        if self.bands and not 3 <= len(self.bands) <= 5:
            raise ValueError(f"bands: expected 3 to 5 bands, got {len(self.bands)}")
        if self.kind == "enum" and not self.options:
            raise ValueError("options: an enum field needs at least one option lexicon")
        for key, pattern in self.patterns.items():
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"patterns.{key}: invalid regular expression ({error})") from None
        return self


class BoundaryTerm(_Model):
    """A numeric band (or allowed set) the delegate may move within without approval."""

    name: str
    kind: Literal["money", "quantity", "duration", "date", "enum"]
    label: str
    field: str | None = None
    unit: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    allowed: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    approach_margin: float = Field(default=0.05, ge=0.0, le=0.5)

    @model_validator(mode="after")
    def _check(self) -> BoundaryTerm:
        if self.minimum is not None and self.maximum is not None and self.minimum > self.maximum:
            raise ValueError(f"minimum {self.minimum} is above maximum {self.maximum}")
        if self.kind == "enum" and not self.allowed:
            raise ValueError("allowed: an enum boundary needs the allowed values")
        return self


class Prohibition(_Model):
    """A named forbidden topic the delegate may never raise or offer."""

    topic: str
    phrases: tuple[str, ...]
    severity: Severity = "medium"


class Boundary(_Model):
    """The authorization boundary: numeric bands per term plus prohibitions."""

    terms: tuple[BoundaryTerm, ...]
    prohibited_topics: tuple[Prohibition, ...] = ()
    forbid_binding_language: bool = True
    forbid_pii_disclosure: bool = True
    escalate_on_approach: bool = False

    def term(self, name: str) -> BoundaryTerm:
        """The term called name (KeyError if absent)."""
        for term in self.terms:
            if term.name == name:
                return term
        raise KeyError(name)


class Thresholds(_Model):
    """Gates and limits (seed defaults: τ_gate 0.7, τ_complete 0.85, τ_classify 0.7, K 2–3)."""

    gate: float = Field(default=0.7, ge=0.0, le=1.0)
    complete: float = Field(default=0.85, ge=0.0, le=1.0)
    classify: float = Field(default=0.7, ge=0.0, le=1.0)
    stall_rounds: int = Field(default=2, ge=1)
    max_rounds: int = Field(default=30, ge=4)
    risk_budget: float = Field(default=0.5, ge=0.0, le=1.0)
    high_confidence: float = Field(default=0.9, ge=0.0, le=1.0)
    adversarial_tolerance: int = Field(default=1, ge=0)
    screen_batch: int = Field(default=2, ge=1, le=3)
    conflict_limit: int = Field(default=2, ge=1)
    token_budget: int = Field(default=400, ge=50)


class Negotiation(_Model):
    """Which boundary term is bargained over and from which side."""

    term: str
    principal_pays: bool = True
    opening_low: float = Field(default=0.5, ge=0.0, le=1.0)
    opening_high: float = Field(default=1.0, ge=0.0, le=1.0)
    term_when: dict[str, str] = Field(default_factory=lambda: {})
    """Alternative terms chosen by a revealed value, e.g. {"contract_type=contract": "hourly_rate"}."""


class DomainConfig(_Model):
    """A complete GAIA domain: what to learn, how to ask, what the delegate may and may not do."""

    name: str
    description: str
    subject: str
    principal_role: str
    counterparty_role: str
    thresholds: Thresholds = Thresholds()
    fields: tuple[FieldSpec, ...]
    boundary: Boundary
    negotiation: Negotiation
    non_binding_phrases: tuple[str, ...]
    leading_words: tuple[str, ...] = ()
    templates: dict[str, str] = Field(default_factory=lambda: {})

    @model_validator(mode="after")
    def _check(self) -> DomainConfig:
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"fields: duplicate field names in {names}")
        terms = {t.name for t in self.boundary.terms}
        if self.negotiation.term not in terms:
            raise ValueError(f"negotiation.term: {self.negotiation.term!r} is not one of {sorted(terms)}")
        for term in self.boundary.terms:
            if term.field is not None and term.field not in names:
                raise ValueError(f"boundary.terms.{term.name}.field: unknown field {term.field!r}")
        for condition, term_name in self.negotiation.term_when.items():
            if term_name not in terms or "=" not in condition:
                raise ValueError(f"negotiation.term_when.{condition}: expected 'field=value': known term")
        if self.thresholds.gate > self.thresholds.complete:
            raise ValueError("thresholds: gate must not exceed complete")
        for phrase in self.non_binding_phrases:
            # One word ("maybe", "indicative") anywhere would unbind any sentence that contains it.
            if len(phrase.split()) < 2:
                raise ValueError(
                    f"non_binding_phrases: {phrase!r} is too short; give a phrase of at least two words "
                    "that marks a whole message as non-binding (e.g. 'subject to approval')"
                )
        return self

    def field(self, name: str) -> FieldSpec:
        """The field called name (KeyError if absent)."""
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @property
    def field_names(self) -> tuple[str, ...]:
        """Required field names in declaration order."""
        return tuple(f.name for f in self.fields)

    def with_thresholds(self, **changes: Any) -> DomainConfig:
        """A copy with some thresholds replaced (used by ablations)."""
        return self.model_copy(update={"thresholds": self.thresholds.model_copy(update=changes)})


@cache
def _data_text(name: str) -> str:
    return resources.files("parley.governance").joinpath("data", name).read_text(encoding="utf-8")


def load_yaml_data(name: str) -> Any:
    """Parse one YAML file shipped under parley/governance/data (a fresh copy each call)."""
    return copy.deepcopy(_parsed(name))


@cache
def _parsed(name: str) -> Any:
    return yaml.safe_load(_data_text(name))


def _format_location(error: Any) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(root)"


def parse_config(raw: Any, source: str) -> DomainConfig:
    """Validate a parsed YAML document as a DomainConfig.

    Raises:
        ScenarioError: naming source, the first bad field path, and what was expected.
    """
    if not isinstance(raw, dict):
        raise ScenarioError(f"expected a mapping at the top level, got {type(raw).__name__}", source=source)
    try:
        return DomainConfig.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        got = first.get("input")
        detail = f"{first['msg']} (got {got!r})" if not isinstance(got, dict | list) else first["msg"]
        raise ScenarioError(detail, source=source, field=_format_location(first)) from None


def load_config(name_or_path: str | Path) -> DomainConfig:
    """Load a shipped config by name (staffing, procurement, leasing) or a YAML file by path.

    Raises:
        ScenarioError: if the file is missing, is not YAML, or fails validation.
    """
    text_name = str(name_or_path)
    if text_name in SHIPPED_CONFIGS:
        return parse_config(load_yaml_data(f"{text_name}.yaml"), f"{text_name}.yaml")
    path = Path(name_or_path)
    if not path.is_file():
        raise ScenarioError(
            f"no such config; expected a file or one of {', '.join(SHIPPED_CONFIGS)}", source=text_name
        )
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise ScenarioError(f"not UTF-8 text (byte {error.start})", source=str(path)) from None
    except yaml.YAMLError as error:
        raise ScenarioError(f"not valid YAML ({' '.join(str(error).split())})", source=str(path)) from None
    return parse_config(raw, str(path))

"""GAIA domain configuration: required fields, thresholds, extractors, boundaries and lexicons.

Configs are YAML files validated by pydantic at load time; every error names the file and field path.
"""

from __future__ import annotations

import copy
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

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


TermKind = Literal["money", "quantity", "duration", "percent", "date", "enum"]


class TermSpec(_Model):
    """A term the counterparty may state, for the term reader (`parley.governance.terms`).

    Required fields and boundary terms are read without one; a spec with the name of either adds
    reader-only keywords and options to it (kind left out). Any other name declares a new term
    (a signing bonus, a late-delivery penalty, free months) that is read and reported but is not a
    required field: it does not count towards the TCI.
    """

    name: str
    label: str = ""
    kind: TermKind | None = None
    unit: str | None = None
    """Canonical unit: a money rate ("year", "month", "hour", "unit"; none for a lump sum), a count
    ("units", "sqft", "spaces", "days/week"), a duration ("weeks", "months", "days", "workdays")."""
    keywords: tuple[str, ...] = ()
    options: dict[str, tuple[str, ...]] = Field(default_factory=lambda: {})
    patterns: dict[str, str] = Field(default_factory=lambda: {})
    """Option → regular expression; "{1}" in the option is replaced by the first group ("net{1}")."""
    typical: tuple[float, float] | None = None
    """Usual magnitude (low, high) in the canonical unit: attributes figures written without a unit."""
    implies: dict[str, str] = Field(default_factory=lambda: {})
    """Other terms' values a stated value implies (a TI allowance implies improvements=allowance)."""
    restate: dict[str, str] = Field(default_factory=lambda: {})
    """For a lump sum: {as: TERM, per: TERM} restates it as a multiple of another term stated with it
    (a $10,500 deposit on a $3,500 monthly rent is a deposit of 3 months)."""

    @model_validator(mode="after")
    def _check(self) -> TermSpec:
        for key, pattern in self.patterns.items():
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"patterns.{key}: invalid regular expression ({error})") from None
        if self.restate and set(self.restate) != {"as", "per"}:
            raise ValueError(f"restate: expected the keys 'as' and 'per', got {sorted(self.restate)}")
        if self.typical is not None and self.typical[0] > self.typical[1]:
            raise ValueError(f"typical: low {self.typical[0]} is above high {self.typical[1]}")
        return self


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


class TermPreference(_Model):
    """How much the principal cares about one term, and which way (`parley.governance.strategy`)."""

    term: str
    """A boundary term, a required field or a term of `terms`."""
    weight: float = Field(default=1.0, gt=0.0)
    """Relative importance; weights are normalised over the terms in play."""
    better: Literal["lower", "higher"] | None = None
    """For a numeric term: which way is better for the principal (None for an enumerated term)."""
    options: tuple[str, ...] = ()
    """For an enumerated term: its options, the principal's best first."""
    range: tuple[float, float] | None = None
    """For a numeric term without a band: the values the delegate may offer (low, high)."""
    step: float | None = Field(default=None, gt=0.0)
    """Spacing of the values the delegate offers (default: a round step for the band)."""
    phrase: str = ""
    """How an offer states the term, e.g. "{value} remote days a week" ({value}, {amount}, {label})."""

    @model_validator(mode="after")
    def _check(self) -> TermPreference:
        if (self.better is None) == (not self.options):
            raise ValueError("give either better (a numeric term) or options (an enumerated term)")
        if self.range is not None and self.range[0] >= self.range[1]:
            raise ValueError(f"range: low {self.range[0]} is not below high {self.range[1]}")
        return self


class Negotiation(_Model):
    """Which boundary term is bargained over, from which side, and how the delegate concedes."""

    term: str
    principal_pays: bool = True
    opening_low: float = Field(default=0.5, ge=0.0, le=1.0)
    opening_high: float = Field(default=1.0, ge=0.0, le=1.0)
    term_when: dict[str, str] = Field(default_factory=lambda: {})
    """Alternative terms chosen by a revealed value, e.g. {"contract_type=contract": "hourly_rate"}."""
    strategy: Literal["principal", "legacy"] = "principal"
    """"principal": offers from the principal's preferences (`parley.governance.strategy`);
    "legacy": the opening range of opening_low..opening_high of the band (kept as a baseline)."""
    preferences: tuple[TermPreference, ...] = ()
    """The principal's preferences across terms (default: the negotiated term alone)."""
    concession_rounds: int = Field(default=8, ge=1)
    """Offers after which the concession schedule reaches the principal's limits."""
    concession_exponent: float = Field(default=0.5, gt=0.0)
    """e of the time-based schedule: below 1 concedes late (Boulware), above 1 early."""


class Verification(_Model):
    """Which fields are claims to check with a verifier (GAIA §3.3.6); off while verifier is None."""

    claims: tuple[str, ...] = ()
    """Field names whose values are checked (e.g. certification, references)."""
    verifier: str | None = None
    """`registry:PATH`, `http:URL` or `NAME[:ARG]` of the `parley.verifiers` entry-point group."""
    timeout: float = Field(default=5.0, gt=0.0, le=120.0)
    """Seconds a check may take; a slower one counts as unverified."""


class MemorySettings(_Model):
    """How the principal's earlier decisions are offered in escalations (`parley.governance.memory`)."""

    recall: bool = True
    """Offer remembered decisions as suggestions in escalations (they are never applied)."""
    half_life_days: float | None = Field(default=90.0, gt=0.0)
    """A decision's weight halves every this many days (None: no decay by time)."""
    half_life_sessions: float | None = Field(default=None, gt=0.0)
    """... and every this many later sessions the principal decided in (None: no decay by sessions)."""
    stale_below: float = Field(default=0.25, ge=0.0, le=1.0)
    """Decisions weighing less are stale: shown by `memory show`, never suggested."""
    window: int = Field(default=3, ge=1, le=20)
    """How many recent decisions a suggestion rests on."""


class DomainConfig(_Model):
    """A complete GAIA domain: what to learn, how to ask, what the delegate may and may not do."""

    name: Annotated[str, Field(min_length=1)]
    description: str
    subject: Annotated[str, Field(min_length=1)]
    principal_role: Annotated[str, Field(pattern=r"\w")]
    counterparty_role: Annotated[str, Field(pattern=r"\w")]
    thresholds: Thresholds = Thresholds()
    fields: tuple[FieldSpec, ...]
    boundary: Boundary
    negotiation: Negotiation
    non_binding_phrases: tuple[str, ...]
    leading_words: tuple[str, ...] = ()
    templates: dict[str, str] = Field(default_factory=lambda: {})
    terms: tuple[TermSpec, ...] = ()
    """Terms read from counterparty messages beyond the fields and boundary terms (see `TermSpec`)."""
    verification: Verification = Verification()
    memory: MemorySettings = MemorySettings()

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
        self._check_terms(set(names), terms)
        for claim in self.verification.claims:
            if claim not in names:
                raise ValueError(f"verification.claims: unknown field {claim!r}")
        known = set(names) | terms | {t.name for t in self.terms}
        bands = {t.name: (t.minimum, t.maximum) for t in self.boundary.terms}
        for preference in self.negotiation.preferences:
            if preference.term not in known:
                raise ValueError(f"negotiation.preferences.{preference.term}: unknown term")
            banded = None not in bands.get(preference.term, (None, None))
            if preference.better is not None and preference.range is None and not banded:
                raise ValueError(
                    f"negotiation.preferences.{preference.term}.range: a term without a band needs one"
                )
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

    def _check_terms(self, fields: set[str], terms: set[str]) -> None:
        seen: set[str] = set()
        for spec in self.terms:
            if spec.name in seen:
                raise ValueError(f"terms: duplicate term {spec.name!r}")
            seen.add(spec.name)
            if spec.kind is None and spec.name not in fields | terms:
                raise ValueError(f"terms.{spec.name}.kind: a new term needs a kind")
            known = fields | terms | {t.name for t in self.terms}
            for target in (*spec.implies, *spec.restate.values()):
                if target not in known:
                    raise ValueError(f"terms.{spec.name}: unknown term {target!r}")

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

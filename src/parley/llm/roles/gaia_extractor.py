"""GAIA model-based field extraction (twin: the option-lexicon extractor).

The model reports the fields a counterparty message states; code keeps only what it can vouch for:
known fields, evidence quoted from the message, and values that map onto the field's options or
parse with the pattern extractor's own value parsers (so both extractors produce comparable values
and the dual rule can confirm agreement). Combine it with the pattern extractor in a `DualExtractor`
(`llm_extractor`): accept when both agree or one is highly confident.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from parley.governance.config import DomainConfig, FieldSpec
from parley.governance.extraction import (
    DualExtractor,
    ExtractionContext,
    Extractor,
    FieldReading,
    FieldValue,
    LexiconExtractor,
    PatternExtractor,
)
from parley.governance.text import find_phrases
from parley.llm.context import LLMSession
from parley.llm.role import Role, SchemaOverrides
from parley.llm.roles.gaia_common import EXTRACTOR_ROLE, fields_text, labels_text, match_field, quoted
from parley.llm.structured import Name, Note, strict_schema

MAX_CONFIDENCE = 0.95
"""Cap on a model reading's confidence: a model alone never counts as certain."""
MAX_VALUE = 60
"""Most characters of a value as stated ("$95K a year", "two weeks")."""
MAX_FINDINGS = 5
"""Most findings in one reply (a message rarely states more; the pattern extractor reads it too)."""
_SPLIT = re.compile(r"\s*(?:,|;|/|\band\b)\s*")


class FieldFinding(BaseModel):
    """One fact the model found: the field, its value as stated, a confidence and a quote."""

    model_config = ConfigDict(extra="ignore")

    field: Name
    value: Annotated[str, Field(max_length=MAX_VALUE)] | float
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: Note = ""


class ExtractionReply(BaseModel):
    """The facts one message states (an empty list: it states none; the list itself is required)."""

    model_config = ConfigDict(extra="ignore")

    findings: list[FieldFinding] = Field(max_length=MAX_FINDINGS)


def _key(text: str) -> str:
    return text.strip().lower().replace(" ", "_").replace("-", "_")


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w$%.:/-]+", " ", text.lower()).split())


def option_value(spec: FieldSpec, raw: str) -> str | None:
    """The option raw names on an enumerated field: its name, a band label or a lexicon phrase."""
    key = _key(raw)
    for option in spec.options:
        if key == _key(option):
            return option
    for band in spec.bands:
        if key == _key(band.label):
            return band.option or band.label
    found = [
        (hits[0][0], option)
        for option, phrases in spec.options.items()
        if (hits := find_phrases(raw, phrases))
    ]
    return min(found)[1] if found else None


def _same_number(first: FieldValue, second: FieldValue) -> bool:
    return str(first).split("/")[0] == str(second).split("/")[0]


class ValueNormaliser:
    """Maps a model's stated value onto the canonical values the rule extractors produce."""

    def __init__(self, config: DomainConfig) -> None:
        self._pattern = PatternExtractor(config)

    def value(self, spec: FieldSpec, raw: str | float, evidence: str) -> FieldValue | None:
        """The canonical value, or None when it fits no option or parser of spec."""
        text = f"{raw:g}" if isinstance(raw, float) else str(raw).strip()
        if spec.kind == "enum":
            return option_value(spec, text)
        if spec.kind == "text":
            options = {o for part in _SPLIT.split(text) if part and (o := option_value(spec, part))}
            return ",".join(sorted(options)) or None
        if spec.kind == "money" and "$" not in text:
            text = f"${text}"
        parsed = self._parse(spec, text)
        if parsed is None:
            return None
        # Prefer the value as the pattern extractor reads the quote (units included), when it agrees.
        quoted_value = self._parse(spec, evidence)
        return quoted_value if quoted_value is not None and _same_number(quoted_value, parsed) else parsed

    def _parse(self, spec: FieldSpec, text: str) -> FieldValue | None:
        context = ExtractionContext(asked=(spec.name,))
        readings = [r for r in self._pattern.extract(text, context) if r.field == spec.name]
        return readings[0].value if readings else None


def extraction_schema(config: DomainConfig) -> SchemaOverrides:
    """Per call: a finding names one of the domain's fields."""
    finding = strict_schema(FieldFinding, {"field": {"enum": list(config.field_names)}})
    most = min(len(config.field_names), MAX_FINDINGS)
    return {"findings": {"type": "array", "items": finding, "maxItems": most}}


class LLMExtractor:
    """Field values read by a model (implements `Extractor`; source "llm").

    Args:
        llm: The session's LLM side (client for role "extractor").
        config: Domain config (fields, options, lexicons).
        twin: Extractor used on fallback (default: the option-lexicon extractor).
    """

    name = "llm"

    def __init__(self, llm: LLMSession, config: DomainConfig, twin: Extractor | None = None) -> None:
        self._role = Role(EXTRACTOR_ROLE, ExtractionReply, "gaia_extractor", llm, party="delegate")
        self._llm = llm
        self._config = config
        self._normaliser = ValueNormaliser(config)
        self.twin: Extractor = twin or LexiconExtractor(config)
        self._seen = 0

    def covers(self, spec: FieldSpec) -> bool:
        return True

    def extract(self, message: str, context: ExtractionContext) -> list[FieldReading]:
        """Readings the model found and code could vouch for (the twin's on fallback)."""
        self._seen += 1
        variables = {
            "subject": self._config.subject,
            "counterparty_role": self._config.counterparty_role,
            "fields": fields_text(self._config),
            "asked": labels_text(self._config, context.asked),
            "message": quoted(message),
        }
        outcome = self._role.call(variables, round=self._seen, overrides=extraction_schema(self._config))
        if outcome.value is None:
            return self.twin.extract(message, context)
        return self.readings(outcome.value, message)

    def readings(self, reply: ExtractionReply, message: str) -> list[FieldReading]:
        """The reply's findings that name a known field, quote the message and normalise."""
        kept: list[FieldReading] = []
        dropped: list[dict[str, str]] = []
        for finding in reply.findings:
            reading, reason = self._reading(finding, message)
            if reading is None:
                dropped.append({"field": finding.field, "value": str(finding.value), "reason": reason})
            else:
                kept.append(reading)
        if dropped:
            self._llm.note(
                "llm_guard",
                {"role": EXTRACTOR_ROLE, "guard": "readings_dropped", "dropped": dropped},
                round=self._seen,
                party="delegate",
                audience="delegate",
            )
        return kept

    def _reading(self, finding: FieldFinding, message: str) -> tuple[FieldReading | None, str]:
        spec = match_field(self._config, finding.field)
        if spec is None:
            return None, "unknown field"
        evidence = finding.evidence.strip()
        if not evidence or _normal(evidence) not in _normal(message):
            return None, "evidence is not a quote of the message"
        value = self._normaliser.value(spec, finding.value, evidence)
        if value is None:
            return None, f"value does not fit the {spec.kind} field"
        confidence = round(min(finding.confidence, MAX_CONFIDENCE), 4)
        return FieldReading(spec.name, value, confidence, self.name, evidence), ""


def llm_extractor(llm: LLMSession, config: DomainConfig) -> DualExtractor:
    """The pattern extractor and the model, combined by the dual rule (the model's twin: lexicons)."""
    return DualExtractor(
        [PatternExtractor(config), LLMExtractor(llm, config)], config.thresholds.high_confidence
    )

"""No template states the principal's limits: every template the delegate can send (data/templates.yaml,
rendered by drafting.TemplateDrafter), filled with the principal's own limits as its figures, passes the
preflight's disclosure check, for every domain and negotiated term."""

from __future__ import annotations

import string
from collections.abc import Iterator
from typing import Any

import pytest

from parley.governance.config import SHIPPED_CONFIGS, BoundaryTerm, DomainConfig, load_config, load_yaml_data
from parley.governance.disclosure import find_disclosures
from parley.governance.drafting import Intent, TemplateDrafter, format_amount, format_range
from parley.governance.offers import package_text, recap_text, terms_text
from parley.governance.preflight import preflight
from parley.governance.strategy import term_scales


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _at_limits(config: DomainConfig, term: BoundaryTerm) -> dict[str, Any]:
    """Every other preference term at the end of what the principal may offer (its limit where it has one)."""
    scales = term_scales(config, term.name, {})
    package: dict[str, Any] = {}
    for name, scale in scales.items():
        if name == term.name:
            continue
        if scale.better is None:
            package[name] = scale.options[-1] if scale.options else scale.order[0]
        else:
            worst = scale.high if scale.better == "lower" else scale.low
            package[name] = float(worst if worst is not None else 1.0)
    return package


def _fills(config: DomainConfig, term: BoundaryTerm) -> Iterator[tuple[str, dict[str, Any]]]:
    """Values for every placeholder, at each of the term's private limits (the worst case)."""
    low, high = term.minimum or 0.0, term.maximum or 0.0
    field = config.fields[0]
    others = _at_limits(config, term)
    for label, limit in (("maximum", high), ("minimum", low)):
        if not limit:
            continue
        yield (
            label,
            {
                "range": format_range(low, high, term.unit),
                "amount": format_amount(limit, term.unit),
                "terms": terms_text(config, {term.name: limit, **others}),
                "recap": recap_text(config, {}, {"term": term.name, "low": low, "high": high}),
                "extras": " " + package_text(config, others),
                "letter": "A",
                "label": field.label,
                "question": field.question,
                "questions": f"(1) {field.question} (2) {config.fields[1].question}",
                "old": "remote",
                "new": "hybrid",
                "text": field.question,
            },
        )


def _cases() -> Iterator[Any]:
    for name in SHIPPED_CONFIGS:
        config = load_config(name)
        templates = {**load_yaml_data("templates.yaml"), **config.templates}
        money = [t for t in config.boundary.terms if t.kind == "money"]
        for term in money:
            for bound, values in _fills(config, term):
                for kind in templates:
                    yield pytest.param(name, kind, values, id=f"{name}-{term.name}-{bound}-{kind}")


@pytest.mark.parametrize(("config_name", "kind", "values"), list(_cases()))
def test_no_template_discloses_a_limit(config_name: str, kind: str, values: dict[str, Any]) -> None:
    config = load_config(config_name)
    text = TemplateDrafter(config).render(Intent(kind, values))
    assert not find_disclosures(text, config), text
    assert preflight(text, config).disclosures == (), text


def test_every_template_is_exercised() -> None:
    """Every placeholder of every shipped template is filled by the cases above."""
    known = set(next(_fills(load_config("staffing"), load_config("staffing").boundary.terms[0]))[1])
    known |= {"subject", "principal_role"}
    templates: dict[str, str] = load_yaml_data("templates.yaml")
    missing = {kind: _placeholders(text) - known for kind, text in templates.items()}
    assert not {kind: names for kind, names in missing.items() if names}


def test_the_check_would_catch_a_template_that_names_the_limit_as_a_limit() -> None:
    """The negative control: a template wording the maximum as our ceiling is flagged."""
    config = load_config("staffing")
    drafter = TemplateDrafter(
        config.model_copy(update={"templates": {"proposal": "Our ceiling is {amount}."}})
    )
    text = drafter.render(Intent("proposal", {"amount": "$100K"}))
    assert find_disclosures(text, config)

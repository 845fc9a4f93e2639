"""Domain configs: shipped ones load completely; bad files fail with file + field path."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from parley.errors import ScenarioError
from parley.governance.config import SHIPPED_CONFIGS, DomainConfig, load_config, load_yaml_data


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_shipped_configs_are_complete(name: str) -> None:
    config = load_config(name)
    assert config.thresholds.gate == 0.7 and config.thresholds.complete == 0.85
    assert config.thresholds.classify == 0.7
    assert all(3 <= len(spec.bands) <= 5 for spec in config.fields)
    assert config.boundary.terms and config.boundary.prohibited_topics and config.non_binding_phrases
    kinds = {spec.kind for spec in config.fields}
    assert "money" in kinds and "enum" in kinds


def test_staffing_has_the_eleven_facts_of_the_walkthrough(staffing: DomainConfig) -> None:
    assert len(staffing.fields) == 11
    annual = staffing.boundary.term("annual_salary")
    assert (annual.minimum, annual.maximum) == (80000, 100000)
    assert {p.topic for p in staffing.boundary.prohibited_topics} >= {"relocation", "client list"}


def test_procurement_covers_the_seed_fields(procurement: DomainConfig) -> None:
    assert set(procurement.field_names) == {
        "specification",
        "volume",
        "lead_time",
        "certification",
        "payment_terms",
        "warranty",
        "price",
    }
    assert procurement.boundary.term("payment_terms").allowed == ("net60", "net90")


def _write(tmp_path: Path, raw: object) -> Path:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


def test_bad_field_names_file_and_path(tmp_path: Path) -> None:
    raw = load_yaml_data("staffing.yaml")
    raw["thresholds"]["gate"] = 1.5
    with pytest.raises(ScenarioError) as error:
        load_config(_write(tmp_path, raw))
    message = str(error.value)
    assert "bad.yaml" in message and "thresholds.gate" in message and "1.5" in message


def test_bands_outside_three_to_five_are_rejected(tmp_path: Path) -> None:
    raw = load_yaml_data("staffing.yaml")
    raw["fields"][0]["bands"] = raw["fields"][0]["bands"][:2]
    with pytest.raises(ScenarioError, match=r"fields\.0.*expected 3 to 5 bands, got 2"):
        load_config(_write(tmp_path, raw))


def test_unknown_negotiation_term_is_named(tmp_path: Path) -> None:
    raw = load_yaml_data("leasing.yaml")
    raw["negotiation"]["term"] = "price"
    with pytest.raises(ScenarioError, match=r"negotiation\.term: 'price' is not one of"):
        load_config(_write(tmp_path, raw))


def test_missing_file_and_not_yaml(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such config"):
        load_config(tmp_path / "absent.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("fields: [unclosed", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        load_config(broken)

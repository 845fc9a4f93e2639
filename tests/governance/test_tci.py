"""TCI (Algorithm 3): revealed/required, weighted gating, soft values, ledger, monotonicity."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parley.governance.config import DomainConfig, load_config
from parley.governance.extraction import FieldReading
from parley.governance.tci import TaskCompletenessIndex

STAFFING = load_config("staffing")
PROCUREMENT = load_config("procurement")


def _reading(field: str, value: str, confidence: float) -> FieldReading:
    return FieldReading(field, value, confidence, "test", "")


def test_simple_and_weighted_index(procurement: DomainConfig) -> None:
    tci = TaskCompletenessIndex(procurement)
    entry = tci.update(1, [_reading("certification", "iso9001", 0.95), _reading("warranty", "12", 0.95)])
    assert entry.tci == 2 / 7
    assert entry.tci_weighted == (1.0 + 0.6) / sum(f.weight for f in procurement.fields)
    assert "certification" not in entry.missing and len(entry.missing) == 5


def test_soft_values_do_not_count_until_confirmed(staffing: DomainConfig) -> None:
    tci = TaskCompletenessIndex(staffing)
    entry = tci.update(1, [_reading("seniority", "senior", 0.5)])
    assert entry.tci == 0.0 and entry.soft == {"seniority": "senior"}
    entry = tci.update(2, [_reading("seniority", "senior", 0.9)])
    assert entry.revealed == {"seniority": "senior"} and "seniority" not in tci.soft


def test_contradiction_is_recorded_without_forgetting(staffing: DomainConfig) -> None:
    tci = TaskCompletenessIndex(staffing)
    tci.update(1, [_reading("location", "hybrid", 0.9)])
    entry = tci.update(2, [_reading("location", "remote", 0.9)])
    assert entry.conflicts == {"location": ("hybrid", "remote")} and entry.tci == 1 / 11
    tci.resolve("location", "remote")
    assert tci.confirmed["location"] == "remote" and not tci.disputed


readings = st.lists(
    st.lists(
        st.builds(
            _reading,
            st.sampled_from(STAFFING.field_names),
            st.sampled_from(["a", "b", "c"]),
            st.floats(0.0, 1.0),
        ),
        max_size=4,
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(readings)
def test_tci_never_decreases_and_round_trips(turns: list[list[FieldReading]]) -> None:
    tci = TaskCompletenessIndex(STAFFING)
    previous = (0.0, 0.0)
    for turn, batch in enumerate(turns, start=1):
        entry = tci.update(turn, batch)
        assert entry.tci >= previous[0] and entry.tci_weighted >= previous[1]
        assert set(entry.missing) | set(tci.confirmed) == set(STAFFING.field_names)
        previous = (entry.tci, entry.tci_weighted)
    restored = TaskCompletenessIndex.from_json(STAFFING, tci.to_json())
    assert restored.to_json() == tci.to_json()

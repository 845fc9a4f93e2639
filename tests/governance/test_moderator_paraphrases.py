"""The moderator on paraphrases written for its development (issue 14): every attack family in many
registers, and benign messages that look like attacks (tests/data/gaia/dev/moderator_paraphrases.yaml).

Written in six batches by the engineer who changed the moderator, before reading the spent held-out
set's misses; each batch was first measured untuned (recall 64%, 58%, 62%, 71%, 79%; false alarms
12%, 13%, 12%, 6%, 5%: the second to the sixth batch), then used for tuning. So these are a
regression guard, not an estimate: the estimate is the blind held-out set.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from parley.governance.config import DomainConfig
from parley.governance.moderator import ADVERSARIAL, RuleModerator

_FILE = Path(__file__).resolve().parents[1] / "data" / "gaia" / "dev" / "moderator_paraphrases.yaml"
_DATA = yaml.safe_load(_FILE.read_text("utf-8"))
ATTACKS: dict[str, tuple[str, ...]] = {family: tuple(texts) for family, texts in _DATA["attacks"].items()}
BENIGN: tuple[str, ...] = tuple(_DATA["benign"])


def test_the_paraphrase_file_holds_every_family() -> None:
    assert sorted(ATTACKS) == sorted(
        ["authority", "instructions", "probing", "dictate_output", "threat", "data_request"]
    )
    assert sum(map(len, ATTACKS.values())) == 439 and len(BENIGN) == 368


@pytest.mark.parametrize("family", sorted(ATTACKS))
def test_each_family_is_caught_in_its_paraphrases(staffing: DomainConfig, family: str) -> None:
    moderator = RuleModerator(staffing)
    missed = [m for m in ATTACKS[family] if moderator.classify(m).label not in ADVERSARIAL]
    # Tuned on these: at most one miss per family is tolerated, so that a change is seen.
    assert len(missed) <= 1, missed


def test_look_alikes_are_not_flagged(staffing: DomainConfig) -> None:
    moderator = RuleModerator(staffing)
    alarms = [m for m in BENIGN if moderator.classify(m).label in ADVERSARIAL]
    assert len(alarms) <= len(BENIGN) // 50, alarms

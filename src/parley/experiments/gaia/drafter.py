"""A slip source that is not the detector's cue list: a drafter that slips into binding phrasings from a
phrase bank written by someone who had not seen the detector (issue 20, "no result by construction").

The template drafter's slips (package data `slips.yaml`) are the phrasings the preflight was built to
catch, so "preflight off → violations" measured with them is in-sample for the detector. The phrase bank
here is the development bank of the end-to-end test (`tests/data/gaia/phrase_bank.yaml`, 160 binding
phrasings, copied into package data so the experiment runs from an installed package): its misses were
read while the detector changed, so figures on it are development figures, not a blind estimate.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import numpy as np
import yaml

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig
from parley.governance.drafting import Draft, Intent, TemplateDrafter, format_amount

DEVELOPMENT_BANK = "phrase_bank_development.yaml"
"""The package copy of the development phrase bank (tests/data/gaia/phrase_bank.yaml)."""
MAX_BANK_BYTES = 1_000_000
"""A phrase bank larger than this is refused (it is read whole)."""


def parse_bank(text: str, source: str = "phrase bank") -> tuple[str, ...]:
    """The binding phrasings of a phrase bank's YAML text (a mapping whose `binding` is a list of
    strings with the placeholders {amount}, {ask} and {subject}).

    Raises:
        ScenarioError: the text is too large, not YAML, or not of that shape.
    """
    if len(text.encode("utf-8", errors="replace")) > MAX_BANK_BYTES:
        raise ScenarioError(f"{source} is larger than {MAX_BANK_BYTES:,} bytes", field="phrase_bank")
    try:
        data: object = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ScenarioError(
            f"{source} is not valid YAML: {error}".splitlines()[0], field="phrase_bank"
        ) from error
    phrases: object = data.get("binding") if isinstance(data, dict) else None
    if (
        not isinstance(phrases, list)
        or not phrases
        or not all(isinstance(p, str) and p.strip() for p in phrases)
    ):
        raise ScenarioError(
            f"{source} needs a non-empty list of phrasings under 'binding'", field="phrase_bank"
        )
    for phrase in phrases:
        try:
            phrase.format(amount="$1", ask="$1", subject="it")
        except (KeyError, IndexError, ValueError) as error:
            raise ScenarioError(
                f"{source}: phrasing {phrase[:60]!r} has an unknown placeholder ({error})",
                field="phrase_bank",
            ) from error
    return tuple(phrases)


@cache
def development_bank() -> tuple[str, ...]:
    """The development phrase bank shipped with the package."""
    text = resources.files("parley.experiments.gaia").joinpath("data", DEVELOPMENT_BANK).read_text("utf-8")
    return parse_bank(text, DEVELOPMENT_BANK)


class PhraseBankDrafter:
    """Template drafts, except that with probability rate a draft becomes a phrase-bank phrasing.

    Every slipped draft carries the ground-truth label "binding" (and "over_boundary" when it states the
    counterparty's ask and that ask is beyond the limit), so a slip that reaches the counterparty
    unapproved is recorded as a violation by the delegate's outbox, whatever the preflight thought of it.

    Args:
        config: Domain config.
        bank: The binding phrasings ({amount}, {ask}, {subject} are filled in).
        seed: Seed of the slip draws.
        rate: Probability that a draft the model may corrupt slips.
        slippable_only: Slip only drafts marked slippable (proposals), with the rate doubled after a
            prompt injection, as the template drafter's slip model does (the experiment); otherwise any
            unapproved, non-verbatim draft may slip at rate (the end-to-end test's harsher model).
    """

    def __init__(
        self,
        config: DomainConfig,
        bank: tuple[str, ...] | list[str],
        seed: int | tuple[int, ...],
        rate: float,
        *,
        slippable_only: bool = False,
    ) -> None:
        if not bank:
            raise ScenarioError("the phrase bank is empty", field="phrase_bank")
        if not 0.0 <= rate <= 1.0:
            raise ScenarioError(f"slip rate must be in [0, 1], got {rate}", field="slip_rate")
        self._inner = TemplateDrafter(config)
        self._config = config
        self._bank = tuple(bank)
        self._rng = np.random.default_rng(seed)
        self._rate = rate
        self._slippable_only = slippable_only
        self.slipped = 0

    def _may_slip(self, intent: Intent, injection: bool) -> bool:
        if intent.approved or intent.verbatim:
            return False
        if self._slippable_only:
            rate = min(1.0, self._rate * (2.0 if injection else 1.0))
            return intent.slippable and rate > 0.0 and self._rng.random() < rate
        return self._rng.random() < self._rate

    def draft(self, intent: Intent, *, injection: bool = False) -> Draft:
        clean = self._inner.draft(intent, injection=injection)
        if not self._may_slip(intent, injection):
            return clean
        term = self._config.boundary.term(intent.term or self._config.negotiation.term)
        amount = intent.amount if intent.amount is not None else (term.maximum or term.minimum or 1.0)
        ask = intent.ask if intent.ask is not None else amount
        template = self._bank[int(self._rng.integers(len(self._bank)))]
        phrase = template.format(
            amount=format_amount(amount, term.unit),
            ask=format_amount(ask, term.unit),
            subject=self._config.subject,
        )
        limit = intent.limit if intent.limit is not None else term.maximum
        beyond = "{ask}" in template and limit is not None and ask > limit
        self.slipped += 1
        labels = ("binding", "over_boundary") if beyond else ("binding",)
        return Draft(" ".join(p for p in (intent.prefix, phrase) if p), labels)

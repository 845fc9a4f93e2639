"""Write a parley scenario as GeniusWeb JSON: a domain file and one linear-additive profile per party.

A utility already in GeniusWeb's form (weights in [0, 1] adding up to 1, values in [0, 1], no
constant) is written as it is, so importing the files gives it back bit for bit; any other
linear-additive utility is rescaled to it first (logged; same preferences, see
`additive.unit_form`). A number range whose every profile is exactly linear in it (checked by
scoring it as the importer will) becomes a number issue; any other issue a discrete one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from parley.domain.issues import Issue, Value
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.scenarios.importers.additive import UnitForm, file_stem, linear_of, unit_form
from parley.scenarios.importers.geniusweb_format import (
    PROFILE_KEY,
    IssueKind,
    bid_utility,
    number_utility,
    plain_number,
    range_options,
)
from parley.scenarios.model import Scenario

logger = logging.getLogger(__name__)


def export_geniusweb(scenario: Scenario, out_dir: Path) -> list[Path]:
    """Write the scenario as GeniusWeb JSON: a domain file and one profile per party.

    A utility already in GeniusWeb's form (weights in [0, 1] adding up to 1, values in [0, 1], no
    constant) is written as it is; any other linear-additive utility is rescaled to it (logged). A
    number range whose every profile is linear in it becomes a number issue; any other issue a
    discrete one of text values. The reservation value becomes a reservation bid: the bid
    recorded at import if it is still worth it, else an outcome worth exactly that, else the
    outcome closest to it (logged). Lost: discount factors (logged), protocol rules, roles,
    personas, briefs, signals, units; see docs/interop.md.

    Returns:
        The files written: the domain first, then the profiles in party order.

    Raises:
        ScenarioError: a utility that is not linear-additive (a table, an additive utility with a
            bonus on some deals: refused before anything is written), or a constant one.
    """
    out_dir = Path(out_dir)
    space = scenario.space
    # Every party checked before any is rescaled (and logged), so a refusal comes alone.
    linear = [linear_of(p.utility, p.name, scenario.source) for p in scenario.parties]
    forms = [
        unit_form(utility, space, p.name, weights_sum_to_one=True)
        for p, utility in zip(scenario.parties, linear, strict=True)
    ]
    kinds: dict[str, IssueKind] = {issue.name: _export_kind(issue, forms) for issue in space.issues}
    domain = {
        "name": scenario.name,
        "issuesValues": {i.name: _values_json(i, kinds[i.name]) for i in space.issues},
    }
    taken: set[str] = set()
    files = [out_dir / f"{file_stem(scenario.name, taken)}.json"]
    documents: list[dict[str, Any]] = [domain]
    for party, form in zip(scenario.parties, forms, strict=True):
        if party.utility.discount != 1.0:
            logger.warning(
                "party %r: GeniusWeb profiles have no discount factor; %r dropped",
                party.name,
                party.utility.discount,
            )
        files.append(out_dir / f"{file_stem(party.name, taken)}.json")
        documents.append(_profile_json(scenario, party.name, form, kinds, domain))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for file, document in zip(files, documents, strict=True):
            file.write_text(
                json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8"
            )
    except OSError as error:
        raise ScenarioError(
            f"cannot write the GeniusWeb files: {error.strerror or error}", source=str(out_dir)
        ) from None
    return files


def _exact_range(issue: Issue) -> tuple[Decimal, Decimal, Decimal] | None:
    """(low, high, step) when the options are exactly low, low+step, ..., high (numbers)."""
    values = issue.values
    if len(values) < 2 or not issue.is_numeric:
        return None
    exact = [Decimal(repr(v)) if isinstance(v, float) else Decimal(int(v)) for v in values]
    step = exact[1] - exact[0]
    if step <= 0:
        return None
    options = range_options([exact[0] + k * step for k in range(len(values))])
    if options != list(values) or [type(v) for v in options] != [type(v) for v in values]:
        return None
    return exact[0], exact[-1], step


def _number_fit(issue: Issue, scores: Sequence[float]) -> tuple[float, float] | None:
    """(lowUtility, highUtility) whose GeniusWeb utilities are exactly these scores, or None."""
    found = _exact_range(issue)
    if found is None:
        return None
    low, high, step = found
    low_u, high_u = Decimal(repr(float(scores[0]))), Decimal(repr(float(scores[-1])))
    xs = [low + k * step for k in range(len(scores))]
    if [number_utility(low, low_u, high, high_u, x) for x in xs] != list(scores):
        return None
    return float(scores[0]), float(scores[-1])


def _export_kind(issue: Issue, forms: Sequence[UnitForm]) -> IssueKind:
    if _exact_range(issue) is None:
        if issue.is_numeric or any(not isinstance(v, str) for v in issue.values):
            logger.warning("issue %r: written as a discrete issue, its values as text", issue.name)
        return "discrete"
    if all(_number_fit(issue, form.values[issue.name]) is not None for form in forms):
        return "number"
    logger.warning("issue %r: a profile is not linear in it, so it is written as text values", issue.name)
    return "discrete"


def _value_text(value: Value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _values_json(issue: Issue, kind: IssueKind) -> dict[str, Any]:
    if kind == "number":
        found = _exact_range(issue)
        assert found is not None  # (the kind says so)
        low, high, step = (plain_number(v) for v in found)
        return {"range": {"low": low, "high": high, "step": step}}
    return {"values": [_value_text(v) for v in issue.values]}


def _profile_json(
    scenario: Scenario, party: str, form: UnitForm, kinds: Mapping[str, IssueKind], domain: dict[str, Any]
) -> dict[str, Any]:
    space = scenario.space
    utilities: dict[str, Any] = {}
    for issue in space.issues:
        scores = form.values[issue.name]
        if kinds[issue.name] == "number":
            found = _exact_range(issue)
            fit = _number_fit(issue, scores)
            assert found is not None and fit is not None
            spec = {
                "lowValue": plain_number(found[0]),
                "lowUtility": fit[0],
                "highValue": plain_number(found[1]),
                "highUtility": fit[1],
            }
            utilities[issue.name] = {"NumberValueSetUtilities": spec}
        else:
            listed = {_value_text(v): float(s) for v, s in zip(issue.values, scores, strict=True)}
            utilities[issue.name] = {"DiscreteValueSetUtilities": {"valueUtilities": listed}}
    body: dict[str, Any] = {
        "issueUtilities": utilities,
        "issueWeights": {name: float(w) for name, w in form.weights.items()},
        "domain": domain,
        "name": party,
    }
    bid = _export_bid(scenario, party, form)
    if bid is not None:
        body["reservationBid"] = {"issuevalues": {k: _bid_json(v, kinds[k]) for k, v in bid.items()}}
    return {PROFILE_KEY: body}


def _bid_json(value: Value, kind: IssueKind) -> Any:
    return value if kind == "number" else _value_text(value)


def _export_bid(scenario: Scenario, party: str, form: UnitForm) -> dict[str, Value] | None:
    """The reservation bid standing for the reservation value (None: a value of 0, no bid)."""
    target = form.reservation
    if target == 0.0:
        return None
    space = scenario.space
    unit = LinearAdditiveUtility(space, form.weights, form.values)
    recorded = _recorded_bid(scenario, party)
    if recorded is not None and bid_utility(unit, recorded) == target:
        return recorded
    if not space.fits_in_memory():
        logger.warning("party %r: the space is too large to find a reservation bid; none written", party)
        return None
    utilities = unit.evaluate_space()
    exact = np.flatnonzero(utilities == target)
    index = int(exact[0]) if exact.size else int(np.argmin(np.abs(utilities - target)))
    if not exact.size:
        logger.warning(
            "party %r: no outcome is worth exactly the reservation value %r; the reservation bid is worth %r",
            party,
            target,
            float(utilities[index]),
        )
    return space.outcome(index)


def _recorded_bid(scenario: Scenario, party: str) -> dict[str, Value] | None:
    recorded = scenario.metadata.get("geniusweb")
    bids = recorded.get("reservation_bids") if isinstance(recorded, Mapping) else None
    bid = bids.get(party) if isinstance(bids, Mapping) else None
    if not isinstance(bid, Mapping) or set(bid) - set(scenario.space.names):
        return None
    try:
        for name, value in bid.items():
            scenario.space.issue(str(name)).index_of(value)
    except (KeyError, ValueError, TypeError):
        return None
    return {str(k): v for k, v in bid.items()}

"""Import and export GeniusWeb linear-additive profiles (JSON), one party per profile.

A GeniusWeb profile `{"LinearAdditiveUtilitySpace": {...}}` embeds its domain (`issuesValues`: a
list of text values, or a number range low..high by step), a weight per issue, per-issue utilities
and an optional reservation bid. The utility is GeniusWeb's own, u(bid) = Σ_i w_i · u_i(bid_i):

- `DiscreteValueSetUtilities` (older files: `discreteutils`): u_i(v) as listed, 0 when unlisted;
- `NumberValueSetUtilities` (`numberutils`): linear from (lowValue, lowUtility) to (highValue,
  highUtility), 0 outside, rounded half-up to 8 decimals as GeniusWeb does.

The reservation value is the utility of the reservation bid (0 without one; a partial bid counts
its missing issues as 0). GeniusWeb profiles carry no discount factor and no reservation value of
their own; docs/interop.md lists what is lost each way. Files are read bounded in size, as strict
JSON (no NaN, no duplicate keys), and every problem is one `ScenarioError` naming the file and
the element.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from parley.domain.issues import Issue, Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.protocol.rules import Rules
from parley.scenarios.importers.additive import MAX_OPTIONS, clean_name, distinct, listed_files, unknown_name
from parley.scenarios.importers.geniusweb_export import export_geniusweb
from parley.scenarios.importers.geniusweb_format import (
    DISCRETE_KEYS,
    NUMBER_KEYS,
    PROFILE_KEY,
    IssueKind,
    bid_utility,
    number_utility,
    range_options,
    read_json,
)
from parley.scenarios.model import Party, Scenario

__all__ = ["WebIssue", "export_geniusweb", "load_geniusweb", "looks_like_geniusweb"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class WebIssue:
    """One issue of a GeniusWeb domain.

    Attributes:
        issue: The parley issue (text options, or numbers for a range).
        kind: discrete (text values) or number (a range low..high by step).
        exact: The options as exact decimals (number issues) or as text (discrete ones).
    """

    issue: Issue
    kind: IssueKind
    exact: tuple[Decimal | str, ...]


def _is_profile(path: Path) -> bool:
    """For detection: a profile names its one key at its start, so a file that does not within its
    first 64 KiB is passed over without being parsed (a folder of large files stays cheap to scan)."""
    try:
        with path.open("rb") as handle:
            if PROFILE_KEY.encode() not in handle.read(1 << 16):
                return False
        data = read_json(path)
    except (OSError, ScenarioError):
        return False
    return isinstance(data, dict) and PROFILE_KEY in data


# --- detection and import ------------------------------------------------------------------------------


def looks_like_geniusweb(path: Path) -> bool:
    """Whether path is a GeniusWeb linear-additive profile (.json) or a folder holding some."""
    path = Path(path)
    try:
        if path.is_dir():
            return any(_is_profile(file) for file in listed_files(path, ".json"))
        return path.suffix.lower() == ".json" and _is_profile(path)
    except (OSError, ScenarioError):
        return False


def load_geniusweb(path: Path, *, name: str | None = None) -> Scenario:
    """A scenario from GeniusWeb profiles of one domain (one party per profile).

    Args:
        path: A folder of profiles (in file-name order), or one profile file (it comes first,
            then the other profiles beside it). Other JSON files (a domain file) are skipped.
        name: The scenario's name (default: the domain's name).

    Raises:
        ScenarioError: one line naming the file and the element, for anything missing, malformed,
            unsupported, or profiles of different domains.
    """
    path = Path(path)
    files = _profile_files(path)
    if len(files) < 2:
        raise ScenarioError(
            f"a scenario needs at least two GeniusWeb profiles (one per party), found {len(files)}",
            source=str(path),
        )
    bodies = [_body(read_json(file), file) for file in files]
    issues = _domain(bodies[0], files[0])
    space = OutcomeSpace.of([entry.issue for entry in issues])
    for body, file in zip(bodies[1:], files[1:], strict=True):
        if _domain(body, file) != issues:
            raise ScenarioError(f"its domain differs from the domain of {files[0].name}", source=str(file))
    parties: list[Party] = []
    bids: dict[str, dict[str, Value]] = {}
    for body, file in zip(bodies, files, strict=True):
        party = _party_name(body, file)
        utility, bid = _utility(body, issues, space, str(file))
        parties.append(Party(party, "", utility))
        if bid:
            bids[party] = bid
    distinct([p.name for p in parties], "profile name", str(path))
    domain_name = _text(bodies[0]["domain"].get("name"), str(files[0]), "domain.name")
    scenario_name = name or domain_name or clean_name(path.stem) or "geniusweb"
    return Scenario(
        name=scenario_name,
        title=domain_name or scenario_name,
        description="",
        space=space,
        parties=tuple(parties),
        rules=Rules(),
        source=str(path),
        metadata={
            "source_format": "geniusweb",
            "geniusweb": {"profiles": {p.name: f.name for p, f in zip(parties, files, strict=True)}}
            | ({"reservation_bids": bids} if bids else {}),
        },
    )


def _profile_files(path: Path) -> list[Path]:
    if path.is_dir():
        return [file for file in listed_files(path, ".json") if _is_profile_strictly(file)]
    _body(read_json(path), path)  # (the file named must be a profile: else the precise complaint)
    others = [f for f in listed_files(path.parent, ".json") if f != path and _is_profile_strictly(f)]
    return [path, *others]


def _is_profile_strictly(path: Path) -> bool:
    """Whether a file of a profile folder is a profile; other JSON (a domain file) is skipped,
    but broken JSON, and a profile of a kind parley cannot read, are refused (named, not skipped).

    Raises:
        ScenarioError: as described.
    """
    data = read_json(path)
    if isinstance(data, dict) and len(data) == 1:
        body = next(iter(data.values()))
        if isinstance(body, dict) and "domain" in body:
            _body(data, path)
            return True
    return False


def _body(data: Any, file: Path) -> dict[str, Any]:
    source = str(file)
    if not isinstance(data, dict) or not data:
        raise ScenarioError(f"expected {{{PROFILE_KEY!r}: {{...}}}} at the top level", source=source)
    if "issuesValues" in data:
        raise ScenarioError(
            "a GeniusWeb domain file, not a profile: give a profile or their folder", source=source
        )
    kind = next(iter(data))
    if kind != PROFILE_KEY or len(data) != 1:
        raise ScenarioError(
            f"profile type {kind!r} is not supported (only {PROFILE_KEY})", source=source, field=str(kind)
        )
    body = data[PROFILE_KEY]
    if not isinstance(body, dict):
        raise ScenarioError("expected an object", source=source, field=PROFILE_KEY)
    for key in ("domain", "issueUtilities", "issueWeights"):
        if not isinstance(body.get(key), dict):
            raise ScenarioError("expected an object", source=source, field=f"{PROFILE_KEY}.{key}")
    return body


def _text(value: Any, source: str, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ScenarioError(f"expected text, got {_shown(value)}", source=source, field=where)
    return clean_name(value)


def _shown(value: Any) -> str:
    text = repr(float(value)) if isinstance(value, Decimal) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _party_name(body: Mapping[str, Any], file: Path) -> str:
    return _text(body.get("name"), str(file), f"{PROFILE_KEY}.name") or clean_name(file.stem) or "party"


def _domain(body: Mapping[str, Any], file: Path) -> tuple[WebIssue, ...]:
    source = str(file)
    values = body["domain"].get("issuesValues")
    if not isinstance(values, dict) or not values:
        raise ScenarioError("expected an object of issues", source=source, field="domain.issuesValues")
    names = [clean_name(str(name)) for name in values]
    distinct(names, "issue", source)
    entries: list[WebIssue] = []
    for name, (raw, spec) in zip(names, values.items(), strict=True):
        where = f"domain.issuesValues.{raw}"
        if not name:
            raise ScenarioError("an issue needs a non-empty name", source=source, field=where)
        entries.append(_domain_issue(name, spec, source, where))
    return tuple(entries)


def _domain_issue(name: str, spec: Any, source: str, where: str) -> WebIssue:
    if isinstance(spec, dict) and "values" in spec:
        return _discrete_issue(name, spec["values"], source, f"{where}.values")
    if isinstance(spec, dict) and "range" in spec:
        return _number_issue(name, spec["range"], source, f"{where}.range")
    raise ScenarioError("expected {values: [...]} or {range: {low, high, step}}", source=source, field=where)


def _discrete_issue(name: str, raw: Any, source: str, where: str) -> WebIssue:
    if not isinstance(raw, list) or not raw:
        raise ScenarioError("expected a non-empty list of text values", source=source, field=where)
    if len(raw) > MAX_OPTIONS:
        raise ScenarioError(
            f"{len(raw):,} values, more than the {MAX_OPTIONS:,} allowed", source=source, field=where
        )
    texts = [_text(value, source, f"{where}[{i}]") for i, value in enumerate(raw)]
    if not all(texts):
        raise ScenarioError("a value needs non-empty text", source=source, field=where)
    distinct(texts, "value", source)
    return WebIssue(Issue.options(name, texts), "discrete", tuple(texts))


def _number_issue(name: str, raw: Any, source: str, where: str) -> WebIssue:
    if isinstance(raw, dict):
        parts = [raw.get("low"), raw.get("high"), raw.get("step")]
    elif isinstance(raw, list) and len(raw) == 3:
        parts = list(raw)
    else:
        raise ScenarioError("expected {low, high, step}", source=source, field=where)
    low, high, step = (
        _decimal(part, source, f"{where}.{key}")
        for part, key in zip(parts, ("low", "high", "step"), strict=True)
    )
    if step <= 0 or high < low:
        raise ScenarioError(
            f"expected low <= high and step > 0, got {low}..{high} by {step}", source=source, field=where
        )
    count = int((high - low) // step) + 1
    if count > MAX_OPTIONS:
        raise ScenarioError(
            f"range has {count:,} values, more than the {MAX_OPTIONS:,} allowed", source=source, field=where
        )
    exact = tuple(low + k * step for k in range(count))
    return WebIssue(Issue.options(name, range_options(exact)), "number", exact)


def _decimal(value: Any, source: str, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | Decimal | str):
        raise ScenarioError(f"expected a number, got {_shown(value)}", source=source, field=where)
    try:
        number = Decimal(value.strip()) if isinstance(value, str) else Decimal(value)
    except InvalidOperation:
        raise ScenarioError(f"expected a number, got {_shown(value)}", source=source, field=where) from None
    if not number.is_finite():
        raise ScenarioError(f"expected a finite number, got {_shown(value)}", source=source, field=where)
    return number


def _utility(
    body: Mapping[str, Any], issues: Sequence[WebIssue], space: OutcomeSpace, source: str
) -> tuple[LinearAdditiveUtility, dict[str, Value]]:
    weights = _weights(body["issueWeights"], issues, source)
    raw_utilities: dict[str, Any] = {clean_name(str(k)): v for k, v in body["issueUtilities"].items()}
    tables: dict[str, list[float]] = {}
    for entry in issues:
        where = f"issueUtilities.{entry.issue.name}"
        if entry.issue.name not in raw_utilities:
            raise ScenarioError("no utilities for this issue", source=source, field=where)
        tables[entry.issue.name] = _table(raw_utilities[entry.issue.name], entry, source, where)
    unknown = sorted(set(raw_utilities) - set(tables))
    if unknown:
        raise ScenarioError(
            unknown_name("issue", unknown[0], list(tables)),
            source=source,
            field=f"issueUtilities.{unknown[0]}",
        )
    utility = LinearAdditiveUtility(space, weights, tables)
    bid = _reservation_bid(body.get("reservationBid"), issues, source)
    return utility.with_reservation(bid_utility(utility, bid)), bid


def _weights(raw: Mapping[str, Any], issues: Sequence[WebIssue], source: str) -> dict[str, float]:
    names = [entry.issue.name for entry in issues]
    weights: dict[str, float] = {}
    for key, value in raw.items():
        name = clean_name(str(key))
        where = f"issueWeights.{key}"
        if name not in names:
            raise ScenarioError(unknown_name("issue", name, names), source=source, field=where)
        weight = float(_decimal(value, source, where))
        if not 0.0 <= weight <= 1.0:
            raise ScenarioError(f"expected a weight in [0, 1], got {weight!r}", source=source, field=where)
        weights[name] = weight
    missing = [name for name in names if name not in weights]
    if missing:
        raise ScenarioError(f"no weight for issue(s) {missing}", source=source, field="issueWeights")
    total = math.fsum(weights.values())
    if abs(total - 1.0) > 1e-6:
        logger.warning(
            "%s: the weights add up to %r, not 1 (GeniusWeb requires 1); kept as given", source, total
        )
    return weights


def _table(raw: Any, entry: WebIssue, source: str, where: str) -> list[float]:
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ScenarioError(
            "expected {DiscreteValueSetUtilities: ...} or {NumberValueSetUtilities: ...}",
            source=source,
            field=where,
        )
    key, spec = next(iter(raw.items()))
    if key in DISCRETE_KEYS and entry.kind == "discrete":
        return _discrete_table(spec, entry, source, f"{where}.{key}")
    if key in NUMBER_KEYS and entry.kind == "number":
        return _number_table(spec, entry, source, f"{where}.{key}")
    if key in DISCRETE_KEYS or key in NUMBER_KEYS:
        raise ScenarioError(f"{key} does not fit a {entry.kind} issue", source=source, field=where)
    raise ScenarioError(f"utility type {key!r} is not supported", source=source, field=where)


def _discrete_table(spec: Any, entry: WebIssue, source: str, where: str) -> list[float]:
    listed = spec.get("valueUtilities") if isinstance(spec, dict) else None
    if not isinstance(listed, dict):
        raise ScenarioError("expected {valueUtilities: {value: utility}}", source=source, field=where)
    positions = {text: i for i, text in enumerate(entry.exact)}
    table = [0.0] * len(entry.exact)  # (GeniusWeb: an unlisted value is worth 0)
    for key, value in listed.items():
        text = clean_name(str(key))
        spot = f"{where}.valueUtilities.{key}"
        if text not in positions:
            raise ScenarioError(
                unknown_name("value", text, [str(v) for v in entry.exact]), source=source, field=spot
            )
        table[positions[text]] = _unit(value, source, spot)
    return table


def _unit(value: Any, source: str, where: str) -> float:
    number = float(_decimal(value, source, where))
    if not 0.0 <= number <= 1.0:
        raise ScenarioError(f"expected a utility in [0, 1], got {number!r}", source=source, field=where)
    return number


def _number_table(spec: Any, entry: WebIssue, source: str, where: str) -> list[float]:
    if not isinstance(spec, dict):
        raise ScenarioError(
            "expected {lowValue, lowUtility, highValue, highUtility}", source=source, field=where
        )
    low, high = (_decimal(spec.get(k), source, f"{where}.{k}") for k in ("lowValue", "highValue"))
    low_u, high_u = (_decimal(spec.get(k), source, f"{where}.{k}") for k in ("lowUtility", "highUtility"))
    _unit(low_u, source, f"{where}.lowUtility")
    _unit(high_u, source, f"{where}.highUtility")
    if high <= low:
        raise ScenarioError(f"expected highValue > lowValue, got {low}..{high}", source=source, field=where)
    return [number_utility(low, low_u, high, high_u, x) for x in entry.exact if isinstance(x, Decimal)]


def _reservation_bid(raw: Any, issues: Sequence[WebIssue], source: str) -> dict[str, Value]:
    if raw is None:
        return {}
    values = raw.get("issuevalues") if isinstance(raw, dict) else None
    if not isinstance(values, dict):
        raise ScenarioError("expected {issuevalues: {issue: value}}", source=source, field="reservationBid")
    by_name = {entry.issue.name: entry for entry in issues}
    bid: dict[str, Value] = {}
    for key, value in values.items():
        name = clean_name(str(key))
        where = f"reservationBid.issuevalues.{key}"
        entry = by_name.get(name)
        if entry is None:
            raise ScenarioError(unknown_name("issue", name, list(by_name)), source=source, field=where)
        bid[name] = _bid_value(entry, value, source, where)
    return bid


def _bid_value(entry: WebIssue, value: Any, source: str, where: str) -> Value:
    if entry.kind == "discrete":
        text = _text(value, source, where)
        if text not in entry.exact:
            raise ScenarioError(
                unknown_name("value", text, [str(v) for v in entry.exact]), source=source, field=where
            )
        return entry.issue.values[entry.exact.index(text)]
    number = _decimal(value, source, where) if not isinstance(value, str) else None
    if number is None or number not in entry.exact:
        raise ScenarioError(f"{_shown(value)} is not a value of the range", source=source, field=where)
    return entry.issue.values[entry.exact.index(number)]

"""Read scenario YAML files, validate them and build the domain `Scenario`.

A bad file fails with one `ScenarioError` line naming the file, the field path and what was
expected versus what arrived. BATNA policy: a BATNA above the best outcome a party's utility can
reach is an error (no deal could ever pass); one below the worst outcome only logs a warning
(that party's walk-away never binds, which some teaching cases do on purpose).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from parley.domain.issues import Issue, Value
from parley.domain.space import OutcomeSpace
from parley.errors import ScenarioError
from parley.protocol.rules import DEFAULT_COALITION_ROUNDS, AcceptanceRule, Rules
from parley.scenarios.model import Party, Scenario
from parley.scenarios.schema import IssueSpec, PartySpec, ProtocolSpec, ScenarioFile, parse_scenario_file
from parley.scenarios.utility_specs import SpecContext, build_utility, option_index, unknown_name_message

logger = logging.getLogger(__name__)

ISSUE_DESCRIPTIONS_KEY = "issue_descriptions"
"""Metadata key holding each issue's `description` text (issue name → text)."""

MAX_OPTIONS_PER_ISSUE = 100_000
"""Larger issues are almost certainly a typo in a range (and would be slow to tabulate)."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe YAML loader that rejects a mapping listing the same key twice."""


def _construct_mapping(
    loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False
) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)  # pyright: ignore[reportUnknownVariableType]
        try:
            duplicate = key in seen
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be text or a number", key_node.start_mark
            ) from None
        if duplicate:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_yaml(text: str, source: str | None) -> Any:
    """Parse YAML text (safe subset, duplicate keys rejected).

    Raises:
        ScenarioError: a syntax error, with its line and column.
    """
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as error:
        raise ScenarioError(_yaml_message(error), source=source) from None
    except RecursionError:
        raise ScenarioError("invalid YAML: nesting too deep", source=source) from None


def _yaml_message(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"invalid YAML{where}: {problem}"


def scenario_from_yaml(text: str, source: str | None = None) -> Scenario:
    """Build a scenario from YAML text.

    Args:
        text: The YAML document.
        source: Where it came from, for error messages and `Scenario.source`.

    Raises:
        ScenarioError: the text is not a valid scenario.
    """
    return scenario_from_data(read_yaml(text, source), source)


def scenario_from_data(data: Any, source: str | None = None) -> Scenario:
    """Build a scenario from already-parsed YAML data (a mapping in the file format).

    Raises:
        ScenarioError: the data is not a valid scenario.
    """
    spec = parse_scenario_file(data, source)
    try:
        return _build(spec, source)
    except ScenarioError as error:
        if error.source is None and source is not None:
            raise ScenarioError(_bare_message(error), source=source, field=error.field) from None
        raise


def _bare_message(error: ScenarioError) -> str:
    text = str(error)
    prefix = f"{error.field}: " if error.field else ""
    return text.removeprefix(prefix)


def validate_file(path: str | Path) -> Scenario:
    """Load and check one scenario file.

    Raises:
        ScenarioError: the file is missing, unreadable or invalid (one line: file, field, problem).
    """
    file = Path(path)
    source = str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError("file not found", source=source) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"cannot read the file: {error}", source=source) from None
    return scenario_from_yaml(text, source)


def _build(spec: ScenarioFile, source: str | None) -> Scenario:
    space = _space(spec.issues, source)
    party_names = _party_names(spec.parties, source)
    parties = tuple(_party(spec.parties[i], i, space, source) for i in range(len(spec.parties)))
    allocation = _allocation(spec, space, party_names, source)
    metadata = dict(spec.metadata)
    if allocation:
        metadata["allocation"] = allocation
    descriptions = {issue.name: issue.description for issue in spec.issues if issue.description}
    if descriptions:
        given = metadata.get(ISSUE_DESCRIPTIONS_KEY)
        metadata[ISSUE_DESCRIPTIONS_KEY] = {**(given if isinstance(given, Mapping) else {}), **descriptions}
    return Scenario(
        name=spec.name,
        title=spec.title or spec.name,
        description=spec.description,
        space=space,
        parties=parties,
        rules=_rules(spec.protocol, party_names, source),
        source=source,
        metadata=metadata,
    )


def _space(specs: Sequence[IssueSpec], source: str | None) -> OutcomeSpace:
    issues: list[Issue] = []
    for position, spec in enumerate(specs):
        if spec.name in [issue.name for issue in issues]:
            raise ScenarioError(
                f"duplicate issue name {spec.name!r}", source=source, field=f"issues[{position}].name"
            )
        issues.append(_issue(spec, f"issues[{position}]", source))
    return OutcomeSpace.of(issues)


def _issue(spec: IssueSpec, path: str, source: str | None) -> Issue:
    if (spec.options is None) == (spec.range is None):
        got = "both" if spec.options is not None else "neither"
        raise ScenarioError(
            f"expected exactly one of 'options' or 'range', got {got}", source=source, field=path
        )
    if spec.range is not None:
        low, high, step = spec.range.min, spec.range.max, spec.range.step
        if high < low:
            raise ScenarioError(
                f"expected max >= min, got min={low}, max={high}", source=source, field=f"{path}.range"
            )
        _check_option_count((high - low) // step + 1, path + ".range", source)
        return Issue.integer_range(spec.name, low, high, step=step, unit=spec.unit)
    options: list[Value] = list(spec.options or [])
    if not options:
        raise ScenarioError(
            "expected at least one option, got an empty list", source=source, field=f"{path}.options"
        )
    _check_option_count(len(options), path + ".options", source)
    seen: dict[Value, int] = {}
    for position, value in enumerate(options):
        if value in seen:
            raise ScenarioError(
                f"duplicate option {value!r} (also options[{seen[value]}])",
                source=source,
                field=f"{path}.options[{position}]",
            )
        seen[value] = position
    return Issue.options(spec.name, options, unit=spec.unit)


def _check_option_count(count: int, path: str, source: str | None) -> None:
    if count > MAX_OPTIONS_PER_ISSUE:
        raise ScenarioError(
            f"expected at most {MAX_OPTIONS_PER_ISSUE:,} options, got {count:,}", source=source, field=path
        )


def _party_names(specs: Sequence[PartySpec], source: str | None) -> tuple[str, ...]:
    names: list[str] = []
    for position, spec in enumerate(specs):
        if spec.name in names:
            raise ScenarioError(
                f"duplicate party name {spec.name!r}", source=source, field=f"parties[{position}].name"
            )
        names.append(spec.name)
    return tuple(names)


def _party(spec: PartySpec, position: int, space: OutcomeSpace, source: str | None) -> Party:
    path = f"parties[{position}]"
    utility = build_utility(spec.utility, space, spec.batna, SpecContext(source, f"{path}.utility"))
    if spec.discount != 1.0:
        utility = utility.with_discount(spec.discount)
    _check_batna(spec, utility.bounds(), path, source)
    signals = _signals(spec, space, SpecContext(source, f"{path}.signals"))
    return Party(spec.name, spec.role, utility, dict(spec.persona), spec.brief, signals)


def _check_batna(spec: PartySpec, bounds: tuple[float, float], path: str, source: str | None) -> None:
    low, high = bounds
    if spec.batna > high + 1e-9:
        raise ScenarioError(
            f"expected a BATNA at most {high:g} (the best outcome for {spec.name!r}), got {spec.batna:g}: "
            "no deal could ever be acceptable",
            source=source,
            field=f"{path}.batna",
        )
    if spec.batna < low - 1e-9:
        logger.warning(
            "%s: %s.batna %g is below %s's worst outcome (%g); the walk-away never binds",
            source or "scenario",
            path,
            spec.batna,
            spec.name,
            low,
        )


def _signals(spec: PartySpec, space: OutcomeSpace, context: SpecContext) -> dict[str, Any]:
    signals: dict[str, Any] = {}
    for i, name in enumerate(spec.signals.priorities):
        context.issue(space, name, f".priorities[{i}]")
    if spec.signals.priorities:
        signals["priorities"] = list(spec.signals.priorities)
    for name, values in spec.signals.must_haves.items():
        issue = context.issue(space, name, f".must_haves.{name}")
        for i, value in enumerate(values):
            option_index(issue, value, context, f".must_haves.{name}[{i}]")
    if spec.signals.must_haves:
        signals["must_haves"] = {name: list(values) for name, values in spec.signals.must_haves.items()}
    return signals


def _allocation(
    spec: ScenarioFile, space: OutcomeSpace, parties: Sequence[str], source: str | None
) -> dict[str, dict[str, Any]]:
    allocation: dict[str, dict[str, Any]] = {}
    for position, issue_spec in enumerate(spec.issues):
        if issue_spec.allocated_to is None:
            continue
        path = f"issues[{position}]"
        if issue_spec.allocated_to not in parties:
            raise ScenarioError(
                unknown_name_message("party", issue_spec.allocated_to, parties),
                source=source,
                field=f"{path}.allocated_to",
            )
        if issue_spec.range is None or issue_spec.range.min != 0 or issue_spec.range.step != 1:
            raise ScenarioError(
                "expected a range with min 0 and step 1 for an allocated issue (units 0..total)",
                source=source,
                field=f"{path}.allocated_to",
            )
        allocation[issue_spec.name] = {
            "owner": issue_spec.allocated_to,
            "total": _total(space, issue_spec.name),
        }
    if "allocation" in spec.metadata:
        if allocation:
            raise ScenarioError(
                "give allocated_to on issues or metadata.allocation, not both",
                source=source,
                field="metadata",
            )
        _check_allocation_metadata(spec.metadata["allocation"], space, parties, source)
    return allocation


def _total(space: OutcomeSpace, name: str) -> int:
    return int(max(space.issue(name).values, key=float))


def _check_allocation_metadata(
    raw: Any, space: OutcomeSpace, parties: Sequence[str], source: str | None
) -> None:
    context = SpecContext(source, "metadata.allocation")
    if not isinstance(raw, Mapping):
        raise context.error("", f"expected a mapping issue → {{owner, total}}, got {type(raw).__name__}")
    for name, entry in raw.items():
        context.issue(space, str(name), f".{name}")
        if not isinstance(entry, Mapping) or set(entry) != {"owner", "total"}:
            raise context.error(f".{name}", "expected a mapping with exactly the keys owner and total")
        if entry["owner"] not in parties:
            raise context.error(f".{name}.owner", unknown_name_message("party", entry["owner"], parties))
        total = entry["total"]
        if isinstance(total, bool) or not isinstance(total, int) or total < 0:
            raise context.error(f".{name}.total", f"expected a non-negative integer, got {total!r}")


def _rules(spec: ProtocolSpec, parties: Sequence[str], source: str | None) -> Rules:
    context = SpecContext(source, "protocol")
    required = spec.acceptance.required
    if required is not None and required > len(parties):
        raise context.error(
            ".acceptance.required", f"expected at most {len(parties)} (the number of parties), got {required}"
        )
    for i, veto in enumerate(spec.acceptance.vetoes):
        if veto not in parties:
            raise context.error(f".acceptance.vetoes[{i}]", unknown_name_message("party", veto, parties))
    order = spec.proposer_order
    if order is not None and sorted(order) != sorted(parties):
        raise context.error(
            ".proposer_order", f"expected every party once ({', '.join(parties)}), got {order}"
        )
    return Rules(
        max_rounds=spec.max_rounds,
        max_offers=spec.max_offers,
        deadline_seconds=spec.deadline_seconds,
        acceptance=AcceptanceRule(required, tuple(spec.acceptance.vetoes)),
        stagnation_rounds=spec.stagnation.rounds,
        stagnation_epsilon=spec.stagnation.epsilon,
        on_stagnation=spec.stagnation.on_stagnation,
        act_timeout=spec.act_timeout,
        proposer_order=tuple(order) if order is not None else None,
        coalition_rounds=spec.coalition_rounds,
    )


def rules_to_data(rules: Rules) -> dict[str, Any]:
    """The `protocol` block describing rules (inverse of the loader's mapping)."""
    return {
        "max_rounds": rules.max_rounds,
        "max_offers": rules.max_offers,
        "deadline_seconds": rules.deadline_seconds,
        "acceptance": {"required": rules.acceptance.required, "vetoes": list(rules.acceptance.vetoes)},
        "stagnation": {
            "rounds": rules.stagnation_rounds,
            "epsilon": rules.stagnation_epsilon,
            "on_stagnation": rules.on_stagnation,
        },
        "act_timeout": rules.act_timeout,
        "proposer_order": list(rules.proposer_order) if rules.proposer_order is not None else None,
    } | (  # (only when set: files of rules with the default stay as they were)
        {"coalition_rounds": rules.coalition_rounds}
        if rules.coalition_rounds != DEFAULT_COALITION_ROUNDS
        else {}
    )

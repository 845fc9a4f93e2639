"""Import and export GENIUS XML scenarios: one domain file and one additive profile per party.

GENIUS, the platform of the ANAC competitions, keeps the domain (`<negotiation_template>`: the
issues) apart from each party's profile (`<utility_space>`: a weight and an evaluator per issue, a
reservation value, a discount factor). The utility is GENIUS's own, u(x) = Σ_i w_i · e_i(x_i):

- discrete issue: e_i(v) = evaluation(v) / the issue's highest evaluation (all 0 when that is
  below 1e-5), so every issue's best option scores 1;
- integer issue lb..ub with `<evaluator ftype="linear" slope= offset=>`: e_i(x) =
  clamp(offset + slope · (x − lb), 0, 1).

The reservation value (0 when absent) and the discount factor (1 when absent; 0 means none, as in
GENIUS) become the party utility's reservation value and time discount (u·d^t, see
`parley.domain.utility`). Real-valued issues, nested objectives and non-additive spaces are refused
with one line. Parsing is defused (no DTDs, entities or external references), bounded in size and
nesting depth, and every problem is one `ScenarioError` naming the file and the element.
docs/interop.md maps every construct and lists what is lost.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from parley.domain.issues import Issue, Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.protocol.rules import Rules
from parley.scenarios.importers.additive import MAX_OPTIONS, clean_name, distinct, listed_files, unknown_name
from parley.scenarios.importers.genius_export import export_genius
from parley.scenarios.importers.genius_format import (
    DOMAIN_TAG,
    EVALUATORS_KEY,
    INTEGER_TEXT,
    PROFILE_TAG,
    REAL_TEXT,
    IssueKind,
    discrete_scores,
    integer_of,
    integer_scores,
    number_of,
    parse_xml,
    root_tag,
)
from parley.scenarios.loader import ISSUE_DESCRIPTIONS_KEY
from parley.scenarios.model import Party, Scenario

__all__ = [
    "Domain",
    "DomainIssue",
    "Profile",
    "export_genius",
    "load_genius",
    "looks_like_genius",
    "read_domain",
    "read_profile",
]


@dataclass(frozen=True, slots=True)
class DomainIssue:
    """One issue of a GENIUS domain.

    Attributes:
        index: GENIUS's `index` attribute (profiles' weights and issues refer to it).
        issue: The parley issue.
        kind: discrete (items) or integer (a range with a linear evaluator).
        texts: The options as written in the file (cleaned), in option order.
    """

    index: int
    issue: Issue
    kind: IssueKind
    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Domain:
    """A parsed GENIUS domain file.

    Attributes:
        name: The root objective's name (cleaned; may be empty).
        description: The root objective's description.
        issues: The issues in file order.
        descriptions: Per issue name, its `description` attribute when not empty.
    """

    name: str
    description: str
    issues: tuple[DomainIssue, ...]
    descriptions: dict[str, str]

    @property
    def space(self) -> OutcomeSpace:
        """The outcome space of the issues."""
        return OutcomeSpace.of([entry.issue for entry in self.issues])


# --- detection ---------------------------------------------------------------------------------------


def looks_like_genius(path: Path) -> bool:
    """Whether path is a GENIUS domain file, or a folder holding one domain file and its profiles."""
    path = Path(path)
    try:
        if path.is_dir():
            domains, profiles = _classify(path)
            return len(domains) == 1 and bool(profiles)
        return path.suffix.lower() == ".xml" and root_tag(path) == DOMAIN_TAG
    except (OSError, ScenarioError):
        return False


def _classify(folder: Path, *, strict: bool = False) -> tuple[list[Path], list[Path]]:
    """The domain files and the profile files of a folder, each sorted by name.

    Raises:
        ScenarioError: strict, and an .xml file of the folder is not safe, well-formed XML (so a
            broken profile is named, not skipped); XML of other kinds is skipped.
    """
    domains: list[Path] = []
    profiles: list[Path] = []
    for file in listed_files(folder, ".xml"):
        tag = parse_xml(file).tag if strict else root_tag(file)
        if tag == DOMAIN_TAG:
            domains.append(file)
        elif tag == PROFILE_TAG:
            profiles.append(file)
    return domains, profiles


# --- import ------------------------------------------------------------------------------------------


def load_genius(path: Path, *, profiles: Sequence[Path] | None = None, name: str | None = None) -> Scenario:
    """A scenario from a GENIUS domain and its profiles (one party per profile).

    Args:
        path: The domain file, or a folder holding exactly one domain file and the profiles.
        profiles: The profile files, in party order (default: every profile beside the domain,
            sorted by file name). A party is named after its profile file's stem.
        name: The scenario's name (default: the domain file's stem without "_domain"/"-domain").

    Raises:
        ScenarioError: one line naming the file and the element, for anything missing, malformed
            or unsupported.
    """
    path = Path(path)
    domain_file, found = _files(path)
    domain = read_domain(domain_file)
    if profiles is not None:
        chosen = [Path(p) for p in profiles]
    else:
        chosen = found if path.is_dir() else _beside(domain_file)
    if len(chosen) < 2:
        raise ScenarioError(
            f"a scenario needs at least two profiles (one per party), found {len(chosen)}", source=str(path)
        )
    space = domain.space
    party_names = [clean_name(profile.stem) or f"party {i}" for i, profile in enumerate(chosen, start=1)]
    distinct(party_names, "profile", str(path))
    read = [read_profile(profile, domain, space) for profile in chosen]
    parties = tuple(Party(n, "", r.utility) for n, r in zip(party_names, read, strict=True))
    scenario_name = name or _scenario_name(domain_file, path)
    recorded: dict[str, object] = {
        "domain": domain_file.name,
        "profiles": {p.name: f.name for p, f in zip(parties, chosen, strict=True)},
    }
    evaluators = {n: r.evaluators_data() for n, r in zip(party_names, read, strict=True) if r.evaluators}
    if evaluators:
        recorded[EVALUATORS_KEY] = evaluators
    metadata: dict[str, object] = {"source_format": "genius", "genius": recorded}
    if domain.descriptions:
        metadata[ISSUE_DESCRIPTIONS_KEY] = dict(domain.descriptions)
    return Scenario(
        name=scenario_name,
        title=domain.name or scenario_name,
        description=domain.description,
        space=space,
        parties=parties,
        rules=Rules(),
        source=str(path),
        metadata=metadata,
    )


def _files(path: Path) -> tuple[Path, list[Path]]:
    if path.is_dir():
        domains, profiles = _classify(path, strict=True)
        if len(domains) != 1:
            found = ", ".join(d.name for d in domains) or "none"
            raise ScenarioError(
                f"expected exactly one GENIUS domain file (<{DOMAIN_TAG}>) in the folder, found {found}",
                source=str(path),
            )
        return domains[0], profiles
    if not path.exists():
        raise ScenarioError("file not found", source=str(path))
    return path, []


def _beside(domain_file: Path) -> list[Path]:
    """The profiles in the domain file's folder."""
    return [p for p in _classify(domain_file.parent, strict=True)[1] if p != domain_file]


def _scenario_name(domain_file: Path, given: Path) -> str:
    stem = re.sub(r"[-_ .]?domain$", "", domain_file.stem, flags=re.IGNORECASE)
    return clean_name(stem) or clean_name(given.name) or "genius"


def read_domain(path: Path) -> Domain:
    """The issues of a GENIUS domain file.

    Raises:
        ScenarioError: naming the file and the element.
    """
    root = parse_xml(path)
    source = str(path)
    if root.tag != DOMAIN_TAG:
        raise ScenarioError(f"expected a GENIUS domain (<{DOMAIN_TAG}>), got <{root.tag}>", source=source)
    objective = _root_objective(root, source)
    entries = [_domain_issue(element, source) for element in _issue_elements(objective, source)]
    if not entries:
        raise ScenarioError("the domain has no issues", source=source, field="objective")
    distinct([e.issue.name for e in entries], "issue", source)
    indices = [e.index for e in entries]
    if len(set(indices)) != len(indices):
        raise ScenarioError(f"two issues share an index: {indices}", source=source, field="objective")
    descriptions = {
        entry.issue.name: text
        for entry, element in zip(entries, _issue_elements(objective, source), strict=True)
        if (text := (element.get("description") or "").strip())
    }
    return Domain(
        clean_name(objective.get("name") or ""),
        (objective.get("description") or "").strip(),
        tuple(entries),
        descriptions,
    )


def _root_objective(root: ET.Element, source: str) -> ET.Element:
    holder = root.find(PROFILE_TAG) if root.tag == DOMAIN_TAG else root
    objective = (holder if holder is not None else root).find("objective")
    if objective is None:
        raise ScenarioError("expected an <objective> holding the issues, found none", source=source)
    return objective


def _issue_elements(objective: ET.Element, source: str) -> list[ET.Element]:
    if objective.find("objective") is not None:
        raise ScenarioError(
            "nested <objective> elements are not supported (flatten the issues under one objective)",
            source=source,
            field="objective",
        )
    return objective.findall("issue")


def _kind(element: ET.Element, source: str, where: str) -> IssueKind:
    kind = (element.get("type") or element.get("etype") or "discrete").strip().lower()
    if kind in ("discrete", "integer"):
        return "discrete" if kind == "discrete" else "integer"
    if kind == "real":
        raise ScenarioError(
            "real-valued issues are not supported (parley issues have finitely many options; "
            "make it an integer or a discrete issue)",
            source=source,
            field=where,
        )
    raise ScenarioError(
        f"unsupported issue type {kind!r} (expected discrete or integer)", source=source, field=where
    )


def _domain_issue(element: ET.Element, source: str) -> DomainIssue:
    raw_name = element.get("name")
    name = clean_name(raw_name or "")
    where = f"issue {name!r}" if name else "issue"
    if not name:
        raise ScenarioError("an <issue> needs a non-empty name", source=source, field=where)
    index = integer_of(element.get("index"), source, f"{where} index")
    kind = _kind(element, source, where)
    if kind == "integer":
        low, high = _bounds(element, source, where)
        issue = Issue.integer_range(name, low, high)
        return DomainIssue(index, issue, kind, tuple(str(v) for v in issue.values))
    texts = [clean_name(item.get("value") or "") for item in element.findall("item")]
    if not texts:
        raise ScenarioError("a discrete issue needs at least one <item>", source=source, field=where)
    if len(texts) > MAX_OPTIONS:
        raise ScenarioError(
            f"{len(texts):,} items, more than the {MAX_OPTIONS:,} allowed", source=source, field=where
        )
    for position, text in enumerate(texts, start=1):
        if not text:
            raise ScenarioError(
                "an <item> needs a non-empty value", source=source, field=f"{where} item {position}"
            )
    values = _typed(texts, (element.get("vtype") or "").strip().lower())
    _check_unique(texts, values, source, where)
    return DomainIssue(index, Issue.options(name, values), kind, tuple(texts))


def _typed(texts: Sequence[str], vtype: str) -> list[Value]:
    """Options as numbers when the issue declares vtype integer/real and every text is one."""
    if vtype == "integer" and all(INTEGER_TEXT.fullmatch(t) for t in texts):
        return [int(t) for t in texts]
    if vtype == "real" and all(REAL_TEXT.fullmatch(t) for t in texts):
        return [float(t) for t in texts]
    return list(texts)


def _check_unique(texts: Sequence[str], values: Sequence[Value], source: str, where: str) -> None:
    seen: dict[Value, int] = {}
    for position, (text, value) in enumerate(zip(texts, values, strict=True), start=1):
        if value in seen:
            raise ScenarioError(
                f"item {text!r} repeats item {seen[value]} (once invisible characters are removed)",
                source=source,
                field=f"{where} item {position}",
            )
        seen[value] = position


def _bounds(element: ET.Element, source: str, where: str) -> tuple[int, int]:
    holder = element.find("range")
    low_text = element.get("lowerbound") or (holder.get("lowerbound") if holder is not None else None)
    high_text = element.get("upperbound") or (holder.get("upperbound") if holder is not None else None)
    low = integer_of(low_text, source, f"{where} lowerbound")
    high = integer_of(high_text, source, f"{where} upperbound")
    if high < low:
        raise ScenarioError(f"upperbound {high} is below lowerbound {low}", source=source, field=where)
    if high - low + 1 > MAX_OPTIONS:
        raise ScenarioError(
            f"range {low}..{high} has {high - low + 1:,} values, more than the {MAX_OPTIONS:,} allowed",
            source=source,
            field=where,
        )
    return low, high


@dataclass(frozen=True, slots=True)
class Profile:
    """A parsed GENIUS profile.

    Attributes:
        utility: The party's utility (reservation value and discount included).
        evaluators: Per integer issue, the evaluator as written, (offset, slope); the exporter
            writes it back when it still gives the same scores (derived ones can differ in the
            last bit, and a clamped evaluator cannot be derived at all).
    """

    utility: LinearAdditiveUtility
    evaluators: dict[str, tuple[float, float]]

    def evaluators_data(self) -> dict[str, list[float]]:
        """The evaluators as plain data (for `Scenario.metadata`, written to YAML)."""
        return {name: [offset, slope] for name, (offset, slope) in self.evaluators.items()}


def read_profile(path: Path, domain: Domain, space: OutcomeSpace | None = None) -> Profile:
    """A party's utility from a GENIUS additive profile over the given domain.

    Raises:
        ScenarioError: naming the file and the element.
    """
    root = parse_xml(path)
    source = str(path)
    if root.tag != PROFILE_TAG:
        raise ScenarioError(f"expected a GENIUS profile (<{PROFILE_TAG}>), got <{root.tag}>", source=source)
    _refuse_non_additive(root, source)
    objective = root.find("objective")
    if objective is None:
        raise ScenarioError("expected an <objective> holding the evaluators, found none", source=source)
    by_name = {entry.issue.name: entry for entry in domain.issues}
    weights = _weights(objective, domain, source)
    values: dict[str, list[float]] = {}
    evaluators: dict[str, tuple[float, float]] = {}
    for element in _issue_elements(objective, source):
        entry = _matching(element, by_name, source)
        if entry.issue.name in values:
            raise ScenarioError(
                "the issue is evaluated twice", source=source, field=f"issue {entry.issue.name!r}"
            )
        values[entry.issue.name], evaluator = _evaluations(element, entry, source)
        if evaluator is not None:
            evaluators[entry.issue.name] = evaluator
    missing = [entry.issue.name for entry in domain.issues if entry.issue.name not in values]
    if missing:
        raise ScenarioError(f"no evaluator for issue(s) {missing}", source=source, field="objective")
    reservation = _scalar(root, objective, "reservation", 0.0, source)
    discount = _discount(_scalar(root, objective, "discount_factor", 1.0, source), source)
    try:
        utility = LinearAdditiveUtility(
            space or domain.space, weights, values, reservation, discount=discount
        )
    except ScenarioError as error:
        raise ScenarioError(str(error), source=source) from None
    best = utility.bounds()[1]
    if reservation > best + 1e-9:  # (parley's BATNA policy, as for scenario files)
        raise ScenarioError(
            f"expected a reservation value at most {best:g} (the best outcome), got {reservation:g}: "
            "no deal could ever be acceptable",
            source=source,
            field="reservation",
        )
    return Profile(utility, evaluators)


def _refuse_non_additive(root: ET.Element, source: str) -> None:
    kind = (root.get("type") or "").strip().lower()
    if kind and kind not in ("additive", "linear"):
        raise ScenarioError(
            f"utility space type {kind!r} is not supported (only additive profiles)",
            source=source,
            field=PROFILE_TAG,
        )
    for tag in ("utility_function", "utility", "constraint"):
        if next(root.iter(tag), None) is not None:
            raise ScenarioError(
                f"<{tag}> (a non-linear utility) is not supported; only weights and evaluators",
                source=source,
                field=tag,
            )


def _weights(objective: ET.Element, domain: Domain, source: str) -> dict[str, float]:
    by_index = {entry.index: entry.issue.name for entry in domain.issues}
    weights: dict[str, float] = {}
    for element in objective.findall("weight"):
        index = integer_of(element.get("index"), source, "weight index")
        where = f"weight index={index}"
        if index not in by_index:
            raise ScenarioError(
                f"names no issue of the domain (indices: {sorted(by_index)})", source=source, field=where
            )
        name = by_index[index]
        if name in weights:
            raise ScenarioError(f"issue {name!r} is weighted twice", source=source, field=where)
        weight = number_of(element.get("value"), source, f"{where} value")
        if weight < 0:
            raise ScenarioError(f"expected a weight >= 0, got {weight!r}", source=source, field=where)
        weights[name] = weight
    missing = [entry.issue.name for entry in domain.issues if entry.issue.name not in weights]
    if missing:
        raise ScenarioError(f"no <weight> for issue(s) {missing}", source=source, field="objective")
    return weights


def _matching(element: ET.Element, by_name: dict[str, DomainIssue], source: str) -> DomainIssue:
    name = clean_name(element.get("name") or "")
    index_text = element.get("index")
    if not name:
        index = integer_of(index_text, source, "issue index")
        found = [entry for entry in by_name.values() if entry.index == index]
        if not found:
            raise ScenarioError(f"index {index} names no issue of the domain", source=source, field="issue")
        return found[0]
    entry = by_name.get(name)
    if entry is None:
        raise ScenarioError(
            unknown_name("issue", name, list(by_name)), source=source, field=f"issue {name!r}"
        )
    if index_text is not None and integer_of(index_text, source, f"issue {name!r} index") != entry.index:
        raise ScenarioError(
            f"index {index_text.strip()} differs from the domain's index {entry.index} for this issue",
            source=source,
            field=f"issue {name!r}",
        )
    return entry


def _evaluations(
    element: ET.Element, entry: DomainIssue, source: str
) -> tuple[list[float], tuple[float, float] | None]:
    where = f"issue {entry.issue.name!r}"
    kind = _kind(element, source, where)
    if kind != entry.kind:
        raise ScenarioError(
            f"the profile says {kind} but the domain says {entry.kind}", source=source, field=where
        )
    if kind == "integer":
        offset, slope = _integer_evaluator(element, entry, source, where)
        return integer_scores(offset, slope, entry.issue.cardinality), (offset, slope)
    return _discrete_evaluations(element, entry, source, where), None


def _discrete_evaluations(element: ET.Element, entry: DomainIssue, source: str, where: str) -> list[float]:
    positions = {text: i for i, text in enumerate(entry.texts)}
    found: list[float | None] = [None] * len(entry.texts)
    for number, item in enumerate(element.findall("item"), start=1):
        text = clean_name(item.get("value") or "")
        position = positions.get(text)
        if position is None:
            raise ScenarioError(
                unknown_name("option", text, entry.texts), source=source, field=f"{where} item {number}"
            )
        if found[position] is not None:
            raise ScenarioError(
                f"option {text!r} is evaluated twice", source=source, field=f"{where} item {number}"
            )
        value = number_of(item.get("evaluation"), source, f"{where} item {text!r} evaluation")
        if value < 0:
            raise ScenarioError(
                f"expected an evaluation >= 0, got {value!r}", source=source, field=f"{where} item {text!r}"
            )
        found[position] = value
    missing = [entry.texts[i] for i, value in enumerate(found) if value is None]
    if missing:
        raise ScenarioError(f"no evaluation for option(s) {missing[:5]}", source=source, field=where)
    return discrete_scores([value for value in found if value is not None])


def _integer_evaluator(
    element: ET.Element, entry: DomainIssue, source: str, where: str
) -> tuple[float, float]:
    issue = entry.issue
    low, high = int(issue.values[0]), int(issue.values[-1])
    has_range = element.get("lowerbound") is not None or element.find("range") is not None
    if has_range and _bounds(element, source, where) != (low, high):
        raise ScenarioError(
            f"the profile's range differs from the domain's {low}..{high}", source=source, field=where
        )
    evaluator = element.find("evaluator")
    if evaluator is None:
        raise ScenarioError(
            'an integer issue needs an <evaluator ftype="linear" ...>', source=source, field=where
        )
    ftype = (evaluator.get("ftype") or "").strip().lower()
    if ftype != "linear":
        raise ScenarioError(
            f"evaluator ftype {ftype or 'missing'!r} is not supported (only linear)",
            source=source,
            field=f"{where} evaluator",
        )
    slope = number_of(evaluator.get("slope", evaluator.get("parameter1")), source, f"{where} evaluator slope")
    offset = number_of(
        evaluator.get("offset", evaluator.get("parameter0")), source, f"{where} evaluator offset"
    )
    return offset, slope


def _scalar(root: ET.Element, objective: ET.Element, tag: str, default: float, source: str) -> float:
    elements = root.findall(tag) + objective.findall(tag)
    if not elements:
        return default
    if len(elements) > 1:
        raise ScenarioError(f"<{tag}> is given {len(elements)} times", source=source, field=tag)
    return number_of(elements[0].get("value"), source, f"{tag} value")


def _discount(value: float, source: str) -> float:
    if value == 0.0:  # GENIUS's "no discounting"
        return 1.0
    if not 0.0 < value <= 1.0:
        raise ScenarioError(
            f"expected a discount factor in [0, 1] (0 or 1: none), got {value!r}",
            source=source,
            field="discount_factor",
        )
    return value

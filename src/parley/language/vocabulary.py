"""A scenario's words: issue names and synonyms, option labels, units, and who owns what in a division."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from parley.domain.issues import Issue, Value
from parley.domain.space import OutcomeSpace
from parley.errors import ScenarioError
from parley.language.lexicon import Lexicon, inflections, load_lexicon, phrase_pattern

if TYPE_CHECKING:
    from parley.scenarios.model import Scenario

_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "´": "'", "`": "'"})


def normalize(text: str) -> str:
    """Lower case, straight quotes, single spaces: the form every pattern is matched against."""
    return re.sub(r"\s+", " ", text.translate(_QUOTES).lower()).strip()


def compact(phrase: str) -> str:
    """A phrase with spaces and hyphens removed, used as a lookup key ("fire wood" -> "firewood")."""
    return re.sub(r"[\s\-]+", "", phrase.lower())


def display_label(name: str) -> str:
    """How an issue name reads in a sentence ("lead_time" -> "lead time", "Firewood" -> "firewood")."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    words = re.split(r"[\s_\-]+", spaced.strip())
    return " ".join(w if (w.isupper() and len(w) > 1) else w.lower() for w in words if w)


def option_label(value: Value) -> str:
    """How an option reads in a sentence and is matched in text ("net-60" -> "net 60")."""
    return re.sub(r"[^a-z0-9%$€£.]+", " ", str(value).lower()).strip()


@dataclass(frozen=True, slots=True)
class Share:
    """A divisible issue: its value is the number of units that go to owner; the other party gets the rest.

    Attributes:
        owner: The party whose count the issue's value is.
        total: Number of units to divide.
    """

    owner: str
    total: int


@dataclass(frozen=True, slots=True, eq=False)
class IssueTerms:
    """The words for one issue.

    Attributes:
        name: The issue name (key in outcomes).
        label: How the issue reads in a sentence.
        aliases: Lower-case phrases that name the issue in text.
        unit: Lexicon unit key of the issue's unit ("usd", "day"; for "EUR per month", "eur"), or "".
        unit_label: The unit as written on the issue ("USD", "days").
        share: Division information, or None for a terms issue.
        options: Option label (compacted) to option, for categorical issues.
        phrase: Optional rendering pattern with a {value} slot ("delivery in {value}").
        numeric: Whether every option is a number.
    """

    name: str
    label: str
    aliases: tuple[str, ...]
    unit: str
    unit_label: str
    share: Share | None
    options: Mapping[str, Value]
    phrase: str
    numeric: bool


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Everything the renderer and parser need to know about one scenario's language.

    Build it with `Vocabulary.build(space, metadata, parties)` or `Vocabulary.from_scenario(scenario)`.

    Attributes:
        space: The outcome space.
        parties: Party names in order.
        issues: Words for each issue, in space order.
        lexicon: The shared word lists.
        issue_pattern: Matches any issue alias.
        option_pattern: Matches any categorical option label.
    """

    space: OutcomeSpace
    parties: tuple[str, ...]
    issues: tuple[IssueTerms, ...]
    lexicon: Lexicon
    issue_pattern: re.Pattern[str]
    option_pattern: re.Pattern[str]
    _alias_issue: Mapping[str, str]
    _option_issues: Mapping[str, tuple[tuple[str, Value], ...]]
    _by_name: Mapping[str, IssueTerms]

    @classmethod
    def build(
        cls,
        space: OutcomeSpace,
        metadata: Mapping[str, Any] | None = None,
        parties: Sequence[str] = (),
        *,
        source: str | None = None,
    ) -> Vocabulary:
        """Derive the vocabulary of a space.

        Args:
            space: The outcome space.
            metadata: Scenario metadata; reads "allocation" ({issue: {"owner", "total"}}) and
                "language" ({"synonyms": {issue: [words]}, "phrases": {issue: "... {value} ..."}}).
            parties: Party names in order.
            source: Where the metadata came from, for error messages.

        Raises:
            ScenarioError: malformed allocation or language metadata (names the field).
        """
        metadata = metadata or {}
        lexicon = load_lexicon()
        shares = _read_allocation(space, metadata.get("allocation"), tuple(parties), source)
        synonyms, phrases = _read_language(space, metadata.get("language"), source)
        drafts = [_draft_terms(issue, lexicon, shares.get(issue.name), phrases) for issue in space.issues]
        alias_issue = _resolve_aliases(drafts, lexicon, synonyms)
        issues = tuple(
            _with_aliases(draft, [a for a, n in alias_issue.items() if n == draft.name]) for draft in drafts
        )
        option_issues = _option_index(issues)
        return cls(
            space=space,
            parties=tuple(parties),
            issues=issues,
            lexicon=lexicon,
            issue_pattern=phrase_pattern(alias_issue),
            option_pattern=phrase_pattern(_option_phrases(issues)),
            _alias_issue={compact(a): n for a, n in alias_issue.items()},
            _option_issues=option_issues,
            _by_name={terms.name: terms for terms in issues},
        )

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> Vocabulary:
        """The vocabulary of a scenario (its space, metadata and party names)."""
        return cls.build(scenario.space, scenario.metadata, scenario.party_names, source=scenario.source)

    def terms(self, issue: str) -> IssueTerms:
        """The words for an issue.

        Raises:
            KeyError: no such issue.
        """
        try:
            return self._by_name[issue]
        except KeyError:
            raise KeyError(f"no issue {issue!r}; issues are {list(self.space.names)}") from None

    def issue_of_alias(self, text: str) -> str | None:
        """The issue a matched alias names, or None."""
        return self._alias_issue.get(compact(text))

    def options_of_label(self, text: str) -> tuple[tuple[str, Value], ...]:
        """The (issue, option) pairs a matched option label may mean."""
        return self._option_issues.get(compact(text), ())

    @property
    def division_issues(self) -> tuple[IssueTerms, ...]:
        """Issues whose units are divided between the parties."""
        return tuple(t for t in self.issues if t.share is not None)

    @property
    def terms_issues(self) -> tuple[IssueTerms, ...]:
        """Issues that are agreed terms rather than divided units."""
        return tuple(t for t in self.issues if t.share is None)

    def listener_of(self, speaker: str) -> str:
        """The party a speaker addresses: the other party of a bilateral scenario, else "others"."""
        others = [p for p in self.parties if p != speaker]
        return others[0] if len(others) == 1 else "others"

    def count_for(self, issue: IssueTerms, value: Value, party: str) -> int:
        """How many units of a division issue a party gets when the issue takes value."""
        assert issue.share is not None
        count = int(value)
        return count if party == issue.share.owner else issue.share.total - count

    def value_for(self, issue: IssueTerms, party: str, count: int) -> int:
        """The issue value under which party gets count units of a division issue."""
        assert issue.share is not None
        return count if party == issue.share.owner else issue.share.total - count


def _fail(message: str, source: str | None, field: str) -> ScenarioError:
    return ScenarioError(message, source=source, field=field)


def _mapping(raw: object, source: str | None, field: str, expected: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise _fail(f"expected {expected}, got {raw!r}", source, field)
    return cast(Mapping[str, Any], raw)


def _read_allocation(
    space: OutcomeSpace, allocation: Any, parties: tuple[str, ...], source: str | None
) -> dict[str, Share]:
    if allocation is None:
        return {}
    entries = _mapping(allocation, source, "metadata.allocation", "a mapping of issue to owner/total")
    shares: dict[str, Share] = {}
    for issue_name, entry in entries.items():
        field = f"metadata.allocation.{issue_name}"
        if issue_name not in space.names:
            raise _fail(f"unknown issue {issue_name!r}; issues are {list(space.names)}", source, field)
        if not isinstance(entry, Mapping) or "owner" not in entry or "total" not in entry:
            raise _fail(f"expected {{owner, total}}, got {entry!r}", source, field)
        owner, total = entry["owner"], entry["total"]
        if parties and owner not in parties:
            raise _fail(f"owner {owner!r} is not a party {list(parties)}", source, f"{field}.owner")
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            raise _fail(f"expected a non-negative integer total, got {total!r}", source, f"{field}.total")
        issue = space.issue(str(issue_name))
        if not issue.is_numeric or any(not 0 <= float(v) <= total for v in issue.values):
            raise _fail(f"options must be counts in 0..{total}, got {list(issue.values)}", source, field)
        shares[issue.name] = Share(str(owner), total)
    return shares


def _read_language(
    space: OutcomeSpace, language: Any, source: str | None
) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    if language is None:
        return {}, {}
    settings = _mapping(language, source, "metadata.language", "a mapping")
    synonyms = _issue_map(space, settings.get("synonyms", {}), source, "synonyms")
    phrases = _issue_map(space, settings.get("phrases", {}), source, "phrases")
    for issue, phrase in phrases.items():
        if len(phrase) != 1 or "{value}" not in phrase[0] or not _formats(phrase[0]):
            raise _fail(
                f"expected one pattern with a {{value}} slot, got {phrase!r}",
                source,
                f"metadata.language.phrases.{issue}",
            )
    return synonyms, {issue: phrase[0] for issue, phrase in phrases.items()}


def _formats(pattern: str) -> bool:
    try:
        pattern.format(value="1")
    except (KeyError, IndexError, ValueError):
        return False
    return True


def _issue_map(space: OutcomeSpace, raw: Any, source: str | None, key: str) -> dict[str, tuple[str, ...]]:
    field = f"metadata.language.{key}"
    result: dict[str, tuple[str, ...]] = {}
    for issue, words in _mapping(raw, source, field, "a mapping of issue to words").items():
        if issue not in space.names:
            raise _fail(
                f"unknown issue {issue!r}; issues are {list(space.names)}", source, f"{field}.{issue}"
            )
        items: list[Any] = [words] if isinstance(words, str) else list(cast(list[Any], words))
        if not all(isinstance(w, str) and w.strip() for w in items):
            raise _fail(f"expected non-empty strings, got {words!r}", source, f"{field}.{issue}")
        result[str(issue)] = tuple(str(w) for w in items)
    return result


def _draft_terms(
    issue: Issue, lexicon: Lexicon, share: Share | None, phrases: Mapping[str, str]
) -> IssueTerms:
    options: dict[str, Value] = {}
    if not issue.is_numeric:
        options = {compact(option_label(v)): v for v in issue.values if option_label(v)}
    return IssueTerms(
        name=issue.name,
        label=display_label(issue.name),
        aliases=(),
        unit=_unit_key(issue.unit, lexicon),
        unit_label=issue.unit,
        share=share,
        options=options,
        phrase=phrases.get(issue.name, ""),
        numeric=issue.is_numeric,
    )


def _unit_key(unit: str, lexicon: Lexicon) -> str:
    """The lexicon key of a unit label, judged by its first word for compound labels ("EUR per month")."""
    if not unit.strip():
        return ""
    key = lexicon.unit_key(unit)
    if key in lexicon.units:
        return key
    return lexicon.unit_key(unit.split(maxsplit=1)[0])


def _with_aliases(draft: IssueTerms, aliases: Iterable[str]) -> IssueTerms:
    return IssueTerms(
        draft.name,
        draft.label,
        tuple(sorted(aliases)),
        draft.unit,
        draft.unit_label,
        draft.share,
        draft.options,
        draft.phrase,
        draft.numeric,
    )


def _candidate_aliases(
    draft: IssueTerms, lexicon: Lexicon, extra: Sequence[str], shared_words: set[str]
) -> tuple[set[str], set[str]]:
    """(exact names, looser names) for one issue; exact names win conflicts."""
    exact = {draft.label.lower(), draft.name.lower().replace("_", " ")}
    exact |= {form for name in list(exact) for form in inflections(name)}
    loose: set[str] = set()
    for word in (*lexicon.synonyms.get(draft.label.lower(), ()), *extra):
        loose |= {word.lower(), *inflections(word.lower())}
    words = draft.label.lower().split()
    if len(words) > 1:
        for word in words:
            if word not in lexicon.generic_words and word not in shared_words and len(word) > 3:
                loose |= {word, *inflections(word)}
    return exact, loose - exact


def _resolve_aliases(
    drafts: Sequence[IssueTerms], lexicon: Lexicon, synonyms: Mapping[str, tuple[str, ...]]
) -> dict[str, str]:
    """Alias -> issue, dropping looser aliases that more than one issue would claim."""
    word_counts: dict[str, int] = {}
    for draft in drafts:
        for word in set(draft.label.lower().split()):
            word_counts[word] = word_counts.get(word, 0) + 1
    shared = {w for w, c in word_counts.items() if c > 1}
    exact_claims: dict[str, set[str]] = {}
    loose_claims: dict[str, set[str]] = {}
    for draft in drafts:
        exact, loose = _candidate_aliases(draft, lexicon, synonyms.get(draft.name, ()), shared)
        for alias in exact:
            exact_claims.setdefault(compact(alias), set()).add(draft.name)
        for alias in loose:
            loose_claims.setdefault(compact(alias), set()).add(draft.name)
    resolved: dict[str, str] = {}
    spelled: dict[str, str] = {}
    for draft in drafts:
        exact, loose = _candidate_aliases(draft, lexicon, synonyms.get(draft.name, ()), shared)
        for alias in (*exact, *loose):
            spelled.setdefault(alias, draft.name)
    for alias, name in spelled.items():
        key = compact(alias)
        owners = exact_claims.get(key) or loose_claims.get(key, set())
        if owners == {name}:
            resolved[alias] = name
    return resolved


def _option_phrases(issues: Sequence[IssueTerms]) -> list[str]:
    phrases: list[str] = []
    for terms in issues:
        phrases.extend(option_label(value) for value in terms.options.values())
    return phrases


def _option_index(issues: Sequence[IssueTerms]) -> dict[str, tuple[tuple[str, Value], ...]]:
    index: dict[str, list[tuple[str, Value]]] = {}
    for terms in issues:
        for key, value in terms.options.items():
            index.setdefault(key, []).append((terms.name, value))
    return {key: tuple(pairs) for key, pairs in index.items()}

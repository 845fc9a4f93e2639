"""The O13 stakeholder backed by an LLM, with code-enforced safety around every move.

The model proposes; code decides: packages are repaired to legal options, an accept or proposal
below the BATNA is replaced by the twin's move, and leaking sentences are stripped from messages
(what the party's disclosure policy allows it to state is kept). The schema sent per call lists
the legal options of every issue; offers are said from the party's side in division scenarios.
Unusable replies fall back to a deterministic twin negotiator (default ``boulware``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from parley.agents.registry import AgentEntry, create
from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.errors import ScenarioError
from parley.llm.context import LLMSession
from parley.llm.leaks import DISCLOSABLE, PrivateNumbers, check_message
from parley.llm.render import (
    Allocation,
    history_text,
    issues_text,
    number,
    scores_text,
    tracker_text,
    utility_text,
)
from parley.llm.role import Role, SchemaOverrides
from parley.llm.structured import Name, names_schema, package_schema
from parley.protocol.actions import Accept, Action, Propose, Reject, Say, Walk
from parley.protocol.session import Negotiator
from parley.protocol.view import PartyView, Phase

logger = logging.getLogger(__name__)

MAX_MESSAGE = 400
"""Most characters of a message to the other parties (a few sentences)."""
MAX_PRIORITIES = 12
"""Most issue names in a reply's priorities (the per-call schema allows one per issue)."""
MOVES = ("propose", "accept", "reject", "say", "walk")


class NegotiatorReply(BaseModel):
    """The stakeholder's structured move.

    Attributes:
        move: One of propose, accept, reject, say, walk.
        package: For propose: issue name → option.
        message: Text sent to the other parties.
        priorities: For say: issue names, most important first.
    """

    model_config = ConfigDict(extra="ignore")

    move: Literal["propose", "accept", "reject", "say", "walk"]
    package: dict[str, str | int | float] | None = None
    message: str = Field(default="", max_length=MAX_MESSAGE)
    priorities: list[Name] = Field(default_factory=list[str], max_length=MAX_PRIORITIES)


def repair_package(
    space: OutcomeSpace, package: Mapping[str, Any], fill: Mapping[str, Value] | None = None
) -> tuple[dict[str, Value], list[str]]:
    """Map a model's package onto legal options.

    Keys match case-insensitively; an option matches exactly, by text, or (numeric issues, finite
    numbers only) to the nearest option; a missing issue is taken from fill when given, but only
    when the package names at least one issue: an unreadable package is invalid, never guessed.

    Returns:
        The legal package and notes on what was changed.

    Raises:
        ValueError: the package names no issue, an issue is missing (and not in fill), or a value
            matches no option (NaN and infinities never do).
    """
    by_lower = {str(k).strip().lower(): v for k, v in package.items()}
    known = {n.lower() for n in space.names}
    if not known & by_lower.keys():
        raise ValueError(f"the package names no issue; give one option for each of {list(space.names)}")
    notes = [f"ignored unknown issue {k!r}" for k in package if str(k).strip().lower() not in known]
    legal: dict[str, Value] = {}
    for issue in space.issues:
        raw = by_lower.get(issue.name.lower())
        if raw is None:
            if fill is None or issue.name not in fill:
                raise ValueError(f"package misses issue {issue.name!r} (options {list(issue.values)})")
            legal[issue.name] = fill[issue.name]
            notes.append(f"filled {issue.name} from the table")
            continue
        legal[issue.name], note = _match_option(issue.name, issue.values, raw)
        if note:
            notes.append(note)
    return legal, notes


def _match_option(name: str, options: tuple[Value, ...], raw: Any) -> tuple[Value, str]:
    if raw in options and type(raw) is not bool:
        return raw, ""
    text = str(raw).strip().lower()
    for option in options:
        if str(option).strip().lower() == text:
            return option, ""
    numeric = [o for o in options if isinstance(o, int | float)]
    try:
        target = float(text.replace(",", "").lstrip("$€£"))
    except ValueError:
        target = None
    if target is not None and not math.isfinite(target):
        target = None  # NaN is nearest to nothing; an infinity is no amount
    if target is not None and len(numeric) == len(options):
        nearest = min(numeric, key=lambda o: abs(float(o) - target))
        return nearest, f"rounded {name} {raw!r} to {nearest!r}"
    raise ValueError(f"{raw!r} is not an option of issue {name!r} (options {list(options)})")


class LLMNegotiator:
    """An O13 stakeholder whose moves come from an LLM (implements `Negotiator`).

    Args:
        party: The party it plays.
        llm: The session's LLM side (client for role "negotiator", ledger, events).
        twin: Deterministic negotiator used on fallback and to replace unsafe moves.
        template: Prompt template name or object.
        history_limit: Most recent moves (and offers scored) shown per call.
        role: Role name used for the client override and usage ("negotiator").
        allocation: The scenario's division issues (``{issue: {"owner": party, "total": units}}``,
            as in ``Scenario.metadata["allocation"]``), so offers are said from this party's side;
            default: the party's persona ``allocation``, else none.
        may_disclose: What the party's policy lets it state (see `parley.llm.leaks.DISCLOSABLE`);
            default: the persona's ``may_disclose`` (the scenario's ``parties[].persona``), else
            nothing.
    """

    def __init__(
        self,
        party: str,
        llm: LLMSession,
        twin: Negotiator,
        *,
        template: str = "negotiator",
        history_limit: int = 12,
        role: str = "negotiator",
        allocation: Mapping[str, Any] | None = None,
        may_disclose: Iterable[str] | None = None,
    ) -> None:
        self.party = party
        self.twin = twin
        self._llm = llm
        self._role = Role(role, NegotiatorReply, template, llm, party=party)
        self._history_limit = history_limit
        self._allocation = allocation
        self._may_disclose = None if may_disclose is None else frozenset(may_disclose)
        self._trace: dict[str, Any] = {}
        self._private: PrivateNumbers | None = None

    def act(self, view: PartyView) -> Action:
        """Ask the model for a move, then make it safe (see the module docstring)."""
        outcome = self._role.call(
            self.variables(view),
            validate=lambda r: self._validate(view, r),
            round=view.round,
            overrides=reply_schema(view),
        )
        if outcome.value is None:
            self._trace = {"source": "twin", "fallback": outcome.fallback}
            return self.twin.act(view)
        self._trace = {"source": "llm", "calls": outcome.calls, "repaired_json": outcome.repaired}
        return self._guard(view, outcome.value)

    def explain(self) -> Mapping[str, Any] | None:
        """Where the last move came from (stored privately by the engine)."""
        return {"llm": dict(self._trace)} if self._trace else None

    # -- prompt ----------------------------------------------------------------------------------

    def variables(self, view: PartyView) -> dict[str, Any]:
        """Template variables for this view."""
        persona = view.persona
        role = str(persona.get("role", "")).strip()
        latest = {who: pkg for who, pkg in view.record.offers()}
        required = view.rules.acceptance.required
        allocation = Allocation.read(
            self._allocation if self._allocation is not None else persona.get("allocation"),
            view.space,
            view.parties,
        )
        describe = allocation.describe(view.party)
        return {
            "party": view.party,
            "batna": number(view.reservation_value),
            "utility": utility_text(view.utility),
            "role_clause": f" (the {role})" if role else "",
            "opponents": ", ".join(view.opponents),
            "brief": str(persona.get("brief", "")).strip(),
            "issues": issues_text(view.space, allocation, view.party),
            "disclosure": disclosure_text(self._policy(view)),
            "max_rounds": view.rules.max_rounds,
            "acceptance": "a package passes when every party accepts it"
            if required is None
            else f"a package passes when {required} of {len(view.parties)} parties accept it",
            "round": view.round,
            "phase_instruction": _phase_instruction(view),
            "tracker": tracker_text(view.space, view.table, latest, describe),
            "scores": scores_text(view.utility, view.record.offers(), self._history_limit, describe),
            "history": history_text(view.record, self._history_limit),
        }

    # -- checks ----------------------------------------------------------------------------------

    def _validate(self, view: PartyView, reply: NegotiatorReply) -> NegotiatorReply:
        if reply.move == "propose":
            if not reply.package:
                raise ValueError('move "propose" needs a "package" naming one option for every issue')
            fill = view.table.package if view.table is not None else None
            package, notes = repair_package(view.space, reply.package, fill)
            if notes:
                self._note(view, "package_repaired", {"notes": notes})
            return reply.model_copy(update={"package": package})
        if reply.move == "accept" and view.offer is None:
            raise ValueError('there is no offer from another party to accept; use "propose", "say" or "walk"')
        if reply.move == "reject" and view.table is None:
            raise ValueError('there is nothing on the table to reject; use "propose", "say" or "walk"')
        if reply.move == "say" and not reply.message.strip():
            raise ValueError('move "say" needs a non-empty "message"')
        return reply

    def _guard(self, view: PartyView, reply: NegotiatorReply) -> Action:
        floor = view.reservation_value - 1e-9
        if reply.move == "accept" and view.offer is not None and view.utility.evaluate(view.offer) < floor:
            return self._replace(view, "batna_floor_accept", view.utility.evaluate(view.offer))
        if reply.move == "propose" and reply.package and view.utility.evaluate(reply.package) < floor:
            return self._replace(view, "batna_floor_propose", view.utility.evaluate(reply.package))
        return self._to_action(view, reply, self._clean(view, reply.message))

    def _replace(self, view: PartyView, guard: str, utility: float) -> Action:
        self._note(view, guard, {"utility": round(utility, 6), "reservation_value": view.reservation_value})
        logger.info("%s: model's move is below the BATNA; the twin moves instead", view.party)
        self._trace["guard"] = guard
        move = self.twin.act(view)
        if isinstance(move, Accept) and view.offer is not None and not view.utility.is_acceptable(view.offer):
            return Reject()
        return move

    def _policy(self, view: PartyView) -> frozenset[str]:
        """What this party may state: the explicit policy, else its persona's ``may_disclose``.

        Raises:
            ScenarioError: the policy names a category that is not in `DISCLOSABLE`.
        """
        raw: Any = (
            self._may_disclose if self._may_disclose is not None else view.persona.get("may_disclose", ())
        )
        policy = frozenset([raw] if isinstance(raw, str) else cast(Iterable[Any], raw or ()))
        unknown = sorted(str(c) for c in policy - DISCLOSABLE)
        if unknown:
            raise ScenarioError(
                f"party {view.party}: may_disclose names {unknown}; use some of {sorted(DISCLOSABLE)}"
            )
        return cast(frozenset[str], policy)

    def _clean(self, view: PartyView, message: str) -> str:
        if self._private is None:
            self._private = PrivateNumbers.of(view.utility, may_disclose=self._policy(view))
        report = check_message(message, self._private)
        if report.leaked:
            self._note(view, "utility_leak", {"findings": list(report.findings)})
            logger.info("%s: removed %d leaking sentence(s) from a message", view.party, len(report.findings))
        return report.cleaned

    def _to_action(self, view: PartyView, reply: NegotiatorReply, message: str) -> Action:
        match reply.move:
            case "propose":
                return Propose(dict(reply.package or {}), message)
            case "accept":
                return Accept(message)
            case "reject":
                return Reject(message)
            case "walk":
                return Walk("chose to walk away", message)
            case "say":
                names = {n.lower(): n for n in view.space.names}
                priorities = tuple(names[p.lower()] for p in reply.priorities if p.lower() in names)
                return Say(message or "…", priorities)

    def _note(self, view: PartyView, guard: str, data: Mapping[str, Any]) -> None:
        self._llm.note(
            "llm_guard", {"guard": guard, **data}, round=view.round, party=view.party, audience=view.party
        )


_DISCLOSURE_WORDS = {
    "reservation": "your walk-away value",
    "values": "your points and scores",
    "weights": "how much each issue weighs",
}


def disclosure_text(policy: frozenset[str]) -> str:
    """What the party may and must not tell the others, from its disclosure policy."""
    allowed = [words for category, words in _DISCLOSURE_WORDS.items() if category in policy]
    withheld = [words for category, words in _DISCLOSURE_WORDS.items() if category not in policy]
    parts: list[str] = []
    if allowed:
        parts.append(f"You may tell them {_joined(allowed)}.")
    if withheld:
        parts.append(f"Never tell them {_joined(withheld)}, not in digits and not in words.")
    return " ".join(parts)


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def reply_schema(view: PartyView) -> SchemaOverrides:
    """The per-call schema of a move: only the moves the state allows (no accept with no offer from
    another party, no reject with nothing on the table), a package naming one legal option per
    issue, priorities naming issues."""
    issues = {issue.name: issue.values for issue in view.space.issues}
    return {
        "move": {"enum": legal_moves(view)},
        "package": package_schema(issues, nullable=True),
        "priorities": names_schema(view.space.names),
    }


def legal_moves(view: PartyView) -> list[str]:
    """The moves `LLMNegotiator` accepts in view (the validator refuses the others)."""
    refused = {"accept"} if view.offer is None else set[str]()
    refused |= {"reject"} if view.table is None else set[str]()
    return [move for move in MOVES if move not in refused]


def _phase_instruction(view: PartyView) -> str:
    offer = view.offer
    table = view.table
    if view.phase is Phase.RESPOND and table is not None:
        return (
            f"{table.proposer} has put the package on the table. Answer it: accept, reject, "
            "propose a counter-package, say something, or walk."
        )
    if offer is not None and table is not None:
        return f"Your turn. {table.proposer}'s package is still on the table: accept it, or propose your own."
    return "Your turn to propose a package (or say something, or walk)."


def create_llm_negotiator(
    *,
    party: str,
    seed: int,
    llm: LLMSession | None = None,
    twin: str | Negotiator = "boulware",
    twin_options: Mapping[str, Any] | None = None,
    **options: Any,
) -> LLMNegotiator:
    """Registry factory for agent ``llm``.

    Args:
        party: The party to play.
        seed: Seed for the twin.
        llm: The session's LLM side (build it with `LLMRuntime.session` or `LLMSession`).
        twin: Registered agent name of the twin, or a negotiator.
        twin_options: Options for the twin's factory.
        **options: Passed to `LLMNegotiator` (template, history_limit, role).

    Raises:
        ScenarioError: no LLM was configured.
    """
    if llm is None:
        raise ScenarioError("agent 'llm' needs an LLM: run with --llm SPEC (e.g. --llm openai:gpt-4o-mini)")
    twin_negotiator = (
        create(twin, party=party, seed=seed, **dict(twin_options or {})) if isinstance(twin, str) else twin
    )
    return LLMNegotiator(party, llm, twin_negotiator, **options)


LLM_AGENT = AgentEntry(
    "llm", create_llm_negotiator, "LLM-backed O13 stakeholder (needs --llm); falls back to a baseline twin"
)
"""Agent ``llm``: the registry finds it through the ``parley.agents`` entry point in pyproject.toml."""

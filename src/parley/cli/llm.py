"""CLI helpers for the LLM flags of `parley run`, `parley mediate` and `parley delegate`.

--llm SPEC                default endpoint, e.g. openai:gpt-4o-mini or http://localhost:11434/v1#qwen2.5:7b
--llm-role ROLE=SPEC      per-role override, repeatable (judge=openai:gpt-4o); enough on its own
--llm-config FILE         YAML settings (flags win over the file)
--record DIR              save every LLM exchange (request + response or error, JSONL) to DIR
--replay DIR              answer every LLM request from DIR; no endpoint is contacted
--llm-budget-seconds S    wall-clock seconds the run may spend on LLM calls
--llm-budget-tokens N     tokens the run may spend on LLM calls
--llm-strict              the first fallback to a rule twin is an error
--allow-fallback          succeed even when a role fell back on every decision

At the end of a run every role that fell back gets one line on stderr ("llm: negotiator: 11 of 11
decisions fell back to the rule twin: connection refused"); a role that never once decided with the
model makes the command exit with `FALLBACK_EXIT` unless fallbacks are allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from parley.cli.common import error_console, fail
from parley.errors import ScenarioError

if TYPE_CHECKING:  # the LLM client layer (httpx, pydantic) loads only when an LLM flag or agent is used
    from rich.console import Console

    from parley.cli.batch import Batch, Progress
    from parley.experiments.task_store import TaskStore
    from parley.llm.config import LLMRuntime, LLMSettings
    from parley.llm.context import LLMSession
    from parley.llm.judge import LLMJudge
    from parley.llm.mediator import LLMOfferMediator

LLM_AGENTS = ("llm", "astra-llm")
"""Agents whose `create` options get the session's LLM side (``llm=...``)."""

FALLBACK_EXIT = 3
"""Exit code of a run in which some LLM role decided nothing with its model (see --allow-fallback)."""


def parse_role_override(text: str) -> tuple[str, str]:
    """Split ``ROLE=SPEC``.

    Raises:
        ScenarioError: no ``=`` or an empty side.
    """
    role, sep, spec = text.partition("=")
    if not sep or not role.strip() or not spec.strip():
        raise ScenarioError(f"--llm-role expects ROLE=SPEC (e.g. judge=openai:gpt-4o), got {text!r}")
    return role.strip(), spec.strip()


def llm_options_from_cli(
    llm: str | None,
    role_overrides: Sequence[str],
    config: Path | None,
    *,
    record: Path | None = None,
    replay: Path | None = None,
    budget_seconds: float | None = None,
    budget_tokens: int | None = None,
    strict: bool = False,
    allow_fallback: bool = False,
) -> LLMSettings:
    """Settings from the LLM flags of `parley run` (flags override the config file; the switches
    strict and allow_fallback only ever turn a setting on).

    Raises:
        ScenarioError: a bad spec, override, config file, or both --record and --replay.
    """
    from parley.llm.config import LLMSettings, load_settings, settings_from_mapping

    given: dict[str, Any] = {
        "default": llm,
        "record": record,
        "replay": replay,
        "budget_seconds": budget_seconds,
        "budget_tokens": budget_tokens,
        "strict": strict or None,
        "allow_fallback": allow_fallback or None,
    }
    overrides = {name: value for name, value in given.items() if value is not None}
    try:
        base = load_settings(config) if config is not None else LLMSettings()
    except UnicodeDecodeError as error:  # (load_settings turns only OSError and YAML errors into one)
        raise ScenarioError(
            f"cannot read LLM config: not UTF-8 text (byte {error.start})", source=str(config)
        ) from None
    data = base.model_dump(exclude_unset=True, mode="json")
    data.update(overrides)
    roles = dict(data.get("roles", {}))
    for text in role_overrides:
        role, spec = parse_role_override(text)
        roles[role] = spec
    data["roles"] = roles
    return settings_from_mapping(data, source="command line")


@dataclass(frozen=True)
class LLMWiring:
    """The LLM pieces of one `parley run` session.

    Attributes:
        session: The session's LLM side; call ``session.finish(result.trajectory)`` after the run.
        agent_options: Per party, the options to pass to `create` (only parties playing an agent of
            `LLM_AGENTS`: ``llm`` or ``astra-llm``).
        judge: An `LLMJudge` when a ``judge`` role is configured, else None (the rule judge plays).
        mediator: An `LLMOfferMediator` when a ``mediator`` role is configured, else None.
    """

    session: LLMSession
    agent_options: Mapping[str, Mapping[str, Any]]
    judge: LLMJudge | None
    mediator: LLMOfferMediator | None


def wire_llm(
    runtime: LLMRuntime,
    session_id: str,
    agents: Mapping[str, str],
    allocation: Mapping[str, Any] | None = None,
) -> LLMWiring:
    """Everything `parley run` hands the session when LLM flags are given.

    Args:
        runtime: Built once per run from `llm_options_from_cli`'s settings (close it at the end).
        session_id: Name of the session in usage summaries.
        agents: Agent name per party.
        allocation: The scenario's division issues (``Scenario.metadata["allocation"]``), handed to
            the LLM negotiator and mediator so offers are said as who takes what.

    Raises:
        LLMError: an LLM role is needed but nothing is configured for it.
    """
    from parley.llm.judge import LLMJudge
    from parley.llm.mediator import LLMOfferMediator

    llm = runtime.session(session_id)
    options: dict[str, dict[str, Any]] = {}
    for party, agent in agents.items():
        if agent in LLM_AGENTS:
            options[party] = {"llm": llm}
            if agent == "llm" and allocation:
                options[party]["allocation"] = allocation
    roles = runtime.settings.roles
    judge = LLMJudge(llm) if "judge" in roles else None
    mediator = LLMOfferMediator(llm, allocation=allocation or None) if "mediator" in roles else None
    return LLMWiring(llm, options, judge, mediator)


LLM_FLAGS = ("llm", "llm_role", "llm_config", "record", "replay")
"""The names of the LLM flags every command that can use an LLM accepts."""


def any_llm_flag(flags: Mapping[str, Any]) -> bool:
    """Whether any LLM flag was given (an empty --llm "" counts: it is refused as a spec, not ignored)."""
    return any(flags.get(name) not in (None, [], ()) for name in LLM_FLAGS)


def _notice(line: str) -> None:
    error_console.print(line, markup=False, highlight=False, soft_wrap=True)


@contextmanager
def open_runtime(flags: Mapping[str, Any], *, report: bool = True) -> Generator[LLMRuntime]:
    """The run's LLM runtime built from the LLM flags (closed on exit).

    An endpoint's first failure is announced on stderr at once, in one line.

    Args:
        flags: The command's LLM flags by parameter name (llm, llm_role, llm_config, record, replay,
            llm_budget_seconds, llm_budget_tokens, llm_strict, allow_fallback; missing ones are unset).
        report: Call `report_fallbacks` when the block ends normally (pass False to call it yourself
            after the results are shown and saved).

    Raises:
        ScenarioError: a bad spec, override or config file, or both --record and --replay.
        LLMError: an endpoint's API key is missing from the environment.
        typer.Exit: with `FALLBACK_EXIT`, from `report_fallbacks`.
    """
    from parley.llm.config import LLMRuntime

    settings = llm_options_from_cli(
        flags.get("llm"),
        flags.get("llm_role") or [],
        flags.get("llm_config"),
        record=flags.get("record"),
        replay=flags.get("replay"),
        budget_seconds=flags.get("llm_budget_seconds"),
        budget_tokens=flags.get("llm_budget_tokens"),
        strict=bool(flags.get("llm_strict")),
        allow_fallback=bool(flags.get("allow_fallback")),
    )
    with LLMRuntime(settings, notify=_notice) as runtime:
        yield runtime
        if report:
            report_fallbacks(runtime)


def report_fallbacks(runtime: LLMRuntime) -> None:
    """Print one line per role that fell back, then fail if a role never decided with its model.

    Raises:
        typer.Exit: with `FALLBACK_EXIT` when every decision of some role fell back and the
            settings do not allow it.
    """
    summary = runtime.ledger.summary()
    for line in summary.fallback_lines():
        _notice(line)
    failed = summary.all_fallback_roles()
    if failed and not runtime.settings.allow_fallback:
        fail(
            f"llm: every decision of {', '.join(failed)} fell back to the rule twin, so the model played "
            "no part; fix the endpoint or pass --allow-fallback",
            code=FALLBACK_EXIT,
        )


class ExperimentRoles(Protocol):
    """The roles an experiment's LLM plays (`experiments.astra.llm.RoleChoice` and gaia's)."""

    @property
    def roles(self) -> tuple[str, ...]: ...

    @property
    def overrides(self) -> tuple[str, ...]: ...

    @property
    def explicit(self) -> bool: ...


ChoiceT = TypeVar("ChoiceT", bound=ExperimentRoles)
PlayedT = TypeVar("PlayedT")
PlayedT_co = TypeVar("PlayedT_co", covariant=True)


class ExperimentPlay(Protocol[PlayedT_co]):
    """An experiment's `run_with_llm` with its specs, runtime and roles bound: plays every session
    (the LLM-played ones in this process, the others in jobs processes or on the scheduler)."""

    def __call__(
        self, *, jobs: int, progress: Progress, store: TaskStore, scheduler: str | None
    ) -> PlayedT_co: ...


@contextmanager
def experiment_llm(
    flags: Mapping[str, Any], choose_roles: Callable[[Sequence[str]], ChoiceT]
) -> Generator[tuple[LLMRuntime, ChoiceT] | None]:
    """An experiment's LLM runtime and chosen roles (choose_roles reads --llm-role), or None when
    no LLM flag is given.

    Raises:
        ScenarioError: a bad spec, role, config file or set of flags; a chosen role without endpoint.
        LLMError: an endpoint's API key is missing.
    """
    from parley.experiments.llm_roles import check_endpoints

    if not any_llm_flag(flags):
        yield None
        return
    choice = choose_roles(flags.get("llm_role") or [])
    with open_runtime({**flags, "llm_role": list(choice.overrides)}, report=False) as runtime:
        check_endpoints(runtime.settings, choice)
        runtime.session("check")  # a missing API key fails here, before anything is played
        yield runtime, choice


def play_experiment_llm(
    batch: Batch,
    settings: Mapping[str, Any],
    runtime: LLMRuntime,
    choice: ExperimentRoles,
    *,
    label: str,
    total: int,
    play: ExperimentPlay[PlayedT],
    console: Console,
) -> tuple[PlayedT, dict[str, str]]:
    """An experiment's sessions with its LLM roles: the run store opened with the LLM set-up in its
    header (a store made with another is refused), a note on console when --jobs or --scheduler is
    given (the LLM-played sessions run in this process), then play with the batch's workers, store
    and progress bar.

    Args:
        settings: The experiment's options that change what a run stores (without the LLM ones).
        label: The experiment's name in the note ("GAIA", "ASTRA").
        total: How many sessions play plays (the progress bar's length).
        console: Where the note goes (the command's own console).

    Returns:
        What play returned, and the model configured per chosen role.

    Raises:
        typer.Exit: the store cannot be opened, or play stopped or failed (a replay miss, a fallback
            under --llm-strict; see `Batch.open_store` and `Batch.guard`), with a one-line error.
    """
    from parley.experiments.llm_roles import configured_models, store_settings

    run_store = batch.open_store({**settings, "llm": store_settings(runtime.settings, choice)})
    if batch.jobs > 1 or batch.scheduler is not None:
        console.print(
            f"note: the LLM-played {label} sessions run in this process, one at a time (an LLM runtime "
            "holds its client); --jobs and --scheduler serve the rule-based sessions only",
            markup=False,
            highlight=False,
        )
    played = batch.run(
        total,
        lambda progress: play(jobs=batch.jobs, progress=progress, store=run_store, scheduler=batch.scheduler),
    )
    return played, configured_models(runtime.settings, choice)


def experiment_llm_command(choice: ExperimentRoles, flags: Mapping[str, Any]) -> str:
    """An experiment's LLM options as its report quotes them (no endpoint: the report names the models)."""
    text = " --llm SPEC" if flags.get("llm") is not None else ""
    text += " --replay DIR" if flags.get("replay") is not None else ""
    text += " --llm-config FILE" if flags.get("llm_config") is not None else ""
    if choice.explicit:
        text += "".join(f" --llm-role {role}" for role in choice.roles)
    return text + (" --allow-fallback" if flags.get("allow_fallback") else "")


def report_experiment_fallbacks(lines: Sequence[str], failed: Sequence[str], *, allow: bool) -> None:
    """One stderr line per role that fell back (over every session of the report, resumed ones
    included); exit with `FALLBACK_EXIT` when some role (failed) never once decided with its model,
    unless allowed."""
    for line in lines:
        error_console.print(line, markup=False, highlight=False, soft_wrap=True)
    if failed and not allow:
        fail(
            f"llm: every decision of {', '.join(failed)} fell back to the rule twin, so the model played "
            "no part; fix the endpoint or pass --allow-fallback",
            code=FALLBACK_EXIT,
        )

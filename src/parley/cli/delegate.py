"""`parley delegate ...`: run, chat with, check, classify and decide for the GAIA governed delegate."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Generator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from parley.cli.app import app, experiment_app
from parley.cli.batch import Batch, QuietOption, SchedulerOption, StoreOption
from parley.cli.extras import require_extra
from parley.cli.options import (
    MAX_COUNT,
    MAX_JOBS,
    AllowFallbackOption,
    BudgetSecondsOption,
    BudgetTokensOption,
    LLMConfigOption,
    LLMOption,
    LLMStrictOption,
    RecordOption,
    ReplayOption,
    require_utf8,
)
from parley.errors import ParleyError
from parley.governance.safe_text import printable

if TYPE_CHECKING:  # the delegate's modules (pydantic configs, numpy) load when a command runs
    from parley.experiments.gaia.llm import PlayedSession, RoleChoice
    from parley.experiments.gaia.runs import SessionSpec
    from parley.governance.config import DomainConfig
    from parley.governance.counterparties import Counterparty
    from parley.governance.escalation import EscalationRequest, Principal
    from parley.governance.session import DelegateRoles, SessionOutcome
    from parley.governance.store import SessionStore
    from parley.llm.config import LLMRuntime
    from parley.llm.context import LLMSession

console = Console(highlight=False, soft_wrap=True)
error_console = Console(stderr=True, highlight=False, soft_wrap=True)
delegate_app = typer.Typer(
    no_args_is_help=True, help="GAIA: a governed delegate that screens and negotiates."
)
app.add_typer(delegate_app, name="delegate")

DEFAULT_DB = Path(".parley") / "delegate.db"
PERSONA_NAMES = ("cooperative", "adversarial", "slow", "contradictory")
"""The simulated counterparties' personas, named in `--help` without importing the governance package
(the same as `parley.governance.counterparties.PERSONAS`, which tests/cli/test_startup_imports.py checks)."""
DbOption = Annotated[Path, typer.Option("--db", help="SQLite file holding sessions and the audit log.")]
ConfigArgument = Annotated[
    str, typer.Argument(help="A shipped config (staffing, procurement, leasing) or a path.")
]


class WallClock:
    """Seconds since the Unix epoch: the CLI's clock, so audit timestamps are real times."""

    def now(self) -> float:
        return time.time()


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error and exit (message is plain text, never rich markup)."""
    from parley.cli.common import fail as fail_in_one_line

    fail_in_one_line(message, code)


def _check_db(db: Path) -> None:
    """Fail in one line, creating nothing, if a database cannot be created or opened at db."""
    from parley.cli.common import check_writable

    check_writable(db, "open the database")
    if db.is_file() and db.stat().st_size > 0 and _not_sqlite(db):
        fail(f"{db}: not a delegate database (not an SQLite file)")


_SQLITE_HEADER = b"SQLite format 3\x00"


def _not_sqlite(db: Path) -> bool:
    """Whether db holds something other than an SQLite database: SQLite takes any file shorter than
    its 100-byte header for an empty database, and would write its tables over it."""
    if Path(f"{db}-wal").exists():  # (a database whose pages are all still in its write-ahead log)
        return False
    try:
        with db.open("rb") as file:
            return file.read(len(_SQLITE_HEADER)) != _SQLITE_HEADER
    except OSError as error:
        fail(f"{db}: cannot read the database ({error.strerror or error})")


def _config(name_or_path: str) -> DomainConfig:
    from parley.governance.config import load_config

    try:
        return load_config(name_or_path)
    except ParleyError as error:
        fail(str(error))
    except OSError as error:  # a name too long to be a path, a file that vanished while read
        fail(f"cannot read config {name_or_path}: {error.strerror or error}")


_SHOWN = 300


def _shown(text: str) -> str:
    """text cut to a screenful (a 25,000-character draft is not echoed whole)."""
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}… ({len(text):,} characters)"


def _utf8(text: str, what: str) -> str:
    """text, or a one-line error if the command line carried bytes that are not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        fail(f"--{what}: not valid UTF-8 (byte {error.start})")
    return text


def _lines(content: str) -> list[str]:
    """The non-blank lines of content, split on newline only (one trailing carriage return dropped).

    `str.splitlines` would also split on U+2028, U+2029, NEL, vertical tab and form feed, cutting a
    draft in two ("We acc\u2028ept."); inside a line the normaliser reads those characters. Only
    spaces and tabs are trimmed: a line of control characters is a draft, and is checked.
    """
    lines = (line[:-1] if line.endswith("\r") else line for line in content.split("\n"))
    return [trimmed for trimmed in (line.strip(" \t") for line in lines) if trimmed]


def _texts(single: str | None, file: Path | None, what: str) -> list[str]:
    if single is None and file is None:
        fail(f"give --{what} TEXT or --file PATH (one {what} per line)")
    if single is not None and not single.strip():
        fail(f"--{what} is empty: give the text to check")
    texts = [_utf8(single, what)] if single is not None else []
    if file is not None:
        from parley.cli.common import is_file

        if os.path.isdir(file):
            fail(f"{file}: is a directory, not a file")
        if not is_file(file):
            fail(f"{file}: no such file")
        try:
            content = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            fail(f"{file}: not UTF-8 text (byte {error.start})")
        lines = _lines(content)
        if not lines:
            fail(f"{file}: no {what} in it (one {what} per line)")
        texts += lines
    return texts


def _print_message(speaker: str, text: str) -> None:
    style = "cyan" if speaker == "delegate" else "green"
    console.print(f"[bold {style}]{speaker}:[/] {escape(printable(text))}")


def render_request(request: EscalationRequest) -> None:
    """Show an escalation request the way the principal sees it."""
    ledger = request.ledger
    revealed = escape(printable(", ".join(f"{k}={v}" for k, v in dict(ledger.get("revealed", {})).items())))
    revealed = revealed or "none"
    lines = [
        f"[bold]Situation[/] ({request.state}): TCI {float(ledger.get('tci', 0)):.2f} "
        f"(weighted {float(ledger.get('tci_weighted', 0)):.2f}); known: {revealed}",
        f"Missing: {escape(printable(', '.join(ledger.get('missing', [])))) or 'nothing'}",
        *(f"  {speaker}: {escape(printable(text))}" for speaker, text in request.last_messages),
        f"[bold]Problem[/]: {escape(printable(request.problem))}",
    ]
    if request.safety_events:
        lines.append(f"Safety events: {escape(printable('; '.join(request.safety_events)))}")
    lines += [
        f"  ({o.key}) {escape(printable(o.title))}: {escape(printable(o.trade_offs))}"
        for o in request.options
    ]
    lines.append(f"[bold]Request[/]: {escape(printable(request.ask))}")
    title = escape(f"Escalation {request.request_id} [{request.trigger.value}]")
    console.print(Panel("\n".join(lines), title=title, border_style="red"), soft_wrap=False)


def _principal(spec: str | None) -> Principal:
    from parley.governance.escalation import PolicyPrincipal, StoredPrincipal

    if spec is None or spec == "stored":
        return StoredPrincipal()
    try:
        return PolicyPrincipal.load(spec)
    except ParleyError as error:
        fail(str(error))
    except (OSError, UnicodeDecodeError) as error:  # a folder, an unreadable or non-UTF-8 file
        fail(f"{spec}: cannot read the policy file ({error})")


def _report(outcome: SessionOutcome, db: Path) -> None:
    console.print(f"session [bold]{outcome.session_id}[/]: {outcome.state.value} after {outcome.turns} turns")
    if outcome.terms:
        console.print(f"terms: {json.dumps(outcome.terms)}")
    if outcome.pending is not None:
        render_request(outcome.pending)
        console.print(
            f"decide with: parley delegate decide {outcome.session_id} "
            f"--request {outcome.pending.request_id} --option A --db {db}"
        )


LLMRoleOption = Annotated[
    list[str] | None,
    typer.Option(help="Per-role endpoint ROLE=SPEC (drafter, extractor, moderator, critic; repeatable)."),
]
RolesOption = Annotated[
    str | None,
    typer.Option(
        help="GAIA roles backed by the LLM: some of drafter,extractor,moderator,critic "
        "(default with an LLM flag: all four; the others stay rule-based)."
    ),
]


@contextmanager
def _delegate_llm(
    domain: DomainConfig, flags: dict[str, Any], session_id: str, seed: int = 0
) -> Generator[tuple[DelegateRoles | None, LLMSession | None]]:
    """The LLM-backed delegate roles of a run: none unless --roles or an LLM flag is given."""
    from parley.cli.llm import any_llm_flag, open_runtime

    if flags["roles"] is None and not any_llm_flag(flags):
        yield None, None
        return
    from parley.llm.gaia import GAIA_ROLES, llm_delegate_roles, parse_roles

    chosen = parse_roles(flags["roles"]) if flags["roles"] is not None else GAIA_ROLES
    with open_runtime(flags) as runtime:
        llm = runtime.session(session_id)
        yield llm_delegate_roles(domain, llm, chosen, seed=seed), llm


def _print_usage(llm: LLMSession | None) -> None:
    """Raise a pending replay miss, then show the LLM usage table (nothing without an LLM)."""
    if llm is None:
        return
    from parley.protocol.events import Trajectory

    usage = llm.finish(Trajectory())
    console.print("LLM usage:", markup=False)
    console.print(usage.render(), markup=False, highlight=False)


VerifierOption = Annotated[
    str | None,
    typer.Option(
        help="Check the counterparty's claims with a verifier: registry:PATH (a YAML/JSON file of known "
        "claims), http:URL (a web service), or NAME[:ARG] from the parley.verifiers entry points.",
        callback=require_utf8,
    ),
]
ClaimsOption = Annotated[
    str | None,
    typer.Option(
        help="Fields that are claims to check, comma-separated (default: the config's verification.claims).",
        callback=require_utf8,
    ),
]


def _with_verifier(domain: DomainConfig, spec: str | None, claims: str | None) -> DomainConfig:
    """domain with the claim checks of --verifier and --claims, checked now (one-line errors, before
    any database is created); a registry path is made absolute for later `decide`s elsewhere."""
    if spec is None:
        if claims is not None:
            fail("--claims needs --verifier SPEC (registry:PATH, http:URL or NAME[:ARG])")
        return domain
    from parley.governance.verification import load_verifier

    kind, _, argument = spec.partition(":")
    if kind == "registry" and argument:
        spec = f"registry:{Path(argument).expanduser().resolve()}"
    try:
        load_verifier(spec, timeout=domain.verification.timeout)
    except ParleyError as error:
        fail(str(error))
    names = domain.verification.claims
    if claims is not None:
        names = tuple(name.strip() for name in claims.split(",") if name.strip())
    fields = ", ".join(domain.field_names)
    if not names:
        fail(f"--verifier needs the fields to check: --claims FIELD,... (fields: {fields})")
    unknown = [name for name in names if name not in domain.field_names]
    if unknown:
        fail(f"--claims: unknown field {unknown[0]!r}; expected some of {fields}")
    settings = domain.verification.model_copy(update={"verifier": spec, "claims": names})
    return domain.model_copy(update={"verification": settings})


@delegate_app.command("run")
def run_command(
    config: ConfigArgument,
    counterparty: Annotated[
        str,
        typer.Option(
            help=f"Simulated persona: {', '.join(PERSONA_NAMES)}; a comma list (names may repeat) runs one "
            "session per counterparty for the same principal and compares their offers."
        ),
    ] = "cooperative",
    principal: Annotated[
        str | None, typer.Option(help="Policy YAML of scripted decisions, or 'stored' to decide later.")
    ] = None,
    db: DbOption = DEFAULT_DB,
    seed: Annotated[int, typer.Option(help="Seed for the counterparty and the drafter.")] = 0,
    parallel: Annotated[
        bool, typer.Option("--parallel", help="Several counterparties: interleave them turn by turn.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Several counterparties: print the comparison as JSON.")
    ] = False,
    roles: RolesOption = None,
    llm: LLMOption = None,
    llm_role: LLMRoleOption = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
    verifier: VerifierOption = None,
    claims: ClaimsOption = None,
) -> None:
    """Run one session against a simulated counterparty, or one per counterparty of a comma list."""
    from parley.governance.counterparties import SimulatedCounterparty
    from parley.governance.session import run_session
    from parley.governance.store import SessionStore

    domain = _with_verifier(_config(config), verifier, claims)
    who = _principal(principal)
    _check_db(db)
    flags = {"roles": roles, "llm": llm, "llm_role": llm_role, "llm_config": llm_config}
    flags |= {"record": record, "replay": replay}
    if "," in counterparty or parallel or as_json:  # a portfolio: several counterparties, one principal
        from parley.cli.delegate_portfolio import run_portfolio_command

        run_portfolio_command(
            domain, config, counterparty, who, db, seed=seed, parallel=parallel, as_json=as_json, flags=flags
        )
        return
    try:
        party = SimulatedCounterparty(domain, counterparty, seed)
        with _delegate_llm(domain, flags, f"{domain.name}-{counterparty}-s{seed}", seed) as (
            plugged,
            llm_side,
        ):  # (the database is created once the LLM flags are known to be good)
            outcome = run_session(
                domain,
                party,
                who,
                SessionStore(db),
                config_source=config,
                seed=seed,
                clock=WallClock(),
                on_message=_print_message,
                roles=plugged,
            )
            _report(outcome, db)
            _print_usage(llm_side)
    except ParleyError as error:
        fail(str(error))


def _ask(prompt: str) -> str:
    return str(typer.prompt(prompt))


class _HumanCounterparty:
    """The person at the terminal plays the counterparty (empty line: no reply this round)."""

    name = "human"

    def respond(self, message: str | None) -> str | None:
        answer = typer.prompt("you", default="", show_default=False)
        if answer.strip() == "/quit":
            raise typer.Exit(0)
        return answer or None

    def to_json(self) -> dict[str, Any]:
        return {"kind": "detached", "name": "human"}


@delegate_app.command("chat")
def chat_command(
    config: ConfigArgument,
    db: DbOption = DEFAULT_DB,
    roles: RolesOption = None,
    llm: LLMOption = None,
    llm_role: LLMRoleOption = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
) -> None:
    """Play the counterparty yourself; principal decisions are asked in the same terminal."""
    from parley.governance.escalation import InteractivePrincipal
    from parley.governance.session import run_session
    from parley.governance.store import SessionStore

    domain = _config(config)
    _check_db(db)
    console.print(f"You are the {domain.counterparty_role}. Empty line = no reply; /quit to leave.")
    principal = InteractivePrincipal(render_request, _ask, "terminal")
    party: Counterparty = _HumanCounterparty()
    flags = {"roles": roles, "llm": llm, "llm_role": llm_role, "llm_config": llm_config}
    flags |= {"record": record, "replay": replay}
    try:
        with _delegate_llm(domain, flags, f"{domain.name}-chat") as (plugged, llm_side):
            outcome = run_session(
                domain,
                party,
                principal,
                SessionStore(db),
                config_source=config,
                clock=WallClock(),
                on_message=lambda s, t: _print_message(s, t) if s == "delegate" else None,
                roles=plugged,
            )
            _report(outcome, db)
            _print_usage(llm_side)
    except ParleyError as error:
        fail(str(error))


@delegate_app.command("decide")
def decide_command(
    session: Annotated[str, typer.Argument(help="The paused session's id.", callback=require_utf8)],
    request: Annotated[
        str | None,
        typer.Option(
            "--request",
            help="The escalation request this decision answers (shown by `inbox`); without it the "
            "pending request is shown and you are asked to confirm (a terminal is needed).",
            callback=require_utf8,
        ),
    ] = None,
    option: Annotated[
        str | None, typer.Option(help="Option letter to approve (A, B, C...).", callback=require_utf8)
    ] = None,
    guidance: Annotated[
        str, typer.Option(help="Free-text guidance instead of (or with) an option.", callback=require_utf8)
    ] = "",
    by: Annotated[
        str, typer.Option("--by", help="Who is deciding (recorded in the audit log).", callback=require_utf8)
    ] = "principal",
    confirm_limit: Annotated[
        float | None,
        typer.Option(help="Repeat the new limit to confirm a raise far beyond the current one."),
    ] = None,
    principal: Annotated[str | None, typer.Option(help="Policy YAML for later escalations.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Answer one stored escalation request and resume the session from storage."""
    from parley.governance.session import decide

    if option is not None and not option.strip():
        fail("--option is empty: give the letter of an option (A, B, C...)")
    store = open_store(db)
    later = _principal(principal)
    request_id = request if request is not None else _confirm_pending(store, session, option, guidance)
    try:
        outcome = decide(
            store,
            session,
            request_id=request_id,
            option=option,
            guidance=guidance,
            decided_by=by,
            confirm_limit=confirm_limit,
            principal=later,
            clock=WallClock(),
            on_message=_print_message,
        )
    except ParleyError as error:
        fail(str(error))
    if outcome.replayed:
        console.print(f"decision for {request_id} was already applied; nothing changed")
    _report(outcome, db)


def open_store(db: Path) -> SessionStore:
    """The delegate database at db (which must exist), or a one-line error."""
    from parley.cli.common import is_file
    from parley.governance.store import SessionStore

    if os.path.isdir(db):
        fail(f"{db}: is a directory, not a delegate database")
    if not is_file(db):
        fail(f"{db}: no such database")
    if db.stat().st_size == 0:  # (SQLite would take it for an empty database and write its tables)
        fail(f"{db}: an empty file, not a delegate database")
    if _not_sqlite(db):
        fail(f"{db}: not a delegate database (not an SQLite file)")
    try:
        return SessionStore(db)
    except ParleyError as error:
        fail(str(error))


def _confirm_pending(store: SessionStore, session: str, option: str | None, guidance: str) -> str:
    """Show the pending request and ask the person to confirm the decision is meant for it."""
    try:
        pending = store.open_request(session)
        store.load_session(session)
    except ParleyError as error:
        fail(str(error))
    if pending is None:
        fail(f"session {session!r} has no pending request")
    if not sys.stdin.isatty():
        fail(f"give --request {pending.request_id} (the request pending now) to decide without a terminal")
    render_request(pending)
    chosen = f"option {option.upper()}" if option else f"guidance {guidance!r}"
    if not typer.confirm(f"Apply {chosen} to request {pending.request_id}?", default=False):
        fail("nothing decided")
    return pending.request_id


@delegate_app.command("start")
def start_command(
    config: ConfigArgument,
    db: DbOption = DEFAULT_DB,
    verifier: VerifierOption = None,
    claims: ClaimsOption = None,
) -> None:
    """Open a session with a real counterparty on an asynchronous channel; prints the first message."""
    from parley.governance.counterparties import DetachedCounterparty
    from parley.governance.session import start_session
    from parley.governance.store import SessionStore

    domain = _with_verifier(_config(config), verifier, claims)
    _check_db(db)
    try:
        store = SessionStore(db)
        runner, step = start_session(
            domain, DetachedCounterparty(), store, config_source=config, clock=WallClock()
        )
    except ParleyError as error:
        fail(str(error))
    if step.outgoing is not None:
        _print_message("delegate", step.outgoing)
    session = runner.delegate.session_id
    console.print(
        f"session [bold]{session}[/]: send the message above, then: "
        f"parley delegate reply {session} --message TEXT --db {db}"
    )


@delegate_app.command("reply")
def reply_command(
    session: Annotated[
        str, typer.Argument(help="The session the message belongs to.", callback=require_utf8)
    ],
    message: Annotated[str, typer.Option(help="The counterparty's message (e.g. an e-mail body).")],
    principal: Annotated[str | None, typer.Option(help="Policy YAML for escalations it triggers.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Feed one inbound counterparty message to a stored session (asynchronous channels)."""
    if not message.strip():
        fail("--message is empty: give the counterparty's message")
    from parley.governance.session import reply

    store = open_store(db)
    try:
        outcome = reply(
            store,
            session,
            _utf8(message, "message"),
            principal=_principal(principal),
            clock=WallClock(),
            on_message=_print_message,
        )
    except ParleyError as error:
        fail(str(error))
    _report(outcome, db)


@delegate_app.command("resume")
def resume_command(
    session: Annotated[
        str, typer.Argument(help="A stored session whose process stopped mid-run.", callback=require_utf8)
    ],
    principal: Annotated[str | None, typer.Option(help="Policy YAML for escalations it triggers.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Continue a session against its simulated counterparty after its process was stopped."""
    from parley.governance.session import resume_session

    store = open_store(db)
    try:
        outcome = resume_session(
            store, session, principal=_principal(principal), clock=WallClock(), on_message=_print_message
        )
    except ParleyError as error:
        fail(str(error))
    _report(outcome, db)


@delegate_app.command("inbox")
def inbox_command(db: DbOption = DEFAULT_DB) -> None:
    """List sessions waiting for a principal's decision; a portfolio's sessions follow it, ruled off."""
    from parley.governance.portfolio import inbox_entries

    store = open_store(db)
    table = Table("session", "request", "trigger", "problem")
    for column in table.columns[:3]:
        column.no_wrap = True
    group: str | None = None
    for entry in inbox_entries(store):
        session = escape(entry.session_id)
        try:
            request = store.open_request(entry.session_id)
        except ParleyError as error:  # a tampered record is shown as such, never read as a request
            cells = (session, "?", "refused", escape(printable(str(error))))
        else:
            if request is None:
                continue
            problem = escape(printable(request.problem))
            cells = (session, escape(request.request_id), request.trigger.value, problem)
        if table.rows and entry.group != group:
            table.add_section()
        group = entry.group
        table.add_row(*cells)
    console.print(table if table.rows else "no open requests")


memory_app = typer.Typer(
    no_args_is_help=True,
    help="The principals' earlier decisions, offered as suggestions in escalations (never applied).",
)
delegate_app.add_typer(memory_app, name="memory")
PrincipalFilter = Annotated[
    str | None,
    typer.Option(
        "--principal", help="Only this principal (the name decisions were made --by).", callback=require_utf8
    ),
]
DomainFilter = Annotated[
    str | None, typer.Option("--domain", help="Only this domain (a config's name).", callback=require_utf8)
]


def _scope(principal: str | None, domain: str | None) -> str:
    who = f"principal {principal!r}" if principal is not None else "every principal"
    return f"{who}, {f'domain {domain!r}' if domain is not None else 'every domain'}"


def _entries(count: int) -> str:
    return f"{count} memory {'entry' if count == 1 else 'entries'}"


def _at_terminal() -> bool:
    return sys.stdin.isatty()


@memory_app.command("show")
def memory_show_command(
    principal: PrincipalFilter = None,
    domain: DomainFilter = None,
    config: Annotated[
        str | None,
        typer.Option(help="Weigh entries with this config's memory settings (default: the built-in ones)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """List what the principals decided in earlier sessions, newest first, with each entry's weight."""
    from parley.governance.config import MemorySettings
    from parley.governance.memory import PrincipalMemory
    from parley.jsonio import dumps

    settings = _config(config).memory if config is not None else MemorySettings()
    store = open_store(db)
    try:
        remembered = PrincipalMemory(store).remembered(
            settings, time.time(), principal=principal, domain=domain
        )
    except ParleyError as error:  # a memory its audit record does not back is refused, not shown
        fail(str(error), code=1)
    if as_json:
        document = {
            "settings": settings.model_dump(mode="json"),
            "entries": [r.to_json() for r in remembered],
        }
        typer.echo(dumps(document, indent=2))
        return
    if not remembered:
        console.print(f"no memory entries ({_scope(principal, domain)})", markup=False)
        return
    for item in remembered:  # one line per entry, newest first
        entry = item.entry
        approved = " ".join(f"{term}={amount:g}" for term, amount in entry.approved.items())
        said = f' guidance "{_shown(entry.guidance)}"' if entry.guidance else ""
        weight = f"weight {item.weight:.2f}" + (" (stale)" if item.stale else "")
        line = (
            f"{time.strftime('%Y-%m-%d', time.gmtime(entry.decided_at))} {entry.principal} {entry.domain} "
            f"{entry.request_id} {entry.trigger}: {entry.option or '-'} {entry.effect}"
            f"{f' approved {approved}' if approved else ''}{said}; {weight}"
        )
        console.print(printable(line), markup=False)


@memory_app.command("forget")
def memory_forget_command(
    principal: PrincipalFilter = None,
    domain: DomainFilter = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask (required when not at a terminal).")] = False,
    by: Annotated[
        str,
        typer.Option("--by", help="Who is forgetting (recorded in the audit log).", callback=require_utf8),
    ] = "principal",
    db: DbOption = DEFAULT_DB,
) -> None:
    """Remove memory entries (of a principal, a domain, both, or all); the removal is audited."""
    from parley.governance.memory import PrincipalMemory

    store = open_store(db)
    scope = _scope(principal, domain)
    count = len(store.memory_rows(principal=principal, domain=domain))
    if count == 0:
        console.print(f"nothing to forget ({scope})", markup=False)
        return
    if not yes:
        if not _at_terminal():
            fail(f"refusing to forget {_entries(count)} ({scope}) without --yes when not at a terminal")
        if not typer.confirm(f"Forget {_entries(count)} ({scope})?", default=False):
            fail("nothing forgotten")
    try:
        removed = PrincipalMemory(store).forget(principal=principal, domain=domain, by=by, now=time.time())
    except ParleyError as error:
        fail(str(error), code=1)
    console.print(
        f"forgot {_entries(removed)} ({scope}); recorded in audit log {store.memory_log}", markup=False
    )


@delegate_app.command("check")
def check_command(
    config: ConfigArgument,
    draft: Annotated[str | None, typer.Option(help="One outgoing draft to preflight.")] = None,
    file: Annotated[Path | None, typer.Option(help="A file with one draft per line.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """Run the preflight commitment check on outgoing drafts."""
    from parley.governance.preflight import preflight

    domain = _config(config)
    for text in _texts(draft, file, "draft"):
        result = preflight(text, domain)
        if as_json:
            typer.echo(json.dumps(result.to_json()))
            continue
        verdict = "[red]NEEDS APPROVAL[/]" if result.requires_approval else "[green]OK to send[/]"
        console.print(f"{verdict}  {escape(_shown(printable(text)))}")
        for problem in result.problems:
            console.print(f"  {_shown(printable(problem))}", markup=False)
        for commitment in result.commitments:
            reason = f" ({commitment.reason})" if commitment.reason else ""
            shown = _shown(printable(commitment.sentence))
            console.print(f"  binding language: {commitment.cue!r} in {shown!r}{reason}", markup=False)
        for breach in result.breaches:
            console.print(f"  boundary: {breach.term} {breach.value} ({breach.kind}, limit {breach.limit})")
        for topic in result.topics:
            console.print(f"  prohibited: {topic.topic} ({topic.phrase!r}, {topic.severity})", markup=False)
        for disclosure in result.disclosures:
            console.print(f"  limit disclosure: {disclosure.describe()}", markup=False)
        for near in result.approaching:
            console.print(f"  warning: {near.term} {near.value} is close to the limit {near.limit}")
        if result.rewrite is not None:
            console.print(f"  non-binding rewrite: {result.rewrite}")


@delegate_app.command("classify")
def classify_command(
    config: ConfigArgument,
    message: Annotated[str | None, typer.Option(help="One counterparty message to classify.")] = None,
    file: Annotated[Path | None, typer.Option(help="A file with one message per line.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """Run the moderator on counterparty messages."""
    from parley.governance.moderator import RuleModerator
    from parley.governance.preflight import ECHOED_CHARS

    moderator = RuleModerator(_config(config))
    for text in _texts(message, file, "message"):
        result = moderator.classify(text)
        if as_json:
            echoed = {"message": text[:ECHOED_CHARS], "message_chars": len(text)}
            if len(text) <= moderator.max_chars:
                echoed = {"message": text}
            typer.echo(json.dumps({**echoed, **result.to_json()}))
            continue
        note = f" (top guess {result.top_label.value})" if result.label.value == "clarify" else ""
        console.print(
            f"[bold]{result.label.value}[/] {result.confidence:.2f}{note}  {escape(printable(text))}"
        )


GaiaRoleOption = Annotated[
    list[str] | None,
    typer.Option(
        "--llm-role",
        help="A delegate role a model plays: ROLE, or ROLE=SPEC for its own endpoint (repeatable; "
        "drafter, extractor, moderator, critic; default: all four). The others stay rule-based.",
    ),
]


@experiment_app.command("gaia")
def gaia_command(
    seeds: Annotated[
        int, typer.Option(min=1, max=MAX_COUNT, help="Seeds per domain × persona × condition.")
    ] = 10,
    out: Annotated[Path, typer.Option(help="Markdown report to write.")] = Path("docs/results/gaia.md"),
    figures: Annotated[
        Path | None, typer.Option(help="Folder for figures (default: next to the report).")
    ] = None,
    strategy: Annotated[
        str,
        typer.Option(
            help="The delegate's negotiation strategy in the Table 1 sessions: principal or legacy "
            "(the principal's-share section always compares both)."
        ),
    ] = "principal",
    split: Annotated[
        str | None,
        typer.Option(
            help="Run a declared seed split instead of seeds 0..N-1: tuning (0–19, the seeds the "
            "strategy was tuned on) or evaluation (100–139, never used for tuning; run once)."
        ),
    ] = None,
    sensitivity_seeds: Annotated[
        int,
        typer.Option(
            min=0,
            max=20,
            help="Tuning seeds (0..N-1) of the sensitivity analysis (each counterparty parameter varied "
            "low and high); 0 leaves it out.",
        ),
    ] = 2,
    jobs: Annotated[int, typer.Option("--jobs", min=1, max=MAX_JOBS, help="Worker processes.")] = 1,
    scheduler: SchedulerOption = None,
    store: StoreOption = None,
    quiet: QuietOption = False,
    llm: LLMOption = None,
    llm_role: GaiaRoleOption = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
    llm_budget_seconds: BudgetSecondsOption = None,
    llm_budget_tokens: BudgetTokensOption = None,
    llm_strict: LLMStrictOption = False,
    allow_fallback: AllowFallbackOption = False,
) -> None:
    """Reproduce the GAIA evaluation (Table 1 metrics, ablations, principal's share); write the report.

    With --llm (or --replay) a model plays the delegate's LLM roles (--llm-role chooses them) in the
    headline Table 1 arm; those sessions run in this process, one at a time, and the report gains an
    "LLM roles" section. Exits with 3 when a role never once decided with its model, unless
    --allow-fallback.
    """
    require_extra("plot", "parley experiment gaia")
    from parley.cli.common import check_writable
    from parley.experiments.gaia import STRATEGIES, write_results
    from parley.experiments.gaia.runs import (
        CONDITIONS,
        SEED_SPLITS,
        TUNING_SEEDS,
        SessionSpec,
        share_specs,
    )
    from parley.experiments.gaia.sensitivity import sensitivity_specs

    if strategy not in STRATEGIES:
        fail(f"unknown strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}", code=2)
    if split is not None and split not in SEED_SPLITS:
        fail(f"unknown split {split!r}; expected one of {', '.join(SEED_SPLITS)}", code=2)
    chosen = STRATEGIES[STRATEGIES.index(strategy)]
    seed_list = SEED_SPLITS[split] if split is not None else tuple(range(seeds))
    folder = figures or out.parent / "figures"
    check_writable(out, "write the report")
    check_writable(folder, "write the figures in", folder=True)
    batch = Batch("gaia", out, jobs, scheduler, store, quiet)
    other = "legacy" if chosen == "principal" else "principal"
    table1 = [SessionSpec("table1", d, p, s, chosen, c) for c in CONDITIONS for d, p, s in _cells(seed_list)]
    baseline = [SessionSpec("table1", d, p, s, other, CONDITIONS[0]) for d, p, s in _cells(seed_list)]
    shares = share_specs(seed_list)
    sensitivity = sensitivity_specs(chosen, TUNING_SEEDS[:sensitivity_seeds])  # (tuning seeds, any split)
    specs = [*table1, *baseline, *shares, *sensitivity]
    settings: dict[str, Any] = {"seeds": list(seed_list), "strategy": chosen}
    flags: dict[str, Any] = {"llm": llm, "llm_role": llm_role, "llm_config": llm_config}
    flags |= {"record": record, "replay": replay, "llm_budget_seconds": llm_budget_seconds}
    flags |= {"llm_budget_tokens": llm_budget_tokens, "llm_strict": llm_strict}
    flags["allow_fallback"] = allow_fallback
    try:
        rows, played, llm_lines, llm_text, config_allows = _play_gaia(specs, batch, settings, chosen, flags)
    except ParleyError as error:
        fail(str(error))
    records, others = rows[: len(table1)], rows[len(table1) : len(table1) + len(baseline)]
    share_rows = rows[len(table1) + len(baseline) : len(table1) + len(baseline) + len(shares)]
    sensitivity_rows = rows[len(table1) + len(baseline) + len(shares) :]
    command = "parley experiment gaia " + (f"--split {split}" if split is not None else f"--seeds {seeds}")
    command += f" --strategy {strategy}" if strategy != "principal" else ""
    command += f" --sensitivity-seeds {sensitivity_seeds}" if sensitivity_seeds != 2 else ""
    command += llm_text
    try:
        path = write_results(
            records, seed_list, out, folder, command, share_rows, others, sensitivity_rows, llm_lines
        )
    except OSError as error:
        fail(f"cannot write the report {out}: {error.strerror or error}", code=1)
    batch.finish()
    console.print(f"wrote {path} ({len(rows)} sessions)")
    if played is not None:
        _report_gaia_fallbacks(played, allow=allow_fallback or config_allows)


def _play_gaia(
    specs: Sequence[SessionSpec], batch: Batch, settings: dict[str, Any], strategy: str, flags: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[PlayedSession] | None, list[str], str, bool]:
    """Every session's record, rule-played or (with LLM flags) the headline arm's with the LLM roles,
    and, with an LLM, the played sessions, the report section, the options the report quotes and
    whether the LLM configuration allows a role to fall back entirely.

    Raises:
        ParleyError: a bad LLM flag, a replay miss, a fallback under --llm-strict; as `Batch.run`.
    """
    from parley.experiments.gaia.runs import run_sessions

    with _gaia_llm(flags) as plugged:
        if plugged is None:
            run_store = batch.open_store(settings)
            rows = batch.run(
                len(specs),
                lambda progress: run_sessions(
                    specs, jobs=batch.jobs, store=run_store, scheduler=batch.scheduler, progress=progress
                ),
            )
            return rows, None, [], "", False
        played, lines = _play_gaia_llm(specs, batch, settings, strategy, *plugged)
        allows = plugged[0].settings.allow_fallback
        text = _gaia_llm_command(plugged[1], {**flags, "allow_fallback": allows})
        return [run.record for run in played], played, lines, text, allows


def _gaia_llm(flags: dict[str, Any]) -> AbstractContextManager[tuple[LLMRuntime, RoleChoice] | None]:
    """The experiment's LLM runtime and the delegate's chosen roles, or None when no LLM flag is
    given (see `parley.cli.llm.experiment_llm`)."""
    from parley.cli.llm import experiment_llm
    from parley.experiments.gaia.llm import choose_roles

    return experiment_llm(flags, choose_roles)


def _play_gaia_llm(
    specs: Sequence[SessionSpec],
    batch: Batch,
    settings: dict[str, Any],
    strategy: str,
    runtime: LLMRuntime,
    choice: RoleChoice,
) -> tuple[list[PlayedSession], list[str]]:
    """Every session, the headline arm's with the LLM roles in this process, and the report section."""
    from parley.cli.llm import play_experiment_llm
    from parley.experiments.gaia.llm import SectionContext, llm_section, run_with_llm

    played, models = play_experiment_llm(
        batch,
        settings,
        runtime,
        choice,
        label="GAIA",
        total=len(specs),
        play=partial(run_with_llm, specs, runtime, choice, strategy),
        console=console,
    )
    context = SectionContext(choice, models, strategy, batch.jobs, batch.scheduler is not None)
    return played, llm_section(played, context)


def _gaia_llm_command(choice: RoleChoice, flags: dict[str, Any]) -> str:
    from parley.cli.llm import experiment_llm_command

    return experiment_llm_command(choice, flags)


def _report_gaia_fallbacks(played: Sequence[PlayedSession], *, allow: bool) -> None:
    from parley.cli.llm import report_experiment_fallbacks
    from parley.experiments.gaia.llm import all_fallback_roles, fallback_lines

    report_experiment_fallbacks(fallback_lines(played), all_fallback_roles(played), allow=allow)


def _cells(seeds: Sequence[int]) -> list[tuple[str, str, int]]:
    """Every (domain, persona, seed) of the GAIA grid, in the experiment's order."""
    from parley.experiments.gaia.runs import DOMAINS, PERSONAS

    return [(d, p, s) for d in DOMAINS for p in PERSONAS for s in seeds]

"""`parley delegate ...`: run, chat with, check, classify and decide for the GAIA governed delegate."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from parley.cli.app import app, experiment_app
from parley.cli.options import LLMConfigOption, LLMOption, RecordOption, ReplayOption
from parley.errors import ParleyError
from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import (
    PERSONAS,
    Counterparty,
    DetachedCounterparty,
    SimulatedCounterparty,
)
from parley.governance.escalation import (
    EscalationRequest,
    InteractivePrincipal,
    PolicyPrincipal,
    Principal,
    StoredPrincipal,
)
from parley.governance.moderator import RuleModerator
from parley.governance.preflight import preflight
from parley.governance.safe_text import printable
from parley.governance.session import (
    SessionOutcome,
    decide,
    reply,
    resume_session,
    run_session,
    start_session,
)
from parley.governance.store import SessionStore

if TYPE_CHECKING:
    from parley.governance.session import DelegateRoles
    from parley.llm.context import LLMSession

console = Console(highlight=False, soft_wrap=True)
error_console = Console(stderr=True, highlight=False, soft_wrap=True)
delegate_app = typer.Typer(
    no_args_is_help=True, help="GAIA: a governed delegate that screens and negotiates."
)
app.add_typer(delegate_app, name="delegate")

DEFAULT_DB = Path(".parley") / "delegate.db"
DbOption = Annotated[Path, typer.Option("--db", help="SQLite file holding sessions and the audit log.")]
ConfigArgument = Annotated[
    str, typer.Argument(help="A shipped config (staffing, procurement, leasing) or a path.")
]


class WallClock:
    """Seconds since the Unix epoch: the CLI's clock, so audit timestamps are real times."""

    def now(self) -> float:
        return time.time()


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error and exit."""
    error_console.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


def _config(name_or_path: str) -> DomainConfig:
    try:
        return load_config(name_or_path)
    except ParleyError as error:
        fail(str(error))


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


def _texts(single: str | None, file: Path | None, what: str) -> list[str]:
    if single is None and file is None:
        fail(f"give --{what} TEXT or --file PATH (one {what} per line)")
    texts = [_utf8(single, what)] if single is not None else []
    if file is not None:
        if not file.is_file():
            fail(f"{file}: no such file")
        try:
            content = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            fail(f"{file}: not UTF-8 text (byte {error.start})")
        texts += [line.strip() for line in content.splitlines() if line.strip()]
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
    if spec is None or spec == "stored":
        return StoredPrincipal()
    try:
        return PolicyPrincipal.load(spec)
    except ParleyError as error:
        fail(str(error))


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


@delegate_app.command("run")
def run_command(
    config: ConfigArgument,
    counterparty: Annotated[
        str, typer.Option(help=f"Simulated persona: {', '.join(PERSONAS)}.")
    ] = "cooperative",
    principal: Annotated[
        str | None, typer.Option(help="Policy YAML of scripted decisions, or 'stored' to decide later.")
    ] = None,
    db: DbOption = DEFAULT_DB,
    seed: Annotated[int, typer.Option(help="Seed for the counterparty and the drafter.")] = 0,
    roles: RolesOption = None,
    llm: LLMOption = None,
    llm_role: LLMRoleOption = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
) -> None:
    """Run one session against a simulated counterparty."""
    domain = _config(config)
    who = _principal(principal)
    flags = {"roles": roles, "llm": llm, "llm_role": llm_role, "llm_config": llm_config}
    flags |= {"record": record, "replay": replay}
    try:
        party = SimulatedCounterparty(domain, counterparty, seed)
        store = SessionStore(db)
        with _delegate_llm(domain, flags, f"{domain.name}-{counterparty}-s{seed}", seed) as (
            plugged,
            llm_side,
        ):
            outcome = run_session(
                domain,
                party,
                who,
                store,
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
    domain = _config(config)
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
    session: Annotated[str, typer.Argument(help="The paused session's id.")],
    request: Annotated[
        str | None,
        typer.Option(
            "--request",
            help="The escalation request this decision answers (shown by `inbox`); without it the "
            "pending request is shown and you are asked to confirm (a terminal is needed).",
        ),
    ] = None,
    option: Annotated[str | None, typer.Option(help="Option letter to approve (A, B, C...).")] = None,
    guidance: Annotated[str, typer.Option(help="Free-text guidance instead of (or with) an option.")] = "",
    by: Annotated[
        str, typer.Option("--by", help="Who is deciding (recorded in the audit log).")
    ] = "principal",
    confirm_limit: Annotated[
        float | None,
        typer.Option(help="Repeat the new limit to confirm a raise far beyond the current one."),
    ] = None,
    principal: Annotated[str | None, typer.Option(help="Policy YAML for later escalations.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Answer one stored escalation request and resume the session from storage."""
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
    if not db.is_file():
        fail(f"{db}: no such database")
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
def start_command(config: ConfigArgument, db: DbOption = DEFAULT_DB) -> None:
    """Open a session with a real counterparty on an asynchronous channel; prints the first message."""
    domain = _config(config)
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
    session: Annotated[str, typer.Argument(help="The session the message belongs to.")],
    message: Annotated[str, typer.Option(help="The counterparty's message (e.g. an e-mail body).")],
    principal: Annotated[str | None, typer.Option(help="Policy YAML for escalations it triggers.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Feed one inbound counterparty message to a stored session (asynchronous channels)."""
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
    session: Annotated[str, typer.Argument(help="A stored session whose process stopped mid-run.")],
    principal: Annotated[str | None, typer.Option(help="Policy YAML for escalations it triggers.")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Continue a session against its simulated counterparty after its process was stopped."""
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
    """List sessions waiting for a principal's decision."""
    store = open_store(db)
    table = Table("session", "request", "trigger", "problem")
    for column in table.columns[:3]:
        column.no_wrap = True
    for session_id, _ in store.sessions():
        try:
            request = store.open_request(session_id)
        except ParleyError as error:  # a tampered record is shown as such, never read as a request
            table.add_row(escape(session_id), "?", "refused", escape(printable(str(error))))
            continue
        if request is not None:
            table.add_row(
                escape(session_id),
                escape(request.request_id),
                request.trigger.value,
                escape(printable(request.problem)),
            )
    console.print(table if table.rows else "no open requests")


@delegate_app.command("check")
def check_command(
    config: ConfigArgument,
    draft: Annotated[str | None, typer.Option(help="One outgoing draft to preflight.")] = None,
    file: Annotated[Path | None, typer.Option(help="A file with one draft per line.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """Run the preflight commitment check on outgoing drafts."""
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
    moderator = RuleModerator(_config(config))
    for text in _texts(message, file, "message"):
        result = moderator.classify(text)
        if as_json:
            typer.echo(json.dumps({"message": text, **result.to_json()}))
            continue
        note = f" (top guess {result.top_label.value})" if result.label.value == "clarify" else ""
        console.print(
            f"[bold]{result.label.value}[/] {result.confidence:.2f}{note}  {escape(printable(text))}"
        )


@experiment_app.command("gaia")
def gaia_command(
    seeds: Annotated[int, typer.Option(help="Seeds per domain × persona × condition.")] = 10,
    out: Annotated[Path, typer.Option(help="Markdown report to write.")] = Path("docs/results/gaia.md"),
    figures: Annotated[
        Path | None, typer.Option(help="Folder for figures (default: next to the report).")
    ] = None,
) -> None:
    """Reproduce the GAIA evaluation (Table 1 metrics, ablations) and write the report."""
    from parley.experiments.gaia import run_experiment, write_results

    if seeds < 1:
        fail(f"--seeds: expected at least 1, got {seeds}")
    folder = figures or out.parent / "figures"
    with console.status("running GAIA sessions") as status:
        records = run_experiment(seeds, progress=lambda i, n: status.update(f"session {i}/{n}"))
    command = f"parley experiment gaia --seeds {seeds}"
    path = write_results(records, seeds, out, folder, command)
    console.print(f"wrote {path} ({len(records)} sessions)")

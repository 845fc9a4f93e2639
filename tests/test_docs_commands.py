"""Every command shown in README.md and docs/*.md is run, so the examples cannot rot (issue 15).

Commands are the lines of fenced code blocks: in a block with `$ ` prompts, the prompted lines (the
lines after one are its shown output); elsewhere, lines starting with `parley ` or `make `. A
`parley` line is run as a subprocess, in order, in one temporary folder per page, and must exit 0
(or the code in EXIT_CODES) with no traceback; the output the page shows must be what it prints.
Usage synopses (`[--seed N]`, `a | b`, NAME placeholders) must name real commands and flags, and
`make` lines real Makefile targets. What the test changes is listed here: sizes (SIZE_REWRITES,
EXTRA_ARGS), LLM endpoints (every spec points at a scripted local stub), the web console's port.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import typer.main

from parley.testing import StubReply, StubServer

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# -- what the test changes, and why ------------------------------------------------------------------

SIZE_REWRITES: list[tuple[str, str, str, str]] = [
    # (flag, value on the page, value run, why)
    ("--repetitions", "10", "1", "README tournament: 360 games → 36"),
    ("--runs", "5", "1", "experiment promediate: one run per case, mode and mediator"),
]
EXTRA_ARGS: list[tuple[tuple[str, ...], tuple[str, ...], str]] = [
    # (command, arguments added unless the page gives that flag, why)
    (("experiment", "promediate"), ("--cases", "hmo"), "one case of six: 12 conversations, not 72"),
    (("experiment", "promediate"), ("--runs", "1"), "one run per condition, not the default 5"),
    (("experiment", "promediate"), ("--deliberation-seeds", "1"), "one Pareto-mediator seed of 20"),
]
# Every --llm / --llm-role spec (openai:M, ollama:M, http://host/v1#M) becomes STUB#M: the same
# model name, so a recording made by one line replays under the spec of the next. A line with
# --replay must not send the stub a single request. `parley web` gets a free --port, is started,
# must answer GET /, and is stopped with Ctrl-C (SIGINT).
EXIT_CODES: dict[tuple[str, str], int] = {
    # (page, command as shown) → the exit code the page shows it ending with
    ("README.md", "parley scenarios validate my.yaml"): 1,  # the page shows the error line
    (  # the page shows the refusal of a second decision
        "README.md",
        "parley delegate decide staffing-cooperative-s3-1 --request staffing-cooperative-s3-1-e1 --option B",
    ): 2,
}
SKIPS: dict[tuple[str, str], str] = {
    # (page, command as shown) → why it cannot run here; nothing is skipped today
}
STDIN: dict[tuple[str, str], str] = {
    # (page, command as shown) → what the person types
    ("README.md", "parley run casino --agent human --agent greedy --coach"): "I walk away\n",
}
FILES: dict[str, dict[str, str]] = {
    # page → files its commands expect the reader to have written
    "README.md": {"my.yaml": "name: my\n"},  # the page's broken scenario: no issues, no parties
    "docs/governance.md": {  # the drafts the page lists for `--file drafts.txt`
        "drafts.txt": "Great news! We agree to $13 per unit.\nWould you accept $12 per unit?\n"
        "Let us lock in net 30 with exclusivity.\n",
        # the registry the page's `--verifier registry:certificates.yaml` names
        "certificates.yaml": "certification:\n  verified: [ISO 9001]\n  refuted: [AS9100]\n",
    },
    "docs/llm.md": {  # `--principal policy.yaml`: the policy example of docs/governance.md
        "policy.yaml": "name: hiring-manager-policy\ndefault: A\n"
        "decisions: {boundary: B, final_approval: A}\n"
    },
}
VOLATILE = re.compile(r"\b[0-9a-f]{8,64}\b(\.\.\.)?")  # audit chain heads: timestamps differ per run
UNCHECKED_OUTPUT = {"3q8rV0...(43 characters)"}  # a fresh random sign-in token each time
SECONDS_PER_COMMAND = 120
SERVER_START_SECONDS = 40

# -- reading the pages -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DocCommand:
    """One command line of a page: continuation lines joined, the trailing comment removed."""

    doc: str
    line: int
    text: str
    output: tuple[str, ...]
    prompted: bool

    @property
    def key(self) -> tuple[str, str]:
        return (self.doc, self.text)

    @property
    def kind(self) -> str:
        """`make`, `synopsis` (an unprompted usage line: NAME, [options], a | b, ...) or `run`."""
        if self.text.startswith("make "):
            return "make"
        unquoted = re.sub(r"\"[^\"]*\"|'[^']*'", "", self.text)
        usage = re.search(r"(^|\s)[A-Z][A-Z0-9_]+(\s|$)|\[|\||\.\.\.", unquoted)
        return "synopsis" if usage and not self.prompted else "run"


def _blocks(lines: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    start, body, fenced = 0, list[str](), False
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            if fenced:
                yield start, body
            start, body, fenced = number + 1, [], not fenced
        elif fenced:
            body.append(line)


def _without_comment(text: str) -> str:
    return re.sub(r"\s+#\s.*$", "", text).strip()


def _commands_of_block(doc: str, start: int, body: list[str]) -> Iterator[DocCommand]:
    prompted = any(line.lstrip().startswith("$ ") for line in body)
    index = 0
    while index < len(body):
        line, first = body[index].strip(), start + index
        index += 1
        if prompted and not line.startswith("$ "):
            continue
        text = line.removeprefix("$ ")
        if not prompted and not text.startswith(("parley ", "make ")):
            continue
        while text.endswith("\\") and index < len(body):
            text, index = text[:-1].rstrip() + " " + body[index].strip(), index + 1
        output = list[str]()
        while prompted and index < len(body) and not body[index].lstrip().startswith("$ "):
            output.append(body[index])
            index += 1
        yield DocCommand(doc, first, _without_comment(text), tuple(output), prompted)


def doc_commands(path: Path) -> list[DocCommand]:
    """Every command in the fenced code blocks of one page."""
    doc = path.relative_to(ROOT).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    return [c for start, body in _blocks(lines) for c in _commands_of_block(doc, start, body)]


COMMANDS = {path.relative_to(ROOT).as_posix(): doc_commands(path) for path in DOCS}
ALL = [c for commands in COMMANDS.values() for c in commands]


def _id(command: DocCommand) -> str:
    return f"{command.doc}:{command.line}"


# -- the scripted model behind every LLM spec --------------------------------------------------------


def _promediate_stub() -> Any:
    """tests/llm/promediate_stub.py: a well-formed reply to every ProMediate role (hmo case)."""
    spec = importlib.util.spec_from_file_location(
        "docs_promediate_stub", ROOT / "tests/llm/promediate_stub.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _astra_answer(schema: str, user: str) -> dict[str, Any] | None:
    if schema == "InterpretationReply":
        issues = re.findall(r"^- (\w+)[ :]", user, re.MULTILINE)
        return {"priorities": issues[::-1][:2], "offer": None, "reason": "read from the messages"}
    if schema == "ParametersReply":
        floor = re.search(r"between ([\d.]+)", user)
        previous = re.search(r"My previous offer: ([\d.]+) points", user)
        top = float(previous.group(1)) - 1 if previous else 36.0
        return {
            "lambda": 0.7,
            "s_max": max(float(floor.group(1)) if floor else 0.0, top),
            "reason": "a little",
        }
    if schema == "PartnerEstimateReply":
        points = re.search(r"It gives you ([\d.]+) points", user)
        return {
            "total_score": round(float(points.group(1)) / 3.6, 1) if points else 5,
            "strategic_intermediary": 5,
        }
    if schema == "TacticReply":
        return {"tactic": "RNC", "reason": "signals"}
    if schema == "RankingReply":
        count = re.search(r"Rank all (\d+)", user)
        return {"ranking": list(range(int(count.group(1)) if count else 1, 0, -1))}
    return None


def _gaia_answer(schema: str, user: str) -> dict[str, Any] | None:
    from parley.governance import RuleModerator, load_config

    if schema == "DraftReply":  # the content the rules decided on, verbatim
        return {"text": user.split("Content to convey:\n", 1)[1].rsplit("\n\nMessage (JSON only):", 1)[0]}
    if schema == "ModeratorReply":
        message = json.loads(user.split("<<<MESSAGE\n", 1)[1].split("\nMESSAGE>>>", 1)[0])
        label = RuleModerator(load_config("staffing")).classify(str(message)).top_label.value
        return {"label": label, "confidence": 0.9}
    return None


def scripted_model() -> Callable[[Mapping[str, Any]], StubReply]:
    """A plausible reply to every role the pages' LLM commands use, as a function of the request."""
    from parley.scenarios.importers.promediate import load_promediate_case

    promediate, hmo = _promediate_stub(), load_promediate_case("hmo")

    def reply_to(schema: str, messages: Sequence[Mapping[str, str]]) -> str | dict[str, Any]:
        if schema == "NegotiatorReply":  # casino, party A: ask for everything (never below its BATNA)
            package = {"food": 3, "water": 3, "firewood": 3}
            return {"move": "propose", "package": package, "message": "All mine?"}
        user = messages[1]["content"]
        reply = _astra_answer(schema, user) or _gaia_answer(schema, user)
        return reply if reply is not None else str(promediate.scripted_reply(hmo, schema, messages))

    def answer(body: Mapping[str, Any]) -> StubReply:
        schema = str(body.get("response_format", {}).get("json_schema", {}).get("name", ""))
        try:
            return StubReply.ok(reply_to(schema, body["messages"]))
        except Exception as error:  # a request this script cannot answer: the CLI prints this line
            problem = {"error": {"message": f"docs test stub cannot answer {schema!r}: {error!r}"}}
            return StubReply.error(422, body=json.dumps(problem))  # 4xx: no retries

    return answer


# -- running a page ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ran:
    """What one command did."""

    command: DocCommand
    argv: tuple[str, ...]
    exit_code: int
    output: str
    rewritten: bool
    stub_requests: int
    seconds: float


def parley_argv() -> list[str]:
    """The installed console command next to this interpreter (`.venv/bin/parley` under make test)."""
    for script in (Path(sys.executable).with_name("parley"), ROOT / ".venv" / "bin" / "parley"):
        if script.exists():
            return [str(script)]
    if importlib.util.find_spec("parley.__main__") is not None:
        return [sys.executable, "-m", "parley"]
    pytest.fail("no `parley` command installed next to this interpreter or in .venv/bin")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stub_spec(spec: str, stub: str) -> str:
    model = spec.split("#", 1)[1] if "#" in spec else spec.split(":", 1)[1]
    return f"{stub}#{model}"


def rewrite(args: list[str], stub: str) -> list[str]:
    """The page's arguments at test size, with every LLM spec pointing at the stub."""
    out = list(args)
    for index, (flag, value) in enumerate(pairwise([*args, ""])):
        for size_flag, shown, run, _why in SIZE_REWRITES:
            if flag == size_flag and value == shown:
                out[index + 1] = run
        if flag == "--llm":
            out[index + 1] = _stub_spec(value, stub)
        if flag == "--llm-role":
            role, spec = value.split("=", 1)
            out[index + 1] = f"{role}={_stub_spec(spec, stub)}"
    for command, extra, _why in EXTRA_ARGS:
        if tuple(out[: len(command)]) == command and extra[0] not in out:
            out += extra
    if out[0] == "web" and "--init" not in out:
        out += ["--port", str(_free_port())]
    return out


def environment() -> dict[str, str]:
    # Wide enough that rich wraps nothing; UTF-8 whatever the machine's locale.
    return os.environ | {"COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}


def _serve(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Start the web console, check it answers, stop it with Ctrl-C."""
    port = argv[argv.index("--port") + 1]
    server = subprocess.Popen(
        argv,
        cwd=cwd,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline, status = time.monotonic() + SERVER_START_SECONDS, "no answer"
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                status = f"HTTP {response.status}"
                break
        except urllib.error.HTTPError as error:
            status = f"HTTP {error.code}"
            error.close()
            break
        except OSError:
            time.sleep(0.2)
    if server.poll() is None:
        server.send_signal(signal.SIGINT)
    try:
        output, _ = server.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        output, _ = server.communicate()
        return -9, output + "\n[docs test: did not stop on Ctrl-C]"
    answered = status.startswith("HTTP") and not status.startswith("HTTP 5")
    note = f"[docs test: GET / → {status}; exit {server.returncode} after Ctrl-C]"
    return (server.returncode if answered else 1), f"{output}\n{note}"


def run_command(command: DocCommand, cwd: Path, stub: StubServer) -> Ran:
    args = shlex.split(command.text.replace("\\$", "$"))[1:]
    run_args = rewrite(args, stub.base_url)
    argv = [*parley_argv(), *run_args]
    before, started = len(stub.stats.requests), time.monotonic()
    if run_args[0] == "web" and "--init" not in run_args:
        code, output = _serve(argv, cwd)
    else:
        done = subprocess.run(
            argv,
            check=False,
            cwd=cwd,
            env=environment(),
            input=STDIN.get(command.key, ""),
            capture_output=True,
            text=True,
            timeout=SECONDS_PER_COMMAND,
        )
        code, output = done.returncode, done.stdout + done.stderr
    requests = len(stub.stats.requests) - before
    seconds = time.monotonic() - started
    return Ran(command, tuple(run_args), code, output, run_args != args, requests, seconds)


def run_doc(doc: str, folder: Path) -> list[Ran]:
    for name, text in FILES.get(doc, {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    with StubServer(scripted_model()) as stub:
        commands = [c for c in COMMANDS[doc] if c.kind == "run" and c.key not in SKIPS]
        return [run_command(c, folder, stub) for c in commands]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Ran]:
    """Every page's commands, the pages side by side (each page in order, in its own folder)."""
    docs = [doc for doc, commands in COMMANDS.items() if any(c.kind == "run" for c in commands)]
    folders = [tmp_path_factory.mktemp(re.sub(r"\W", "_", doc)) for doc in docs]
    with ThreadPoolExecutor(max_workers=len(docs)) as pool:
        done = list(pool.map(run_doc, docs, folders))
    return {(ran.command.doc, ran.command.line): ran for page in done for ran in page}


# -- checking output ---------------------------------------------------------------------------------


def normalise(text: str) -> str:
    """Text without box drawing, chain heads or runs of whitespace, so wrapping does not matter."""
    text = VOLATILE.sub("<hex>", re.sub("[\u2500-\u257f]", " ", text))
    return " ".join(text.split())


def missing_output(shown: Sequence[str], printed: str) -> list[str]:
    """Lines the page shows that the command did not print (`...` elides any text)."""
    actual = normalise(printed)
    missing = list[str]()
    for line in shown:
        expected = normalise(line)
        if expected in ("", "...") or line.strip() in UNCHECKED_OUTPUT:
            continue
        pattern = ".*?".join(re.escape(piece.strip()) for piece in expected.split("..."))
        if re.search(pattern, actual) is None:
            missing.append(line)
    return missing


# -- the tests ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [c for c in ALL if c.kind == "run"], ids=_id)
def test_page_command_runs_as_shown(command: DocCommand, runs: dict[tuple[str, int], Ran]) -> None:
    if command.key in SKIPS:
        pytest.skip(SKIPS[command.key])
    ran = runs[(command.doc, command.line)]
    shown = f"{command.doc}:{command.line}: parley {' '.join(ran.argv)} ({ran.seconds:.1f} s)"
    assert "Traceback" not in ran.output, f"{shown}\n{ran.output}"
    assert ran.exit_code == EXIT_CODES.get(command.key, 0), f"{shown}: exit {ran.exit_code}\n{ran.output}"
    if "--replay" in ran.argv:
        assert ran.stub_requests == 0, f"{shown}: a replay called the endpoint {ran.stub_requests} times"
        recorded = _recording_of(ran, runs.values())
        if recorded is not None:  # the same command, run live with --record: the same output
            assert ran.output == recorded.output, f"{shown}: the replay differs from the recorded run"
    if not ran.rewritten:
        missing = missing_output(command.output, ran.output)
        assert not missing, f"{shown}: the page shows lines it does not print:\n" + "\n".join(
            [*missing, "--- printed:", ran.output]
        )


def _without(argv: Sequence[str], flag: str) -> list[str]:
    at = argv.index(flag)
    return [*argv[:at], *argv[at + 2 :]]


def _recording_of(replay: Ran, runs: Iterable[Ran]) -> Ran | None:
    """The earlier run of the same page that recorded what replay replays, if it is the same command."""
    folder = replay.argv[replay.argv.index("--replay") + 1]
    for ran in runs:
        same_page = ran.command.doc == replay.command.doc and ran.command.line < replay.command.line
        if same_page and "--record" in ran.argv and ran.argv[ran.argv.index("--record") + 1] == folder:
            return ran if _without(ran.argv, "--record") == _without(replay.argv, "--replay") else None
    return None


def _subcommands(command: object) -> dict[str, object]:
    found = getattr(command, "commands", None)  # typer's own click: duck-typed, not click.Group
    return {str(name): sub for name, sub in found.items()} if isinstance(found, dict) else {}


def _options(command: object) -> set[str]:
    return {str(opt) for param in getattr(command, "params", []) for opt in param.opts}


def synopsis_problems(text: str, root: object) -> list[str]:
    """Subcommands and flags a usage line names that `parley` does not have."""
    parts = [part.strip() for part in text.split(" | ")]
    prefix = [w for w in parts[0].split()[1:] if re.fullmatch(r"[a-z][a-z|-]*", w)][:-1]
    problems = list[str]()
    for part in parts:
        words = part.split()[1:] if part.startswith("parley ") else [*prefix, *part.split()]
        commands = [root]
        for word in words:
            groups = [_subcommands(c) for c in commands if _subcommands(c)]
            if not groups or not re.fullmatch(r"[a-z][a-z|-]*", word):
                break
            names = word.split("|")
            commands = [group[name] for group in groups for name in names if name in group]
            if len(commands) != len(names):
                problems.append(f"{part!r}: no command {word!r}")
        options = {option for command in commands for option in _options(command)}
        flags = re.findall(r"--[a-z][\w-]*", part)
        problems += [f"{part!r}: no option {flag}" for flag in flags if flag not in options]
    return problems


@pytest.mark.parametrize("command", [c for c in ALL if c.kind == "synopsis"], ids=_id)
def test_usage_line_names_real_commands_and_flags(command: DocCommand) -> None:
    from parley.cli.app import app

    assert synopsis_problems(command.text, typer.main.get_command(app)) == []


@pytest.mark.parametrize("command", [c for c in ALL if c.kind == "make"], ids=_id)
def test_make_line_names_a_makefile_target(command: DocCommand) -> None:
    targets = re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert command.text.split()[1] in targets


def test_pages_hold_the_commands_the_tables_name() -> None:
    """The extractor finds the pages' commands, and no table entry names a command no page shows."""
    assert len(COMMANDS["README.md"]) >= 20 and len(COMMANDS["docs/llm.md"]) >= 10
    keys = {c.key for c in ALL}
    for table in (EXIT_CODES, SKIPS, STDIN):
        assert set(table) <= keys, set(table) - keys
    assert set(FILES) <= set(COMMANDS)

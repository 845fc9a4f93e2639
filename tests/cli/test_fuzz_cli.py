"""Fuzz every `parley` command with bad input (issue 15, "the general guards").

The commands are found in the Typer app itself, so a new command or subcommand is fuzzed from the day
it lands, and `test_every_command_has_a_fuzz_strategy` fails until it has an entry in `SPECS`. Each
example is one defect on top of a valid, cheap invocation of the command:

- generic defects, read from the command's own parameters: an unknown option, a surplus argument, a
  required parameter left out, an option without its value, a value for a flag, a non-number for a
  numeric option, a number outside the option's declared range (negative, zero, huge);
- the command's own defects (`SPECS`): malformed, truncated, wrongly typed and non-UTF-8 YAML and
  JSONL files; unknown scenario, agent, config, persona, mediator or session names; input paths that
  are missing or folders; output paths (--out, --save, --db, --plot, --key-file) that are files,
  folders, under a file or unwritable; empty values; non-UTF-8 bytes in arguments.

Every example must end with an exit code other than 0 (2 for a usage error), exactly one line on
stderr that starts with "error:" and names the problem, no traceback, and the working folder exactly
as it was: nothing created, nothing half-written, no input touched.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import os
import re
import shutil
import sqlite3
import string
import sys
import tempfile
import traceback
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import typer
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from parley.cli.app import app
from parley.scenarios import load_scenario, scenario_to_yaml

pytestmark = pytest.mark.e2e
runner = CliRunner()

EXAMPLES = int(os.environ.get("PARLEY_FUZZ_EXAMPLES", "25"))
"""Examples per command, the same ones on every run (derandomized): 25 for each of the 23 commands take
about 20 s on a two-core machine. PARLEY_FUZZ_EXAMPLES=500 searches deeper (about 8 minutes)."""
ENV = {"COLUMNS": "60"}  # a narrow console: an error line must not be wrapped into two
NON_UTF8 = "\udcff\udcfe"
"""Bytes 0xff 0xfe as Python hands them over from a command line (surrogate escapes)."""
UNWRITABLE = "/proc/self/parley-fuzz"
"""A folder nobody can create, root included (Linux)."""
TOO_LONG = "y" * 300
"""A file name longer than any file system allows (255 bytes): the system refuses even to look it up."""

# ---------------------------------------------------------------------------------------------
# The commands, as the app declares them


def leaf_commands(command: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command that runs something (groups are walked, not fuzzed), with its path of names."""
    command = typer.main.get_command(app) if command is None else command
    subcommands = getattr(command, "commands", None)
    if subcommands is None:
        yield path, command
        return
    for name, subcommand in subcommands.items():
        yield from leaf_commands(subcommand, (*path, name))


COMMANDS: dict[tuple[str, ...], Any] = dict(leaf_commands())


def _annotation(param: Any) -> Any:
    """A parameter's Python type, Optional unwrapped (None when typer does not say)."""
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    arguments = [a for a in typing.get_args(annotation) if a is not type(None)]
    return arguments[0] if len(arguments) == 1 and typing.get_origin(annotation) is not list else annotation


def _bounds(param: Any) -> tuple[float | None, float | None]:
    info = getattr(getattr(param, "type_descriptor", None), "parameter_info", None)
    return getattr(info, "min", None), getattr(info, "max", None)


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if p.param_type_name == "option" and "--help" not in p.opts]


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class Call:
    """A valid invocation: the command's names, its positional arguments and its options."""

    command: tuple[str, ...]
    arguments: tuple[str, ...] = ()
    options: tuple[tuple[str, str | None], ...] = ()
    stdin: str = ""

    def args(self) -> tuple[str, ...]:
        flat = [item for option, value in self.options for item in (option, value) if item is not None]
        return (*self.command, *self.arguments, *flat)

    def with_option(self, option: str, value: str | None = None) -> Call:
        """The call with option set to value (replacing every earlier value of it)."""
        kept = tuple((o, v) for o, v in self.options if o != option)
        return replace(self, options=(*kept, (option, value)))

    def without(self, option: str) -> Call:
        return replace(self, options=tuple((o, v) for o, v in self.options if o != option))

    def with_argument(self, index: int, value: str) -> Call:
        arguments = list(self.arguments)
        arguments[index] = value
        return replace(self, arguments=tuple(arguments))

    def case(self, *names: str, usage: bool = False, files: dict[str, bytes] | None = None) -> Case:
        return Case(self.args(), names, usage, files or {}, self.stdin)


@dataclass(frozen=True)
class Case:
    """One bad invocation and what its error line must name (any one of names)."""

    args: tuple[str, ...]
    names: tuple[str, ...]
    usage: bool = False
    files: dict[str, bytes] = field(default_factory=lambda: {})
    stdin: str = ""


def _named(value: str, *nouns: str) -> tuple[str, ...]:
    """What an error line about value may name: a word of it (or the value itself when it has none of
    two letters or digits), or one of nouns."""
    words = re.findall(r"[A-Za-z0-9]{2,}", value)
    shown = (words[0][:20],) if words else (repr(value), f"{value}:") if value.isprintable() else ()
    return (*shown, *nouns)


# ---------------------------------------------------------------------------------------------
# Bad values and files


MALFORMED_YAML = (
    ":\n  - : [",
    "{unclosed: [1, 2\n",
    "key: value\n  indented: wrongly\n",
    "a: b: c\n",
    "- item\nkey: value\n",
    "*undefined_alias\n",
    "!!python/object/apply:os.system ['true']\n",
    "\t- tab indented\n",
    '"unterminated\n',
)
WrongField = tuple[tuple[str | int, ...], Any]
SCENARIO_WRONG_FIELDS: tuple[WrongField, ...] = (
    *((("issues",), v) for v in (5, "text", None, {}, [])),
    *((("parties",), v) for v in (5, "text", None, [], {})),
    *((("parties", 0, "utility"), v) for v in (5, "text", None, [])),
    *((("parties", 0, "batna"), v) for v in ("high", [], {}, None)),
    *((("issues", 0, "range"), v) for v in ("x", 5, [])),
    *((("issues", 0, "name"), v) for v in ([], {}, None)),
    *((("parties", 0, "utility", "values", "food"), v) for v in ("x", 5, [1], {})),
    *((("parties", 0, "utility", "weights", "food"), v) for v in ("x", [])),
)
"""A field of the casino scenario and a value of a type it cannot have."""
CONFIG_WRONG_FIELDS: tuple[WrongField, ...] = (
    *(((key,), v) for key in ("fields", "boundary", "terms", "negotiation") for v in (5, "x", None, [], [1])),
    *((("thresholds",), v) for v in (5, "x", None, [], [1])),
    *(((key,), v) for key in ("name", "subject", "principal_role") for v in ([], {}, [1])),
)
"""A field of the staffing config and a value of a type it cannot have."""
WRONG_TYPE_YAML = ("- a\n- b\n", "42\n", '"just a string"\n', "null\n", "[]\n", "true\n")
MALFORMED_JSON = ("{not json", "{'single': 'quotes'}", "NaN", '{"seq": 1,}', "[1, 2", "\x00\x01")
WRONG_TYPE_JSON = ("[1, 2]", "42", '"text"', "null", "{}", '{"kind": 5}', '{"seq": "one", "kind": "action"}')
NOT_NUMBERS = ("abc", "", "1.5e", "0x10", "--", "one", "1,000", "∞", f"7{NON_UTF8}", " ")


def is_integral(text: str) -> bool:
    """Whether text reads as a whole number written as a float ("2.0", "1e3"): typer takes those."""
    try:
        return float(text).is_integer()
    except (ValueError, OverflowError):
        return False


def not_an_integer() -> st.SearchStrategy[str]:
    def is_int(text: str) -> bool:
        try:
            int(text)
        except ValueError:
            return False
        return True

    typed = st.text(max_size=8).filter(
        lambda t: not is_int(t) and not is_integral(t) and not t.startswith("-")
    )
    return st.one_of(st.sampled_from((*NOT_NUMBERS, "1.5")), typed)


def not_a_number() -> st.SearchStrategy[str]:
    def is_float(text: str) -> bool:
        try:
            float(text)
        except ValueError:
            return False
        return True

    typed = st.text(max_size=8).filter(lambda t: not is_float(t) and not t.startswith("-"))
    return st.one_of(st.sampled_from([n for n in NOT_NUMBERS if not is_float(n)]), typed)


def unknown_name(*known: str) -> st.SearchStrategy[str]:
    """A name nothing ships (nor the workspace holds): typed, empty, huge, undecodable or markup."""
    typed = st.text(alphabet=string.ascii_lowercase + string.digits + "_-/.", min_size=1, max_size=16)
    odd = st.sampled_from(("", "x" * 5000, f"name{NON_UTF8}", "[/]bold[red", "ünïcödé", "a b\tc"))
    taken = {*known, *WORKSPACE_NAMES}
    return st.one_of(typed, odd).filter(
        lambda n: n not in taken and not n.startswith(("-", ".", "/")) and n.split("/")[0] not in taken
    )


WORKSPACE_NAMES = (
    "casino.yaml",
    "staffing.yaml",
    "notes.txt",
    "folder",
    "casino-run",
    "procurement-run",
    "delegate.db",
    "report",
    "game",
    "rated",
)


@st.composite
def bad_yaml(
    draw: st.DrawFn, valid: str, wrong_fields: tuple[WrongField, ...] = (), name: str = "bad.yaml"
) -> tuple[str, dict[str, bytes]]:
    """A YAML file that cannot be loaded: truncated, malformed, non-UTF-8, of the wrong type, empty, or
    valid but for one field of the wrong type (one of wrong_fields)."""
    encoded = valid.encode("utf-8")
    kinds = ("truncated", "malformed", "non-utf8", "wrong-type", "empty", "binary")
    kind = draw(st.sampled_from((*kinds, "wrong-field") if wrong_fields else kinds))
    if kind == "wrong-field":
        path, value = draw(st.sampled_from(wrong_fields))
        data = yaml.safe_load(valid)
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        content = yaml.safe_dump(data).encode("utf-8")
    elif kind == "truncated":  # (the shipped files stay valid only when cut in their last fifth)
        content = encoded[: draw(st.integers(0, len(encoded) // 2))]
    elif kind == "malformed":
        content = draw(st.sampled_from(MALFORMED_YAML)).encode()
    elif kind == "non-utf8":
        cut = draw(st.integers(0, len(encoded)))
        content = encoded[:cut] + b"\xff\xfe" + encoded[cut:]
    elif kind == "wrong-type":
        content = draw(st.sampled_from(WRONG_TYPE_YAML)).encode()
    elif kind == "empty":
        content = draw(st.sampled_from((b"", b"\n\n", b"# only a comment\n")))
    else:
        content = b"\x00" + draw(st.binary(max_size=48))
    return name, {name: content}


@st.composite
def bad_jsonl(draw: st.DrawFn, valid: str, name: str = "bad.jsonl") -> tuple[str, dict[str, bytes]]:
    """A JSONL file that cannot be read: a line cut short, malformed or of the wrong type, or non-UTF-8."""
    lines = valid.splitlines()
    index = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(("truncated", "malformed", "wrong-type", "non-utf8")))
    if kind == "truncated":  # cut inside a line: no proper prefix of a JSON object is JSON
        line = lines[index]
        text = "\n".join([*lines[:index], line[: draw(st.integers(1, len(line) - 1))]])
    elif kind in ("malformed", "wrong-type"):
        bad = draw(st.sampled_from(MALFORMED_JSON if kind == "malformed" else WRONG_TYPE_JSON))
        text = "\n".join([*lines[:index], bad, *lines[index + 1 :]]) + "\n"
    else:
        encoded = valid.encode("utf-8")
        cut = draw(st.integers(0, len(encoded)))
        return name, {name: encoded[:cut] + b"\xff" + encoded[cut:]}
    return name, {name: text.encode("utf-8")}


def missing_or_folder(suffix: str = "") -> st.SearchStrategy[str]:
    """An input path that is not a readable file."""
    return st.sampled_from(
        (
            f"missing{suffix}",
            "folder",
            f"folder/missing{suffix}",
            f"notes.txt/x{suffix}",
            f"{TOO_LONG}{suffix}",
        )
    )


def bad_folder_target() -> st.SearchStrategy[str]:
    """An output folder that cannot be made: a file, a path under a file, an unwritable place."""
    targets = ["notes.txt", "notes.txt/out", "folder/keep.txt", TOO_LONG, f"{TOO_LONG}/out"]
    if sys.platform == "linux":
        targets.append(f"{UNWRITABLE}/out")
    return st.sampled_from(targets)


def bad_file_target(suffix: str) -> st.SearchStrategy[str]:
    """An output file that cannot be written: a folder, a path under a file, an unwritable place."""
    targets = ["folder", f"notes.txt/out{suffix}", f"folder/keep.txt/out{suffix}", f"{TOO_LONG}{suffix}"]
    if sys.platform == "linux":
        targets.append(f"{UNWRITABLE}/out{suffix}")
    return st.sampled_from(targets)


def _target_names(path: str) -> tuple[str, ...]:
    return tuple(part for part in Path(path).parts if part not in ("/", "proc", "self"))


@functools.cache
def _sqlite_bytes() -> bytes:
    """A tiny SQLite database of another program."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "other.db"
        with contextlib.closing(sqlite3.connect(path)) as connection:
            connection.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
            connection.commit()
        return path.read_bytes()


@st.composite
def bad_database(draw: st.DrawFn, valid: bytes) -> tuple[str, dict[str, bytes]]:
    """A --db that is not a delegate database: text, empty, cut short, another program's, a folder."""
    kind = draw(st.sampled_from(("text", "empty", "truncated", "other", "binary", "path")))
    if kind == "path":
        return draw(missing_or_folder(".db")), {}
    content = {
        "text": b"these are my notes, not a database\n" * 20,
        "empty": b"",
        "other": _sqlite_bytes(),
        "binary": b"SQLite format 3\x00" + bytes(range(256)) * 4,
    }.get(kind)
    if content is None:  # a delegate database cut short (inside its first pages)
        content = valid[: draw(st.integers(1, min(len(valid) - 1, 8192)))]
    return "bad.db", {"bad.db": content}


# ---------------------------------------------------------------------------------------------
# The workspace every example runs in (a fresh copy per example)


@dataclass(frozen=True)
class Workspace:
    """A folder with valid inputs, and the ids of two stored delegate sessions."""

    root: Path
    waiting: str  # a session waiting for the counterparty's reply
    paused: str  # a session paused on an escalation request
    request: str  # the request it waits on

    def text(self, name: str) -> str:
        return (self.root / name).read_text(encoding="utf-8")


def _invoke(*args: str) -> str:
    result = runner.invoke(app, list(args), env=ENV, prog_name="parley")
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.stdout


@pytest.fixture(scope="module", autouse=True)
def _build_the_command_once() -> Iterator[None]:
    """typer builds the click command from the app on every invoke (50 ms): build it once here."""
    command = typer.main.get_command(app)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(typer.testing, "_get_command", lambda _: command, raising=False)
        yield


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("fuzz-template")
    staffing = resources.files("parley.governance").joinpath("data", "staffing.yaml")
    files = {
        "casino.yaml": scenario_to_yaml(load_scenario("casino")),
        "staffing.yaml": staffing.read_text(encoding="utf-8"),
        "notes.txt": "keep me\n",
        "folder/keep.txt": "keep me too\n",
        "rated/ratings.jsonl": RATING_LINE,  # (report ratings)
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    shutil.copytree(GAME, root / "game")  # an LLM-Deliberation game folder (scenarios import, any SCENARIO)
    with contextlib.chdir(root):
        for scenario in ("casino", "procurement"):
            _invoke("run", scenario, "-a", "boulware", "-a", "conceder", "--save", f"{scenario}-run")
        started = _invoke("delegate", "start", "staffing", "--db", "delegate.db")
        ran = _invoke(
            "delegate",
            "run",
            "staffing",
            "--counterparty",
            "adversarial",
            "--principal",
            "stored",
            "--db",
            "delegate.db",
        )
        _invoke("web", "--init", "--db", "delegate.db")
    gc.collect()  # close the databases (their -wal and -shm files go with the last connection)
    waiting = re.search(r"session (\S+):", started)
    paused = re.search(r"decide (\S+) --request (\S+)", ran.replace("\n", " "))
    assert waiting and paused, (started, ran)
    return Workspace(root, waiting.group(1), paused.group(1), paused.group(2))


# ---------------------------------------------------------------------------------------------
# The strategies, command by command

CaseStrategy = st.SearchStrategy[Case]


@dataclass(frozen=True)
class Spec:
    """How to fuzz one command: a valid, cheap call and the command's own defects."""

    base: Callable[[Workspace], Call]
    defects: Callable[[Workspace, Call], list[CaseStrategy]]


def _scenario_defects(call: Call, ws: Workspace) -> list[CaseStrategy]:
    """A bad SCENARIO argument: unknown name, missing path, a folder, a broken file or game folder."""
    return [
        unknown_name("casino").map(
            lambda n: call.with_argument(0, n).case(*_named(n, "scenario", "not found"))
        ),
        missing_or_folder(".yaml").map(lambda p: call.with_argument(0, p).case(*_target_names(p))),
        bad_yaml(ws.text("casino.yaml"), SCENARIO_WRONG_FIELDS).map(
            lambda b: call.with_argument(0, b[0]).case(b[0], files=b[1])
        ),
        bad_game().map(lambda b: call.with_argument(0, "game").case(*b[0], files=b[1])),
    ]


GAME = Path(__file__).resolve().parents[1] / "data" / "deliberation" / "harbour_bullets"
"""The workspace's game folder ("game"): three parties, score files port, fishers and council."""
BAD_GAME_FILES: dict[str, tuple[bytes, ...]] = {
    "config.txt": (b"\xff\xfe\n", b"Port,port\x00,p1,c,m\n", b"", b"Only,two\n", b"A,a,p1,c,m\nA,b,p2,c,m\n"),
    "scores_files/port.txt": (b"\xff\n", b"\x00", b"", b"1, x\n5\n", b"1, 2\n", b"1\n2\n3\n45\n"),
    "scores_files/council.txt": (b"15, 5\n0, 10, 12\n10, nan\n25\n", b"1\n" * 30),
    "global_instructions.txt": (b"\xff\xfe", b"text\x00more", b'Issue A: "Same"\nIssue B: Same\n'),
    "initial_deal.txt": (b"A9, B1, C1\n", b"\xc3\x28", b"A1, A2\n"),
}
"""Per file of the game folder, contents that break it: undecodable, binary, malformed, empty."""


@st.composite
def bad_game(draw: st.DrawFn) -> tuple[tuple[str, ...], dict[str, bytes]]:
    """The workspace's game folder with one file broken, and what the error line may name."""
    file = draw(st.sampled_from(sorted(BAD_GAME_FILES)))
    content = draw(st.sampled_from(BAD_GAME_FILES[file]))
    return (Path(file).name, "game"), {f"game/{file}": content}


def _format_defects(call: Call, *wrong: str) -> list[CaseStrategy]:
    """--format: a name that is no format (a usage error), or a format the SCENARIO is not in."""
    found: list[CaseStrategy] = [
        st.sampled_from(("bogus", "xml", "GENIUS", "", "yaml ", f"x{NON_UTF8}")).map(
            lambda f: call.with_option("--format", f).case("--format", usage=True)
        )
    ]
    if wrong:
        source = call.arguments[0]
        found.append(
            st.sampled_from(wrong).map(lambda f: call.with_option("--format", f).case(*_named(source)))
        )
    return found


def _config_defects(call: Call, ws: Workspace) -> list[CaseStrategy]:
    """A bad delegate CONFIG argument."""
    return [
        unknown_name("staffing", "procurement", "leasing").map(
            lambda n: call.with_argument(0, n).case(*_named(n, "config"))
        ),
        missing_or_folder(".yaml").map(lambda p: call.with_argument(0, p).case(*_target_names(p))),
        bad_yaml(ws.text("staffing.yaml"), CONFIG_WRONG_FIELDS).map(
            lambda b: call.with_argument(0, b[0]).case(b[0], files=b[1])
        ),
    ]


BAD_POLICIES = (
    "decisions: 5\n",
    "colour: red\n",
    "decisions:\n  no_such_trigger: A\n",
    ":\n  - : [",
    "- A\n- B\n",
    "name: [1, 2]\n",
)


def _principal_defects(call: Call) -> list[CaseStrategy]:
    files = st.one_of(
        st.sampled_from(BAD_POLICIES).map(str.encode), st.just(b"default: \xff\xfe\n"), st.just(b"\x00\x01")
    )
    return [
        missing_or_folder(".yaml").map(lambda p: call.with_option("--principal", p).case(*_target_names(p))),
        files.map(
            lambda c: call.with_option("--principal", "policy-bad.yaml").case(
                "policy-bad.yaml", files={"policy-bad.yaml": c}
            )
        ),
    ]


BAD_LLM_CONFIGS = ("- a\n- b\n", ":\n  - : [", "roles: 5\n", "default: 5\n", "default: [openai]\n")


def _llm_defects(call: Call) -> list[CaseStrategy]:
    """Bad LLM flags (checked before anything is played, whether or not an LLM role is used)."""
    configs = st.one_of(st.sampled_from(BAD_LLM_CONFIGS).map(str.encode), st.just(b"default: \xff\n"))
    return [
        configs.map(
            lambda c: call.with_option("--llm-config", "llm-bad.yaml").case(
                "llm-bad.yaml", files={"llm-bad.yaml": c}
            )
        ),
        missing_or_folder(".yaml").map(lambda p: call.with_option("--llm-config", p).case(*_target_names(p))),
        st.sampled_from(("bogus", "", "openai", ":", f"x{NON_UTF8}")).map(
            lambda s: call.with_option("--llm", s).case(*_named(s, "spec", "LLM"))
        ),
        st.sampled_from(("judge", "=openai:x", "judge=", "", "x" * 300)).map(
            lambda r: call.with_option("--llm-role", r).case("--llm-role")
        ),
        st.sampled_from(("missing-recording", "folder", "notes.txt")).map(
            lambda p: call.with_option("--replay", p).case(p, "recording", "replay")
        ),
    ]


def _db_defects(call: Call, ws: Workspace) -> list[CaseStrategy]:
    """A --db that is not a delegate database."""
    valid = (ws.root / "delegate.db").read_bytes()
    return [
        bad_database(valid).map(
            lambda b: call.with_option("--db", b[0]).case(*_target_names(b[0]), files=b[1])
        )
    ]


def _new_db_defects(call: Call, ws: Workspace) -> list[CaseStrategy]:
    """A --db to create where none can be, or a file that is not a delegate database (an empty file
    is fine: a new database is written in it)."""
    valid = (ws.root / "delegate.db").read_bytes()
    not_empty = bad_database(valid).filter(lambda b: bool(b[1]) and b[1].get("bad.db") != b"")
    return [
        not_empty.map(lambda b: call.with_option("--db", b[0]).case(*_target_names(b[0]), files=b[1])),
        bad_file_target(".db").map(lambda p: call.with_option("--db", p).case(*_target_names(p))),
    ]


def _session_defects(call: Call) -> list[CaseStrategy]:
    return [unknown_name().map(lambda n: call.with_argument(0, n).case(*_named(n, "session")))]


def _run_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    agents = ("boulware", "conceder", "human", "random", "linear")
    return [
        *_scenario_defects(call, ws),
        unknown_name(*agents).map(
            lambda n: replace(call, options=(("-a", "boulware"), ("-a", n))).case(*_named(n, "agent"))
        ),
        st.sampled_from((1, 3)).map(
            lambda k: replace(call, options=(("-a", "boulware"),) * k).case("--agent")
        ),
        st.integers(max_value=-1).map(lambda s: call.with_option("--seed", str(s)).case("--seed")),
        st.integers(-10, 0).map(lambda r: call.with_option("--max-rounds", str(r)).case("--max-rounds")),
        bad_folder_target().map(lambda p: call.with_option("--save", p).case(*_target_names(p))),
        st.just(call.with_option("--coach").case("--coach")),
        *_format_defects(call, "llm-deliberation", "textarena"),
        *_llm_defects(call),
    ]


def _tournament_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    scenario = Call(call.command, ("casino",), call.options)
    from_argument = [
        s.map(lambda c: _as_option(c, call, "--scenarios")) for s in _scenario_defects(scenario, ws)
    ]
    return [
        *from_argument,
        unknown_name("boulware", "conceder")
        .filter(lambda n: n.strip(", ") != "")
        .map(lambda n: call.with_option("--agents", f"boulware,{n}").case(*_named(n, "agent"))),
        st.sampled_from(("", ",", " , ")).map(lambda a: call.with_option("--agents", a).case("agent")),
        bad_folder_target().map(lambda p: call.with_option("--out", p).case(*_target_names(p))),
        *_format_defects(call),  # (a shipped name takes any --format: it names the paths' format)
    ]


def _as_option(case: Case, call: Call, option: str) -> Case:
    """A defect made for the first argument of a command, given to option of call instead."""
    bad = case.args[len(call.command)]
    return replace(case, args=call.with_option(option, bad).args())


def _analyze_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    trajectory = ws.text("casino-run/trajectory.jsonl")
    return [
        *_scenario_defects(call, ws),
        st.sampled_from(
            ("out.txt", "out", "out.jpg", "folder", "notes.txt/space.png", f"{UNWRITABLE}/a.png")
        ).map(lambda p: call.with_option("--plot", p).case(*_target_names(p))),
        bad_jsonl(trajectory).map(lambda b: call.with_option("--trajectory", b[0]).case(b[0], files=b[1])),
        missing_or_folder(".jsonl").map(
            lambda p: call.with_option("--trajectory", p).case(*_target_names(p))
        ),
        st.just(call.with_option("--trajectory", "procurement-run/trajectory.jsonl").case("procurement")),
        *_format_defects(call, "llm-deliberation", "textarena"),
    ]


def _mediate_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    choices = {
        "--mediator": ("social", "generic", "none"),
        "--mode": ("competing", "avoiding", "accommodating", "general"),
        "--participants": ("rule",),
        "--consensus": ("rule",),
        "--judge": ("rubric",),
    }
    return [
        *_scenario_defects(call, ws),
        *(
            unknown_name(*known).map(lambda n, o=option: call.with_option(o, n).case(*_named(n, o[2:])))
            for option, known in choices.items()
        ),
        st.integers(max_value=-1).map(lambda s: call.with_option("--seed", str(s)).case("--seed")),
        bad_folder_target().map(lambda p: call.with_option("--save", p).case(*_target_names(p))),
        st.sampled_from(("out.txt", "out", "folder", "notes.txt/c.png", f"{UNWRITABLE}/c.png")).map(
            lambda p: call.with_option("--plot", p).case(*_target_names(p))
        ),
        st.just(call.with_option("--participants", "llm").case("LLM")),
        *_format_defects(call, "llm-deliberation", "textarena"),
        *_llm_defects(call),
    ]


def _promediate_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [
        unknown_name("hmo", "williams", "francis", "ias", "flagship", "river")
        .filter(lambda n: n.strip(", ") != "")
        .map(lambda n: call.with_option("--cases", n).case(*_named(n, "cases"))),
        unknown_name("competing", "avoiding", "accommodating", "general")
        .filter(lambda n: n.strip(", ") != "")
        .map(lambda n: call.with_option("--modes", n).case(*_named(n, "mode"))),
        unknown_name("none", "generic", "social").map(
            lambda n: call.with_option("--mediators", n).case(*_named(n, "mediators"))
        ),
        st.sampled_from(("bogus", "llm:", "rule,llm")).map(
            lambda p: call.with_option("--participants", p).case("--participants", "LLM")
        ),
        bad_file_target(".md").map(lambda p: call.with_option("--out", p).case(*_target_names(p))),
        *_llm_defects(call)[:2],
    ]


def _import_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    """scenarios import: a bad SOURCE (as any SCENARIO), a source in another format than --format
    says, an --out that cannot be written."""
    return [
        *_scenario_defects(call, ws),
        *_format_defects(call, "yaml", "genius"),
        bad_file_target(".yaml").map(lambda p: call.with_option("--out", p).case(*_target_names(p))),
    ]


def _export_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    """scenarios export: a bad SCENARIO, an unknown format to write, an --out that cannot be made."""
    return [
        *_scenario_defects(call, ws),
        st.sampled_from(("bogus", "llm-deliberation", "XML", "", f"x{NON_UTF8}")).map(
            lambda f: call.with_option("--format", f).case("--format", usage=True)
        ),
        bad_folder_target().map(lambda p: call.with_option("--out", p).case(*_target_names(p))),
    ]


def _astra_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [bad_file_target(".md").map(lambda p: call.with_option("--out", p).case(*_target_names(p)))]


def _gaia_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [
        bad_file_target(".md").map(lambda p: call.with_option("--out", p).case(*_target_names(p))),
        bad_folder_target().map(lambda p: call.with_option("--figures", p).case(*_target_names(p))),
    ]


def _delegate_run_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [
        *_config_defects(call, ws),
        unknown_name("cooperative", "adversarial", "slow", "contradictory").map(
            lambda n: call.with_option("--counterparty", n).case(*_named(n, "persona", "counterparty"))
        ),
        *_principal_defects(call),
        *_new_db_defects(call, ws),
        st.sampled_from(("bogus", "drafter,bogus", ",")).map(
            lambda r: call.with_option("--roles", r).case("--roles", "LLM")
        ),
        *_llm_defects(call),
    ]


def _delegate_chat_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [*_config_defects(call, ws), *_new_db_defects(call, ws), *_llm_defects(call)]


def _decide_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [
        *_session_defects(call),
        *_db_defects(call, ws),
        unknown_name(ws.request).map(lambda n: call.with_option("--request", n).case(*_named(n, "request"))),
        st.sampled_from(("Z", "", "AA", "1", f"A{NON_UTF8}")).map(
            lambda o: call.with_option("--option", o).case(*_named(o, "option"))
        ),
        st.just(call.without("--request").case("--request")),  # no terminal to confirm on
        *_principal_defects(call),
    ]


def _memory_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    """delegate memory show / forget: a bad database, undecodable filters."""
    return [
        *_db_defects(call, ws),
        st.sampled_from(("--principal", "--domain")).map(
            lambda o: call.with_option(o, f"x{NON_UTF8}").case(o, usage=True)
        ),
    ]


def _memory_show_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    config = Call(call.command, ("staffing",), call.options)
    return [
        *_memory_defects(ws, call),
        *(s.map(lambda c: _as_option(c, call, "--config")) for s in _config_defects(config, ws)),
    ]


def _start_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [*_config_defects(call, ws), *_new_db_defects(call, ws)]


def _reply_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [
        *_session_defects(call),
        *_db_defects(call, ws),
        st.sampled_from((f"hello {NON_UTF8}", "")).map(
            lambda m: call.with_option("--message", m).case("--message", "empty")
        ),
        *_principal_defects(call),
    ]


def _resume_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [*_session_defects(call), *_db_defects(call, ws), *_principal_defects(call)]


def _texts_defects(ws: Workspace, call: Call, option: str) -> list[CaseStrategy]:
    """delegate check / classify: a bad config, text or file of texts."""
    return [
        *_config_defects(call, ws),
        st.just(call.without(option).case(option, "--file")),
        st.sampled_from((f"text {NON_UTF8}", "", "   ")).map(
            lambda t: call.with_option(option, t).case(option, "empty")
        ),
        missing_or_folder(".txt").map(
            lambda p: call.without(option).with_option("--file", p).case(*_target_names(p))
        ),
        st.sampled_from((b"line \xff\xfe\n", b"", b"\n \n", b"\x00\xff")).map(
            lambda c: (
                call.without(option)
                .with_option("--file", "texts.txt")
                .case("texts.txt", files={"texts.txt": c})
            )
        ),
    ]


def _verify_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [
        *_session_defects(call),
        *_db_defects(call, ws),
        st.sampled_from(("missing-anchor", "folder", "notes.txt")).map(
            lambda p: call.with_option("--anchor", p).case(p, "anchor")
        ),
    ]


def _init_key_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [
        st.sampled_from(("notes.txt", "folder")).map(lambda p: call.with_option("--key-file", p).case(p)),
        bad_file_target(".key").map(lambda p: call.with_option("--key-file", p).case(*_target_names(p))),
    ]


def _web_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return [
        *_db_defects(call, ws),
        st.sampled_from(("0", "65536", "-1", "99999999999999999999")).map(
            lambda p: call.with_option("--port", p).case("--port")
        ),
        st.sampled_from(("0.0.0.0", "192.0.2.1", "example.org", "")).map(
            lambda h: call.with_option("--host", h).case("--host")
        ),
        st.just(call.with_option("--reset").case("--init")),
        st.just(call.with_option("--principal", "someone").case("--init")),
        st.sampled_from(("not a url", "ftp://x", "https://", "http://", "//host")).map(
            lambda o: call.with_option("--origin", o).case("origin")
        ),
    ]


RATING_LINE = (
    '{"schema": 1, "run": "rated", "instrument": "astra", "scores": {"strategicness": 3, "fairness": 4, '
    '"naturalness": 2}, "comment": "", "rated_by": "fuzz", "rated_at": 1700000000.0}\n'
)


def _report_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    """report ratings: a folder that is not one, or whose ratings file holds no readable rating."""
    return [
        st.sampled_from(("missing", "notes.txt", "folder/keep.txt", TOO_LONG, f"x{NON_UTF8}")).map(
            lambda p: call.with_argument(0, p).case("folder")
        ),
        st.sampled_from((*MALFORMED_JSON, *WRONG_TYPE_JSON, "", "\n \n", RATING_LINE.replace("3", "9"))).map(
            lambda c: call.case("ratings", files={"rated/ratings.jsonl": c.encode()})
        ),
        st.just(call.case("ratings", files={"rated/ratings.jsonl": b"\xff\xfe\x00"})),
    ]


def _no_defects(ws: Workspace, call: Call) -> list[CaseStrategy]:
    return []  # (nothing to get wrong but the generic defects: no arguments, no options)


SPECS: dict[tuple[str, ...], Spec] = {
    ("run",): Spec(
        lambda ws: Call(("run",), ("casino",), (("-a", "boulware"), ("-a", "conceder"))), _run_defects
    ),
    ("tournament",): Spec(
        lambda ws: Call(
            ("tournament",),
            (),
            (
                ("--agents", "boulware,conceder"),
                ("--scenarios", "casino"),
                ("--repetitions", "1"),
                ("--jobs", "1"),
                ("--out", "results"),
            ),
        ),
        _tournament_defects,
    ),
    ("scenarios", "list"): Spec(lambda ws: Call(("scenarios", "list")), _no_defects),
    ("scenarios", "show"): Spec(
        lambda ws: Call(("scenarios", "show"), ("casino",)),
        lambda ws, c: [*_scenario_defects(c, ws), *_format_defects(c, "llm-deliberation", "textarena")],
    ),
    ("scenarios", "validate"): Spec(
        lambda ws: Call(("scenarios", "validate"), ("casino.yaml",)),
        lambda ws, c: [
            *_scenario_defects(c, ws),
            unknown_name("boulware").map(
                lambda n: replace(c, options=(("-a", "boulware"), ("-a", n))).case(*_named(n, "agent"))
            ),
            st.just(c.with_option("-a", "boulware").case("--agent")),
            *_format_defects(c, "llm-deliberation", "textarena"),
        ],
    ),
    ("scenarios", "import"): Spec(
        lambda ws: Call(("scenarios", "import"), ("game",), (("--out", "imported.yaml"),)), _import_defects
    ),
    ("scenarios", "export"): Spec(
        lambda ws: Call(("scenarios", "export"), ("casino",), (("--out", "exported"),)), _export_defects
    ),
    ("scenarios", "generate"): Spec(
        lambda ws: Call(
            ("scenarios", "generate"), (), (("--seed", "1"), ("--issues", "3"), ("--out", "generated"))
        ),
        lambda ws, c: [bad_folder_target().map(lambda p: c.with_option("--out", p).case(*_target_names(p)))],
    ),
    ("analyze",): Spec(lambda ws: Call(("analyze",), ("casino",)), _analyze_defects),
    ("mediate",): Spec(lambda ws: Call(("mediate",), ("hmo",), (("--quiet", None),)), _mediate_defects),
    ("experiment", "astra"): Spec(
        lambda ws: Call(
            ("experiment", "astra"),
            (),
            (("--runs", "1"), ("--tournament-seeds", "0"), ("--jobs", "1"), ("--out", "report/astra.md")),
        ),
        _astra_defects,
    ),
    ("experiment", "promediate"): Spec(
        lambda ws: Call(
            ("experiment", "promediate"),
            (),
            (
                ("--runs", "1"),
                ("--cases", "hmo"),
                ("--modes", "general"),
                ("--mediators", "none"),
                ("--deliberation-seeds", "0"),
                ("--jobs", "1"),
                ("--out", "report/pm.md"),
            ),
        ),
        _promediate_defects,
    ),
    ("experiment", "gaia"): Spec(
        lambda ws: Call(("experiment", "gaia"), (), (("--seeds", "1"), ("--out", "report/gaia.md"))),
        _gaia_defects,
    ),
    ("delegate", "run"): Spec(
        lambda ws: Call(("delegate", "run"), ("staffing",), (("--db", "new.db"),)), _delegate_run_defects
    ),
    ("delegate", "chat"): Spec(
        lambda ws: Call(("delegate", "chat"), ("staffing",), (("--db", "new.db"),), stdin="/quit\n"),
        _delegate_chat_defects,
    ),
    ("delegate", "decide"): Spec(
        lambda ws: Call(
            ("delegate", "decide"),
            (ws.paused,),
            (("--request", ws.request), ("--option", "A"), ("--db", "delegate.db")),
        ),
        _decide_defects,
    ),
    ("delegate", "start"): Spec(
        lambda ws: Call(("delegate", "start"), ("staffing",), (("--db", "new.db"),)), _start_defects
    ),
    ("delegate", "reply"): Spec(
        lambda ws: Call(
            ("delegate", "reply"), (ws.waiting,), (("--message", "Hello there"), ("--db", "delegate.db"))
        ),
        _reply_defects,
    ),
    ("delegate", "resume"): Spec(
        lambda ws: Call(("delegate", "resume"), (ws.waiting,), (("--db", "delegate.db"),)), _resume_defects
    ),
    ("delegate", "memory", "show"): Spec(
        lambda ws: Call(("delegate", "memory", "show"), (), (("--db", "delegate.db"),)), _memory_show_defects
    ),
    ("delegate", "memory", "forget"): Spec(
        lambda ws: Call(("delegate", "memory", "forget"), (), (("--yes", None), ("--db", "delegate.db"))),
        _memory_defects,
    ),
    ("delegate", "inbox"): Spec(
        lambda ws: Call(("delegate", "inbox"), (), (("--db", "delegate.db"),)),
        lambda ws, c: _db_defects(c, ws),
    ),
    ("delegate", "check"): Spec(
        lambda ws: Call(("delegate", "check"), ("staffing",), (("--draft", "We can offer 80 per hour."),)),
        lambda ws, c: _texts_defects(ws, c, "--draft"),
    ),
    ("delegate", "classify"): Spec(
        lambda ws: Call(("delegate", "classify"), ("staffing",), (("--message", "Can you do 90?"),)),
        lambda ws, c: _texts_defects(ws, c, "--message"),
    ),
    ("audit", "verify"): Spec(
        lambda ws: Call(("audit", "verify"), (ws.paused,), (("--db", "delegate.db"),)), _verify_defects
    ),
    ("audit", "log"): Spec(
        lambda ws: Call(("audit", "log"), (ws.paused,), (("--db", "delegate.db"),)),
        lambda ws, c: [*_session_defects(c), *_db_defects(c, ws)],
    ),
    ("audit", "init-key"): Spec(
        lambda ws: Call(("audit", "init-key"), (), (("--key-file", "keys/audit.key"),)), _init_key_defects
    ),
    ("web",): Spec(lambda ws: Call(("web",), (), (("--db", "delegate.db"),)), _web_defects),
    ("report", "ratings"): Spec(lambda ws: Call(("report", "ratings"), ("rated",)), _report_defects),
}


# ---------------------------------------------------------------------------------------------
# Generic defects, read from the command's parameters


def generic_defects(command: Any, call: Call) -> list[CaseStrategy]:
    """Usage errors every command must report in one line with exit code 2."""
    strategies: list[CaseStrategy] = [
        st.just(
            Case((*call.args(), "--no-such-option"), ("--no-such-option",), usage=True, stdin=call.stdin)
        ),
        st.just(
            Case((*call.args(), "surplus-argument"), ("surplus-argument",), usage=True, stdin=call.stdin)
        ),
    ]
    for param in command.params:
        if param.param_type_name == "argument" and param.required:
            index = [p for p in command.params if p.param_type_name == "argument"].index(param)
            left_out = replace(call, arguments=call.arguments[:index])
            strategies.append(st.just(left_out.case(param.name, "argument", usage=True)))
    for option in _options(command):
        strategies += _option_defects(option, call)
    return strategies


def _option_defects(option: Any, call: Call) -> list[CaseStrategy]:
    name = max(option.opts, key=len)
    given = [o for o, _ in call.options]
    found: list[CaseStrategy] = []
    if option.required and any(o in given for o in option.opts):
        left_out = call
        for alias in option.opts:
            left_out = left_out.without(alias)
        found.append(st.just(left_out.case(name, usage=True)))
    if getattr(option, "is_flag", False):
        with_value = Case((*call.without(name).args(), f"{name}=yes"), (name,), usage=True, stdin=call.stdin)
        return [*found, st.just(with_value)]
    without_value = Case((*call.without(name).args(), name), (name,), usage=True, stdin=call.stdin)
    found.append(st.just(without_value))
    kind = _annotation(option)
    low, high = _bounds(option)
    if kind is int:
        found.append(not_an_integer().map(lambda v: call.with_option(name, v).case(name, usage=True)))
    elif kind is float:
        found.append(not_a_number().map(lambda v: call.with_option(name, v).case(name, usage=True)))
    if kind in (int, float) and low is not None:
        below = st.integers(max_value=int(low) - 1, min_value=-(10**30))
        found.append(below.map(lambda v: call.with_option(name, str(v)).case(name, usage=True)))
    if kind in (int, float) and high is not None:
        above = st.integers(min_value=int(high) + 1, max_value=10**30)
        found.append(above.map(lambda v: call.with_option(name, str(v)).case(name, usage=True)))
    return found


def strategy_for(path: tuple[str, ...], ws: Workspace) -> CaseStrategy:
    spec = SPECS[path]
    call = spec.base(ws)
    return st.one_of(*generic_defects(COMMANDS[path], call), *spec.defects(ws, call))


# ---------------------------------------------------------------------------------------------
# Running one case


def snapshot(root: Path) -> dict[str, str]:
    """Every file (by content) and folder under root."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        found[relative] = "<folder>" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@contextlib.contextmanager
def no_server() -> Iterator[None]:
    """Make sure no example ever serves the web console (it would block the test)."""
    with contextlib.ExitStack() as stack:
        with contextlib.suppress(ImportError):
            import uvicorn  # noqa: F401

            refused = AssertionError("the example reached uvicorn.run: it had no defect")
            stack.enter_context(mock.patch("uvicorn.run", side_effect=refused))
        yield


def play(case: Case, root: Path) -> None:
    """Run case in root and check every invariant of a failure."""
    for name, content in case.files.items():
        (root / name).write_bytes(content)
    before = snapshot(root)
    with contextlib.chdir(root), no_server():
        result = runner.invoke(app, list(case.args), input=case.stdin, env=ENV, prog_name="parley")
    after = snapshot(root)
    if any(name.endswith(("-wal", "-shm", "-journal")) for name in after):
        gc.collect()  # close the databases the failed command left open (SQLite removes these then)
        after = snapshot(root)
    crash = ""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        crash = "".join(traceback.format_exception(*result.exc_info))
    shown = f"parley {' '.join(repr(a if len(a) < 80 else a[:77] + '...') for a in case.args)}\n"
    shown += f"exit {result.exit_code}\n"
    shown += f"stderr: {result.stderr[-1500:]!r}\nstdout: {result.stdout[-600:]!r}\n{crash}"
    assert not crash, shown
    assert result.exit_code != 0, shown
    if case.usage:
        assert result.exit_code == 2, shown
    assert "Traceback" not in result.stdout + result.stderr, shown
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, shown
    assert lines[0].startswith("error: "), shown
    assert any(name.lower() in lines[0].lower() for name in case.names), (
        f"names none of {case.names}\n{shown}"
    )
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"left behind or changed: {changed}\n{shown}"


# ---------------------------------------------------------------------------------------------
# The tests


def test_the_fuzzer_finds_every_kind_of_command() -> None:
    assert {("run",), ("scenarios", "show"), ("delegate", "decide"), ("experiment", "gaia")} <= set(COMMANDS)
    assert all(not hasattr(command, "commands") for command in COMMANDS.values())


def test_every_command_has_a_fuzz_strategy() -> None:
    missing = sorted(" ".join(path) for path in set(COMMANDS) - set(SPECS))
    stale = sorted(" ".join(path) for path in set(SPECS) - set(COMMANDS))
    assert not missing, f"commands without a fuzz strategy (add them to SPECS): {missing}"
    assert not stale, f"SPECS names commands that no longer exist: {stale}"


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_bad_input_ends_in_one_line_and_leaves_nothing_behind(
    path: tuple[str, ...], workspace: Workspace, data: st.DataObject
) -> None:
    if path not in SPECS:
        pytest.fail(f"parley {' '.join(path)} has no fuzz strategy: add it to SPECS")
    case = data.draw(strategy_for(path, workspace), label="case")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "workspace"
        shutil.copytree(workspace.root, root)
        play(case, root)


def test_the_valid_calls_are_valid(workspace: Workspace) -> None:
    """The fuzzer's base calls succeed as they are, so each example's failure is its defect's doing
    (only the quick ones are run here; the experiments' bases are the smallest runs they allow)."""
    for path in (
        ("run",),
        ("scenarios", "show"),
        ("delegate", "check"),
        ("delegate", "inbox"),
        ("report", "ratings"),
    ):
        call = SPECS[path].base(workspace)
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "workspace"
            shutil.copytree(workspace.root, root)
            with contextlib.chdir(root):
                result = runner.invoke(app, list(call.args()), input=call.stdin, env=ENV, prog_name="parley")
        assert result.exit_code == 0, (path, result.output)


# ---------------------------------------------------------------------------------------------
# The one-line form of click's usage errors, and the last-resort handler


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["run", "casino", "--seed", "abc"],
            "error: parley run: invalid value for '--seed': ",
        ),
        (["tournament", "--jobs", "x"], "error: parley tournament: invalid value for '--jobs': "),
        (["run"], "error: parley run: missing argument 'SCENARIO'; see parley run --help"),
        (["bogus"], "error: parley: no such command 'bogus'; see parley --help"),
        (
            ["run", "casino", "-a"],
            "error: parley run: option '-a' requires an argument; see parley run --help",
        ),
    ],
)
def test_a_usage_error_is_one_line_naming_command_option_and_value(args: list[str], expected: str) -> None:
    result = runner.invoke(app, args, env=ENV, prog_name="parley")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(expected), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    if "--seed" in args:
        assert "(got 'abc'); see parley run --help" in result.stderr


def test_help_is_unchanged() -> None:
    result = runner.invoke(app, ["run", "--help"], env=ENV, prog_name="parley")
    assert result.exit_code == 0 and result.stderr == ""
    assert "Usage: parley run [OPTIONS]" in " ".join(result.stdout.split())
    assert "--seed" in result.stdout


def test_a_bare_group_shows_its_help() -> None:
    result = runner.invoke(app, ["delegate"], env=ENV, prog_name="parley")
    assert result.exit_code == 2 and "decide" in result.stdout and "error" not in result.stderr


def test_an_unexpected_exception_is_one_line_unless_debugging(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from parley.cli import app as app_module

    def broken() -> None:
        raise KeyError("oops")

    monkeypatch.setattr(app_module, "app", broken)
    monkeypatch.delenv(app_module.DEBUG_ENV, raising=False)
    with pytest.raises(SystemExit) as stopped:
        app_module.main()
    assert stopped.value.code == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "error: internal error: KeyError: 'oops'; this is a bug in parley "
        "(run again with PARLEY_DEBUG=1 for the traceback)"
    ]
    monkeypatch.setenv(app_module.DEBUG_ENV, "1")
    with pytest.raises(KeyError):
        app_module.main()


def test_the_workspace_names_are_the_workspaces(workspace: Workspace) -> None:
    """unknown_name keeps clear of the workspace's own files (so an unknown name is never found)."""
    on_disk = {path.name for path in workspace.root.iterdir()}
    assert on_disk <= {*WORKSPACE_NAMES}, on_disk - set(WORKSPACE_NAMES)

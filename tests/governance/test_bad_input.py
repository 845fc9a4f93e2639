"""Bad input to the delegate ends in one line naming the problem, at load time (issue 13 §5).

Before: tracebacks, or checks silently switched off (a NaN limit compares false with everything).
"""

from __future__ import annotations

import sqlite3
from importlib import resources
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import ScenarioError
from parley.governance.config import load_config, load_yaml_data
from parley.governance.counterparties import ScriptedCounterparty
from parley.governance.escalation import StoredPrincipal
from parley.governance.session import decide, run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import with_strategy
from parley.protocol.clock import FakeClock

from .test_walkthrough import WALKTHROUGH

runner = CliRunner()


def _invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _one_line_error(code: int, out: str, *needles: str) -> None:
    assert code == 2, out
    lines = out.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), out
    assert "Traceback" not in out
    for needle in needles:
        assert needle in lines[0], lines[0]


def _staffing_text() -> str:
    return resources.files("parley.governance").joinpath("data", "staffing.yaml").read_text(encoding="utf-8")


def test_a_text_file_as_database_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.db"
    bogus.write_text("these are my notes, not a database\n" * 200, encoding="utf-8")
    for command in (("delegate", "inbox"), ("delegate", "decide", "s", "--request", "s-e1", "--option", "A")):
        code, out = _invoke(*command, "--db", str(bogus))
        _one_line_error(code, out, str(bogus), "not a delegate database")
    with pytest.raises(ScenarioError, match="not a delegate database"):
        SessionStore(bogus)


def test_another_programs_sqlite_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    other = tmp_path / "crm.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
    code, out = _invoke("delegate", "inbox", "--db", str(other))
    _one_line_error(code, out, "not a delegate database", "customers")
    with sqlite3.connect(other) as connection:
        tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    assert tables == ["customers"]  # nothing was added to somebody else's file


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", ".NaN"])
def test_a_non_finite_limit_is_refused(tmp_path: Path, value: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(_staffing_text().replace("maximum: 100000", f"maximum: {value}"), encoding="utf-8")
    with pytest.raises(ScenarioError, match="maximum"):
        load_config(path)
    code, out = _invoke("delegate", "check", str(path), "--draft", "Hello")
    _one_line_error(code, out, "boundary.terms.0.maximum")


@pytest.mark.parametrize("phrase", ['""', '"   "', "maybe", "indicative"])
def test_an_empty_or_one_word_non_binding_phrase_is_refused(tmp_path: Path, phrase: str) -> None:
    path = tmp_path / "c.yaml"
    text = _staffing_text().replace("  - for discussion\n", f"  - for discussion\n  - {phrase}\n")
    path.write_text(text, encoding="utf-8")
    code, out = _invoke("delegate", "check", str(path), "--draft", "We accept $95K.")
    _one_line_error(code, out, "non_binding_phrases", "too short")


def test_an_invalid_regular_expression_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    text = _staffing_text().replace(
        "    keywords: [authorization,",
        "    patterns: {us_citizen: '(unclosed'}\n    keywords: [authorization,",
        1,
    )
    path.write_text(text, encoding="utf-8")
    code, out = _invoke("delegate", "check", str(path), "--draft", "Hello")
    _one_line_error(code, out, "invalid regular expression")


def test_non_utf8_config_and_input_files_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_bytes(_staffing_text().encode("utf-8").replace(b"hiring manager", b"hiring manag\xe9r"))
    code, out = _invoke("delegate", "check", str(config), "--draft", "Hello")
    _one_line_error(code, out, "not UTF-8")
    drafts = tmp_path / "drafts.txt"
    drafts.write_bytes(b"We accept \xff\xfe the offer.\n")
    for command in ("check", "classify"):
        code, out = _invoke("delegate", command, "staffing", "--file", str(drafts))
        _one_line_error(code, out, "not UTF-8")


def test_invalid_utf8_on_the_command_line_is_refused(tmp_path: Path) -> None:
    # What Python makes of the bytes b"We accept \xff" in argv (surrogateescape).
    broken = "We accept \udcff the offer"
    code, out = _invoke("delegate", "check", "staffing", "--draft", broken)
    _one_line_error(code, out, "--draft", "not valid UTF-8")
    code, out = _invoke("delegate", "reply", "s", "--message", broken, "--db", str(_empty_db(tmp_path)))
    _one_line_error(code, out, "--message", "not valid UTF-8")


def _empty_db(tmp_path: Path) -> Path:
    path = tmp_path / "empty.db"
    SessionStore(path).close()
    return path


def test_an_out_of_scale_limit_raise_needs_the_new_limit_repeated(tmp_path: Path) -> None:
    database = tmp_path / "d.db"
    store = SessionStore(database)
    script = [*WALKTHROUGH[:5], "I want $800K, nothing less.", "OK, deal at that."]
    paused = run_session(
        with_strategy(load_config("staffing"), "legacy"),  # legacy: the out-of-scale ask escalates at once
        ScriptedCounterparty(script),
        StoredPrincipal(),
        store,
        config_source="staffing",
        clock=FakeClock(tick=1.0),
    )
    assert paused.pending is not None and paused.pending.trigger.value == "boundary"
    raise_key = next(o.key for o in paused.pending.options if o.effect == "raise_limit")
    request = paused.pending.request_id
    code, out = _invoke(
        "delegate",
        "decide",
        paused.session_id,
        "--request",
        request,
        "--option",
        raise_key,
        "--db",
        str(database),
    )
    _one_line_error(code, out, "$100K", "$800K", "--confirm-limit 800000")
    assert store.decision(request) is None and store.open_request(paused.session_id) is not None
    with pytest.raises(ScenarioError, match="--confirm-limit 800000"):
        decide(store, paused.session_id, request_id=request, option=raise_key, confirm_limit=80000)
    outcome = decide(store, paused.session_id, request_id=request, option=raise_key, confirm_limit=800000)
    assert store.decision(request) is not None
    assert any(e.kind == "authorization_change" for e in store.load_events(outcome.session_id))


def test_escape_sequences_from_the_counterparty_never_reach_the_terminal(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    # The legacy strategy puts the hostile ask to the principal at once (issue 17 keeps it selectable).
    legacy = tmp_path / "staffing-legacy.yaml"
    raw = load_yaml_data("staffing.yaml")
    raw["negotiation"]["strategy"] = "legacy"
    legacy.write_text(yaml.safe_dump(raw), encoding="utf-8")
    code, out = _invoke("delegate", "start", str(legacy), "--db", db)
    session = out.split("session ")[1].split(":")[0]
    inbound = [
        "I'm a U.S. citizen.",
        "I can do a 6-hour overlap with Pacific time. Mostly Python and React.",
        "I have 8 years of professional experience. I could start in January.",
        "I'm after a permanent role. My salary expectation is $95K.",
        "Hybrid suits me, 3 days a week in the office.",
    ]
    for text in inbound:
        code, out = _invoke("delegate", "reply", session, "--message", text, "--db", db)
        assert code == 0, out
    hostile = "\x1b]0;owned\x07I need\x1b[2J\x1b[1;1H $104K.\x9b31m \x1b]8;;http://x.test\x1b\\"
    for _ in range(3):
        code, out = _invoke("delegate", "reply", session, "--message", hostile, "--db", db)
        if "[boundary]" in out:
            break
    assert code == 0 and "[boundary]" in out, out  # the panel quotes the last messages, the hostile one too
    assert "I need $104K." in out and "x.test" not in out, out
    assert not any(ch in out for ch in "\x1b\x07\x9b"), repr(out)


@pytest.mark.parametrize("role", ['""', '"  "', '"-"'])
def test_a_config_with_a_blank_role_is_refused(tmp_path: Path, role: str) -> None:
    path = tmp_path / "c.yaml"
    text = _staffing_text()
    start = text.index("principal_role:")
    end = text.index("\n", start)
    path.write_text(text[:start] + f"principal_role: {role}" + text[end:], encoding="utf-8")
    with pytest.raises(ScenarioError, match="principal_role"):
        load_config(path)
    code, out = _invoke("delegate", "run", str(path), "--db", str(tmp_path / "d.db"))
    _one_line_error(code, out, "principal_role")
    assert not (tmp_path / "d.db").exists()


def test_a_custom_domain_has_no_simulated_counterparty_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "hiring.yaml"
    path.write_text(_staffing_text().replace("name: staffing", "name: hiring", 1), encoding="utf-8")
    code, out = _invoke("delegate", "run", str(path), "--db", str(tmp_path / "d.db"))
    _one_line_error(code, out, "no simulated counterparty", "hiring", "delegate start")
    assert not (tmp_path / "d.db").exists()

"""Verification hooks (GAIA §3.3.6): claims checked by a pluggable verifier that fails closed, with
the result in the TCI ledger, the escalation shown to the principal and the audit log."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from parley.errors import ScenarioError
from parley.governance import verification
from parley.governance.config import DomainConfig
from parley.governance.counterparties import DetachedCounterparty
from parley.governance.delegate import Delegate
from parley.governance.session import reply, start_session
from parley.governance.store import SessionStore
from parley.governance.tci import TaskCompletenessIndex
from parley.governance.verification import (
    MAX_CLAIM_CHARS,
    Claim,
    HttpVerifier,
    RegistryVerifier,
    VerificationResult,
    VerificationStatus,
    check_claim,
    load_verifier,
)

VERIFIED, REFUTED, UNVERIFIED = (
    VerificationStatus.VERIFIED,
    VerificationStatus.REFUTED,
    VerificationStatus.UNVERIFIED,
)


def _claim(text: str = "ISO 9001", field: str = "certification") -> Claim:
    return Claim(field, "quality certification", text)


def _registry(tmp_path: Path, body: str = "", suffix: str = ".yaml") -> Path:
    path = tmp_path / f"registry{suffix}"
    path.write_text(
        body
        or "certification:\n  verified: [ISO 9001, AS9100]\n  refuted: [IATF 16949]\n"
        "references:\n  verified: [REF-2291]\n",
        encoding="utf-8",
    )
    return path


# -- the registry verifier -----------------------------------------------------------------------


def test_registry_verifies_known_claims_refutes_listed_ones_and_leaves_the_rest_unverified(
    tmp_path: Path,
) -> None:
    verifier = RegistryVerifier.load(_registry(tmp_path))
    assert verifier.verify(_claim("iso-9001")).status == VERIFIED  # spacing and punctuation do not matter
    assert verifier.verify(_claim("IATF 16949")).status == REFUTED
    assert verifier.verify(_claim("ISO 14001")).status == UNVERIFIED  # not known valid is not verified
    assert verifier.verify(_claim("REF-2291", "references")).status == VERIFIED
    assert verifier.verify(_claim("REF-2291", "licence_number")).status == UNVERIFIED


def test_a_json_registry_reads_like_a_yaml_one(tmp_path: Path) -> None:
    path = _registry(tmp_path, json.dumps({"certification": {"verified": ["ISO 9001"]}}), ".json")
    assert RegistryVerifier.load(path).verify(_claim()).status == VERIFIED


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("certification: [ISO 9001]\n", "certification"),  # a list where a mapping is expected
        ("certification:\n  valid: [x]\n", "certification.valid"),  # an unknown key
        ("- a\n- b\n", "mapping"),
        ("certification: {verified: [x]\n", "not valid YAML"),
    ],
)
def test_a_bad_registry_file_fails_in_one_line_naming_the_file(
    tmp_path: Path, body: str, expected: str
) -> None:
    path = _registry(tmp_path, body)
    with pytest.raises(ScenarioError) as caught:
        RegistryVerifier.load(path)
    message = str(caught.value)
    assert str(path) in message and expected in message and "\n" not in message


def test_a_missing_registry_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such file"):
        load_verifier(f"registry:{tmp_path / 'missing.yaml'}")


# -- failing closed ------------------------------------------------------------------------------


class _Raising:
    name = "raising"

    def verify(self, claim: Claim) -> VerificationResult:
        raise RuntimeError("database on fire")


class _Garbage:
    name = "garbage"

    def verify(self, claim: Claim) -> VerificationResult:
        return "verified"  # type: ignore[return-value]  # a plugin that ignores the protocol


class _Hanging:
    name = "hanging"

    def __init__(self) -> None:
        self.release = threading.Event()

    def verify(self, claim: Claim) -> VerificationResult:
        self.release.wait(10)
        return VerificationResult(VERIFIED, "too late")


class _Always:
    name = "always"

    def __init__(self) -> None:
        self.seen: list[Claim] = []

    def verify(self, claim: Claim) -> VerificationResult:
        self.seen.append(claim)
        return VerificationResult(VERIFIED, "\x1b[2Jlooks fine" + "!" * 5000)


def test_a_verifier_that_raises_gives_unverified() -> None:
    result = check_claim(_Raising(), _claim(), timeout=2)
    assert result.status == UNVERIFIED and "RuntimeError" in result.detail and result.source == "raising"


def test_a_verifier_that_returns_garbage_gives_unverified() -> None:
    result = check_claim(_Garbage(), _claim(), timeout=2)
    assert result.status == UNVERIFIED and "str" in result.detail


def test_a_result_with_an_unknown_status_gives_unverified() -> None:
    class Shouting:
        name = "shouting"

        def verify(self, claim: Claim) -> VerificationResult:
            return VerificationResult("VERIFIED!!")  # type: ignore[arg-type]

    result = check_claim(Shouting(), _claim(), timeout=2)
    assert result.status == UNVERIFIED and "unknown status" in result.detail


def test_a_verifier_that_hangs_is_cut_off_at_the_timeout() -> None:
    hanging = _Hanging()
    try:
        result = check_claim(hanging, _claim(), timeout=0.05)
    finally:
        hanging.release.set()
    assert result.status == UNVERIFIED and "timed out" in result.detail


def test_huge_or_odd_claim_text_is_never_sent_and_never_verified() -> None:
    always = _Always()
    huge = check_claim(always, _claim("ISO 9001 " * 10_000), timeout=2)
    empty = check_claim(always, _claim("\x00\x1b[31m\u202e  \t"), timeout=2)
    assert huge.status == UNVERIFIED and f"{MAX_CLAIM_CHARS:,}" in huge.detail
    assert empty.status == UNVERIFIED and "empty" in empty.detail
    assert always.seen == []  # the verifier was not called for either


def test_claim_text_reaches_the_verifier_cleaned_and_its_detail_comes_back_cleaned() -> None:
    always = _Always()
    result = check_claim(always, _claim("ISO\x1b[2J 9001\u202e"), timeout=2)
    assert always.seen[0].text == "ISO 9001"
    assert result.status == VERIFIED and "\x1b" not in result.detail and len(result.detail) <= 200


# -- the HTTP verifier (httpx.MockTransport only: no network) -----------------------------------


def _http(handler: httpx.MockTransport | None = None, **kwargs: float) -> HttpVerifier:
    return HttpVerifier("https://verify.example/claims", transport=handler, **kwargs)


def test_http_verifier_posts_the_claim_and_reads_the_answer() -> None:
    seen: list[dict[str, str]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"status": "verified", "detail": "certificate 123 valid"})

    result = check_claim(_http(httpx.MockTransport(answer)), _claim(), timeout=2)
    assert result.status == VERIFIED and result.detail == "certificate 123 valid"
    assert seen == [{"field": "certification", "label": "quality certification", "claim": "ISO 9001"}]


def test_http_verifier_can_refute() -> None:
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json={"status": "refuted"}))
    assert check_claim(_http(transport), _claim(), timeout=2).status == REFUTED


@pytest.mark.parametrize(
    "respond",
    [
        lambda r: httpx.Response(500, json={"status": "verified"}),  # an error status
        lambda r: httpx.Response(302, headers={"location": "https://evil.example/"}),  # no redirects
        lambda r: httpx.Response(200, text="verified"),  # not JSON
        lambda r: httpx.Response(200, json={"status": "VERIFIED!"}),  # not one of the statuses
        lambda r: httpx.Response(200, json=["verified"]),  # not an object
        lambda r: httpx.Response(200, json={"status": "verified", "pad": "x" * 100_000}),  # too large
        lambda r: httpx.Response(200, text='{"status": NaN}'),
    ],
)
def test_http_verifier_fails_closed_on_any_odd_answer(respond: object) -> None:
    transport = httpx.MockTransport(respond)  # type: ignore[arg-type]
    assert check_claim(_http(transport), _claim(), timeout=2).status == UNVERIFIED


@pytest.mark.parametrize(
    "error", [httpx.ReadTimeout("slow"), httpx.ConnectTimeout("slow"), httpx.ConnectError("refused")]
)
def test_http_verifier_fails_closed_on_timeouts_and_connection_errors(error: Exception) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise error

    result = check_claim(_http(httpx.MockTransport(fail)), _claim(), timeout=2)
    assert result.status == UNVERIFIED and type(error).__name__ in result.detail


def test_http_verifier_passes_its_timeout_to_httpx() -> None:
    seen: list[object] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions.get("timeout"))
        return httpx.Response(200, json={"status": "unverified"})

    check_claim(_http(httpx.MockTransport(answer), timeout=1.5), _claim(), timeout=2)
    assert seen and all(value == 1.5 for value in dict(seen[0]).values())  # type: ignore[call-overload]


# -- loading by name -----------------------------------------------------------------------------


def test_specs_name_the_built_in_verifiers(tmp_path: Path) -> None:
    assert isinstance(load_verifier(f"registry:{_registry(tmp_path)}"), RegistryVerifier)
    assert isinstance(load_verifier("http:https://verify.example/c"), HttpVerifier)
    assert isinstance(load_verifier("https://verify.example/c"), HttpVerifier)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("nosuch", "unknown verifier 'nosuch'"),
        ("http:ftp://x", "http"),
        ("http:", "URL"),
        ("registry:", "file"),
        ("", "empty"),
    ],
)
def test_bad_specs_are_one_line_errors(spec: str, expected: str) -> None:
    with pytest.raises(ScenarioError, match=expected):
        load_verifier(spec)


def make_test_verifier(argument: str) -> _Always:
    """An entry point's target: a factory taking the spec's argument."""
    verifier = _Always()
    verifier.name = f"plugin:{argument}"
    return verifier


def test_a_verifier_is_loaded_from_the_entry_point_group(monkeypatch: pytest.MonkeyPatch) -> None:
    # The entry point names this module the way an installed plugin names its own: importable from
    # the repository root, which `pytest` (unlike `python -m pytest`) does not put on sys.path.
    monkeypatch.syspath_prepend(str(Path(__file__).parents[2]))
    point = EntryPoint(
        "acme", "tests.governance.test_verification:make_test_verifier", verification.VERIFIER_GROUP
    )
    monkeypatch.setattr(verification, "_entry_points", lambda: (point,))
    loaded = load_verifier("acme:eu-register")
    assert loaded.name == "plugin:eu-register"
    assert check_claim(loaded, _claim(), timeout=2).status == VERIFIED


def test_an_entry_point_that_fails_to_load_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    point = EntryPoint("broken", "tests.governance.no_such_module:factory", verification.VERIFIER_GROUP)
    monkeypatch.setattr(verification, "_entry_points", lambda: (point,))
    with pytest.raises(ScenarioError, match="verifier 'broken' could not be loaded"):
        load_verifier("broken")


def test_the_shipped_entry_points_are_declared_in_pyproject() -> None:
    text = (Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert f'[project.entry-points."{verification.VERIFIER_GROUP}"]' in text
    assert 'registry = "parley.governance.verification:registry_verifier"' in text


def test_a_domain_config_names_its_claims_and_checks_them(procurement: DomainConfig) -> None:
    from parley.governance.config import parse_config

    raw = procurement.model_dump(mode="json")
    raw["verification"] = {"claims": ["certification"], "verifier": "registry:x.yaml", "timeout": 2}
    assert parse_config(raw, "p.yaml").verification.claims == ("certification",)
    raw["verification"]["claims"] = ["shoe_size"]
    with pytest.raises(ScenarioError, match=r"verification\.claims: unknown field 'shoe_size'"):
        parse_config(raw, "p.yaml")
    assert procurement.verification.verifier is None  # off by default


# -- the TCI ledger ------------------------------------------------------------------------------


def test_the_tci_ledger_keeps_checks_without_changing_the_index(procurement: DomainConfig) -> None:
    tci = TaskCompletenessIndex(procurement)
    from parley.governance.extraction import FieldReading

    tci.update(1, [FieldReading("certification", "iso9001", 0.95, "test", "")])
    before = (tci.value, tci.weighted)
    tci.record_verification("certification", "iso9001", VerificationResult(REFUTED, "revoked", "registry"), 1)
    assert (tci.value, tci.weighted) == before  # a check is evidence for the principal, never a count
    again = TaskCompletenessIndex.from_json(procurement, json.loads(json.dumps(tci.to_json())))
    check = again.verification("certification")
    assert check is not None and check.result.status == REFUTED and check.value == "iso9001"


# -- the delegate --------------------------------------------------------------------------------


def _with_verifier(
    config: DomainConfig, spec: str, claims: tuple[str, ...] = ("certification",)
) -> DomainConfig:
    settings = config.verification.model_copy(update={"verifier": spec, "claims": claims})
    return config.model_copy(update={"verification": settings})


MESSAGES = (
    "We are ISO 9001 certified. Standard spec, 1200 units a month, 6 weeks lead time.",
    "Net 60 payment is fine, warranty 12 months, unit price $18.50.",
    "Our price is $18.50 per unit, that is final.",
    "Still $18.50 per unit.",
    "We cannot go lower than $18.50.",
)


def _session_until_escalation(config: DomainConfig, store: SessionStore) -> str:
    """A procurement session through the asynchronous channel, fed messages until it escalates."""
    runner, _ = start_session(config, DetachedCounterparty(), store, config_source="procurement")
    session = runner.delegate.session_id
    for message in MESSAGES:
        outcome = reply(store, session, message)
        if outcome.paused:
            return session
    raise AssertionError("the session never escalated")


def _checks(store: SessionStore, session: str) -> list[dict[str, object]]:
    return [dict(e.data) for e in store.load_events(session) if e.kind == "claim_verification"]


def test_claims_are_checked_before_the_principal_is_asked(procurement: DomainConfig, tmp_path: Path) -> None:
    config = _with_verifier(procurement, f"registry:{_registry(tmp_path)}")
    store = SessionStore(tmp_path / "d.db")
    session = _session_until_escalation(config, store)
    checks = _checks(store, session)
    assert [(c["field"], c["status"]) for c in checks] == [("certification", "verified")]
    request = store.open_request(session)
    assert request is not None
    assert request.ledger["verified"]["certification"]["status"] == "verified"
    assert "certification" in request.problem and "verified" in request.problem
    assert store.verify(session).ok


def test_a_verifier_failure_is_recorded_as_unverified_and_the_session_goes_on(
    procurement: DomainConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("no answer")

    original = HttpVerifier.__init__

    def mocked(self: HttpVerifier, url: str, **kwargs: object) -> None:
        original(self, url, transport=httpx.MockTransport(fail))

    monkeypatch.setattr(HttpVerifier, "__init__", mocked)
    config = _with_verifier(procurement, "http:https://verify.example/claims")
    store = SessionStore(tmp_path / "d.db")
    session = _session_until_escalation(config, store)
    (check,) = _checks(store, session)
    assert check["status"] == "unverified" and "ReadTimeout" in str(check["detail"])
    request = store.open_request(session)
    assert request is not None and request.ledger["verified"]["certification"]["status"] == "unverified"


def test_a_verifier_that_cannot_be_loaded_later_fails_closed(
    procurement: DomainConfig, tmp_path: Path
) -> None:
    registry = _registry(tmp_path)
    config = _with_verifier(procurement, f"registry:{registry}")
    registry.unlink()  # the file is gone by the time the session checks a claim (days later)
    store = SessionStore(tmp_path / "d.db")
    session = _session_until_escalation(config, store)
    (check,) = _checks(store, session)
    assert check["status"] == "unverified" and "no such file" in str(check["detail"])


def test_verification_is_off_by_default(procurement: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    session = _session_until_escalation(procurement, store)
    request = store.open_request(session)
    assert _checks(store, session) == [] and request is not None and "verified" not in request.ledger


def test_a_claim_is_checked_once_per_value(procurement: DomainConfig, tmp_path: Path) -> None:
    calls: list[str] = []

    class Counting:
        name = "counting"

        def verify(self, claim: Claim) -> VerificationResult:
            calls.append(claim.text)
            return VerificationResult(VERIFIED)

    delegate = Delegate(_with_verifier(procurement, "counting"), "s")
    delegate.verifier = Counting()
    delegate.tci.confirmed["certification"] = "iso9001"
    delegate.verify_claims()
    delegate.verify_claims()
    delegate.tci.confirmed["certification"] = "as9100"  # the counterparty changed its claim
    delegate.verify_claims()
    assert calls == ["iso9001", "as9100"]


def test_a_huge_claim_in_a_session_stays_unverified_and_short(procurement: DomainConfig) -> None:
    delegate = Delegate(_with_verifier(procurement, "always"), "s")
    always = _Always()
    delegate.verifier = always
    delegate.tci.confirmed["certification"] = "ISO 9001 \x1b[2J" * 20_000
    delegate.verify_claims()
    (event,) = delegate.trajectory.of_kind("claim_verification")
    assert event.data["status"] == "unverified" and len(str(event.data["claim"])) <= 200
    assert always.seen == [] and len(delegate._claims_note()) < 200  # pyright: ignore[reportPrivateUsage]


def test_run_with_a_verifier_on_the_command_line(tmp_path: Path) -> None:
    from parley.cli.app import app

    db = tmp_path / "d.db"
    args = ["delegate", "run", "procurement", "--db", str(db), "--seed", "1"]
    result = CliRunner().invoke(
        app, [*args, "--verifier", f"registry:{_registry(tmp_path)}", "--claims", "certification"]
    )
    assert result.exit_code == 0, result.output
    store = SessionStore(db)
    (session, _), *_ = store.sessions()
    events = store.load_events(session)
    (check,) = [e.data for e in events if e.kind == "claim_verification"]
    assert check["field"] == "certification" and check["status"] in ("verified", "unverified", "refuted")
    pending = store.open_request(session)
    assert pending is not None and "Claim checks: certification" in pending.problem


def test_start_with_a_verifier_keeps_checking_across_replies(tmp_path: Path) -> None:
    from parley.cli.app import app

    db = tmp_path / "d.db"
    registry = _registry(tmp_path)
    args = ["delegate", "start", "procurement", "--db", str(db), "--verifier", f"registry:{registry.name}"]
    import os

    here = os.getcwd()
    os.chdir(tmp_path)  # a relative registry path is stored absolute, for replies from elsewhere
    try:
        result = CliRunner().invoke(app, [*args, "--claims", "certification"])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    store = SessionStore(db)
    (session, _), *_ = store.sessions()
    config = store.load_session(session)["snapshot"]["config"]
    assert config["verification"]["verifier"] == f"registry:{registry}"
    assert any(reply(store, session, message).paused for message in MESSAGES)
    assert [c["status"] for c in _checks(store, session)] == ["verified"]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--verifier", "nosuch"], "unknown verifier 'nosuch'"),
        (["--verifier", "registry:/no/such.yaml", "--claims", "certification"], "no such file"),
        (["--verifier", "http:https://v.example", "--claims", "shoe_size"], "unknown field 'shoe_size'"),
        (["--verifier", "http:https://v.example"], "--claims"),
        (["--claims", "certification"], "--verifier"),
    ],
)
def test_bad_verifier_flags_are_one_line_errors(tmp_path: Path, extra: list[str], expected: str) -> None:
    from parley.cli.app import app

    result = CliRunner().invoke(
        app, ["delegate", "run", "procurement", "--db", str(tmp_path / "d.db"), *extra]
    )
    assert result.exit_code == 2 and expected in result.output, result.output
    assert not (tmp_path / "d.db").exists()


@pytest.fixture(autouse=True)
def _no_stray_threads() -> Iterator[None]:
    yield
    for thread in threading.enumerate():
        if thread.name.startswith("parley-verifier") and thread.is_alive():
            thread.join(1)

"""Verification hooks (GAIA §3.3.6, tool integrations): a counterparty's claims — a certification, a
licence number, a reference, a company registration — checked by a pluggable `Verifier`.

Checking fails closed: only a verifier that answers "verified" in time, in the expected form, makes a
claim verified; an error, a timeout, an odd answer or an unreadable claim leaves it "unverified".
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from parley.errors import ScenarioError
from parley.governance.safe_text import printable

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger(__name__)

VERIFIER_GROUP = "parley.verifiers"
"""The entry-point group third-party verifiers register under (`name = "module:factory"`)."""

MAX_CLAIM_CHARS = 1_000
"""Longer claim text is not sent to any verifier (it is left unverified)."""

MAX_DETAIL_CHARS = 200
"""A verifier's explanation is cut to this length before it is recorded or shown."""

_MAX_ANSWER_BYTES = 16_384


class VerificationStatus(StrEnum):
    """What a check established about a claim."""

    VERIFIED = "verified"
    """The verifier confirmed the claim."""
    REFUTED = "refuted"
    """The verifier knows the claim to be false (a revoked certificate, an unknown registration)."""
    UNVERIFIED = "unverified"
    """Nothing was established: unknown to the verifier, or the check failed."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim to check.

    Attributes:
        field: The domain field the claim fills (e.g. "certification").
        label: The field's label, for verifiers that route by wording.
        text: What the counterparty claims, as read by the extractor.
    """

    field: str
    label: str
    text: str


@dataclass(frozen=True, slots=True)
class VerificationResult:
    """A verifier's answer.

    Attributes:
        status: Verified, refuted or unverified.
        detail: One line of explanation (shown to the principal).
        source: The verifier that answered.
    """

    status: VerificationStatus
    detail: str = ""
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"status": self.status.value, "detail": self.detail, "source": self.source}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VerificationResult:
        """Inverse of to_json."""
        return cls(
            VerificationStatus(data["status"]), str(data.get("detail", "")), str(data.get("source", ""))
        )


class Verifier(Protocol):
    """Checks claims against an outside source (a registry, an API). Called through `check_claim`,
    which cleans the claim, bounds the time and turns any failure into "unverified"."""

    name: str

    def verify(self, claim: Claim) -> VerificationResult:
        """Check one claim."""
        ...


VerifierFactory = Callable[[str], Verifier]
"""What an entry point names: called with the text after "name:" in the spec ("" without it)."""


def _unverified(detail: str, source: str) -> VerificationResult:
    return VerificationResult(VerificationStatus.UNVERIFIED, detail, source)


def _clean(text: str, limit: int) -> str:
    return " ".join(printable(text).split())[:limit]


def check_claim(verifier: Verifier, claim: Claim, *, timeout: float) -> VerificationResult:
    """Run verifier on claim and fail closed.

    The claim text is stripped of control characters and escape sequences first; an empty or
    oversized claim is not sent. The verifier runs in a daemon thread and is abandoned after
    timeout seconds (a hung plugin cannot stall the session).

    Args:
        verifier: The verifier.
        claim: The claim.
        timeout: Seconds to wait for the answer.

    Returns:
        The verifier's result, or "unverified" naming why no result counts.
    """
    source = _clean(str(getattr(verifier, "name", type(verifier).__name__)), 80)
    text = _clean(claim.text, MAX_CLAIM_CHARS + 1)
    if not text:
        return _unverified("empty claim: nothing to check", source)
    if len(text) > MAX_CLAIM_CHARS:
        return _unverified(f"claim too long to check (over {MAX_CLAIM_CHARS:,} characters)", source)
    answer = _bounded(lambda: verifier.verify(Claim(claim.field, claim.label, text)), timeout, source)
    if answer is None:
        return _unverified(f"verifier timed out after {timeout:g}s", source)
    return _accepted(answer[0], source)


def _bounded(call: Callable[[], object], timeout: float, source: str) -> list[object] | None:
    """call's result (or the exception it raised) in a one-item list, or None when it did not return
    within timeout seconds. It runs in a daemon thread that is abandoned then (a hung plugin cannot
    stall the session); a thread ended by SystemExit yields a RuntimeError."""
    answer: list[object] = []

    def run() -> None:
        try:
            answer.append(call())
        except Exception as error:  # any failure of a plugin is "unverified", never a crash
            answer.append(error)

    worker = threading.Thread(target=run, name=f"parley-verifier-{source}", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return None
    return answer or [RuntimeError("the verifier's thread exited")]


def _accepted(answer: object, source: str) -> VerificationResult:
    """The answer as a clean result, or "unverified" when it is not a proper one."""
    if isinstance(answer, Exception):
        logger.warning("verifier %s failed: %r", source, answer)
        return _unverified(f"verifier failed: {type(answer).__name__}", source)
    if not isinstance(answer, VerificationResult):
        return _unverified(f"verifier returned {type(answer).__name__}, not a VerificationResult", source)
    try:  # (a plugin may have put any object in status)
        status = VerificationStatus(answer.status)
    except ValueError:
        return _unverified("verifier returned an unknown status", source)
    return VerificationResult(status, _clean(str(answer.detail), MAX_DETAIL_CHARS), source)


# -- the registry verifier (a file of known claims) -------------------------------------------------


def _key(text: str) -> str:
    """Claims compare without case, spacing or punctuation ("ISO-9001" is "iso 9001")."""
    return re.sub(r"[\W_]+", "", text.casefold())


class _RegistryField(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    verified: tuple[str, ...] = ()
    refuted: tuple[str, ...] = ()


class RegistryVerifier:
    """Claims checked against a fixed list per field: listed as verified, listed as refuted, or unknown
    (unverified). Meant for tests and for small curated lists.

    Args:
        verified: Field name → claims known to be true.
        refuted: Field name → claims known to be false.
        name: Recorded as the result's source.
    """

    def __init__(
        self,
        verified: Mapping[str, Iterable[str]],
        refuted: Mapping[str, Iterable[str]] | None = None,
        *,
        name: str = "registry",
    ) -> None:
        self.name = name
        self._verified = {f: {_key(c) for c in claims} for f, claims in verified.items()}
        self._refuted = {f: {_key(c) for c in claims} for f, claims in (refuted or {}).items()}

    def verify(self, claim: Claim) -> VerificationResult:
        key = _key(claim.text)
        if key in self._refuted.get(claim.field, set()):
            return VerificationResult(VerificationStatus.REFUTED, f"listed as invalid for {claim.field}")
        if key in self._verified.get(claim.field, set()):
            return VerificationResult(VerificationStatus.VERIFIED, f"listed as valid for {claim.field}")
        return VerificationResult(VerificationStatus.UNVERIFIED, f"not in the registry for {claim.field}")

    @classmethod
    def load(cls, path: str | Path) -> RegistryVerifier:
        """Read a YAML or JSON file mapping each field to `verified:` and `refuted:` lists.

        Raises:
            ScenarioError: if the file is missing, unreadable or malformed (naming file and field).
        """
        source = str(path)
        raw = _read_registry(Path(path))
        if not isinstance(raw, dict):
            raise ScenarioError("expected a mapping of field names to verified/refuted lists", source=source)
        fields: dict[str, _RegistryField] = {}
        for name, value in raw.items():
            try:
                fields[str(name)] = _RegistryField.model_validate(value)
            except ValidationError as error:
                first = error.errors()[0]
                where = ".".join(str(part) for part in (name, *first["loc"]))
                raise ScenarioError(first["msg"], source=source, field=where) from None
        return cls(
            {name: spec.verified for name, spec in fields.items()},
            {name: spec.refuted for name, spec in fields.items()},
            name=f"registry:{Path(path).name}",
        )


def _read_registry(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError("no such file", source=str(path)) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"cannot read the registry ({error})", source=str(path)) from None
    except yaml.YAMLError as error:
        raise ScenarioError(f"not valid YAML ({' '.join(str(error).split())})", source=str(path)) from None


# -- the HTTP verifier ---------------------------------------------------------------------------


class HttpVerifier:
    """Claims checked by a web service: POST `{"field", "label", "claim"}` as JSON, answer
    `{"status": "verified" | "refuted" | "unverified", "detail": "..."}` with status 200.

    Redirects are not followed, answers over 16 KiB are not read, and anything else than a well-formed
    answer counts as unverified.

    Args:
        url: The service's http(s) URL.
        timeout: Seconds for each of connecting, sending and reading.
        transport: An httpx transport (tests pass `httpx.MockTransport`).
    """

    def __init__(
        self, url: str, *, timeout: float = 5.0, transport: httpx.BaseTransport | None = None
    ) -> None:
        if not re.match(r"https?://[^/\s]+", url):
            raise ScenarioError(f"expected an http or https URL, got {url!r}", field="verifier")
        self.name = f"http:{url}"
        self.url = url
        self.timeout = timeout
        self._transport = transport

    def verify(self, claim: Claim) -> VerificationResult:
        import httpx

        body = {"field": claim.field, "label": claim.label, "claim": claim.text}
        with (
            httpx.Client(timeout=self.timeout, transport=self._transport, follow_redirects=False) as client,
            client.stream("POST", self.url, json=body) as response,
        ):
            if response.status_code != 200:
                return VerificationResult(VerificationStatus.UNVERIFIED, f"HTTP {response.status_code}")
            raw = b""
            for chunk in response.iter_bytes():
                raw += chunk
                if len(raw) > _MAX_ANSWER_BYTES:
                    return VerificationResult(VerificationStatus.UNVERIFIED, "answer too large")
        return _parse_answer(raw)


def _parse_answer(raw: bytes) -> VerificationResult:
    from parley.governance.audit import MalformedEntry, parse_json

    try:
        answer = parse_json(raw.decode("utf-8"))
    except (UnicodeDecodeError, MalformedEntry):
        return VerificationResult(VerificationStatus.UNVERIFIED, "answer is not JSON")
    status = answer.get("status") if isinstance(answer, dict) else None
    if status not in {s.value for s in VerificationStatus}:
        return VerificationResult(VerificationStatus.UNVERIFIED, "answer has no valid status")
    detail = answer.get("detail", "")
    return VerificationResult(VerificationStatus(status), detail if isinstance(detail, str) else "")


# -- loading by spec -------------------------------------------------------------------------------


def registry_verifier(argument: str) -> Verifier:
    """The `registry:PATH` verifier (an entry point of `parley.verifiers`)."""
    if not argument:
        raise ScenarioError("give the registry file: registry:PATH", field="verifier")
    return RegistryVerifier.load(argument)


def http_verifier(argument: str, *, timeout: float = 5.0) -> Verifier:
    """The `http:URL` verifier (an entry point of `parley.verifiers`)."""
    if not argument:
        raise ScenarioError("give the service URL: http:URL", field="verifier")
    return HttpVerifier(argument, timeout=timeout)


def _entry_points() -> tuple[importlib.metadata.EntryPoint, ...]:
    return tuple(importlib.metadata.entry_points(group=VERIFIER_GROUP))


def load_verifier(spec: str, *, timeout: float = 5.0) -> Verifier:
    """The verifier a spec names: `registry:PATH`, `http:URL` (or a bare http(s) URL), or `NAME[:ARG]`
    for a verifier registered in the `parley.verifiers` entry-point group (called with ARG).

    Args:
        spec: The spec.
        timeout: Seconds the HTTP verifier waits for each phase of a request.

    Raises:
        ScenarioError: for an empty spec, an unknown name, or a verifier that cannot be built.
    """
    spec = spec.strip()
    if not spec:
        raise ScenarioError(
            "empty verifier spec; expected registry:PATH, http:URL or NAME[:ARG]", field="verifier"
        )
    if re.match(r"https?://", spec):
        return http_verifier(spec, timeout=timeout)
    name, _, argument = spec.partition(":")
    if name == "registry":
        return registry_verifier(argument)
    if name in ("http", "https"):
        return http_verifier(argument, timeout=timeout)
    for point in _entry_points():
        if point.name == name:
            return _from_entry_point(point, argument, timeout=timeout)
    known = ", ".join(sorted({"registry", "http", *(p.name for p in _entry_points())}))
    raise ScenarioError(f"unknown verifier {name!r}; expected one of {known}", field="verifier")


_FAILED_PLUGINS: dict[tuple[str, str, str, float], ScenarioError] = {}
"""Plugins that failed to load in this run, by entry point, argument and timeout: a later claim gets the
same error at once instead of loading the plugin again (and waiting up to the timeout each time)."""


def _from_entry_point(point: importlib.metadata.EntryPoint, argument: str, *, timeout: float) -> Verifier:
    """The plugin's verifier, its import and factory bounded by timeout seconds (issue 17: a plugin
    that hangs while loading fails like one that hangs while checking). A failure is remembered for the
    run (`_FAILED_PLUGINS`) and raised again without a second attempt."""
    key = (point.name, point.value, argument, timeout)
    failed = _FAILED_PLUGINS.get(key)
    if failed is not None:
        raise failed
    try:
        return _load_entry_point(point, argument, timeout=timeout)
    except ScenarioError as error:
        _FAILED_PLUGINS[key] = error
        raise


def _load_entry_point(point: importlib.metadata.EntryPoint, argument: str, *, timeout: float) -> Verifier:
    """One attempt at loading and building the plugin's verifier (`_from_entry_point`)."""
    answer = _bounded(lambda: point.load()(argument), timeout, _clean(point.name, 80))
    if answer is None:
        raise ScenarioError(
            f"verifier {point.name!r} did not load from {point.value} within {timeout:g}s", field="verifier"
        )
    verifier = answer[0]
    if isinstance(verifier, ScenarioError):
        raise verifier
    if isinstance(verifier, Exception):  # a broken plugin is the plugin's fault: one line naming it
        raise ScenarioError(
            f"verifier {point.name!r} could not be loaded from {point.value} ({type(verifier).__name__}: "
            f"{_clean(str(verifier), 120)})",
            field="verifier",
        ) from None
    if not callable(getattr(verifier, "verify", None)):
        raise ScenarioError(f"verifier {point.name!r} has no verify(claim) method", field="verifier")
    return cast("Verifier", verifier)  # (it has a verify method: checked above)

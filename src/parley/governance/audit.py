"""The audit trail: a hash chain over canonical JSON entries, checked against everything shown.

Each session's chain starts from a header (format, session id, whether it is keyed, the key's
fingerprint, a random nonce); entry 0 links to the header's SHA-256, so the header is covered by
every digest. An entry's digest is HMAC-SHA256(key, previous + entry) when the chain is keyed and
SHA-256(previous + entry) when it is not; entries are stored as canonical JSON (sorted keys, no
spaces, no duplicate keys, no NaN or Infinity).

`verify_record` recomputes the chain and compares it with the head checkpoint, the end-of-session
seal, the session's state, the tables people are shown (events, decisions, escalation requests)
and, when given, the heads anchored outside the database. Every problem names what was found.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from parley.errors import ScenarioError
from parley.governance.escalation import Decision
from parley.governance.machine import TERMINAL

GENESIS = "0" * 64
"""The previous-hash of the first entry of a chain written before chain headers existed."""

FORMAT = "parley-audit/2"
"""The chain format named in every header."""

_ENDED = frozenset(state.value for state in TERMINAL)


class AuditError(ScenarioError):
    """A session's stored record fails verification (or cannot be verified), so it is not shown."""


class AuditConfigError(ScenarioError):
    """The audit key or anchor is misconfigured (unsafe permissions, bad format, existing file)."""


class MalformedEntry(ValueError):
    """Stored JSON that is not canonical parley JSON (duplicate key, NaN, not JSON at all)."""


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, UTF-8 kept.

    Raises:
        ValueError: for NaN or Infinity.
        TypeError: for values JSON cannot represent.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise MalformedEntry(f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise MalformedEntry(f"non-finite number {name}")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise MalformedEntry(f"non-finite number {text}")
    return value


def parse_json(text: str) -> Any:
    """Parse stored JSON strictly: a duplicate key or a non-finite number is an error.

    (SQLite's json_extract and Python's json module disagree on duplicate keys, so a stored entry
    with one could be read differently by different readers.)

    Raises:
        MalformedEntry: naming what is wrong.
    """
    try:
        return json.loads(
            text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant, parse_float=_finite
        )
    except MalformedEntry:
        raise
    except (ValueError, TypeError) as error:
        raise MalformedEntry(f"not valid JSON ({error})") from None


def key_id(secret: bytes) -> str:
    """A key's public fingerprint: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(secret).hexdigest()[:16]


def link_digest(previous: str, text: str, secret: bytes | None) -> str:
    """HMAC-SHA256(secret, previous + text), or SHA-256(previous + text) without a key."""
    message = (previous + text).encode("utf-8")
    if secret is None:
        return hashlib.sha256(message).hexdigest()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def entry_hash(previous: str, entry: Mapping[str, Any], secret: bytes | None = None) -> str:
    """The digest of an entry: `link_digest` over its canonical JSON."""
    return link_digest(previous, canonical_json(entry), secret)


def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise MalformedEntry(f"field {name!r} is missing or has the wrong type")
    return value


@dataclass(frozen=True, slots=True)
class ChainHeader:
    """The first, hashed record of a session's chain.

    Attributes:
        session_id: The session the chain belongs to (a chain copied to another session fails).
        key_id: Fingerprint of the key the chain is keyed with; None for a plain SHA-256 chain.
        nonce: Random hex, so two chains never share an id (the anchor tells them apart).
    """

    session_id: str
    key_id: str | None
    nonce: str

    @classmethod
    def new(cls, session_id: str, secret: bytes | None) -> ChainHeader:
        """A fresh header for a chain keyed with secret (or unkeyed)."""
        return cls(session_id, key_id(secret) if secret is not None else None, secrets.token_hex(16))

    @property
    def keyed(self) -> bool:
        """Whether digests are HMACs."""
        return self.key_id is not None

    def to_json(self) -> dict[str, Any]:
        """The hashed header."""
        return {
            "format": FORMAT,
            "session_id": self.session_id,
            "keyed": self.keyed,
            "key_id": self.key_id,
            "nonce": self.nonce,
        }

    @property
    def text(self) -> str:
        """The header as stored (canonical JSON)."""
        return canonical_json(self.to_json())

    @property
    def chain_id(self) -> str:
        """SHA-256 of the stored header: the previous-hash of entry 0."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @classmethod
    def parse(cls, text: str) -> ChainHeader:
        """Read a stored header.

        Raises:
            MalformedEntry: if it is not a canonical, well-formed header.
        """
        data = parse_json(text)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise MalformedEntry(f"not a {FORMAT} header")
        keyed = _field(data, "keyed", bool)
        fingerprint = data.get("key_id")
        if keyed != isinstance(fingerprint, str) or (fingerprint is not None and not keyed):
            raise MalformedEntry("'keyed' and 'key_id' disagree")
        header = cls(_field(data, "session_id", str), fingerprint, _field(data, "nonce", str))
        if header.text != text:
            raise MalformedEntry("not stored as canonical JSON")
        return header


@dataclass(frozen=True, slots=True)
class RawEntry:
    """One row of the audit table, as stored."""

    seq: int
    text: str
    previous: str
    digest: str


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A recorded (seq, hash) pair: the head checkpoint or the end-of-session seal."""

    seq: int
    digest: str


@dataclass(frozen=True, slots=True)
class AnchorHead:
    """One line of the anchor file: a session's committed head at some moment."""

    session_id: str
    chain: str
    seq: int
    digest: str
    sealed: bool
    time: float

    def to_json(self) -> dict[str, Any]:
        """The JSON line."""
        return {
            "session_id": self.session_id,
            "chain": self.chain,
            "seq": self.seq,
            "digest": self.digest,
            "sealed": self.sealed,
            "time": self.time,
        }

    @classmethod
    def parse(cls, text: str) -> AnchorHead:
        """Read one anchor line.

        Raises:
            MalformedEntry: if it is not a head record.
        """
        data = parse_json(text)
        if not isinstance(data, dict):
            raise MalformedEntry("not a JSON object")
        return cls(
            _field(data, "session_id", str),
            _field(data, "chain", str),
            _field(data, "seq", int),
            _field(data, "digest", str),
            _field(data, "sealed", bool),
            float(_field(data, "time", (int, float))),
        )


@dataclass(frozen=True, slots=True)
class AnchorLog:
    """The heads read from an anchor file, and what was wrong with the file itself."""

    path: str
    heads: tuple[AnchorHead, ...]
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """Everything the database holds about one session's audit trail and what is shown from it.

    Attributes:
        session_id: The session.
        header: The stored chain header (None for a chain written before headers existed).
        entries: Audit rows in sequence order.
        head: The head checkpoint.
        seal: The end-of-session seal.
        state: The session's stored state (None without a sessions row).
        events: (seq, stored JSON) rows of the events table.
        decisions: Rows of the decisions table.
        requests: (request id, stored payload, status) rows of the escalations table.
    """

    session_id: str
    header: str | None
    entries: Sequence[RawEntry]
    head: Checkpoint | None
    seal: Checkpoint | None
    state: str | None = None
    events: Sequence[tuple[int, str]] = ()
    decisions: Sequence[Decision] = ()
    requests: Sequence[tuple[str, str, str]] = ()


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Outcome of verifying one session's record.

    Attributes:
        ok: Whether the chain is intact and matches everything it was compared with.
        entries: Number of audit entries read.
        problems: One line per problem, each naming what was found and where.
        head: Hash of the last entry read.
        first_bad: Sequence number of the first bad entry, if a problem is located at one.
        keyed: Whether the chain is keyed (HMAC) with the configured key.
        key_id: Fingerprint of the key the chain says it is keyed with.
        anchor: The anchor file the chain was compared with, if any.
        anchored_seq: The latest head of this chain found in the anchor.
    """

    ok: bool
    entries: int
    problems: tuple[str, ...]
    head: str
    first_bad: int | None = None
    keyed: bool = False
    key_id: str | None = None
    anchor: str | None = None
    anchored_seq: int | None = None


@dataclass(frozen=True, slots=True)
class Verified:
    """A verification report and the entries it read (only well-formed ones)."""

    report: VerifyReport
    values: Mapping[int, Mapping[str, Any]]


_KEY_HINT = "set PARLEY_AUDIT_KEY or PARLEY_AUDIT_KEY_FILE"


@dataclass
class _Verifier:
    record: StoredRecord
    secret: bytes | None
    problems: list[str] = field(default_factory=lambda: [])
    located: list[int] = field(default_factory=lambda: [])
    values: dict[int, dict[str, Any]] = field(default_factory=lambda: {})
    keyed: bool = False
    key_id: str | None = None

    def problem(self, text: str, seq: int | None = None) -> None:
        self.problems.append(text)
        if seq is not None:
            self.located.append(seq)

    @property
    def last_seq(self) -> int:
        entries = self.record.entries
        return entries[-1].seq if entries else -1

    # -- the chain ------------------------------------------------------------------------------
    def header(self) -> tuple[str, bool, bytes | None]:
        """(previous-hash of entry 0, whether the chain uses the canonical format, digest key).

        A digest key of None with a keyed chain means the hashes cannot be checked here.
        """
        record = self.record
        configured = key_id(self.secret) if self.secret is not None else None
        if record.header is None:
            first = record.entries[0].previous if record.entries else GENESIS
            if first != GENESIS:
                self.problem("chain header missing (entry 0 does not start from the genesis hash)", 0)
            self._unkeyed(configured)
            return GENESIS, False, None
        try:
            header = ChainHeader.parse(record.header)
        except MalformedEntry as error:
            self.problem(f"chain header: {error}", 0)
            return hashlib.sha256(record.header.encode("utf-8")).hexdigest(), True, None
        if header.session_id != record.session_id:
            self.problem(f"chain header names session {header.session_id!r} (a chain copied from another)", 0)
        self.key_id = header.key_id
        if header.key_id is None:
            self._unkeyed(configured)
            return header.chain_id, True, None
        if configured is None:
            self.problem(
                f"chain is keyed (key id {header.key_id}) but no audit key is configured ({_KEY_HINT}); "
                "its hashes cannot be checked"
            )
            return header.chain_id, True, None
        if configured != header.key_id:
            self.problem(
                f"chain is keyed with key id {header.key_id}, but the configured key has id {configured}"
            )
            return header.chain_id, True, None
        self.keyed = True
        return header.chain_id, True, self.secret

    def _unkeyed(self, configured: str | None) -> None:
        if configured is not None:
            self.problem(
                f"chain is unkeyed, but an audit key (id {configured}) is configured: the session was "
                "written without the key, or its chain was rewritten without it"
            )

    def chain(self, start: str, canonical: bool, secret: bytes | None) -> str:
        checkable = secret is not None or self.key_id is None
        previous, expected_seq = start, 0
        for stored in self.record.entries:
            where = f"entry {stored.seq}"
            found: list[str] = []
            if stored.seq != expected_seq:
                found.append(
                    f"{where}: expected sequence number {expected_seq} (entries deleted or reordered)"
                )
            if stored.previous != previous:
                found.append(f"{where}: previous-hash link broken (an earlier entry was changed or removed)")
            try:
                value = parse_json(stored.text)
                if not isinstance(value, dict):
                    raise MalformedEntry("not a JSON object")
            except MalformedEntry as error:
                found.append(f"{where}: {error} in the stored JSON")
            else:
                text = canonical_json(value)
                if checkable and link_digest(stored.previous, text, secret) != stored.digest:
                    found.append(f"{where}: content does not match its hash (entry edited)")
                if canonical and text != stored.text:
                    found.append(f"{where}: not stored as canonical JSON (written outside parley)")
                if value.get("seq") != stored.seq:
                    found.append(f"{where}: records sequence number {value.get('seq')!r}")
                self.values[stored.seq] = value
            for text in found:
                self.problem(text, stored.seq)
            previous = stored.digest
            expected_seq = stored.seq + 1
        return previous

    def checkpoint(self, name: str, checkpoint: Checkpoint | None) -> None:
        if checkpoint is None:
            if name == "head checkpoint":
                self.problem("head checkpoint missing")
            return
        by_seq = {stored.seq: stored for stored in self.record.entries}
        stored = by_seq.get(checkpoint.seq)
        last = self.last_seq
        if stored is None and checkpoint.seq > last:
            self.problem(
                f"{name}: records entry {checkpoint.seq} but the log ends at entry {last} (truncated)",
                last + 1,
            )
        elif stored is None:
            self.problem(f"{name}: entry {checkpoint.seq} is missing", checkpoint.seq)
        elif stored.digest != checkpoint.digest:
            self.problem(
                f"{name}: hash of entry {checkpoint.seq} differs from the recorded one", checkpoint.seq
            )
        elif name == "end-of-session seal" and last != checkpoint.seq:
            self.problem(
                f"{name}: entries appended after the session was sealed at entry {checkpoint.seq}",
                checkpoint.seq + 1,
            )

    # -- the session's end --------------------------------------------------------------------------
    def ending(self) -> None:
        record = self.record
        last_to, last_at = "START", None
        ended_at: tuple[int, str] | None = None
        for seq, value in sorted(self.values.items()):
            data = value.get("data")
            data = data if isinstance(data, dict) else {}
            if value.get("kind") == "state_transition":
                last_to, last_at = str(data.get("to")), seq
            target = last_to if value.get("kind") == "state_transition" else str(data.get("state"))
            if (
                ended_at is None
                and value.get("kind") in ("state_transition", "session_ended")
                and target in _ENDED
            ):
                ended_at = (seq, target)
        if record.seal is None and record.state in _ENDED:
            self.problem(
                f"session state is {record.state} (ended), but the chain has no end-of-session seal "
                "(tail truncated or seal deleted)"
            )
        if record.seal is None and ended_at is not None:
            self.problem(
                f"entry {ended_at[0]} ends the session ({ended_at[1]}), "
                "but the chain has no end-of-session seal",
                ended_at[0],
            )
        if record.state is not None and last_at is not None and record.state != last_to:
            self.problem(
                f"session state is {record.state}, "
                f"but the chain's last transition (entry {last_at}) is to {last_to}"
            )

    # -- the tables people are shown ------------------------------------------------------------
    def events_table(self) -> None:
        rows = dict(self.record.events)
        audited = {stored.seq for stored in self.record.entries}
        for seq in sorted(rows.keys() | audited):
            if seq not in audited:
                self.problem(f"events table: row {seq} has no audit entry (row added, or the entry deleted)")
            elif seq not in rows:
                self.problem(f"events table: row {seq} is missing (its audit entry exists)", seq)
            elif seq in self.values:
                try:
                    shown = canonical_json(parse_json(rows[seq]))
                except MalformedEntry as error:
                    self.problem(f"events table: row {seq}: {error} in the stored JSON", seq)
                    continue
                if shown != canonical_json(self.values[seq]):
                    self.problem(
                        f"events table: row {seq} differs from audit entry {seq} (events table edited)", seq
                    )

    def _of_kind(self, kind: str) -> dict[str, tuple[int, dict[str, Any]]]:
        found: dict[str, tuple[int, dict[str, Any]]] = {}
        for seq, value in sorted(self.values.items()):
            data = value.get("data")
            if value.get("kind") == kind and isinstance(data, dict):
                found[str(data.get("request_id"))] = (seq, data)
        return found

    def decisions_table(self) -> dict[str, tuple[int, dict[str, Any]]]:
        events = self._of_kind("decision")
        rows = {decision.request_id for decision in self.record.decisions}
        for decision in self.record.decisions:
            event = events.get(decision.request_id)
            if event is None:
                self.problem(
                    f"decisions table: the decision on {decision.request_id} has no decision event "
                    "in the chain (row added, or the chain truncated)"
                )
                continue
            seq, data = event
            differing = [
                name
                for name, value in (
                    ("option", decision.option),
                    ("guidance", decision.guidance),
                    ("decided_by", decision.decided_by),
                )
                if data.get(name) != value
            ]
            recorded = data.get("decided_at")
            if not isinstance(recorded, int | float) or float(recorded) != float(decision.decided_at):
                differing.append("decided_at")
            if differing:
                self.problem(
                    f"decisions table: the decision on {decision.request_id} differs from its decision event "
                    f"at entry {seq} ({', '.join(differing)}; decisions table edited)",
                    seq,
                )
        for request_id, (seq, _) in events.items():
            if request_id not in rows:
                self.problem(
                    f"decisions table: no row for the decision on {request_id} "
                    f"recorded at entry {seq} (row deleted)",
                    seq,
                )
        return events

    def requests_table(self, decided: Mapping[str, tuple[int, dict[str, Any]]]) -> None:
        events = self._of_kind("escalation")
        for request_id, payload, status in self.record.requests:
            event = events.get(request_id)
            if event is None:
                self.problem(f"escalations table: request {request_id} has no escalation event in the chain")
                continue
            seq, data = event
            expected = canonical_json({k: v for k, v in data.items() if k != "rationale"})
            try:
                same = canonical_json(parse_json(payload)) == expected
            except MalformedEntry:
                same = False
            if not same:
                self.problem(
                    f"escalations table: request {request_id} differs from its escalation event "
                    f"at entry {seq} (escalations table edited)",
                    seq,
                )
            if status == "open" and request_id in decided:
                self.problem(
                    f"escalations table: request {request_id} is open, but entry {decided[request_id][0]} "
                    "decided it",
                    decided[request_id][0],
                )
            if status == "decided" and request_id not in decided:
                self.problem(
                    f"escalations table: request {request_id} is decided, but the chain has no decision on it"
                )

    # -- the anchor -----------------------------------------------------------------------------------
    def anchor(self, log: AnchorLog, chain_id: str) -> int | None:
        record = self.record
        for text in log.problems:
            self.problem(text)
        mine = [h for h in log.heads if h.session_id == record.session_id and h.chain == chain_id]
        if not mine:
            if log.problems:
                return None
            if any(h.session_id == record.session_id for h in log.heads):
                self.problem(
                    f"anchor: holds heads of session {record.session_id} for another chain only "
                    "(this chain was replaced)"
                )
            else:
                self.problem(
                    f"anchor: no head of session {record.session_id} (never anchored there, or its lines "
                    "were removed)"
                )
            return None
        by_seq = {stored.seq: stored for stored in record.entries}
        last = self.last_seq
        latest = max(h.seq for h in mine)
        if latest > last:
            self.problem(
                f"anchor: records entry {latest} but the log ends at entry {last} (truncated)", last + 1
            )
        for seq in sorted({h.seq for h in mine}):
            stored = by_seq.get(seq)
            if stored is not None and any(h.digest != stored.digest for h in mine if h.seq == seq):
                self.problem(f"anchor: hash of entry {seq} differs from the anchored one (rewritten)", seq)
                break
        sealed = [h for h in mine if h.sealed]
        if sealed:
            anchored = min(sealed, key=lambda h: h.seq)
            if record.seal is None:
                self.problem(
                    f"anchor: the session was sealed at entry {anchored.seq}, but the seal is missing",
                    anchored.seq,
                )
            elif (record.seal.seq, record.seal.digest) != (anchored.seq, anchored.digest):
                self.problem(
                    f"anchor: the seal differs from the one anchored at entry {anchored.seq}", anchored.seq
                )
        return latest


def verify_record(record: StoredRecord, secret: bytes | None, anchor: AnchorLog | None = None) -> Verified:
    """Verify a session's stored record.

    Args:
        record: What the database holds.
        secret: The configured audit key, if any.
        anchor: Heads anchored outside the database, to compare the chain with.
    """
    verifier = _Verifier(record, secret)
    start, canonical, digest_key = verifier.header()
    head = verifier.chain(start, canonical, digest_key)
    verifier.checkpoint("head checkpoint", record.head)
    verifier.checkpoint("end-of-session seal", record.seal)
    verifier.ending()
    verifier.events_table()
    decided = verifier.decisions_table()
    verifier.requests_table(decided)
    anchored = verifier.anchor(anchor, start) if anchor is not None else None
    report = VerifyReport(
        ok=not verifier.problems,
        entries=len(record.entries),
        problems=tuple(verifier.problems),
        head=head,
        first_bad=min(verifier.located) if verifier.located else None,
        keyed=verifier.keyed,
        key_id=verifier.key_id,
        anchor=anchor.path if anchor is not None else None,
        anchored_seq=anchored,
    )
    return Verified(report, verifier.values)

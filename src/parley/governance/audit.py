"""The hash-chained audit log: SHA-256 over canonical JSON of each entry plus the previous hash.

Verification recomputes the chain and compares it with the separately stored head checkpoint and
the end-of-session seal, so edits, deletions and truncation are all detected and located.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64
"""The previous-hash of the first entry."""


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, UTF-8 kept, non-JSON values stringified."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def entry_hash(previous: str, entry: Mapping[str, Any]) -> str:
    """SHA-256 hex of previous hash + canonical JSON of the entry."""
    return hashlib.sha256((previous + canonical_json(entry)).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One row of the audit table."""

    seq: int
    entry: Mapping[str, Any]
    previous: str
    digest: str


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A recorded (seq, hash) pair: the head checkpoint or the end-of-session seal."""

    seq: int
    digest: str


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Outcome of verifying one session's chain.

    Attributes:
        ok: Whether the chain is intact and matches its checkpoint and seal.
        entries: Number of entries read.
        problems: One line per problem, each naming the entry where it was found.
        head: Hash of the last entry read.
        first_bad: Sequence number of the first bad entry, if any.
    """

    ok: bool
    entries: int
    problems: tuple[str, ...]
    head: str
    first_bad: int | None = None


def _chain_problems(entries: Sequence[StoredEntry]) -> tuple[list[str], int | None, str]:
    problems: list[str] = []
    first_bad: int | None = None
    previous = GENESIS
    for expected_seq, stored in enumerate(entries):
        where = f"entry {stored.seq}"
        if stored.seq != expected_seq:
            problems.append(
                f"{where}: expected sequence number {expected_seq} (entries deleted or reordered)"
            )
        if stored.previous != previous:
            problems.append(f"{where}: previous-hash link broken (an earlier entry was changed or removed)")
        if entry_hash(stored.previous, stored.entry) != stored.digest:
            problems.append(f"{where}: content does not match its hash (entry edited)")
        if problems and first_bad is None:
            first_bad = stored.seq
        previous = stored.digest
    return problems, first_bad, previous


def verify_chain(
    entries: Sequence[StoredEntry], head: Checkpoint | None, seal: Checkpoint | None
) -> VerifyReport:
    """Check links, hashes, sequence numbers, the head checkpoint and the end-of-session seal."""
    problems, first_bad, last = _chain_problems(entries)
    count = len(entries)
    for name, checkpoint in (("head checkpoint", head), ("end-of-session seal", seal)):
        if checkpoint is None:
            continue
        if checkpoint.seq >= count:
            problems.append(
                f"{name}: records entry {checkpoint.seq} but the log ends at entry {count - 1} (truncated)"
            )
            first_bad = count if first_bad is None else first_bad
        elif entries[checkpoint.seq].digest != checkpoint.digest:
            problems.append(f"{name}: hash of entry {checkpoint.seq} differs from the recorded one")
            first_bad = checkpoint.seq if first_bad is None else first_bad
        elif name == "end-of-session seal" and checkpoint.seq != count - 1:
            problems.append(
                f"{name}: entries appended after the session was sealed at entry {checkpoint.seq}"
            )
            first_bad = checkpoint.seq + 1 if first_bad is None else first_bad
    if head is None:
        problems.append("head checkpoint missing")
    return VerifyReport(not problems, count, tuple(problems), last, first_bad)

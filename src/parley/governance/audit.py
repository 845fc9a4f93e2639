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
    expected_seq = 0
    for stored in entries:
        where = f"entry {stored.seq}"
        found: list[str] = []
        if stored.seq != expected_seq:
            found.append(f"{where}: expected sequence number {expected_seq} (entries deleted or reordered)")
        if stored.previous != previous:
            found.append(f"{where}: previous-hash link broken (an earlier entry was changed or removed)")
        if entry_hash(stored.previous, stored.entry) != stored.digest:
            found.append(f"{where}: content does not match its hash (entry edited)")
        if found and first_bad is None:
            first_bad = stored.seq
        problems += found
        previous = stored.digest
        expected_seq = stored.seq + 1
    return problems, first_bad, previous


def _checkpoint_problem(
    name: str, checkpoint: Checkpoint, by_seq: dict[int, StoredEntry], last_seq: int
) -> tuple[str, int] | None:
    stored = by_seq.get(checkpoint.seq)
    if stored is None and checkpoint.seq > last_seq:
        return (
            f"{name}: records entry {checkpoint.seq} but the log ends at entry {last_seq} (truncated)",
            last_seq + 1,
        )
    if stored is None:
        return f"{name}: entry {checkpoint.seq} is missing", checkpoint.seq
    if stored.digest != checkpoint.digest:
        return f"{name}: hash of entry {checkpoint.seq} differs from the recorded one", checkpoint.seq
    if name == "end-of-session seal" and last_seq != checkpoint.seq:
        return (
            f"{name}: entries appended after the session was sealed at entry {checkpoint.seq}",
            checkpoint.seq + 1,
        )
    return None


def verify_chain(
    entries: Sequence[StoredEntry], head: Checkpoint | None, seal: Checkpoint | None
) -> VerifyReport:
    """Check links, hashes, sequence numbers, the head checkpoint and the end-of-session seal."""
    problems, first_bad, last = _chain_problems(entries)
    by_seq = {stored.seq: stored for stored in entries}
    last_seq = entries[-1].seq if entries else -1
    for name, checkpoint in (("head checkpoint", head), ("end-of-session seal", seal)):
        if checkpoint is None:
            continue
        problem = _checkpoint_problem(name, checkpoint, by_seq, last_seq)
        if problem is not None:
            problems.append(problem[0])
            first_bad = problem[1] if first_bad is None else min(first_bad, problem[1])
    if head is None:
        problems.append("head checkpoint missing")
    return VerifyReport(not problems, len(entries), tuple(problems), last, first_bad)

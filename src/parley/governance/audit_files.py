"""What the audit trail keeps outside the database: the HMAC key and the append-only anchor file.

The key is found in this order: `PARLEY_AUDIT_KEY` (hex), the file named by
`PARLEY_AUDIT_KEY_FILE`, then `~/.config/parley/audit.key` (only when `PARLEY_AUDIT_KEY_FILE` is
not set). A key file that does not exist means "no key"; one that group or others may read is
refused. The anchor file is named by `PARLEY_AUDIT_ANCHOR` (or passed to `SessionStore`); every
committed step appends the session's head to it as one JSON line.
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from parley.governance.audit import (
    AnchorHead,
    AnchorLog,
    AuditConfigError,
    MalformedEntry,
    canonical_json,
    key_id,
)

KEY_ENV = "PARLEY_AUDIT_KEY"
"""Environment variable holding the audit key as hex (takes precedence over any key file)."""
KEY_FILE_ENV = "PARLEY_AUDIT_KEY_FILE"
"""Environment variable naming the key file."""
ANCHOR_ENV = "PARLEY_AUDIT_ANCHOR"
"""Environment variable naming the anchor file."""
KEY_BYTES = 32
"""Size of the keys `init_key` creates."""
MIN_KEY_BYTES = 16
"""Shortest key accepted."""


@dataclass(frozen=True, slots=True)
class AuditKey:
    """The secret the chain's HMACs are keyed with, and where it came from."""

    secret: bytes = field(repr=False)
    origin: str

    @property
    def key_id(self) -> str:
        """The key's public fingerprint (first 16 hex digits of its SHA-256)."""
        return key_id(self.secret)


def default_key_file() -> Path:
    """`PARLEY_AUDIT_KEY_FILE` if set, else `~/.config/parley/audit.key`."""
    named = os.environ.get(KEY_FILE_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    return Path.home() / ".config" / "parley" / "audit.key"


def _from_hex(text: str, origin: str) -> AuditKey:
    try:
        secret = bytes.fromhex(text.strip())
    except ValueError:
        raise AuditConfigError("the audit key is not a hex string", source=origin) from None
    if len(secret) < MIN_KEY_BYTES:
        raise AuditConfigError(
            f"the audit key is {len(secret)} bytes; at least {MIN_KEY_BYTES} are needed", source=origin
        )
    return AuditKey(secret, origin)


def read_key_file(path: Path) -> AuditKey:
    """Read a key file (hex text).

    Raises:
        AuditConfigError: if it is not a regular file, group or others may access it, or it is not hex.
    """
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            raise AuditConfigError("the audit key file is not a regular file", source=str(path))
        mode = stat.S_IMODE(status.st_mode)
        if os.name == "posix" and mode & 0o077:
            raise AuditConfigError(
                f"the audit key file is accessible to group or others (mode {mode:04o}); "
                f"run chmod 600 {path}",
                source=str(path),
            )
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise AuditConfigError(f"cannot read the audit key file ({reason})", source=str(path)) from None
    return _from_hex(text, str(path))


def configured_key() -> AuditKey | None:
    """The audit key from the environment or the key file, or None when there is none.

    Raises:
        AuditConfigError: if a key is configured but unusable.
    """
    value = os.environ.get(KEY_ENV, "")
    if value.strip():
        return _from_hex(value, KEY_ENV)
    path = default_key_file()
    if not path.exists():
        return None
    return read_key_file(path)


def init_key(path: Path, *, force: bool = False) -> AuditKey:
    """Create a random 32-byte key file readable only by its owner (mode 0600).

    Raises:
        AuditConfigError: if the file exists and force is not set, or it cannot be written.
    """
    if path.exists() and not force:
        raise AuditConfigError(
            "exists already; pass --force to replace it (sessions keyed with the old key then fail "
            "verification)",
            source=str(path),
        )
    secret = secrets.token_bytes(KEY_BYTES)
    staging = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchmod(descriptor, 0o600)
            os.write(descriptor, (secret.hex() + "\n").encode("ascii"))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(staging, path)
    except OSError as error:
        staging.unlink(missing_ok=True)
        raise AuditConfigError(
            f"cannot write the key file ({error.strerror or error})", source=str(path)
        ) from None
    return AuditKey(secret, str(path))


def configured_anchor() -> Path | None:
    """The anchor file named by `PARLEY_AUDIT_ANCHOR`, if set."""
    named = os.environ.get(ANCHOR_ENV, "").strip()
    return Path(named).expanduser() if named else None


def append_head(path: Path, head: AnchorHead) -> None:
    """Append one head to the anchor file (O_APPEND, one write, fsync).

    Raises:
        OSError: if the file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (canonical_json(head.to_json()) + "\n").encode("utf-8")
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        written = os.write(descriptor, line)
        while written < len(line):
            written += os.write(descriptor, line[written:])
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def read_anchor(path: Path) -> AnchorLog:
    """Every head in an anchor file; an unreadable file or a malformed line is a problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return AnchorLog(str(path), (), (f"anchor {path}: no such file (no head was ever anchored there)",))
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return AnchorLog(str(path), (), (f"anchor {path}: cannot be read ({reason})",))
    heads: list[AnchorHead] = []
    bad: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            heads.append(AnchorHead.parse(line))
        except MalformedEntry:
            bad.append(number)
    problems: tuple[str, ...] = ()
    if bad:
        more = f" ({len(bad)} such lines)" if len(bad) > 1 else ""
        problems = (f"anchor {path}: line {bad[0]} is not a head record{more}",)
    return AnchorLog(str(path), tuple(heads), problems)

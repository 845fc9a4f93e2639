"""Who may use the web console: principals holding a token, and their signed-in browser sessions.

Both live in the delegate's SQLite file, in two tables of their own (`principals`, `web_sessions`)
next to the governance tables, written through a separate connection. Nothing secret is stored in
the clear: a principal's token is kept as a salted scrypt hash, a browser session's id as a
SHA-256 hash (it is 256 random bits, so a fast hash is enough), and the session's CSRF token is
derived from the id with HMAC rather than stored.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Generator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from parley.errors import ScenarioError
from parley.governance.safe_text import printable

__all__ = ["SESSION_COOKIE", "SESSION_SECONDS", "Credentials", "SignedIn", "check_name"]

SESSION_COOKIE = "parley_session"
SESSION_SECONDS = 12 * 3600
"""How long a sign-in lasts (12 hours); the principal signs in again after that."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS principals (
    name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS web_sessions (
    id_hash TEXT PRIMARY KEY, principal TEXT NOT NULL, created REAL NOT NULL, expires REAL NOT NULL);
"""
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
_MAX_TOKEN = 200  # tokens are 43 characters; anything far longer is not worth hashing
_MAX_NAME = 100
_CSRF_LABEL = b"parley console csrf v1"


@contextmanager
def connected(path: str, *, rows: bool = False) -> Generator[sqlite3.Connection]:
    """One autocommit connection to the console's SQLite file (waits up to 30 s for a lock), closed on
    exit; `rows`: rows as `sqlite3.Row`."""
    connection = sqlite3.connect(path, isolation_level=None)
    if rows:
        connection.row_factory = sqlite3.Row
    try:
        connection.execute("PRAGMA busy_timeout=30000")
        yield connection
    finally:
        connection.close()


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A principal signed in to the console from one browser.

    Attributes:
        principal: The principal's name, recorded as `decided_by` with every decision.
        expires: When the sign-in ends (clock seconds).
        csrf_token: Must accompany every state-changing request of this sign-in (X-CSRF-Token).
    """

    principal: str
    expires: float
    csrf_token: str


def check_name(name: str) -> str:
    """A principal's name, checked: 1-100 printable characters without surrounding blanks.

    Raises:
        ScenarioError: if the name is empty, too long or holds control characters.
    """
    if not name.strip() or name != name.strip() or printable(name) != name or "\n" in name or "\t" in name:
        raise ScenarioError(f"principal name {name!r}: use printable characters, no surrounding blanks")
    if len(name) > _MAX_NAME:
        raise ScenarioError(f"principal name: at most {_MAX_NAME} characters, got {len(name)}")
    return name


def _hash_token(token: str, salt: bytes) -> str:
    digest = hashlib.scrypt(token.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32)
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${salt.hex()}${digest.hex()}"


def _token_matches(token: str, stored: str) -> bool:
    scheme, n, r, p, salt, digest = stored.split("$")
    if scheme != "scrypt":
        return False
    computed = hashlib.scrypt(
        token.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=len(digest) // 2
    )
    return hmac.compare_digest(computed.hex(), digest)


def _id_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def _csrf_token(session_id: str) -> str:
    return hmac.new(session_id.encode(), _CSRF_LABEL, hashlib.sha256).hexdigest()


class Credentials:
    """The console's principals and sign-ins in the SQLite file at db_path (tables created if missing).

    Every call opens and closes its own connection, so one object serves any number of threads.

    Args:
        db_path: The delegate database (its governance tables should exist already).
    """

    def __init__(self, db_path: str | Path) -> None:
        self.path = str(db_path)
        with self._connected() as db:
            db.executescript(_SCHEMA)

    def _connected(self) -> AbstractContextManager[sqlite3.Connection]:
        return connected(self.path)

    def principals(self) -> list[str]:
        """The names of every principal who can sign in."""
        with self._connected() as db:
            return [str(row[0]) for row in db.execute("SELECT name FROM principals ORDER BY name")]

    def add_principal(self, name: str, *, now: float, replace: bool = False) -> str:
        """Create a principal (or, with replace, give an existing one a new token) and return its token.

        The token is returned once and stored only as a salted scrypt hash. Replacing a token ends
        every console sign-in of that principal.

        Raises:
            ScenarioError: if the name is invalid, or the principal exists and replace is False
                (or does not exist and replace is True).
        """
        check_name(name)
        token = secrets.token_urlsafe(32)
        stored = _hash_token(token, secrets.token_bytes(16))
        with self._connected() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                exists = db.execute("SELECT 1 FROM principals WHERE name=?", (name,)).fetchone() is not None
                if exists and not replace:
                    raise ScenarioError(
                        f"principal {name!r} exists already (add --reset to give it a new token)",
                        source=self.path,
                    )
                if replace and not exists:
                    raise ScenarioError(f"no principal {name!r} to reset", source=self.path)
                db.execute(
                    "INSERT INTO principals VALUES (?,?,?) ON CONFLICT(name) DO UPDATE SET "
                    "token_hash=excluded.token_hash",
                    (name, stored, now),
                )
                db.execute("DELETE FROM web_sessions WHERE principal=?", (name,))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        return token

    def sign_in(self, token: str, *, now: float) -> tuple[str, SignedIn] | None:
        """Start a browser session for the principal holding token.

        Returns:
            The new session id (for the cookie; it is stored only hashed) and the sign-in, or None
            when the token belongs to no principal.
        """
        if not token or len(token) > _MAX_TOKEN:
            return None
        with self._connected() as db:
            rows = db.execute("SELECT name, token_hash FROM principals ORDER BY name").fetchall()
        matched = [str(name) for name, stored in rows if _token_matches(token, str(stored))]
        if not matched:
            return None
        session_id = secrets.token_urlsafe(32)
        expires = now + SESSION_SECONDS
        with self._connected() as db:
            db.execute("DELETE FROM web_sessions WHERE expires <= ?", (now,))
            db.execute(
                "INSERT INTO web_sessions VALUES (?,?,?,?)", (_id_hash(session_id), matched[0], now, expires)
            )
        return session_id, SignedIn(matched[0], expires, _csrf_token(session_id))

    def session(self, session_id: str, *, now: float) -> SignedIn | None:
        """The live sign-in behind a session cookie, or None (unknown, expired, or its principal reset)."""
        if not session_id or len(session_id) > _MAX_TOKEN:
            return None
        with self._connected() as db:
            row = db.execute(
                "SELECT s.principal, s.expires FROM web_sessions s JOIN principals p ON p.name = s.principal "
                "WHERE s.id_hash=? AND s.expires > ?",
                (_id_hash(session_id), now),
            ).fetchone()
        if row is None:
            return None
        return SignedIn(str(row[0]), float(row[1]), _csrf_token(session_id))

    def sign_out(self, session_id: str) -> None:
        """End one browser session."""
        with self._connected() as db:
            db.execute("DELETE FROM web_sessions WHERE id_hash=?", (_id_hash(session_id),))

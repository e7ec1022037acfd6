"""The databases the aggregate store runs on: embedded SQLite (the default) or a PostgreSQL server shared by hosts.

`reward.scorelog.store` writes its SQL once, in the dialect both understand (`?` parameters, `INSERT ... ON
CONFLICT`, `CASE` instead of two-argument `min`, quoted `"offset"` and `"binary"`); a `Database` runs it on one
connection and gives the store one write transaction at a time. SQLite's `BEGIN IMMEDIATE` takes the file's write
lock; on PostgreSQL a transaction-scoped advisory lock does the same for every writer of the database, on every
host, so a request id's claim (read, then insert) and a step's read-merge-write of its sketches never interleave.
A PostgreSQL store is one database per deployment: every reward node's writer connects to it by URL, and the
folders of segments stay on each node's own disk.

The URL is libpq's (`postgresql://user@host:5432/rewards`); keep the password out of it and in the environment
(`PGPASSWORD`) or a password file (`PGPASSFILE`, `~/.pgpass`), which libpq reads itself. A server that cannot be
reached, or that goes away mid-transaction, raises `StoreUnavailable`; the next call connects again.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
WRITE_LOCK = 0x5265776172645374
"""The advisory lock key of a PostgreSQL store's write transactions (any fixed 64-bit number; "RewardSt")."""
CONNECT_TIMEOUT_S = 5
STATEMENT_TIMEOUT_MS = 30_000
"""A write that waits longer than this (the lock held by a stuck writer) fails as unavailable, like SQLite's 30 s
busy timeout."""


class StoreUnavailable(RuntimeError):
    """The store's database cannot be reached or failed mid-transaction; nothing of the transaction was kept (or,
    when the connection broke during COMMIT, it may have been: the store's claims settle that on the retry)."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(f"score store unavailable: {reason}")


class ClaimLost(RuntimeError):
    """A writer's claim on a batch id is gone: another writer logged the batch (this writer's part is a duplicate)."""

    def __init__(self, scope: str, request: str):
        self.scope, self.request = scope, request
        super().__init__(f"batch {request!r} of run {scope!r} was logged by another writer")


def is_postgres(url: str | None) -> bool:
    return bool(url) and url.startswith(POSTGRES_SCHEMES)


def redact(url: str) -> str:
    """The URL without a password, for logs and errors.

    >>> redact("postgresql://reward:s3cret@db:5432/rewards")
    'postgresql://reward:***@db:5432/rewards'
    """
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)


def without_password(url: str) -> str:
    """The URL with its password left out.

    >>> without_password("postgresql://reward:s3cret@db:5432/rewards")
    'postgresql://reward@db:5432/rewards'
    >>> without_password("postgresql://db/rewards?user=reward&password=s3cret&sslmode=require")
    'postgresql://db/rewards?user=reward&sslmode=require'
    """
    url = re.sub(r"(://[^:/@]+):[^@]*@", r"\1@", url)
    return re.sub(r"([?&])password=[^&]*(&|$)", lambda m: m.group(1) if m.group(2) else "", url).rstrip("?&")


class SQLiteDatabase:
    """The embedded store: a file beside the segments, WAL mode (readers while a run is live)."""

    dialect = "sqlite"

    def __init__(self, path: Path, *, readonly: bool = False, synchronous: str = "NORMAL"):
        self.path = path
        if readonly:
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None,
                                      check_same_thread=False, timeout=30)
        else:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            # The log is fsynced; the store can be rebuilt from it, so a power cut may lose its last commits.
            self.db.execute(f"PRAGMA synchronous={synchronous}")

    def execute(self, sql: str, params: Sequence[Any] = ()):
        return self.db.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.db.executemany(sql, rows)

    def create(self, schema: str) -> None:
        self.db.executescript(schema)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """`BEGIN IMMEDIATE` takes the write lock up front, so concurrent writers queue (up to the 30 s busy
        timeout) instead of failing on a read-then-write upgrade."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def has_table(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None

    def version(self) -> int:
        """Changes whenever any connection commits (SQLite's `data_version` for other connections, plus size)."""
        return hash((self.db.execute("PRAGMA data_version").fetchone()[0],
                     self.db.execute("SELECT total_changes()").fetchone()[0],
                     *(p.stat().st_mtime_ns if p.exists() else 0 for p in (self.path, Path(f"{self.path}-wal")))))

    def close(self) -> None:
        self.db.close()


_PG_TYPES = ((re.compile(r"\bINTEGER\b"), "BIGINT"), (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
             (re.compile(r"\s+WITHOUT ROWID"), ""))


def postgres_schema(schema: str) -> list[str]:
    """SQLite's schema as PostgreSQL statements: 64-bit integers, double-precision reals, no `WITHOUT ROWID`.

    >>> postgres_schema("CREATE TABLE t (a INTEGER, b REAL, PRIMARY KEY (a)) WITHOUT ROWID;")
    ['CREATE TABLE t (a BIGINT, b DOUBLE PRECISION, PRIMARY KEY (a))']
    """
    for pattern, replacement in _PG_TYPES:
        schema = pattern.sub(replacement, schema)
    return [statement.strip() for statement in schema.split(";") if statement.strip()]


def _placeholders(sql: str) -> str:
    """`?` parameters as psycopg's `%s` (the store's SQL has no `?` or `%` inside string literals)."""
    return sql.replace("?", "%s")


class PostgresDatabase:
    """A store in a PostgreSQL database shared by every writer (psycopg 3, one connection, autocommit outside the
    store's transactions)."""

    dialect = "postgresql"

    def __init__(self, url: str, *, readonly: bool = False):
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - the serve extra installs it
            raise ImportError("a postgresql:// score store needs psycopg: pip install 'search-reward[serve]'") from exc
        self._psycopg = psycopg
        self.url = url
        self.readonly = readonly
        self.path = redact(url)
        self.db = None
        self._connect()

    def _connect(self):
        psycopg = self._psycopg
        if self.db is not None and not self.db.closed and not self.db.broken:
            return self.db
        if self.db is not None:
            with contextlib.suppress(Exception):
                self.db.close()
            self.db = None
        options = f"-c statement_timeout={STATEMENT_TIMEOUT_MS}"
        if self.readonly:
            options += " -c default_transaction_read_only=on"
        try:
            self.db = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, options=options,
                                      application_name="reward-scorestore")
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"{self.path}: {_first_line(exc)}") from exc
        return self.db

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        return StoreUnavailable(f"{self.path}: {_first_line(exc)}")

    def _idle(self, db) -> bool:
        return db.info.transaction_status == self._psycopg.pq.TransactionStatus.IDLE

    def execute(self, sql: str, params: Sequence[Any] = ()):
        for attempt in range(2):
            db = self._connect()
            idle = self._idle(db)
            try:
                return db.execute(_placeholders(sql), params)
            except self._psycopg.OperationalError as exc:
                # A connection the server dropped while it sat idle (a restart) fails once: connect again, but
                # never inside a transaction, whose earlier statements are gone with it.
                if attempt or not idle or not db.broken:
                    raise self._unavailable(exc) from exc
        raise AssertionError("unreachable")

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        db = self._connect()
        try:
            with db.cursor() as cursor:
                cursor.executemany(_placeholders(sql), rows)
        except self._psycopg.OperationalError as exc:
            raise self._unavailable(exc) from exc

    def create(self, schema: str) -> None:
        with self.transaction():
            for statement in postgres_schema(schema):
                self.execute(statement)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction, holding the store's advisory write lock until it ends (every host's writers
        queue, as SQLite's writers queue on the file lock). A connection the server dropped while idle is replaced
        once, before the transaction's first statement."""
        for attempt in range(2):
            db = self._connect()
            started = False
            try:
                with db.transaction():
                    db.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                    started = True
                    yield
                return
            except self._psycopg.OperationalError as exc:
                if started or attempt or not db.broken:
                    raise self._unavailable(exc) from exc

    def has_table(self, name: str) -> bool:
        return self.execute("SELECT to_regclass(?) IS NOT NULL", (name,)).fetchone()[0]

    def version(self) -> int:
        """Changes whenever anything in the database commits (its write-ahead log's insert position)."""
        return hash(str(self.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]))

    def close(self) -> None:
        if self.db is not None:
            with contextlib.suppress(Exception):
                self.db.close()


def _first_line(exc: Exception) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]

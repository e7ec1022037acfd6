"""A throwaway PostgreSQL server for the score store's tests: Debian's `postgresql` package, a cluster made by
`initdb` in a temporary folder, listening on a unix socket only (it works inside the tests' network namespace), run
as the `postgres` user when the tests run as root. Each test gets a database of its own.

Where PostgreSQL is not installed the tests that need it skip with the reason, unless `REWARD_REQUIRE_POSTGRES=1`
(CI sets it), where they fail.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REQUIRE_ENV = "REWARD_REQUIRE_POSTGRES"
_databases = itertools.count()


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                      key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return versions[-1] if versions else None


def _missing(reason: str):
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"PostgreSQL is required here ({REQUIRE_ENV}=1) but {reason}")
    pytest.skip(f"PostgreSQL tests skipped: {reason} (apt-get install postgresql)")


class PostgresServer:
    """One cluster in `root`: `start()`, `stop()` (also to simulate the database going away), `url(database)`."""

    def __init__(self, root: Path):
        self.root = root
        self.data = root / "data"
        self.socket = root / "socket"
        self.user = "reward"
        self.initdb, self.pg_ctl = _binary("initdb"), _binary("pg_ctl")
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                owner = None
            if owner is None or not shutil.which("runuser"):
                raise RuntimeError("running as root, and there is no `postgres` user or no runuser to start it as")
            self.as_user = ["runuser", "-u", "postgres", "--"]
            os.chown(root, owner.pw_uid, owner.pw_gid)
        self.socket.mkdir(exist_ok=True)
        if self.as_user:
            os.chown(self.socket, owner.pw_uid, owner.pw_gid)

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self.as_user, *command], capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip() or done.stdout.strip()}")

    def init(self) -> None:
        self._run(self.initdb, "-D", str(self.data), "-A", "trust", "-U", self.user, "--no-sync", "-E", "UTF8")

    def start(self) -> None:
        # fsync off: a test database, thrown away after the run; a unix socket only (no TCP port to collide on).
        options = f"-k {self.socket} -c listen_addresses='' -c fsync=off -c full_page_writes=off -c max_connections=200"
        self._run(self.pg_ctl, "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options, "-w",
                  "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@/{database}?host={self.socket}"

    def create_database(self) -> str:
        import psycopg

        name = f"scores_{os.getpid()}_{next(_databases)}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@contextlib.contextmanager
def postgres_server():
    """A started PostgreSQL cluster in a temporary folder, stopped and removed at the end."""
    if _binary("initdb") is None or _binary("pg_ctl") is None:
        _missing("initdb/pg_ctl not found on PATH or in /usr/lib/postgresql/*/bin")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _missing("the psycopg driver is not installed (the serve extra)")
    root = Path(tempfile.mkdtemp(prefix="reward-pg-"))
    server = None
    try:
        try:
            server = PostgresServer(root)
            server.init()
            server.start()
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            server = None
            _missing(f"a test cluster could not be started: {exc}")
        yield server
    finally:
        if server is not None:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres():
    with postgres_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request) -> str | None:
    """Each backend of the score store: None (SQLite beside the segments) and a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres").create_database()

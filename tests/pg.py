"""A throw-away PostgreSQL server for the tests (issue #21): one per test session, in a
temporary folder, on a free port of 127.0.0.1; each test gets a fresh database of its own.

Postgres refuses to run as root: as root, initdb and postgres run as the `postgres`
system user (Debian's package makes it) with the folder handed to it. Without the
binaries the tests that need the server skip (`tests.servers.unavailable`), or fail in CI.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from servers import unavailable


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/N/bin)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("postgres")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A running throw-away server; `url(db)` names a database in it."""

    def __init__(self, bin_dir: Path, tls: tuple[Path, Path] | None = None) -> None:
        """`tls` (key, certificate): the server speaks TLS and refuses connections
        without it (pg_hba `hostssl` only)."""
        self.bin = bin_dir
        self.tls = tls
        self.dir = Path(tempfile.mkdtemp(prefix="kessel-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.user = "kessel"
        self._as: list[str] = []
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                raise RuntimeError("running as root without runuser")
            shutil.chown(self.dir, "postgres", "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        self._proc: subprocess.Popen[bytes] | None = None
        self._names = itertools.count(1)

    def _run(self, *argv: str) -> None:
        subprocess.run(
            [*self._as, *argv], check=True, capture_output=True, timeout=120, cwd=self.dir
        )

    def start(self) -> None:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            self.user,
            "--auth=trust",
            "--locale=C",
            "--encoding=UTF8",
            "--no-sync",
        )
        options = self._tls_options() if self.tls else []
        self._proc = subprocess.Popen(
            [
                *self._as,
                str(self.bin / "postgres"),
                "-D",
                str(self.data),
                "-k",
                str(self.dir),
                "-p",
                str(self.port),
                "-c",
                "listen_addresses=127.0.0.1",
                # a throw-away server: durability traded for speed (transactions, locks
                # and constraints behave the same)
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200",
                *options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "server.log", "wb"),  # noqa: SIM115 (the server's own)
            cwd=self.dir,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(
                    "postgres exited: " + (self.dir / "server.log").read_text(errors="replace")
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                self.psql("SELECT 1")
                return
            except (OSError, subprocess.CalledProcessError):
                time.sleep(0.2)
        raise RuntimeError("postgres did not start within 60 s")

    def _tls_options(self) -> list[str]:
        """The key and certificate copied into the server's folder (the key readable by
        the server's user only, as postgres demands) and TLS required of TCP clients."""
        assert self.tls is not None
        key, cert = self.dir / "server.key", self.dir / "server.crt"
        shutil.copyfile(self.tls[0], key)
        shutil.copyfile(self.tls[1], cert)
        key.chmod(0o600)
        if self._as:
            for f in (key, cert):
                shutil.chown(f, "postgres", "postgres")
        hba = self.data / "pg_hba.conf"
        hba.write_text(
            "local all all trust\n"
            "hostssl all all 127.0.0.1/32 trust\n"
            "hostnossl all all 127.0.0.1/32 reject\n"
        )
        return ["-c", "ssl=on", "-c", f"ssl_cert_file={cert}", "-c", f"ssl_key_file={key}"]

    def psql(self, sql: str, db: str = "postgres") -> str:
        out = subprocess.run(
            [
                str(self.bin / "psql"),
                "-X",
                "-q",
                "-A",
                "-t",
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                self.user,
                "-d",
                db,
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        return out.stdout.decode().strip()

    def url(self, db: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        """A fresh, empty database's URL."""
        name = f"t{next(self._names)}"
        self.psql(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            # SIGQUIT to the postmaster itself (runuser passes no signal on): the
            # "immediate" shutdown, no shutdown checkpoint (the data is thrown away);
            # SIGTERM would wait for every session to end
            try:
                pid = int((self.data / "postmaster.pid").read_text().split()[0])
                os.kill(pid, signal.SIGQUIT)
            except (OSError, ValueError, IndexError):
                self._proc.send_signal(signal.SIGQUIT)
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        # Each test's database is ~240 files (~7.5 MB, and its WAL): after a whole run
        # the folder is over 1 GB in ~20,000 files, whose removal took 15-50 s on a
        # loaded machine. It is removed in the background (`rm` left to finish alone),
        # not in the session's time.
        try:
            subprocess.run(
                ["sh", "-c", 'rm -rf -- "$1" >/dev/null 2>&1 &', "sh", str(self.dir)],
                check=True,
                timeout=30,
            )
        except (OSError, subprocess.SubprocessError):
            shutil.rmtree(self.dir, ignore_errors=True)


def running(tls: tuple[Path, Path] | None = None) -> Iterator[Server]:
    """A throw-away server (`tls`: TLS only) for as long as the generator is held; skips,
    or fails in CI, where PostgreSQL is not installed."""
    bin_dir = binaries()
    if bin_dir is None:
        unavailable("PostgreSQL")
        raise AssertionError  # (unavailable skips or fails)
    try:
        server = Server(bin_dir, tls)
    except (LookupError, RuntimeError) as e:  # root, but no `postgres` user or no runuser
        unavailable(f"PostgreSQL as root ({e})")
        raise AssertionError from None
    try:
        server.start()
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        server.stop()
        pytest.fail(f"the test PostgreSQL server did not start: {e}")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    """The session's PostgreSQL server."""
    yield from running()


async def sql(url: str, text: str) -> list[Any]:
    """`text` on a connection of its own (as another process would): a SELECT's rows; DDL
    or several statements run, no rows."""
    import asyncpg  # (here: the SQLite-only tests import this module too)

    conn = await asyncpg.connect(url)
    try:
        if text.lstrip().upper().startswith("SELECT") and ";" not in text:
            return list(await conn.fetch(text))
        await conn.execute(text)
        return []
    finally:
        await conn.close()


@pytest.fixture
def pg_url(pg_server: Server) -> str:
    """A fresh, empty PostgreSQL database of this test's own."""
    return pg_server.new_database()

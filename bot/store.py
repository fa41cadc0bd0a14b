"""The referee's storage: one SQLite file, one writer connection (aiosqlite).

Durability choices (../shared/reference/discord-and-tech-notes.md §3): WAL journal,
`synchronous=FULL` (an acknowledged input survives a crash or power loss),
`busy_timeout`, explicit `BEGIN IMMEDIATE` for every write so a write never fails with a
deferred-lock error, migrations keyed by `PRAGMA user_version`.

A game is its append-only **log**: numbered records per game (an accepted input with the
engine events it caused, an undo, a rollback, a moderator act, a seat change ...). The
position is derived from the log (bot/service/games.py folds it); snapshots of the
engine state make loading a long game fast. An idempotency key (e.g. a Discord
interaction id) makes a doubled request apply once: the reply stored with it is returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import stat
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import aiosqlite

from bot.store_leagues import LeagueTables

# Append-only: never edit a shipped step, add a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games(
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            guild TEXT NOT NULL DEFAULT '',
            channel TEXT NOT NULL DEFAULT '',
            scenario TEXT NOT NULL,
            scenario_data TEXT,
            seed INTEGER NOT NULL,
            dice TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
            created_by TEXT NOT NULL,
            created_at REAL NOT NULL,
            head INTEGER NOT NULL DEFAULT 0)""",
        "CREATE INDEX games_by_channel ON games(guild, channel)",
        """CREATE TABLE seats(
            game_id TEXT NOT NULL REFERENCES games(id),
            user_id TEXT NOT NULL,
            display TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('player', 'moderator', 'spectator')),
            side TEXT NOT NULL DEFAULT '',
            joined_seq INTEGER NOT NULL,
            left_seq INTEGER,
            PRIMARY KEY (game_id, user_id, role, side, joined_seq))""",
        "CREATE INDEX seats_by_user ON seats(user_id)",
        """CREATE TABLE log(
            game_id TEXT NOT NULL REFERENCES games(id),
            seq INTEGER NOT NULL,
            ts REAL NOT NULL,
            actor TEXT NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL CHECK (json_valid(body)),
            PRIMARY KEY (game_id, seq)) WITHOUT ROWID""",
        """CREATE TABLE requests(
            key TEXT PRIMARY KEY,
            game_id TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            seq INTEGER NOT NULL,
            reply TEXT NOT NULL CHECK (json_valid(reply))) WITHOUT ROWID""",
        """CREATE TABLE snapshots(
            game_id TEXT NOT NULL REFERENCES games(id),
            seq INTEGER NOT NULL,
            state TEXT NOT NULL,
            PRIMARY KEY (game_id, seq)) WITHOUT ROWID""",
        """CREATE TABLE deadlines(
            game_id TEXT PRIMARY KEY REFERENCES games(id),
            step TEXT NOT NULL,
            due REAL NOT NULL,
            reminded INTEGER NOT NULL DEFAULT 0)""",
        """CREATE TABLE last_seen(
            game_id TEXT NOT NULL REFERENCES games(id),
            user_id TEXT NOT NULL,
            event_seq INTEGER NOT NULL,
            PRIMARY KEY (game_id, user_id)) WITHOUT ROWID""",
        """CREATE TABLE server_settings(
            guild TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL CHECK (json_valid(value)),
            PRIMARY KEY (guild, key)) WITHOUT ROWID""",
    ),
    (  # issue #20: leagues, seasons, their entrants and pairings (bot/store_leagues.py)
        """CREATE TABLE leagues(
            id TEXT PRIMARY KEY,
            guild TEXT NOT NULL,
            name TEXT NOT NULL,
            system TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
            created_by TEXT NOT NULL,
            created_at REAL NOT NULL)""",
        "CREATE INDEX leagues_by_guild ON leagues(guild)",
        """CREATE TABLE seasons(
            id TEXT PRIMARY KEY,
            league TEXT NOT NULL REFERENCES leagues(id),
            name TEXT NOT NULL,
            format TEXT NOT NULL,
            status TEXT NOT NULL,
            channel TEXT NOT NULL DEFAULT '',
            settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
            created_at REAL NOT NULL)""",
        "CREATE INDEX seasons_by_league ON seasons(league)",
        """CREATE TABLE entrants(
            season TEXT NOT NULL REFERENCES seasons(id),
            user_id TEXT NOT NULL,
            display TEXT NOT NULL,
            joined_at REAL NOT NULL,
            PRIMARY KEY (season, user_id)) WITHOUT ROWID""",
        """CREATE TABLE pairings(
            season TEXT NOT NULL REFERENCES seasons(id),
            key TEXT NOT NULL,
            round INTEGER NOT NULL,
            sides TEXT NOT NULL CHECK (json_valid(sides)),
            scenario TEXT NOT NULL,
            game TEXT,
            result TEXT CHECK (result IS NULL OR json_valid(result)),
            PRIMARY KEY (season, key)) WITHOUT ROWID""",
        "CREATE INDEX pairings_by_game ON pairings(game)",
        """CREATE TABLE league_audit(
            season TEXT NOT NULL REFERENCES seasons(id),
            ts REAL NOT NULL,
            actor TEXT NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL CHECK (json_valid(body)))""",
    ),
    (  # issue #20: a season's divisions
        "ALTER TABLE entrants ADD COLUMN division TEXT NOT NULL DEFAULT ''",
    ),
    (  # issue #21: where each game stands (its summary), written with every record, so
        # game lists never load a game; `phase` NULL: not summarised yet (a game from an
        # older Kessel, or one whose creation's summary write was lost: the referee
        # summarises it when it first loads it). `wake`: when a deadline next needs the
        # referee (its first reminder, else its end): the due deadlines are one range.
        "ALTER TABLE games ADD COLUMN phase TEXT",
        "ALTER TABLE games ADD COLUMN turn INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN awaiting TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE games ADD COLUMN sides TEXT NOT NULL DEFAULT '[]'",
        "CREATE INDEX games_by_status ON games(status)",
        "ALTER TABLE deadlines ADD COLUMN wake REAL NOT NULL DEFAULT 0",
        "CREATE INDEX deadlines_by_wake ON deadlines(wake)",
    ),
)

# Snapshots kept per game: the newest few (a load uses the latest one; older ones only
# take room, issue #21)
KEEP_SNAPSHOTS = 3


class StoreError(Exception):
    """The database cannot do what was asked (locked, read-only, full, corrupt)."""


class Conflict(StoreError):
    """The game's log moved on since the caller read it (optimistic concurrency)."""


@dataclass(frozen=True)
class Summary:
    """Where a game stands, as lists show it without loading the game (issue #21)."""

    phase: str  # the phase's title (with its date), as `LiveGame.where()` says it
    turn: int
    awaiting: tuple[str, ...]  # the sides the game waits for
    sides: tuple[str, ...]  # the scenario's sides, in order


@dataclass(frozen=True)
class GameRow:
    id: str
    name: str
    guild: str
    channel: str
    scenario: str
    scenario_data: dict[str, Any] | None
    seed: int
    dice: tuple[int, ...]
    status: str
    settings: dict[str, Any]
    created_by: str
    created_at: float
    head: int
    summary: Summary | None = None  # None: not summarised yet (see MIGRATIONS[3])


# The games table's columns as GameRow reads them (named, not `SELECT *`)
_GAME_COLUMNS = (
    "id, name, guild, channel, scenario, scenario_data, seed, dice, status, settings,"
    " created_by, created_at, head, phase, turn, awaiting, sides"
)


@dataclass(frozen=True)
class LogRecord:
    seq: int
    ts: float
    actor: str
    kind: str
    body: dict[str, Any]


@dataclass(frozen=True)
class SeatRow:
    user_id: str
    display: str
    role: str
    side: str
    joined_seq: int
    left_seq: int | None


@dataclass(frozen=True)
class NewRecord:
    actor: str
    kind: str
    body: dict[str, Any]


# SQLite's primary result codes (`sqlite3.Error.sqlite_errorcode & 0xff`).
_BUSY, _LOCKED, _READONLY, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 11, 13, 14, 26


def _code(e: sqlite3.Error) -> int:
    code = getattr(e, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else -1


def _explain(e: sqlite3.Error, subject: str = "the game database") -> StoreError:
    text = str(e)
    code = _code(e)
    if code in (_BUSY, _LOCKED) or "locked" in text or "busy" in text:
        return StoreError(f"{subject} is busy (locked by another program); try again")
    if code == _READONLY or "readonly" in text:
        return StoreError(f"{subject} is read-only: nothing was saved")
    if code == _FULL or "full" in text:
        return StoreError(f"the disk holding {subject} is full: nothing was saved")
    if code in (_CORRUPT, _NOTADB) or any(
        w in text for w in ("malformed", "not a database", "corrupt")
    ):
        return StoreError(f"{subject} is damaged ({text}); restore it from a backup")
    return StoreError(f"database error: {text}")


# --- opening a file -------------------------------------------------------------------
# Kessel's tables of every schema so far; a file without them is another program's.
KESSEL_TABLES = frozenset({"games", "seats", "log", "requests"})
_MAGIC = b"SQLite format 3\x00"
_SQLITE_MAX_PATH = 512  # SQLITE_MAX_PATHNAME of the unix VFS


def _shown(name: str) -> str:
    """A path as a message shows it: on one line, and not a screenful."""
    text = name.encode("unicode_escape", "backslashreplace").decode("ascii")
    return text if len(text) <= 120 else text[:100] + f"... ({len(name)} characters)"


def _uri(name: str, *, immutable: bool = False) -> str:
    """A read-only SQLite URI: `mode=ro` never writes; `immutable=1` also takes no lock
    and creates no -wal/-shm file, so it is only used where the main file holds the
    whole database (no -wal file with content beside it)."""
    path = urllib.parse.quote(os.path.abspath(name))
    return f"file:{path}?mode=ro" + ("&immutable=1" if immutable else "")


def _has_wal(name: str) -> bool:
    try:
        return os.path.getsize(name + "-wal") > 0
    except OSError:
        return False


def _read_only_reason(name: str, folder: str, exists: bool, asked: bool) -> str | None:
    """Why the file cannot be written (None: it can be)."""
    if asked:
        return "opened read-only"
    with contextlib.suppress(OSError, AttributeError):  # (no statvfs on Windows)
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "its file system is read-only"
    if exists and not os.access(name, os.W_OK):
        return "the file is read-only"
    if not os.access(folder, os.W_OK):
        return "its folder is read-only"
    return None


def _connect(path: str | Path, read_only: bool) -> tuple[sqlite3.Connection, str | None]:
    """Open the game database at `path` (blocking; Store.open runs it in a thread).

    Returns an open connection and, when the file cannot be written, why. Raises
    StoreError, with nothing written, for a path that cannot be a database file, a file
    that is not SQLite, damaged, another program's database, from a newer Kessel, or
    read-only and not yet set up."""
    name = os.fspath(path)
    shown = _shown(name)

    def refused(why: str, verb: str = "open") -> StoreError:
        return StoreError(f"cannot {verb} the game database {shown}: {why}")

    if not name:
        raise refused("no file name was given")
    if "\x00" in name:
        raise refused("the file name contains a NUL byte")
    try:
        st: os.stat_result | None = os.stat(name)
    except FileNotFoundError:
        st = None
    except OSError as e:  # too long, a file used as a folder, no permission, a loop ...
        raise refused((e.strerror or str(e)).lower()) from None
    folder = os.path.dirname(os.path.abspath(name))
    # SQLite's unix VFS takes paths of at most 512 bytes, its "-journal" name included
    longest = max(len(os.fsencode(p)) for p in (os.path.abspath(name), os.path.realpath(name)))
    if longest + len("-journal") > _SQLITE_MAX_PATH:
        raise refused(
            f"its path is too long for SQLite ({longest} bytes; at most "
            f"{_SQLITE_MAX_PATH - len('-journal')})"
        )
    if st is None:
        if not os.path.isdir(folder):
            raise refused(f"the folder {_shown(folder)} does not exist", "create")
    elif stat.S_ISDIR(st.st_mode):
        raise refused("it is a folder, not a file")
    elif not stat.S_ISREG(st.st_mode):
        raise refused("it is not a regular file")
    else:
        _recognise(name, st, refused)
    why = _read_only_reason(name, folder, st is not None, read_only)
    if why is None:
        try:
            return _open_writer(name, refused), None
        except sqlite3.Error as e:
            if _code(e) not in (_READONLY, _CANTOPEN):
                raise refused(str(_explain(e, "it"))) from None
            why = "the file cannot be written"
    if st is None:
        raise refused(f"it does not exist, and it cannot be created: {why}")
    return _open_reader(name, refused), why


def _recognise(name: str, st: os.stat_result, refused: Callable[..., StoreError]) -> None:
    """Refuse a file that is not a Kessel game database, reading it only: its header,
    then (through a read-only connection) its `user_version` and table names."""
    if st.st_size:
        try:
            with open(name, "rb") as f:
                head = f.read(100)
        except OSError as e:
            raise refused((e.strerror or str(e)).lower()) from None
        if not head.startswith(_MAGIC):
            raise refused(
                "it is not an SQLite database (if it is a Kessel game database, its first "
                "page is damaged: restore it from a backup)"
            )
    # immutable=1 creates no file beside a database that has no -wal or -journal file
    quiet = not _has_wal(name) and not os.path.exists(name + "-journal")
    try:
        con = sqlite3.connect(_uri(name, immutable=quiet), uri=True)
    except sqlite3.Error as e:
        raise refused(_unreadable(name, e)) from None
    try:
        version = int(con.execute("PRAGMA user_version").fetchone()[0])
        tables = sorted(
            str(r[0])
            for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not str(r[0]).startswith("sqlite_")
        )
    except sqlite3.Error as e:
        raise refused(_unreadable(name, e)) from None
    finally:
        con.close()
    if not tables and version == 0:
        return  # an empty database: it becomes a Kessel store
    if version == 0 or not KESSEL_TABLES.issubset(tables):
        listed = ", ".join(tables[:6]) + (", ..." if len(tables) > 6 else "")
        raise refused(
            f"it is another program's SQLite database (tables: {listed or 'none'}), not a "
            "Kessel game database; it was not changed"
        )
    if version > len(MIGRATIONS):
        raise refused(f"it is from a newer Kessel (schema {version}); upgrade Kessel")


def _unreadable(name: str, e: sqlite3.Error) -> str:
    if _code(e) == _CANTOPEN and _has_wal(name):
        return (
            f"its latest writes are in {_shown(name + '-wal')}, which SQLite cannot read "
            "here (a read-only folder or file system); open it once where it can be written"
        )
    return str(_explain(e, "it"))


def _open_writer(name: str, refused: Callable[..., StoreError]) -> sqlite3.Connection:
    """The read-write connection: WAL, synchronous=FULL, migrated to the current schema.
    A sqlite3.Error with SQLITE_READONLY or SQLITE_CANTOPEN means: open it read-only."""
    con = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
    try:
        con.execute("PRAGMA busy_timeout=5000")
        mode = str(con.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower()
        if mode != "wal":
            raise refused(f"SQLite cannot keep a WAL journal there (journal mode {mode})")
        con.execute("PRAGMA synchronous=FULL")
        con.execute("PRAGMA foreign_keys=ON")
        _migrate(con, refused)
    except BaseException:
        con.close()
        raise
    return con


def _migrate(con: sqlite3.Connection, refused: Callable[..., StoreError]) -> None:
    version = int(con.execute("PRAGMA user_version").fetchone()[0])
    if version > len(MIGRATIONS):
        raise refused(f"it is from a newer Kessel (schema {version}); upgrade Kessel")
    for i in range(version, len(MIGRATIONS)):
        con.execute("BEGIN IMMEDIATE")
        try:
            for stmt in MIGRATIONS[i]:
                con.execute(stmt)
            con.execute(f"PRAGMA user_version = {i + 1}")
            con.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            raise


def _open_reader(name: str, refused: Callable[..., StoreError]) -> sqlite3.Connection:
    """The read-only connection: `mode=ro` (it sees a -wal file's writes; in a read-only
    folder it needs the -shm file to exist), else, when no -wal file holds writes, the
    main file as it is (`immutable=1`: what a WAL database closed cleanly on a read-only
    file system needs). `query_only` makes sure nothing is ever written."""
    try:
        con = _ro_connection(name, immutable=False)
    except sqlite3.Error as e:
        if _code(e) != _CANTOPEN or _has_wal(name):
            raise refused(_unreadable(name, e)) from None
        try:
            con = _ro_connection(name, immutable=True)
        except sqlite3.Error as e2:
            raise refused(_unreadable(name, e2)) from None
    try:
        version = int(con.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as e:
        con.close()
        raise refused(_unreadable(name, e)) from None
    if version != len(MIGRATIONS):
        con.close()
        state = "empty" if version == 0 else f"from an older Kessel (schema {version})"
        raise refused(f"it is read-only and {state}, so it cannot be set up for this Kessel")
    return con


def _ro_connection(name: str, *, immutable: bool) -> sqlite3.Connection:
    con = sqlite3.connect(
        _uri(name, immutable=immutable), uri=True, isolation_level=None, check_same_thread=False
    )
    try:
        con.execute("PRAGMA query_only=ON")
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        con.close()
        raise
    return con


class Txn(Protocol):
    """The statements of one open transaction (both backends; SQL written with `?`)."""

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> None: ...

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Any]: ...

    async def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


def is_postgres_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


SECRET_PARAMETERS = ("password", "sslpassword")  # libpq's, in a URL's query


def shown_url(url: str) -> str:
    """A PostgreSQL URL as messages show it: without its password (in the user part or
    the query)."""
    try:
        parts = urllib.parse.urlsplit(url)
        if parts.password is not None:
            host = parts.hostname or ""
            if parts.port:
                host += f":{parts.port}"
            user = f"{parts.username}:***@" if parts.username else ":***@"
            parts = parts._replace(netloc=user + host)
        if parts.query:
            pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
            hidden = [(k, "***" if k.lower() in SECRET_PARAMETERS else v) for k, v in pairs]
            parts = parts._replace(query=urllib.parse.urlencode(hidden, safe="*/:"))
        return urllib.parse.urlunsplit(parts)
    except ValueError:
        return "the PostgreSQL URL given"


def sqlite_path(target: str | Path) -> str:
    """The file of a `sqlite:` URL (`sqlite:kessel.db`, `sqlite:///abs/path.db`) or path."""
    name = os.fspath(target)
    if name.startswith("sqlite:"):
        name = name.removeprefix("sqlite:")
        if name.startswith("//"):  # sqlite:///abs/path -> /abs/path
            name = name[2:]
    return name


class Store(LeagueTables):
    """The referee's storage, whatever holds it: the interface every backend keeps.

    Two backends: `SqliteStore` (below: one file, the default) and `PostgresStore`
    (bot/store_postgres.py: a server several bot processes share). The queries are
    written once, here, in the SQL both speak (`?` placeholders; PostgreSQL's backend
    numbers them); a backend supplies the connection, transactions, migrations and error
    messages. `Store.open` chooses the backend from the target: a path or `sqlite:PATH`,
    or a `postgresql://` URL."""

    path: str  # what was opened (a PostgreSQL URL without its password)
    # None, or why the database cannot be written (then every write raises StoreError)
    read_only: str | None = None
    # True when other processes may write the same games (PostgreSQL): the referee then
    # holds `game_lock` around each command and reloads a game whose head moved
    shared: bool = False
    # how `append` reads a game's head in its transaction (PostgreSQL: a row lock)
    _HEAD_FOR_UPDATE = ""

    @classmethod
    async def open(cls, path: str | Path, *, read_only: bool = False) -> Store:
        """Open (or create) the game database `path`: a file (or `sqlite:FILE`), or a
        `postgresql://user:password@host:port/database` URL. StoreError, with nothing
        written, when it cannot be opened or is not a Kessel game database."""
        if is_postgres_url(path):
            from bot.store_postgres import PostgresStore  # asyncpg only when asked for

            return await PostgresStore.connect(str(path), read_only=read_only)
        return await SqliteStore.open_file(sqlite_path(path), read_only=read_only)

    async def close(self) -> None:
        raise NotImplementedError

    async def check(self) -> str:
        """ "ok" when the database is sound (SQLite: `PRAGMA integrity_check`)."""
        raise NotImplementedError

    async def backup(self, target: str | Path) -> None:
        """An online copy of the whole database (safe while the referee runs)."""
        raise NotImplementedError

    def _txn(self) -> contextlib.AbstractAsyncContextManager[Txn]:
        """One transaction: committed when the block ends, rolled back (and the error
        explained as a StoreError) when it raises."""
        raise NotImplementedError

    async def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    async def _write(self, steps: Sequence[tuple[str, Sequence[Any]]]) -> None:
        async with self._txn() as db:
            for sql, args in steps:
                await db.execute(sql, args)

    def game_lock(self, game_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        """Held around a command's read-check-append of one game, so no other process
        judges the game meanwhile. SQLite: nothing (one process writes the file; the
        referee's per-game asyncio lock suffices)."""
        return contextlib.nullcontext()

    async def head(self, game_id: str) -> int | None:
        """The game's stored head (its last record's number), None: no such game."""
        rows = await self._all("SELECT head FROM games WHERE id = ?", (game_id,))
        return int(rows[0][0]) if rows else None

    # --- games -----------------------------------------------------------------------
    async def create_game(
        self,
        row: GameRow,
        first: Iterable[NewRecord] = (),
        *,
        seats: Sequence[tuple[str, Sequence[Any]]] = (),
    ) -> None:
        """Create a game in ONE transaction: its row, its `first` log records (numbered
        from 1) and its `seats` (e.g. `seat_join(..., seq=0)`). A crash leaves either
        nothing or the whole game; a game made in two steps (the row, then an append) is
        left half-made by a crash between them, so the referee never does that."""
        steps: list[tuple[str, Sequence[Any]]] = [
            (
                "INSERT INTO games(id, name, guild, channel, scenario, scenario_data, seed,"
                " dice, status, settings, created_by, created_at, head)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0)",
                (
                    row.id,
                    row.name,
                    row.guild,
                    row.channel,
                    row.scenario,
                    None if row.scenario_data is None else json.dumps(row.scenario_data),
                    row.seed,
                    json.dumps(list(row.dice)),
                    row.status,
                    json.dumps(row.settings),
                    row.created_by,
                    row.created_at,
                ),
            )
        ]
        steps += self._append_steps(row.id, 0, list(first), time.time())
        if row.summary is not None:
            steps.append(_summary_step(row.id, row.summary))
        steps += list(seats)
        await self._write(steps)

    async def game(self, game_id: str) -> GameRow | None:
        rows = await self._all(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return _game(rows[0]) if rows else None

    async def games(
        self,
        *,
        guild: str | None = None,
        channel: str | None = None,
        user: str | None = None,
        statuses: Sequence[str] = (),
    ) -> list[GameRow]:
        # head 0: a game whose creation never finished (a crash between the two steps of
        # an older Kessel): it has no record of what it is, so it is not listed
        sql = f"SELECT {_GAME_COLUMNS} FROM games WHERE head > 0"
        args: list[Any] = []
        if guild is not None:
            sql += " AND guild = ?"
            args.append(guild)
        if channel is not None:
            sql += " AND channel = ?"
            args.append(channel)
        if user is not None:
            sql += " AND id IN (SELECT game_id FROM seats WHERE user_id = ? AND left_seq IS NULL)"
            args.append(user)
        if statuses:
            sql += f" AND status IN ({','.join('?' * len(statuses))})"
            args += list(statuses)
        sql += " ORDER BY created_at, id"
        return [_game(r) for r in await self._all(sql, args)]

    async def ids(self) -> set[str]:
        return {str(r[0]) for r in await self._all("SELECT id FROM games")}

    async def taken(self, game_ids: Sequence[str]) -> set[str]:
        """Which of `game_ids` are games already (a new id is checked, not the whole list
        of ids read: issue #21)."""
        found: set[str] = set()
        for i in range(0, len(game_ids), 500):
            part = list(game_ids[i : i + 500])
            sql = f"SELECT id FROM games WHERE id IN ({','.join('?' * len(part))})"
            found |= {str(r[0]) for r in await self._all(sql, part)}
        return found

    async def set_summary(self, game_id: str, summary: Summary) -> None:
        """Where a game stands, for a game that was not summarised yet (MIGRATIONS[3])."""
        await self._write([_summary_step(game_id, summary)])

    async def seats_of(self, game_ids: Sequence[str]) -> dict[str, list[SeatRow]]:
        """The current seats of several games at once (game lists: issue #21)."""
        out: dict[str, list[SeatRow]] = {g: [] for g in game_ids}
        for i in range(0, len(game_ids), 500):
            part = list(game_ids[i : i + 500])
            rows = await self._all(
                "SELECT game_id, user_id, display, role, side, joined_seq, left_seq FROM seats"
                f" WHERE left_seq IS NULL AND game_id IN ({','.join('?' * len(part))})"
                " ORDER BY game_id, joined_seq, user_id",
                part,
            )
            for r in rows:
                out[str(r[0])].append(SeatRow(r[1], r[2], r[3], r[4], int(r[5]), r[6]))
        return out

    # --- the log ---------------------------------------------------------------------
    def _append_steps(
        self,
        game_id: str,
        head: int,
        records: Sequence[NewRecord],
        ts: float,
        *,
        move_head: bool = True,
    ) -> list[tuple[str, Sequence[Any]]]:
        steps: list[tuple[str, Sequence[Any]]] = []
        for i, r in enumerate(records, start=head + 1):
            steps.append(
                (
                    "INSERT INTO log(game_id, seq, ts, actor, kind, body) VALUES (?,?,?,?,?,?)",
                    (game_id, i, ts, r.actor, r.kind, json.dumps(r.body)),
                )
            )
        if records and move_head:
            steps.append(("UPDATE games SET head = ? WHERE id = ?", (head + len(records), game_id)))
        return steps

    async def append(
        self,
        game_id: str,
        expect_head: int,
        records: Sequence[NewRecord],
        *,
        status: str | None = None,
        settings: dict[str, Any] | None = None,
        request: tuple[str, str, dict[str, Any]] | None = None,
        seats: Sequence[tuple[str, Sequence[Any]]] = (),
        snapshot: tuple[int, dict[str, Any]] | None = None,
        deadline: tuple[str, float] | tuple[str, float, float] | bool | None = False,
        seen: tuple[str, int] | None = None,
        ts: float | None = None,
        summary: Summary | None = None,
    ) -> int:
        """Append `records` after `expect_head` in one transaction, with the game's new
        status/settings, the request's (key, fingerprint, reply), seat changes, a snapshot
        (older ones beyond the newest `KEEP_SNAPSHOTS` are deleted), the new deadline
        ((step, due[, wake]); None clears it, False leaves it), the event a user has now
        seen (`seen`: user, event number) and where the game now stands (`summary`).
        Returns the new head. Raises Conflict when the log is no longer at `expect_head`."""
        when = time.time() if ts is None else ts
        async with self._txn() as db:
            rows = await db.fetch(
                "SELECT head FROM games WHERE id = ?" + self._HEAD_FOR_UPDATE, (game_id,)
            )
            row = rows[0] if rows else None
            if row is None:
                raise StoreError(f"no game '{game_id}'")
            if int(row[0]) != expect_head:
                raise Conflict(f"game {game_id} moved on (head {row[0]}, expected {expect_head})")
            steps = self._append_steps(game_id, expect_head, records, when, move_head=False)
            head = expect_head + len(records)
            # the game's row in ONE statement (a round trip each on PostgreSQL)
            row_sets: dict[str, Any] = {"head": head} if records else {}
            if status is not None:
                row_sets["status"] = status
            if settings is not None:
                row_sets["settings"] = json.dumps(settings)
            if summary is not None:
                row_sets |= _summary_columns(summary)
            if row_sets:
                changed = ", ".join(f"{k} = ?" for k in row_sets)
                steps.append(
                    (f"UPDATE games SET {changed} WHERE id = ?", (*row_sets.values(), game_id))
                )
            if request is not None:
                key, fingerprint, reply = request
                steps.append(
                    (
                        "INSERT INTO requests(key, game_id, fingerprint, seq, reply)"
                        " VALUES (?,?,?,?,?)",
                        (key, game_id, fingerprint, head, json.dumps(reply)),
                    )
                )
            steps += list(seats)
            if seen is not None:
                steps.append(self._seen_step(game_id, *seen))
            if snapshot is not None:
                steps += [
                    ("DELETE FROM snapshots WHERE game_id = ? AND seq = ?", (game_id, snapshot[0])),
                    (
                        "INSERT INTO snapshots(game_id, seq, state) VALUES (?,?,?)",
                        (game_id, snapshot[0], json.dumps(snapshot[1])),
                    ),
                    (  # plain SQL (PostgreSQL too): keep the newest KEEP_SNAPSHOTS
                        "DELETE FROM snapshots WHERE game_id = ? AND seq NOT IN (SELECT seq"
                        " FROM snapshots WHERE game_id = ? ORDER BY seq DESC LIMIT ?)",
                        (game_id, game_id, KEEP_SNAPSHOTS),
                    ),
                ]
            if deadline is None:
                steps.append(("DELETE FROM deadlines WHERE game_id = ?", (game_id,)))
            elif not isinstance(deadline, bool):
                step, due = deadline[0], deadline[1]
                wake = deadline[2] if len(deadline) > 2 else due
                steps += [
                    ("DELETE FROM deadlines WHERE game_id = ?", (game_id,)),
                    (
                        "INSERT INTO deadlines(game_id, step, due, reminded, wake)"
                        " VALUES (?,?,?,0,?)",
                        (game_id, step, due, min(wake, due)),
                    ),
                ]
            for sql, args in steps:
                await db.execute(sql, args)
        return head

    async def log(self, game_id: str, after: int = 0, before: int | None = None) -> list[LogRecord]:
        """The game's log records numbered after `after` (and before `before`), in order."""
        upto = "" if before is None else " AND seq < ?"
        rows = await self._all(
            "SELECT seq, ts, actor, kind, body FROM log WHERE game_id = ? AND seq > ?"
            + upto
            + " ORDER BY seq",
            (game_id, after) if before is None else (game_id, after, before),
        )
        return [LogRecord(int(r[0]), float(r[1]), r[2], r[3], json.loads(r[4])) for r in rows]

    async def request(self, key: str) -> tuple[str, str, dict[str, Any]] | None:
        """A request already applied: (game id, fingerprint, stored reply)."""
        rows = await self._all(
            "SELECT game_id, fingerprint, reply FROM requests WHERE key = ?", (key,)
        )
        if not rows:
            return None
        return str(rows[0][0]), str(rows[0][1]), json.loads(rows[0][2])

    async def snapshot_seqs(self, game_id: str) -> list[int]:
        rows = await self._all(
            "SELECT seq FROM snapshots WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [int(r[0]) for r in rows]

    async def snapshot(
        self, game_id: str, before: int | None = None
    ) -> tuple[int, dict[str, Any]] | None:
        """The game's latest snapshot (`before`: the latest one taken before log record
        `before`, one of the newest `KEEP_SNAPSHOTS`)."""
        upto = "" if before is None else " AND seq < ?"
        rows = await self._all(
            "SELECT seq, state FROM snapshots WHERE game_id = ?"
            + upto
            + " ORDER BY seq DESC LIMIT 1",
            (game_id,) if before is None else (game_id, before),
        )
        return (int(rows[0][0]), json.loads(rows[0][1])) if rows else None

    # --- seats -----------------------------------------------------------------------
    async def seats(self, game_id: str, *, current: bool = True) -> list[SeatRow]:
        sql = (
            "SELECT user_id, display, role, side, joined_seq, left_seq FROM seats WHERE game_id = ?"
        )
        if current:
            sql += " AND left_seq IS NULL"
        rows = await self._all(sql + " ORDER BY joined_seq, user_id", (game_id,))
        return [SeatRow(r[0], r[1], r[2], r[3], int(r[4]), r[5]) for r in rows]

    @staticmethod
    def seat_join(
        game_id: str, user: str, display: str, role: str, side: str, seq: int
    ) -> tuple[str, Sequence[Any]]:
        return (
            "INSERT INTO seats(game_id, user_id, display, role, side, joined_seq)"
            " VALUES (?,?,?,?,?,?)",
            (game_id, user, display, role, side, seq),
        )

    @staticmethod
    def seat_leave(
        game_id: str, user: str, role: str, side: str, seq: int
    ) -> tuple[str, Sequence[Any]]:
        return (
            "UPDATE seats SET left_seq = ? WHERE game_id = ? AND user_id = ? AND role = ?"
            " AND side = ? AND left_seq IS NULL",
            (seq, game_id, user, role, side),
        )

    # --- deadlines, last seen, server settings ---------------------------------------
    async def deadlines(self, wake_by: float | None = None) -> list[tuple[str, str, float, int]]:
        """Every running deadline, or (`wake_by`) those that need the referee by then: a
        reminder or the end is due (an indexed range, issue #21)."""
        sql = "SELECT game_id, step, due, reminded FROM deadlines"
        args: list[Any] = []
        if wake_by is not None:
            sql += " WHERE wake <= ?"
            args.append(wake_by)
        rows = await self._all(sql + " ORDER BY due, game_id", args)
        return [(str(r[0]), str(r[1]), float(r[2]), int(r[3])) for r in rows]

    async def deadline(self, game_id: str) -> tuple[str, float, int] | None:
        rows = await self._all(
            "SELECT step, due, reminded FROM deadlines WHERE game_id = ?", (game_id,)
        )
        return (str(rows[0][0]), float(rows[0][1]), int(rows[0][2])) if rows else None

    async def mark_reminded(self, game_id: str, count: int, wake: float | None = None) -> None:
        """`count` reminders sent; `wake`: when the deadline next needs the referee."""
        if wake is None:
            await self._write(
                [("UPDATE deadlines SET reminded = ? WHERE game_id = ?", (count, game_id))]
            )
        else:
            await self._write(
                [
                    (
                        "UPDATE deadlines SET reminded = ?, wake = ? WHERE game_id = ?",
                        (count, wake, game_id),
                    )
                ]
            )

    async def last_seen(self, game_id: str, user: str) -> int:
        rows = await self._all(
            "SELECT event_seq FROM last_seen WHERE game_id = ? AND user_id = ?", (game_id, user)
        )
        return int(rows[0][0]) if rows else 0

    async def set_last_seen(self, game_id: str, user: str, event_seq: int) -> None:
        await self._write([self._seen_step(game_id, user, event_seq)])

    @staticmethod
    def _seen_step(game_id: str, user: str, event_seq: int) -> tuple[str, Sequence[Any]]:
        return (
            "INSERT INTO last_seen(game_id, user_id, event_seq) VALUES (?,?,?)"
            " ON CONFLICT(game_id, user_id) DO UPDATE SET event_seq = excluded.event_seq",
            (game_id, user, event_seq),
        )

    async def server_setting(self, guild: str, key: str, default: Any = None) -> Any:
        rows = await self._all(
            "SELECT value FROM server_settings WHERE guild = ? AND key = ?", (guild, key)
        )
        return json.loads(rows[0][0]) if rows else default

    async def set_server_setting(self, guild: str, key: str, value: Any) -> None:
        await self._write(
            [
                (
                    "INSERT INTO server_settings(guild, key, value) VALUES (?,?,?)"
                    " ON CONFLICT(guild, key) DO UPDATE SET value = excluded.value",
                    (guild, key, json.dumps(value)),
                )
            ]
        )

    async def move_game(self, game_id: str, guild: str, channel: str) -> None:
        """A game's new server channel (its old one was deleted)."""
        await self._write(
            [("UPDATE games SET guild = ?, channel = ? WHERE id = ?", (guild, channel, game_id))]
        )


class SqliteStore(Store):
    """The SQLite backend: one file, one writer connection; the referee's default."""

    def __init__(
        self, db: aiosqlite.Connection, path: str, *, read_only: str | None = None
    ) -> None:
        self._db = db
        self.path = path
        # None, or why the file cannot be written (then every write raises StoreError)
        self.read_only = read_only
        # One connection serves every game, so a transaction must not interleave with
        # another coroutine's statements: a second BEGIN would fail ("within a
        # transaction"), and a read would see rows not yet committed.
        self._lock = asyncio.Lock()

    # --- opening ---------------------------------------------------------------------
    @classmethod
    async def open_file(cls, path: str | Path, *, read_only: bool = False) -> SqliteStore:
        """Open (or create) the game database at `path`.

        Every check and every SQLite call that may fail runs on a plain sqlite3 connection
        in a worker thread (`_connect`); aiosqlite only receives a connection that is
        already open, so a refused file leaves no connection thread behind. A file that
        cannot be written (a read-only file, folder or file system, or `read_only`) is
        opened read-only: reading works, every write raises "read-only: nothing was saved".
        Anything else that is not a Kessel game database is refused with a StoreError
        before anything is written to it."""
        conn, why = await asyncio.to_thread(_connect, path, read_only)
        try:
            db = await aiosqlite.Connection(lambda: conn, 64)
        except BaseException:
            conn.close()
            raise
        return cls(db, os.fspath(path), read_only=why)

    async def close(self) -> None:
        await self._db.close()

    async def check(self) -> str:
        """`PRAGMA integrity_check`: "ok" when the file is sound."""
        rows = await self._all("PRAGMA integrity_check")
        return str(rows[0][0]) if rows else "?"

    # --- transactions ----------------------------------------------------------------
    @asynccontextmanager
    async def _txn(self) -> AsyncIterator[Txn]:
        """One `BEGIN IMMEDIATE` transaction: committed when the block ends, rolled back
        (and the error explained) when it raises."""
        if self.read_only is not None:
            raise StoreError(
                f"the game database is read-only: nothing was saved ({self.read_only})"
            )
        async with self._lock:
            try:
                await self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise _explain(e) from None
            try:
                yield _SqliteTxn(self._db)
                await self._db.execute("COMMIT")
            except BaseException as e:
                with contextlib.suppress(sqlite3.Error):
                    await self._db.execute("ROLLBACK")
                if isinstance(e, sqlite3.Error):
                    raise _explain(e) from None
                raise

    async def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            async with self._lock, self._db.execute(sql, args) as cur:
                return list(await cur.fetchall())
        except sqlite3.Error as e:
            raise _explain(e) from None

    async def backup(self, target: str | Path) -> None:
        """An online copy of the whole database (safe while the referee runs)."""
        try:
            dest = await asyncio.to_thread(
                sqlite3.connect, os.fspath(target), check_same_thread=False
            )
        except (sqlite3.Error, ValueError) as e:
            raise StoreError(f"cannot write the backup {_shown(os.fspath(target))}: {e}") from None
        try:
            async with self._lock:
                await self._db.backup(dest)
        except sqlite3.Error as e:
            raise _explain(e, "the backup or the game database") from None
        finally:
            dest.close()


class _SqliteTxn:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> None:
        await self._db.execute(sql, args)

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        async with self._db.execute(sql, args) as c:
            return list(await c.fetchall())

    async def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._db.executemany(sql, rows)


def _game(r: Any) -> GameRow:
    return GameRow(
        id=r[0],
        name=r[1],
        guild=r[2],
        channel=r[3],
        scenario=r[4],
        scenario_data=None if r[5] is None else json.loads(r[5]),
        seed=int(r[6]),
        dice=tuple(json.loads(r[7])),
        status=r[8],
        settings=json.loads(r[9]),
        created_by=r[10],
        created_at=float(r[11]),
        head=int(r[12]),
        summary=None
        if r[13] is None
        else Summary(str(r[13]), int(r[14]), tuple(json.loads(r[15])), tuple(json.loads(r[16]))),
    )


def _summary_columns(s: Summary) -> dict[str, Any]:
    return {
        "phase": s.phase,
        "turn": s.turn,
        "awaiting": json.dumps(list(s.awaiting)),
        "sides": json.dumps(list(s.sides)),
    }


def _summary_step(game_id: str, s: Summary) -> tuple[str, Sequence[Any]]:
    cols = _summary_columns(s)
    changed = ", ".join(f"{k} = ?" for k in cols)
    return (f"UPDATE games SET {changed} WHERE id = ?", (*cols.values(), game_id))

"""The PostgreSQL backend of the store (issue #21): for a league that outgrows one
machine or runs several bot processes (Discord shards) on one database.

The queries are the Store's own (bot/store.py, written with `?`; numbered `$1, $2 ...`
here). What differs from SQLite:
- a pool of connections (asyncpg) instead of one connection and a lock;
- migrations in a `schema_version` table, ordered like SQLite's `user_version` steps
  (`PG_MIGRATIONS[i]` is `MIGRATIONS[i]` in PostgreSQL's dialect), all applied in one
  transaction under an advisory lock, so two processes starting together migrate once;
- `append` reads the game's head `FOR UPDATE`: a concurrent append of the same game
  waits, then sees the new head and is a Conflict, as with SQLite;
- `game_lock`: a session advisory lock on the game's id, held around a command's
  read-check-append so two processes never judge the same game at once; the commands
  inside it run on the connection holding the lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import hashlib
import ssl
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # (no type information shipped)

from bot.store import KESSEL_TABLES, MIGRATIONS, Store, StoreError, Txn, shown_url

# JSON kept as text, byte for byte as written (a `json` check, not `jsonb`, which would
# reorder keys); every integer BIGINT (a seed is 63 bits); times DOUBLE PRECISION (SQLite's
# REAL); keys compared in "C" collation, as SQLite orders them.
_JSON = "TEXT NOT NULL CHECK ({0}::json IS NOT NULL)"
PG_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games(
            id TEXT COLLATE "C" PRIMARY KEY,
            name TEXT NOT NULL,
            guild TEXT NOT NULL DEFAULT '',
            channel TEXT NOT NULL DEFAULT '',
            scenario TEXT NOT NULL,
            scenario_data TEXT,
            seed BIGINT NOT NULL,
            dice TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}' CHECK (settings::json IS NOT NULL),
            created_by TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            head BIGINT NOT NULL DEFAULT 0)""",
        "CREATE INDEX games_by_channel ON games(guild, channel)",
        """CREATE TABLE seats(
            game_id TEXT COLLATE "C" NOT NULL REFERENCES games(id),
            user_id TEXT COLLATE "C" NOT NULL,
            display TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('player', 'moderator', 'spectator')),
            side TEXT COLLATE "C" NOT NULL DEFAULT '',
            joined_seq BIGINT NOT NULL,
            left_seq BIGINT,
            PRIMARY KEY (game_id, user_id, role, side, joined_seq))""",
        "CREATE INDEX seats_by_user ON seats(user_id)",
        f"""CREATE TABLE log(
            game_id TEXT COLLATE "C" NOT NULL REFERENCES games(id),
            seq BIGINT NOT NULL,
            ts DOUBLE PRECISION NOT NULL,
            actor TEXT NOT NULL,
            kind TEXT NOT NULL,
            body {_JSON.format("body")},
            PRIMARY KEY (game_id, seq))""",
        f"""CREATE TABLE requests(
            key TEXT COLLATE "C" PRIMARY KEY,
            game_id TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            seq BIGINT NOT NULL,
            reply {_JSON.format("reply")})""",
        """CREATE TABLE snapshots(
            game_id TEXT COLLATE "C" NOT NULL REFERENCES games(id),
            seq BIGINT NOT NULL,
            state TEXT NOT NULL,
            PRIMARY KEY (game_id, seq))""",
        """CREATE TABLE deadlines(
            game_id TEXT COLLATE "C" PRIMARY KEY REFERENCES games(id),
            step TEXT NOT NULL,
            due DOUBLE PRECISION NOT NULL,
            reminded BIGINT NOT NULL DEFAULT 0)""",
        """CREATE TABLE last_seen(
            game_id TEXT COLLATE "C" NOT NULL REFERENCES games(id),
            user_id TEXT COLLATE "C" NOT NULL,
            event_seq BIGINT NOT NULL,
            PRIMARY KEY (game_id, user_id))""",
        f"""CREATE TABLE server_settings(
            guild TEXT COLLATE "C" NOT NULL,
            key TEXT COLLATE "C" NOT NULL,
            value {_JSON.format("value")},
            PRIMARY KEY (guild, key))""",
    ),
    (
        """CREATE TABLE leagues(
            id TEXT COLLATE "C" PRIMARY KEY,
            guild TEXT NOT NULL,
            name TEXT NOT NULL,
            system TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}' CHECK (settings::json IS NOT NULL),
            created_by TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX leagues_by_guild ON leagues(guild)",
        """CREATE TABLE seasons(
            id TEXT COLLATE "C" PRIMARY KEY,
            league TEXT COLLATE "C" NOT NULL REFERENCES leagues(id),
            name TEXT NOT NULL,
            format TEXT NOT NULL,
            status TEXT NOT NULL,
            channel TEXT NOT NULL DEFAULT '',
            settings TEXT NOT NULL DEFAULT '{}' CHECK (settings::json IS NOT NULL),
            created_at DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX seasons_by_league ON seasons(league)",
        """CREATE TABLE entrants(
            season TEXT COLLATE "C" NOT NULL REFERENCES seasons(id),
            user_id TEXT COLLATE "C" NOT NULL,
            display TEXT NOT NULL,
            joined_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (season, user_id))""",
        f"""CREATE TABLE pairings(
            season TEXT COLLATE "C" NOT NULL REFERENCES seasons(id),
            key TEXT COLLATE "C" NOT NULL,
            round BIGINT NOT NULL,
            sides {_JSON.format("sides")},
            scenario TEXT NOT NULL,
            game TEXT COLLATE "C",
            result TEXT CHECK (result IS NULL OR result::json IS NOT NULL),
            PRIMARY KEY (season, key))""",
        "CREATE INDEX pairings_by_game ON pairings(game)",
        # `n`: the order written (SQLite orders by its rowid); last, so the Store's
        # `INSERT INTO league_audit VALUES (5 values)` fills the others
        f"""CREATE TABLE league_audit(
            season TEXT COLLATE "C" NOT NULL REFERENCES seasons(id),
            ts DOUBLE PRECISION NOT NULL,
            actor TEXT NOT NULL,
            kind TEXT NOT NULL,
            body {_JSON.format("body")},
            n BIGSERIAL)""",
        "CREATE INDEX league_audit_by_season ON league_audit(season, n)",
    ),
    ("ALTER TABLE entrants ADD COLUMN division TEXT NOT NULL DEFAULT ''",),
    (
        "ALTER TABLE games ADD COLUMN phase TEXT",
        "ALTER TABLE games ADD COLUMN turn BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN awaiting TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE games ADD COLUMN sides TEXT NOT NULL DEFAULT '[]'",
        "CREATE INDEX games_by_status ON games(status)",
        "ALTER TABLE deadlines ADD COLUMN wake DOUBLE PRECISION NOT NULL DEFAULT 0",
        "CREATE INDEX deadlines_by_wake ON deadlines(wake)",
    ),
)
assert len(PG_MIGRATIONS) == len(MIGRATIONS), "every schema step in both dialects"

# advisory lock keys: the migrations' (a constant), and one per game (a hash of its id)
_MIGRATION_LOCK = 0x4B455353454C  # "KESSEL"
# Connections per process, in two pools: one for the commands holding a game lock (each
# runs all its statements on its lock's connection), one for everything else -- so a
# plain read (a game loading, which the referee does one at a time) never waits for a
# connection held by a command that waits for that load.
POOL_SIZE = 10
LOCK_WAIT = 30.0  # seconds a command waits for another process's command on its game
CONNECT_TIMEOUT = 10.0


def game_key(game_id: str) -> int:
    """The advisory lock key of a game: 64 bits of a hash of its id, signed."""
    digest = hashlib.blake2b(game_id.encode(), digest_size=8, person=b"kessel-game").digest()
    return int.from_bytes(digest, "big", signed=True)


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """The Store's `?` placeholders as PostgreSQL's `$1, $2 ...` (none is in a literal)."""
    out: list[str] = []
    n = 0
    quoted = False
    for ch in sql:
        if ch == "'":
            quoted = not quoted
        if ch == "?" and not quoted:
            n += 1
            out.append(f"${n}")
        else:
            out.append(ch)
    return "".join(out)


def explain(e: BaseException, subject: str = "the game database") -> StoreError:
    """A PostgreSQL or connection error as a sentence (nothing was saved)."""
    text = str(e).strip() or type(e).__name__
    if isinstance(e, asyncpg.DiskFullError):
        return StoreError(f"the disk holding {subject} is full: nothing was saved")
    if isinstance(e, asyncpg.ReadOnlySQLTransactionError):
        return StoreError(f"{subject} is read-only: nothing was saved")
    if isinstance(
        e,
        (
            asyncpg.LockNotAvailableError,
            asyncpg.DeadlockDetectedError,
            asyncpg.SerializationError,
            asyncpg.QueryCanceledError,
            asyncio.TimeoutError,
        ),
    ):
        return StoreError(f"{subject} is busy (locked by another process); try again")
    if isinstance(e, asyncpg.DataCorruptedError | asyncpg.IndexCorruptedError):
        return StoreError(f"{subject} is damaged ({text}); restore it from a backup")
    if isinstance(
        e,
        (
            OSError,
            asyncpg.InterfaceError,
            asyncpg.ConnectionDoesNotExistError,
            asyncpg.CannotConnectNowError,
            asyncpg.TooManyConnectionsError,
            asyncpg.AdminShutdownError,
        ),
    ):
        return StoreError(f"{subject} server cannot be reached ({text}): nothing was saved")
    return StoreError(f"database error: {text}")


# Errors a statement may raise: all become StoreError
_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, asyncio.TimeoutError)

# The connection holding a game's advisory lock in this task (the store, the game, the
# connection, a lock so the command's statements never overlap on it)
_HELD: contextvars.ContextVar[tuple[PostgresStore, str, asyncpg.Connection, asyncio.Lock] | None]
_HELD = contextvars.ContextVar("kessel_pg_held", default=None)


class _PgTxn:
    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> None:
        await self._conn.execute(numbered(sql), *args)

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return list(await self._conn.fetch(numbered(sql), *args))

    async def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._conn.executemany(numbered(sql), rows)  # (pipelined: one round trip)


class PostgresStore(Store):
    """The store in a PostgreSQL database, shared by every bot process pointed at it."""

    shared = True
    _HEAD_FOR_UPDATE = " FOR UPDATE"
    _AUDIT_ORDER = "n"

    def __init__(
        self, pool: asyncpg.Pool, locks: asyncpg.Pool, url: str, *, read_only: str | None = None
    ) -> None:
        self._pool = pool
        self._locks = locks
        self.url = url
        self.path = shown_url(url)
        self.read_only = read_only

    # --- opening ---------------------------------------------------------------------
    @classmethod
    async def connect(
        cls, url: str, *, read_only: bool = False, pool_size: int = POOL_SIZE
    ) -> PostgresStore:
        """Connect to the database at `url`, migrated to the current schema (refused with
        a StoreError, nothing written, when it is another program's or a newer Kessel's)."""
        shown = shown_url(url)
        settings = {"default_transaction_read_only": "on"} if read_only else {}
        pools: list[asyncpg.Pool] = []
        try:
            for _ in range(2):
                pools.append(
                    await asyncpg.create_pool(
                        url,
                        min_size=1,
                        max_size=pool_size,
                        timeout=CONNECT_TIMEOUT,
                        server_settings=settings,
                        reset=_keep_session,
                    )
                )
            async with pools[0].acquire() as conn:
                await _migrate(conn, shown, read_only)
        except BaseException as e:
            for pool in pools:
                await _close(pool)
            if isinstance(e, (*_ERRORS, ValueError)):
                raise StoreError(f"cannot open the game database {shown}: {_reason(e)}") from None
            raise
        why = "opened read-only" if read_only else None
        return cls(pools[0], pools[1], url, read_only=why)

    async def close(self) -> None:
        await _close(self._locks)
        await _close(self._pool)

    async def check(self) -> str:
        rows = await self._all("SELECT count(*) FROM games")
        return "ok" if rows else "?"

    async def backup(self, target: str | Path) -> None:
        raise StoreError(
            "a PostgreSQL game database is backed up with the server's own tools "
            "(pg_dump), or copied to a file with `kessel migrate --from URL --to sqlite:FILE`"
        )

    # --- connections and transactions -------------------------------------------------
    @asynccontextmanager
    async def _conn(self) -> AsyncIterator[asyncpg.Connection]:
        """The connection holding this task's game lock, else one from the pool."""
        held = _HELD.get()
        if held is not None and held[0] is self:
            async with held[3]:
                yield held[2]
            return
        try:
            conn = await self._pool.acquire(timeout=LOCK_WAIT)
        except _ERRORS as e:
            raise explain(e) from None
        try:
            yield conn
        finally:
            await self._pool.release(conn)

    @asynccontextmanager
    async def _txn(self) -> AsyncIterator[Txn]:
        if self.read_only is not None:
            raise StoreError(
                f"the game database is read-only: nothing was saved ({self.read_only})"
            )
        async with self._conn() as conn:
            try:
                async with conn.transaction():
                    yield _PgTxn(conn)
            except _ERRORS as e:
                raise explain(e) from None

    async def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        async with self._conn() as conn:
            try:
                return list(await conn.fetch(numbered(sql), *args))
            except _ERRORS as e:
                raise explain(e) from None

    @asynccontextmanager
    async def game_lock(self, game_id: str) -> AsyncIterator[None]:
        held = _HELD.get()
        if held is not None and held[0] is self and held[1] == game_id:
            yield  # already held by this command
            return
        try:
            conn = await self._locks.acquire(timeout=LOCK_WAIT)
        except _ERRORS as e:
            raise explain(e) from None
        key = game_key(game_id)
        try:
            try:
                await conn.execute("SELECT pg_advisory_lock($1)", key, timeout=LOCK_WAIT)
            except BaseException as e:
                # the lock may have been granted as the wait was given up: the session is
                # ended rather than put back in the pool holding it
                _terminate(conn)
                if isinstance(e, TimeoutError):
                    raise StoreError(
                        f"game {game_id} is busy in another Kessel process; nothing was "
                        "saved; try again"
                    ) from None
                if isinstance(e, _ERRORS):
                    raise explain(e) from None
                raise
            token = _HELD.set((self, game_id, conn, asyncio.Lock()))
            try:
                yield
            finally:
                _HELD.reset(token)
                try:
                    await conn.execute("SELECT pg_advisory_unlock($1)", key)
                except BaseException as e:
                    _terminate(conn)  # the session's end releases its locks
                    # a session lost during the command (the server ended it) released
                    # the lock with it: the command's own outcome, an error or not, stands
                    # (not an InterfaceError of the unlock's in its place)
                    if not isinstance(e, _ERRORS):
                        raise
        finally:
            await self._locks.release(conn)


def _terminate(conn: asyncpg.Connection) -> None:
    """End the session; one already lost (its pool proxy detached) is left as it is."""
    with contextlib.suppress(asyncpg.InterfaceError):
        conn.terminate()


def _reason(e: BaseException) -> str:
    if isinstance(e, asyncpg.InvalidCatalogNameError):
        return f"the database does not exist ({e}); create it first (createdb)"
    if isinstance(e, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError):
        return f"the server refused the login ({e})"
    if isinstance(e, ssl.SSLCertVerificationError):
        return (
            f"the server's TLS certificate is not trusted ({e.verify_message}): name its "
            "authority in the URL (sslrootcert=FILE)"
        )
    if isinstance(e, ssl.SSLError):
        return f"TLS with the server failed ({e.reason or e})"
    if isinstance(e, OSError | asyncio.TimeoutError):
        return f"the server cannot be reached ({str(e) or type(e).__name__})"
    return str(explain(e, "it")).removeprefix("database error: ")


async def _keep_session(conn: asyncpg.Connection) -> None:
    """A connection goes back to the pool as it is: the store sets nothing on a session
    and unlocks what it locks (a failed unlock terminates the connection), so asyncpg's
    reset query (unlock all, close, unlisten, reset) would be a round trip per command
    for nothing."""


async def _close(pool: asyncpg.Pool) -> None:
    try:
        await asyncio.wait_for(pool.close(), timeout=10)
    except (TimeoutError, *_ERRORS):
        pool.terminate()


async def _migrate(conn: asyncpg.Connection, shown: str, read_only: bool) -> None:
    """Bring the database to the current schema in one transaction, under an advisory
    lock: a new database gets every step; another program's tables are refused."""

    def refused(why: str) -> StoreError:
        return StoreError(f"cannot open the game database {shown}: {why}")

    async with conn.transaction():
        if not read_only:
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
        tables = sorted(
            str(r[0])
            for r in await conn.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        )
        version = 0
        if "schema_version" in tables:
            version = int(await conn.fetchval("SELECT max(version) FROM schema_version") or 0)
        if tables and (version == 0 or not KESSEL_TABLES.issubset(tables)):
            listed = ", ".join(tables[:6]) + (", ..." if len(tables) > 6 else "")
            raise refused(
                f"it is another program's database (tables: {listed}), not a Kessel game "
                "database; it was not changed"
            )
        if version > len(PG_MIGRATIONS):
            raise refused(f"it is from a newer Kessel (schema {version}); upgrade Kessel")
        if version == len(PG_MIGRATIONS):
            return
        if read_only:
            state = "empty" if version == 0 else f"from an older Kessel (schema {version})"
            raise refused(f"it is opened read-only and {state}, so it cannot be set up")
        if version == 0:
            await conn.execute("CREATE TABLE schema_version(version BIGINT NOT NULL)")
        for i in range(version, len(PG_MIGRATIONS)):
            for stmt in PG_MIGRATIONS[i]:
                await conn.execute(stmt)
            await conn.execute("INSERT INTO schema_version(version) VALUES ($1)", i + 1)

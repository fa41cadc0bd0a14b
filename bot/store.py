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
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

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
)


class StoreError(Exception):
    """The database cannot do what was asked (locked, read-only, full, corrupt)."""


class Conflict(StoreError):
    """The game's log moved on since the caller read it (optimistic concurrency)."""


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


def _explain(e: sqlite3.Error) -> StoreError:
    text = str(e)
    if "locked" in text or "busy" in text:
        return StoreError("the game database is busy (locked by another program); try again")
    if "readonly" in text:
        return StoreError("the game database is read-only: nothing was saved")
    if "full" in text:
        return StoreError("the disk holding the game database is full: nothing was saved")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return StoreError(f"the game database is damaged ({text}); restore it from a backup")
    return StoreError(f"database error: {text}")


class Store:
    """All storage for the referee; the only writer of its file."""

    def __init__(self, db: aiosqlite.Connection, path: str) -> None:
        self._db = db
        self.path = path
        # One connection serves every game, so a transaction must not interleave with
        # another coroutine's statements: a second BEGIN would fail ("within a
        # transaction"), and a read would see rows not yet committed.
        self._lock = asyncio.Lock()

    # --- opening ---------------------------------------------------------------------
    @classmethod
    async def open(cls, path: str | Path) -> Store:
        try:
            db = await aiosqlite.connect(str(path), isolation_level=None)
        except sqlite3.Error as e:
            raise _explain(e) from None
        try:
            await db.execute("PRAGMA busy_timeout=5000")
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=FULL")
            await db.execute("PRAGMA foreign_keys=ON")
            store = cls(db, str(path))
            await store._migrate()
        except BaseException as e:
            await db.close()  # also when refused (a newer schema): no connection left open
            if isinstance(e, sqlite3.Error):
                raise _explain(e) from None
            raise
        return store

    async def close(self) -> None:
        await self._db.close()

    async def _migrate(self) -> None:
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        version = int(row[0]) if row else 0
        if version > len(MIGRATIONS):
            raise StoreError(
                f"the game database is from a newer Kessel (schema {version}); upgrade Kessel"
            )
        for i in range(version, len(MIGRATIONS)):
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                for stmt in MIGRATIONS[i]:
                    await self._db.execute(stmt)
                await self._db.execute(f"PRAGMA user_version = {i + 1}")
                await self._db.execute("COMMIT")
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise

    async def check(self) -> str:
        """`PRAGMA integrity_check`: "ok" when the file is sound."""
        async with self._lock, self._db.execute("PRAGMA integrity_check") as cur:
            row = await cur.fetchone()
        return str(row[0]) if row else "?"

    # --- transactions ----------------------------------------------------------------
    @asynccontextmanager
    async def _txn(self) -> AsyncIterator[aiosqlite.Connection]:
        """One `BEGIN IMMEDIATE` transaction: committed when the block ends, rolled back
        (and the error explained) when it raises."""
        async with self._lock:
            try:
                await self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise _explain(e) from None
            try:
                yield self._db
                await self._db.execute("COMMIT")
            except BaseException as e:
                with contextlib.suppress(sqlite3.Error):
                    await self._db.execute("ROLLBACK")
                if isinstance(e, sqlite3.Error):
                    raise _explain(e) from None
                raise

    async def _write(self, steps: Sequence[tuple[str, Sequence[Any]]]) -> None:
        async with self._txn() as db:
            for sql, args in steps:
                await db.execute(sql, args)

    async def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            async with self._lock, self._db.execute(sql, args) as cur:
                return list(await cur.fetchall())
        except sqlite3.Error as e:
            raise _explain(e) from None

    # --- games -----------------------------------------------------------------------
    async def create_game(self, row: GameRow, first: Iterable[NewRecord] = ()) -> None:
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
        await self._write(steps)

    async def game(self, game_id: str) -> GameRow | None:
        rows = await self._all("SELECT * FROM games WHERE id = ?", (game_id,))
        return _game(rows[0]) if rows else None

    async def games(
        self,
        *,
        guild: str | None = None,
        channel: str | None = None,
        user: str | None = None,
        statuses: Sequence[str] = (),
    ) -> list[GameRow]:
        sql = "SELECT * FROM games WHERE 1=1"
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

    # --- the log ---------------------------------------------------------------------
    def _append_steps(
        self, game_id: str, head: int, records: Sequence[NewRecord], ts: float
    ) -> list[tuple[str, Sequence[Any]]]:
        steps: list[tuple[str, Sequence[Any]]] = []
        for i, r in enumerate(records, start=head + 1):
            steps.append(
                (
                    "INSERT INTO log(game_id, seq, ts, actor, kind, body) VALUES (?,?,?,?,?,?)",
                    (game_id, i, ts, r.actor, r.kind, json.dumps(r.body)),
                )
            )
        if records:
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
        deadline: tuple[str, float] | bool | None = False,
        seen: tuple[str, int] | None = None,
        ts: float | None = None,
    ) -> int:
        """Append `records` after `expect_head` in one transaction, with the game's new
        status/settings, the request's (key, fingerprint, reply), seat changes, a snapshot,
        the new deadline (None clears it, False leaves it) and the event a user has now seen
        (`seen`: user, event number). Returns the new head.
        Raises Conflict when the log is no longer at `expect_head`."""
        when = time.time() if ts is None else ts
        async with self._txn() as db:
            async with db.execute("SELECT head FROM games WHERE id = ?", (game_id,)) as c:
                row = await c.fetchone()
            if row is None:
                raise StoreError(f"no game '{game_id}'")
            if int(row[0]) != expect_head:
                raise Conflict(f"game {game_id} moved on (head {row[0]}, expected {expect_head})")
            steps = self._append_steps(game_id, expect_head, records, when)
            head = expect_head + len(records)
            if status is not None:
                steps.append(("UPDATE games SET status = ? WHERE id = ?", (status, game_id)))
            if settings is not None:
                steps.append(
                    ("UPDATE games SET settings = ? WHERE id = ?", (json.dumps(settings), game_id))
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
                steps.append(
                    (
                        "INSERT OR REPLACE INTO snapshots(game_id, seq, state) VALUES (?,?,?)",
                        (game_id, snapshot[0], json.dumps(snapshot[1])),
                    )
                )
            if deadline is None:
                steps.append(("DELETE FROM deadlines WHERE game_id = ?", (game_id,)))
            elif not isinstance(deadline, bool):
                step, due = deadline
                steps.append(
                    (
                        "INSERT OR REPLACE INTO deadlines(game_id, step, due, reminded)"
                        " VALUES (?,?,?,0)",
                        (game_id, step, due),
                    )
                )
            for sql, args in steps:
                await db.execute(sql, args)
        return head

    async def log(self, game_id: str, after: int = 0) -> list[LogRecord]:
        rows = await self._all(
            "SELECT seq, ts, actor, kind, body FROM log WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after),
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

    async def snapshot(self, game_id: str) -> tuple[int, dict[str, Any]] | None:
        rows = await self._all(
            "SELECT seq, state FROM snapshots WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
            (game_id,),
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
    async def deadlines(self) -> list[tuple[str, str, float, int]]:
        rows = await self._all("SELECT game_id, step, due, reminded FROM deadlines ORDER BY due")
        return [(str(r[0]), str(r[1]), float(r[2]), int(r[3])) for r in rows]

    async def deadline(self, game_id: str) -> tuple[str, float, int] | None:
        rows = await self._all(
            "SELECT step, due, reminded FROM deadlines WHERE game_id = ?", (game_id,)
        )
        return (str(rows[0][0]), float(rows[0][1]), int(rows[0][2])) if rows else None

    async def mark_reminded(self, game_id: str, count: int) -> None:
        await self._write(
            [("UPDATE deadlines SET reminded = ? WHERE game_id = ?", (count, game_id))]
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

    async def backup(self, target: str | Path) -> None:
        """An online copy of the whole database (safe while the referee runs)."""
        dest = await aiosqlite.connect(str(target))
        try:
            async with self._lock:
                await self._db.backup(dest)
        finally:
            await dest.close()


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
    )

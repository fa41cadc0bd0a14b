"""`kessel migrate --from SOURCE --to TARGET [--replace]` (issue #21): copy every game
database table from one store to another -- SQLite to PostgreSQL when a league outgrows
one machine, or back (a PostgreSQL database as one file) -- and check the copy.

Every row of every table is copied as stored (games with their summaries and settings,
records, seats, snapshots, requests, deadlines, last-seen marks, server settings and the
league tables) in ONE transaction of the target: a failure leaves the target as it was.
Then each table is read back from the target and compared with the source by row count
and by a digest of its rows in key order. The source is opened read-only. A target that
already holds games is refused unless `--replace` (its Kessel tables are emptied first,
in the same transaction).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from bot.store import Store, StoreError, Txn, is_postgres_url, sqlite_path


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[str, ...]
    key: str  # the order rows are read and digested in
    per_game: bool = False  # read one game at a time (the big tables)


# In the order rows may be inserted (foreign keys: games before their rows, leagues
# before seasons before entrants ...); emptied in the reverse order.
_GAME_COLUMNS = (
    "id", "name", "guild", "channel", "scenario", "scenario_data", "seed", "dice", "status",
    "settings", "created_by", "created_at", "head", "phase", "turn", "awaiting", "sides",
)  # fmt: skip
TABLES: tuple[Table, ...] = (
    Table("games", _GAME_COLUMNS, "id"),
    Table(
        "seats",
        ("game_id", "user_id", "display", "role", "side", "joined_seq", "left_seq"),
        "game_id, user_id, role, side, joined_seq",
        per_game=True,
    ),
    Table("log", ("game_id", "seq", "ts", "actor", "kind", "body"), "seq", per_game=True),
    Table("requests", ("key", "game_id", "fingerprint", "seq", "reply"), "key", per_game=True),
    Table("snapshots", ("game_id", "seq", "state"), "seq", per_game=True),
    Table("deadlines", ("game_id", "step", "due", "reminded", "wake"), "game_id"),
    Table("last_seen", ("game_id", "user_id", "event_seq"), "game_id, user_id"),
    Table("server_settings", ("guild", "key", "value"), "guild, key"),
    Table(
        "leagues",
        ("id", "guild", "name", "system", "settings", "created_by", "created_at"),
        "id",
    ),
    Table(
        "seasons",
        ("id", "league", "name", "format", "status", "channel", "settings", "created_at"),
        "id",
    ),
    Table("entrants", ("season", "user_id", "display", "joined_at", "division"), "season, user_id"),
    Table(
        "pairings",
        ("season", "key", "round", "sides", "scenario", "game", "result"),
        "season, key",
    ),
    Table("league_audit", ("season", "ts", "actor", "kind", "body"), "season, {audit}"),
)


class MigrateError(Exception):
    """Why nothing (or nothing more) was copied, in a sentence."""


def _order(table: Table, store: Store) -> str:
    return table.key.format(audit=store._AUDIT_ORDER)


def _select(table: Table, store: Store, *, game: bool) -> str:
    where = " WHERE game_id = ?" if game else ""
    return f"SELECT {', '.join(table.columns)} FROM {table.name}{where} ORDER BY " + _order(
        table, store
    )


def _insert(table: Table) -> str:
    marks = ",".join("?" * len(table.columns))
    return f"INSERT INTO {table.name}({', '.join(table.columns)}) VALUES ({marks})"


class _Digest:
    """A table's row count and a digest of its rows, the same whatever the backend."""

    def __init__(self) -> None:
        self.count = 0
        self._h = hashlib.sha256()

    def add(self, rows: Sequence[Sequence[Any]]) -> None:
        for r in rows:
            self.count += 1
            self._h.update(json.dumps([_plain(v) for v in r]).encode() + b"\n")

    @property
    def hex(self) -> str:
        return self._h.hexdigest()


def _plain(v: Any) -> Any:
    return repr(v) if isinstance(v, float) else v  # (a float's exact value)


async def _rows(store: Store, table: Table, game_ids: Sequence[str]) -> AsyncIterator[list[Any]]:
    """The table's rows in key order, a game at a time for the per-game tables."""
    if not table.per_game:
        yield await store._all(_select(table, store, game=False))
        return
    for gid in game_ids:
        yield await store._all(_select(table, store, game=True), (gid,))


async def _game_ids(store: Store) -> list[str]:
    return [str(r[0]) for r in await store._all("SELECT id FROM games ORDER BY id")]


async def _insert_all(db: Txn, table: Table, rows: Sequence[Sequence[Any]]) -> None:
    if rows:
        await db.execute_many(_insert(table), [tuple(r) for r in rows])


async def copy(source: Store, target: Store, *, replace: bool = False) -> dict[str, int]:
    """Copy every table from `source` to `target` and verify; the rows copied per table.
    MigrateError when the target holds games (without `replace`) or the copy differs."""
    held = {}
    for table in TABLES:
        n = int((await target._all(f"SELECT count(*) FROM {table.name}"))[0][0])
        if n:
            held[table.name] = n
    if held and not replace:
        listed = ", ".join(f"{n} {t}" for t, n in held.items())
        raise MigrateError(
            f"the target is not empty ({listed} rows); nothing was copied (add --replace to "
            "empty it first and copy into it)"
        )
    games = await _game_ids(source)
    digests: dict[str, _Digest] = {}
    async with target._txn() as db:
        if replace:
            for table in reversed(TABLES):
                await db.execute(f"DELETE FROM {table.name}")
        for table in TABLES:
            d = digests[table.name] = _Digest()
            async for rows in _rows(source, table, games):
                d.add(rows)
                await _insert_all(db, table, rows)
    for table in TABLES:  # read back, compared with what was read from the source
        back = _Digest()
        async for rows in _rows(target, table, games):
            back.add(rows)
        want = digests[table.name]
        if (back.count, back.hex) != (want.count, want.hex):
            raise MigrateError(
                f"the copy of table {table.name} differs from the source ({back.count} rows "
                f"read back, {want.count} copied): do not use the target; report this"
            )
    return {t.name: digests[t.name].count for t in TABLES}


def _describe(target: str) -> str:
    if is_postgres_url(target):
        from bot.store import shown_url

        return shown_url(target)
    return sqlite_path(target)


async def _run(source: str, target: str, replace: bool) -> dict[str, int]:
    if _describe(source) == _describe(target) or source == target:
        raise MigrateError("the source and the target are the same database")
    if not is_postgres_url(source) and not os.path.isfile(sqlite_path(source)):
        raise MigrateError(f"there is no game database '{sqlite_path(source)}'")
    src = await Store.open(source, read_only=True)
    try:
        dst = await Store.open(target)
        try:
            return await copy(src, dst, replace=replace)
        finally:
            await dst.close()
    finally:
        await src.close()


def main(args: argparse.Namespace) -> int:
    try:
        counts = asyncio.run(_run(args.source, args.target, args.replace))
    except (MigrateError, StoreError) as e:
        print(f"kessel migrate: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("kessel migrate: interrupted; the target is as it was", file=sys.stderr)
        return 130
    rows = ", ".join(f"{n} {t}" for t, n in counts.items() if t != "games" and n)
    print(
        f"copied {counts['games']} games from {_describe(args.source)} to "
        f"{_describe(args.target)} ({rows or 'no other rows'}); every table's row count and "
        "digest match the source"
    )
    return 0

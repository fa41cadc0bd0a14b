"""The referee's storage (bot/store.py, issue #9 "Faults and load"): migrations by
`PRAGMA user_version`, the append transaction (optimistic head, idempotency rows, all or
nothing), the durability pragmas and the online backup. The transaction tests and the
reopening run on both backends (issue #21: `store` is an SQLite file, then a PostgreSQL
database); the file, pragma and backup tests are SQLite's."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import MIGRATIONS, Conflict, GameRow, NewRecord, Store, StoreError


def _row(gid: str = "g1") -> GameRow:
    return GameRow(
        id=gid,
        name="Test",
        guild="g",
        channel="c",
        scenario="demo-steblev",
        scenario_data=None,
        seed=1,
        dice=(),
        status="open",
        settings={},
        created_by="u",
        created_at=1.0,
        head=0,
    )


def _input(n: int) -> NewRecord:
    events = [{"seq": n * 10 + i, "kind": "moved", "unit": "s-1"} for i in range(3)]
    return NewRecord("u", "input", {"side": "soviet", "line": "done", "events": events})


def _raw(path: Path, sql: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(path)
    try:
        return list(con.execute(sql).fetchall())
    finally:
        con.close()


@pytest.fixture
async def store(store_url: str) -> Store:
    s = await Store.open(store_url)
    yield s  # type: ignore[misc]
    await s.close()


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> Store:
    s = await Store.open(tmp_path / "k.db")
    yield s  # type: ignore[misc]
    await s.close()


# --- migrations ----------------------------------------------------------------------


async def test_a_fresh_file_is_migrated_to_the_current_schema(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    s = await Store.open(db)
    await s.close()
    assert _raw(db, "PRAGMA user_version") == [(len(MIGRATIONS),)]
    tables = {r[0] for r in _raw(db, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"games", "seats", "log", "requests", "snapshots", "deadlines"} <= tables


async def _schema(s: Store, url: str) -> list[tuple[object, ...]]:
    """The tables' definitions and the schema version, read through the store."""
    if url.startswith("postgresql"):
        sql = (
            "SELECT table_name, column_name, data_type, is_nullable FROM"
            " information_schema.columns WHERE table_schema = current_schema()"
            " ORDER BY table_name, column_name"
        )
        version = "SELECT count(*), max(version) FROM schema_version"
    else:
        sql, version = "SELECT sql FROM sqlite_master ORDER BY name", "PRAGMA user_version"
    return [tuple(r) for r in await s._all(sql)] + [tuple(r) for r in await s._all(version)]


async def test_reopening_is_a_no_op_and_keeps_the_data(store_url: str) -> None:
    s = await Store.open(store_url)
    await s.create_game(_row(), [_input(1)])
    schema = await _schema(s, store_url)
    await s.close()
    s = await Store.open(store_url)
    try:
        assert [r.seq for r in await s.log("g1")] == [1]
        assert (await s.game("g1")).head == 1  # type: ignore[union-attr]
        assert await _schema(s, store_url) == schema  # no step ran twice
    finally:
        await s.close()
    if not store_url.startswith("postgresql"):
        assert _raw(Path(store_url), "PRAGMA user_version") == [(len(MIGRATIONS),)]


# The file checks below are SQLite's (a newer schema, not a database, an empty file,
# another program's file); PostgreSQL's newer-schema and another-program's-database
# refusals are tested in tests/test_pg_store.py.


async def test_a_file_from_a_newer_schema_is_refused_clearly(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    s = await Store.open(db)
    await s.close()
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    con.close()
    with pytest.raises(StoreError, match=r"newer Kessel.*upgrade Kessel"):
        await Store.open(db)
    # nothing was changed by the refusal
    assert _raw(db, "PRAGMA user_version") == [(len(MIGRATIONS) + 1,)]


async def test_a_file_that_is_not_a_database_is_refused_clearly(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    text = b"this is not a database file, just some text " * 200
    db.write_bytes(text)
    with pytest.raises(StoreError, match=r"k\.db: it is not an SQLite database.*damaged"):
        await Store.open(db)
    assert db.read_bytes() == text


@pytest.mark.parametrize("kind", ["empty file", "empty database"])
async def test_an_empty_file_or_database_becomes_a_store(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "k.db"
    if kind == "empty file":
        db.touch()
    else:
        sqlite3.connect(db).execute("PRAGMA user_version = 0").connection.close()
    s = await Store.open(db)
    await s.close()
    assert _raw(db, "PRAGMA user_version") == [(len(MIGRATIONS),)]


async def test_a_sqlite_file_of_another_program_is_not_adopted(tmp_path: Path) -> None:
    """Tables of its own, or Kessel's table names without Kessel's user_version: not
    ours. Nothing is written: no WAL switch, no migration."""
    for i, (sql, version) in enumerate(
        [("CREATE TABLE notes(x)", 0), ("CREATE TABLE games(x)", 0), ("CREATE TABLE t(x)", 1)]
    ):
        db = tmp_path / f"other{i}.db"
        con = sqlite3.connect(db)
        con.execute(sql)
        con.execute(f"PRAGMA user_version = {version}")
        con.commit()
        con.close()
        data = db.read_bytes()
        with pytest.raises(StoreError, match="another program's SQLite database"):
            await Store.open(db)
        assert db.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other0.db", "other1.db", "other2.db"]


# --- the append transaction ----------------------------------------------------------


async def test_append_numbers_records_after_the_head(store: Store) -> None:
    await store.create_game(_row())
    head = await store.append("g1", 0, [_input(1), _input(2)])
    assert head == 2
    head = await store.append("g1", 2, [_input(3)])
    assert head == 3
    assert [r.seq for r in await store.log("g1")] == [1, 2, 3]
    assert [r.seq for r in await store.log("g1", after=2)] == [3]
    assert (await store.game("g1")).head == 3  # type: ignore[union-attr]


async def test_append_on_a_stale_head_is_a_conflict_and_writes_nothing(store: Store) -> None:
    await store.create_game(_row())
    await store.append("g1", 0, [_input(1)])
    with pytest.raises(Conflict, match="moved on"):
        await store.append("g1", 0, [_input(2)], request=("k1", "fp", {"replies": []}))
    assert [r.seq for r in await store.log("g1")] == [1]
    assert await store.request("k1") is None
    with pytest.raises(StoreError, match="no game 'zz'"):
        await store.append("zz", 0, [_input(1)])


async def test_the_idempotency_row_is_written_with_the_records(store: Store) -> None:
    await store.create_game(_row())
    reply = {"replies": [{"to": "caller", "text": "ok"}]}
    head = await store.append("g1", 0, [_input(1)], request=("k1", "fp-1", reply))
    assert await store.request("k1") == ("g1", "fp-1", reply)
    rows = await store._all("SELECT seq FROM requests WHERE key = 'k1'")
    assert rows[0][0] == head
    # the same key again (a doubled request that slipped past the check) is refused whole
    with pytest.raises(StoreError):
        await store.append("g1", head, [_input(2)], request=("k1", "fp-1", reply))
    assert [r.seq for r in await store.log("g1")] == [1]
    assert (await store.game("g1")).head == 1  # type: ignore[union-attr]


async def test_a_failing_statement_mid_transaction_leaves_nothing(store: Store) -> None:
    await store.create_game(_row())
    await store.append("g1", 0, [_input(1)])
    bad_seat = ("INSERT INTO seats(game_id, user_id) VALUES (?, ?)", ("g1", "u"))  # NOT NULLs
    with pytest.raises(StoreError, match="database error"):
        await store.append(
            "g1",
            1,
            [_input(2), _input(3)],
            status="active",
            request=("k2", "fp", {"replies": []}),
            snapshot=(3, {"x": 1}),
            deadline=("1:0", 5.0),
            seats=[Store.seat_join("g1", "u2", "U2", "player", "soviet", 2), bad_seat],
        )
    assert [r.seq for r in await store.log("g1")] == [1]
    g = await store.game("g1")
    assert g is not None and (g.head, g.status) == (1, "open")
    assert await store.request("k2") is None
    assert await store.snapshot("g1") is None
    assert await store.deadline("g1") is None
    assert await store.seats("g1") == []
    # and the connection is usable afterwards (the transaction was rolled back)
    assert await store.append("g1", 1, [_input(2)]) == 2


async def test_create_game_with_first_records_is_one_transaction(store: Store) -> None:
    await store.create_game(_row())
    with pytest.raises(StoreError):
        await store.create_game(_row(), [_input(1)])  # the id is taken
    assert await store.log("g1") == []


async def test_create_game_writes_row_records_and_seats_together(store: Store) -> None:
    """Issue #14: the game row, its first records and its seats are one transaction."""
    created = NewRecord("u", "created", {"scenario": "demo-steblev", "seed": 1})
    moderator = Store.seat_join("g2", "u", "U", "moderator", "", 0)
    bad_seat = ("INSERT INTO seats(game_id, user_id) VALUES (?, ?)", ("g2", "u"))  # NOT NULLs
    with pytest.raises(StoreError, match="database error"):
        await store.create_game(_row("g2"), [created], seats=[moderator, bad_seat])
    assert await store.game("g2") is None and await store.log("g2") == []
    assert await store.seats("g2") == []
    await store.create_game(_row("g2"), [created, _input(2)], seats=[moderator])
    g = await store.game("g2")
    assert g is not None and g.head == 2
    assert [(r.seq, r.kind) for r in await store.log("g2")] == [(1, "created"), (2, "input")]
    assert [(s.role, s.joined_seq) for s in await store.seats("g2")] == [("moderator", 0)]


async def test_a_game_whose_creation_never_finished_is_not_listed(store: Store) -> None:
    """A row without records (an older Kessel killed between its two creation steps)
    says nothing of the game: it is not listed."""
    await store.create_game(_row("g1"))
    await store.create_game(_row("g2"), [_input(1)])
    assert [g.id for g in await store.games()] == ["g2"]
    assert await store.ids() == {"g1", "g2"}  # its id stays taken


async def test_snapshots_latest_wins(store: Store) -> None:
    await store.create_game(_row())
    await store.append("g1", 0, [_input(1)], snapshot=(1, {"turn": 1}))
    await store.append("g1", 1, [_input(2)], snapshot=(2, {"turn": 2}))
    assert await store.snapshot("g1") == (2, {"turn": 2})


# --- durability settings and backup ---------------------------------------------------
# SQLite only: WAL and synchronous, the read-only file (PostgreSQL's read-only store:
# tests/test_pg_store.py), and the online backup to a file (PostgreSQL has none: pg_dump).


async def test_wal_and_synchronous_full_are_set(sqlite_store: Store) -> None:
    store = sqlite_store
    rows = await store._all("PRAGMA journal_mode")
    assert rows[0][0] == "wal"
    rows = await store._all("PRAGMA synchronous")
    assert rows[0][0] == 2  # FULL
    rows = await store._all("PRAGMA busy_timeout")
    assert rows[0][0] > 0
    rows = await store._all("PRAGMA foreign_keys")
    assert rows[0][0] == 1
    assert await store.check() == "ok"


async def test_a_read_only_store_reads_and_refuses_every_write(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    s = await Store.open(db)
    await s.create_game(_row(), [_input(1)])
    await s.close()
    data = db.read_bytes()
    s = await Store.open(db, read_only=True)
    try:
        assert s.read_only == "opened read-only"
        assert [r.seq for r in await s.log("g1")] == [1]
        assert await s.check() == "ok"
        refused = "read-only: nothing was saved \\(opened read-only\\)"
        for write in (
            s.append("g1", 1, [_input(2)]),
            s.create_game(_row("g2")),
            s.set_last_seen("g1", "u", 1),
            s.set_server_setting("g", "k", 1),
            s.mark_reminded("g1", 1),
        ):
            with pytest.raises(StoreError, match=refused):
                await write
        # and should a write get past that check, SQLite refuses it too (query_only)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            await s._db.execute("DELETE FROM log")
        target = tmp_path / "copy.db"
        await s.backup(target)  # a backup is a read
        assert _raw(target, "SELECT count(*) FROM log") == [(1,)]
    finally:
        await s.close()
    assert db.read_bytes() == data


async def test_a_read_only_file_that_is_not_set_up_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    db.touch()
    with pytest.raises(StoreError, match="it is read-only and empty, so it cannot be set up"):
        await Store.open(db, read_only=True)
    with pytest.raises(StoreError, match=r"new\.db: it does not exist, and it cannot be created"):
        await Store.open(tmp_path / "new.db", read_only=True)
    assert db.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["k.db"]


async def test_a_backup_to_a_bad_path_is_a_store_error(sqlite_store: Store, tmp_path: Path) -> None:
    store = sqlite_store
    with pytest.raises(StoreError, match=r"cannot write the backup"):
        await store.backup(tmp_path / "no" / "such" / "b.db")


async def test_backup_is_a_complete_consistent_copy(sqlite_store: Store, tmp_path: Path) -> None:
    store = sqlite_store
    await store.create_game(_row())
    await store.append("g1", 0, [_input(1), _input(2)], request=("k", "fp", {"replies": []}))
    target = tmp_path / "backup.db"
    await store.backup(target)
    copy = await Store.open(target)
    try:
        assert await copy.check() == "ok"
        assert [r.seq for r in await copy.log("g1")] == [1, 2]
        assert await copy.request("k") is not None
    finally:
        await copy.close()
    # the original goes on
    assert await store.append("g1", 2, [_input(3)]) == 3


async def test_concurrent_writers_on_one_connection_do_not_interleave(store: Store) -> None:
    """Every game shares the one connection (SQLite; PostgreSQL: a pool): transactions
    of different games started at the same time run one after the other (a second BEGIN
    inside a transaction would fail), and reads never see another game's uncommitted
    rows."""
    import asyncio

    ids = [f"g{i}" for i in range(20)]
    for gid in ids:
        await store.create_game(_row(gid))

    async def play(gid: str) -> None:
        head = 0
        for n in range(5):
            head = await store.append(gid, head, [_input(n)], request=(f"{gid}-{n}", "f", {}))
            await store.set_last_seen(gid, "u", head)
            assert (await store.game(gid)).head == head  # type: ignore[union-attr]

    await asyncio.gather(*(play(gid) for gid in ids))
    for gid in ids:
        assert [r.seq for r in await store.log(gid)] == [1, 2, 3, 4, 5]
    assert await store.check() == "ok"

"""The PostgreSQL store's own guarantees (issue #21), against a real server: migrations in
`schema_version`, a database of another program or a newer Kessel refused unchanged,
concurrent appends from two processes (one wins, the other is a Conflict), the game
lock, and faults: a failing write (a full disk, raised by the server) changes nothing,
a game busy in another process is refused and goes through later, read-only opening."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from pg import sql

import bot.store_postgres as pg
from bot.service import Caller, Referee, Refusal
from bot.store import MIGRATIONS, Conflict, GameRow, NewRecord, Store, StoreError

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")
BOB = Caller("u-bob", "Bob", guild="g1", channel="c1")


def _row(gid: str = "g1") -> GameRow:
    return GameRow(gid, "Test", "g", "c", "demo-steblev", None, 1, (), "open", {}, "u", 1.0, 0)


def _input(n: int) -> NewRecord:
    return NewRecord("u", "input", {"side": "soviet", "line": "done", "events": [{"seq": n}]})


async def test_a_new_database_gets_every_schema_step_once(pg_url: str) -> None:
    # two processes starting together on an empty database: one migrates, both open
    a, b = await asyncio.gather(Store.open(pg_url), Store.open(pg_url))
    await a.close()
    await b.close()
    rows = await sql(pg_url, "SELECT version FROM schema_version ORDER BY version")
    assert [r[0] for r in rows] == list(range(1, len(MIGRATIONS) + 1))
    s = await Store.open(pg_url)  # reopening changes nothing
    await s.close()
    assert len(await sql(pg_url, "SELECT version FROM schema_version")) == len(MIGRATIONS)


async def test_another_programs_database_and_a_newer_schema_are_refused(pg_url: str) -> None:
    await sql(pg_url, "CREATE TABLE contacts(name TEXT)")
    with pytest.raises(StoreError, match=r"another program's database \(tables: contacts\)"):
        await Store.open(pg_url)
    tables = await sql(pg_url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    assert [t[0] for t in tables] == ["contacts"]  # nothing was created
    await sql(pg_url, "DROP TABLE contacts")
    s = await Store.open(pg_url)
    await s.close()
    await sql(pg_url, f"INSERT INTO schema_version VALUES ({len(MIGRATIONS) + 1})")
    with pytest.raises(StoreError, match=r"from a newer Kessel .*upgrade Kessel"):
        await Store.open(pg_url)


async def test_concurrent_appends_from_two_processes_one_wins(pg_url: str) -> None:
    a, b = await Store.open(pg_url), await Store.open(pg_url)
    try:
        await a.create_game(_row())
        for round_ in range(5):
            head = round_
            got = await asyncio.gather(
                a.append("g1", head, [_input(1)], request=(f"a{round_}", "f", {})),
                b.append("g1", head, [_input(2)], request=(f"b{round_}", "f", {})),
                return_exceptions=True,
            )
            assert sorted(type(x).__name__ for x in got) == ["Conflict", "int"], got
        assert [r.seq for r in await a.log("g1")] == [1, 2, 3, 4, 5]
        keys = await a._all("SELECT count(*) FROM requests")
        assert keys[0][0] == 5  # the losers' request rows were rolled back with them
    finally:
        await a.close()
        await b.close()


async def test_the_game_lock_excludes_another_process(pg_url: str) -> None:
    a, b = await Store.open(pg_url), await Store.open(pg_url)
    order: list[str] = []
    try:

        async def hold(store: Store, name: str) -> None:
            async with store.game_lock("g1"):
                order.append(f"{name} in")
                await asyncio.sleep(0.2)
                order.append(f"{name} out")

        await asyncio.gather(hold(a, "a"), hold(b, "b"))
        assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
        async with a.game_lock("g1"), asyncio.timeout(5), b.game_lock("g2"):
            pass  # another game is not held up
    finally:
        await a.close()
        await b.close()


async def _started(ref: Referee) -> str:
    out = await ref.new_game(ALICE, "demo-steblev", seed=3, side="soviet")
    gid = out[0].game
    assert gid is not None
    await ref.join(BOB, gid, "german")
    return gid


async def test_a_full_disk_refuses_clearly_and_half_applies_nothing(pg_url: str) -> None:
    """The server refuses the request's row (SQLSTATE 53100, disk full, raised by a
    trigger) after the input's records were inserted: the whole transaction goes."""
    ref = await Referee.open(pg_url, opponents=None)
    try:
        gid = await _started(ref)
        g = await ref.game(gid)
        head, state = g.head, g.state.snapshot()
        await sql(
            pg_url,
            "CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'could not extend file' USING ERRCODE = '53100'; END $$;"
            "CREATE TRIGGER disk_full BEFORE INSERT ON requests FOR EACH ROW"
            " EXECUTE FUNCTION disk_full()",
        )
        with pytest.raises(Refusal, match="disk holding the game database is full: nothing"):
            await ref.orders(ALICE, gid, "done", key="k1")
        assert (g.head, g.state.snapshot()) == (head, state)
        assert [r.seq for r in await ref.store.log(gid)][-1] == head
        assert await ref.store.request("k1") is None
        await sql(pg_url, "DROP TRIGGER disk_full ON requests")
        await ref.orders(ALICE, gid, "done", key="k1")  # once there is room: it goes through
        assert g.head == head + 1 and await ref.store.request("k1") is not None
    finally:
        await ref.close()


async def test_a_game_busy_in_another_process_is_refused_then_goes_through(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg, "LOCK_WAIT", 0.5)
    ref = await Referee.open(pg_url, opponents=None)
    other = await asyncpg.connect(pg_url)
    try:
        gid = await _started(ref)
        g = await ref.game(gid)
        head = g.head
        await other.execute("SELECT pg_advisory_lock($1)", pg.game_key(gid))
        with pytest.raises(Refusal, match=f"game {gid} is busy in another Kessel process"):
            await ref.orders(ALICE, gid, "done", key="k1")
        assert g.head == head and await ref.store.request("k1") is None
        await ref.status(ALICE, gid)  # reading is not held up
        await other.execute("SELECT pg_advisory_unlock($1)", pg.game_key(gid))
        await ref.orders(ALICE, gid, "done", key="k1")
        assert g.head == head + 1
    finally:
        await other.close()
        await ref.close()


async def test_a_dropped_connection_is_replaced(pg_url: str) -> None:
    """The server ends the store's sessions (a restart, an administrator): the next
    command runs on new connections."""
    ref = await Referee.open(pg_url, opponents=None)
    try:
        gid = await _started(ref)
        await sql(
            pg_url,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        await asyncio.sleep(0.2)
        for _ in range(2):  # a dead session found on first use refuses once, at most
            try:
                await ref.orders(ALICE, gid, "done", key="k1")
                break
            except Refusal as e:
                assert "nothing was saved" in str(e) or "cannot be read" in str(e)
        assert await ref.store.request("k1") is not None
    finally:
        await ref.close()


async def test_a_read_only_store_reads_and_refuses_every_write(pg_url: str) -> None:
    s = await Store.open(pg_url)
    await s.create_game(_row(), [_input(1)])
    await s.close()
    with pytest.raises(StoreError, match="read-only and empty"):
        await Store.open(pg_url.rsplit("/", 1)[0] + "/postgres", read_only=True)
    s = await Store.open(pg_url, read_only=True)
    try:
        assert [r.seq for r in await s.log("g1")] == [1]
        for write in (s.append("g1", 1, [_input(2)]), s.set_server_setting("g", "k", 1)):
            with pytest.raises(StoreError, match=r"read-only: nothing was saved"):
                await write
        with pytest.raises(StoreError, match="pg_dump"):
            await s.backup("x.db")
    finally:
        await s.close()
    with pytest.raises(Conflict):  # (a writer on the same database still works)
        w = await Store.open(pg_url)
        try:
            await w.append("g1", 0, [_input(2)])
        finally:
            await w.close()

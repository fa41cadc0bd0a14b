"""Cost independent of the number and the length of games (issue #21): the bounded cache
of games, the summaries in the games table (lists load no record), history paged from the
end, snapshots after undos and rollbacks, pruned to a fixed number. Behaviour only: the
figures are measured by `kessel load` and recorded in docs/performance.md."""

from __future__ import annotations

import contextlib
import gc
import random
import sqlite3
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import bot.service.referee as referee_module
from bot.load import choose_input
from bot.service import Caller, Referee
from bot.service.game import build_record
from bot.service.history import last_lines, lines_for
from bot.service.tail import Past, complete
from bot.store import KEEP_SNAPSHOTS, Store
from engine.notation import format_order
from engine.view import MODERATOR, SPECTATOR
from render.snapshot import last_phase_events

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")
BOB = Caller("u-bob", "Bob", guild="g1", channel="c1")
MOD = Caller("u-mod", "Mo", server_mod=True, guild="g1", channel="c1")
ELSEWHERE = Caller("u-alice", "Alice", guild="g1", channel="c2")
BOB_ELSEWHERE = Caller("u-bob", "Bob", guild="g1", channel="c2")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        self.now += 1
        return self.now


async def _game(ref: Referee, seed: int = 3, who: Caller = ALICE, other: Caller = BOB) -> str:
    out = await ref.new_game(who, "demo-steblev", seed=seed, side="soviet")
    gid = out[0].game
    assert gid is not None
    await ref.join(other, gid, "german")
    return gid


async def _play(ref: Referee, gid: str, n: int, rng: random.Random) -> None:
    """`n` legal inputs, chosen as a player would (the same ones for the same states)."""
    for _ in range(n):
        g = await ref.game(gid)
        awaited = g.awaited()
        if not awaited:
            return
        side = awaited[0]
        order = choose_input(g.state, side, rng)
        who = ALICE if side == "soviet" else BOB
        try:
            await ref.orders(who, gid, format_order(order))
        except referee_module.Refusal:
            with contextlib.suppress(referee_module.Refusal):
                await ref.orders(who, gid, "done")


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The ids of the games whose record the referee builds (a spy on build_record)."""
    from bot.service.game import build_record as real

    seen: list[str] = []

    def spy(setup: Any, row: Any, *a: Any) -> Any:
        seen.append(row.id)
        return real(setup, row, *a)

    monkeypatch.setattr(referee_module, "build_record", spy)
    yield seen


# --- the bounded cache --------------------------------------------------------------------


async def test_an_evicted_game_reloads_and_plays_on_identically(
    store_url: str, another_store_url: str
) -> None:
    small = await Referee.open(store_url, opponents=None, clock=Clock(), cache_size=1)
    big = await Referee.open(another_store_url, opponents=None, clock=Clock())
    try:
        pairs = [(await _game(small, s), await _game(big, s)) for s in (3, 5)]
        rngs = [(random.Random(i), random.Random(i)) for i in range(2)]
        for _ in range(6):  # the two games alternate: each is evicted by the other
            for (a, b), (ra, rb) in zip(pairs, rngs, strict=True):
                await _play(small, a, 3, ra)
                await _play(big, b, 3, rb)
                assert len(small.cached) == 1
        for a, b in pairs:
            ga, gb = await small.game(a), await big.game(b)
            assert ga.state.snapshot() == gb.state.snapshot()
            wa, wb = await small.whole_record(ga), await big.whole_record(gb)
            assert wa.order_lines() == wb.order_lines()
            assert [(r.kind, r.body) for r in await small.store.log(a)] == [
                (r.kind, r.body) for r in await big.store.log(b)
            ]
    finally:
        await small.close()
        await big.close()


async def test_the_cache_is_bounded_by_use_and_keeps_a_game_in_use(store_url: str) -> None:
    ref = await Referee.open(store_url, opponents=None, clock=Clock(), cache_size=2)
    try:
        ids = [await _game(ref, s) for s in range(4)]
        assert len(ref.cached) == 2
        busy = await ref.game(ids[0])
        async with busy.lock:  # a command in progress: its game is never dropped
            for gid in ids[1:]:
                await ref.game(gid)
            assert ids[0] in ref.cached
        await ref.game(ids[2])
        assert ref.cached[-1] == ids[2]  # the last used is the last to go
        for gid in ids[1:]:
            await ref.game(gid)
        assert len(ref.cached) == 2 and ids[0] not in ref.cached
    finally:
        await ref.close()


# --- summaries ----------------------------------------------------------------------------


async def _check_summary(ref: Referee, gid: str) -> None:
    """The games table says where the game stands as loading the game says it, in this
    referee and in a fresh one (the game rebuilt from the store)."""
    row = await ref.store.game(gid)
    assert row is not None and row.summary is not None
    g = await ref.game(gid)
    assert row.status == g.status
    assert row.summary == g.summary()
    fresh = Referee(ref.store, opponents=None, clock=ref.clock)
    again = await fresh.game(gid)
    assert row.summary == again.summary() and again.status == row.status


async def test_the_summary_follows_every_kind_of_input(store_url: str) -> None:
    ref = await Referee.open(store_url, opponents=None, clock=Clock())  # both backends
    try:
        out = await ref.new_game(ALICE, "demo-steblev", seed=3, side="soviet")
        gid = out[0].game
        assert gid is not None
        await _check_summary(ref, gid)  # open: nobody awaited
        await ref.join(BOB, gid, "german")
        await _check_summary(ref, gid)  # started
        g = await ref.game(gid)
        mark = g.state.seq
        dest = sorted((await ref.legal(ALICE, gid))["moves"]["s-180"])[0]
        await ref.orders(ALICE, gid, f"move s-180 {dest}")
        await _check_summary(ref, gid)
        await ref.undo(ALICE, gid)
        await _check_summary(ref, gid)
        await ref.orders(ALICE, gid, "done")
        await _check_summary(ref, gid)
        await ref.mod(MOD, gid, f"rollback {mark}")
        await _check_summary(ref, gid)
        assert (await ref.store.game(gid)).summary.awaiting == ("soviet",)  # type: ignore[union-attr]
        await ref.mod(MOD, gid, "pause")
        await _check_summary(ref, gid)
        assert (await ref.store.game(gid)).summary.awaiting == ()  # type: ignore[union-attr]
        await ref.mod(MOD, gid, "resume")
        await ref.mod(MOD, gid, "deadline 1")
        await ref.mod(MOD, gid, "policy default")
        before = (await ref.store.game(gid)).summary  # type: ignore[union-attr]
        ref.clock.now += 2 * 3600  # type: ignore[attr-defined]
        assert await ref.tick()  # the deadline's default inputs
        await _check_summary(ref, gid)
        assert (await ref.store.game(gid)).summary != before  # type: ignore[union-attr]
        await ref.resign(ALICE, gid)
        await _check_summary(ref, gid)
        assert (await ref.store.game(gid)).status == "over"  # type: ignore[union-attr]
        other = await _game(ref, 7)
        await ref.orders(ALICE, other, "done")
        await ref.mod(MOD, other, "end german a test")
        await _check_summary(ref, other)
        assert (await ref.store.game(other)).summary.awaiting == ()  # type: ignore[union-attr]
    finally:
        await ref.close()


async def test_lists_and_nudge_load_no_game_after_a_restart(
    store_url: str, loads: list[str]
) -> None:
    db = store_url
    ref = await Referee.open(db, opponents=None, clock=Clock())
    ids = [await _game(ref, s) for s in range(3)]
    await _game(ref, 9, ELSEWHERE, BOB_ELSEWHERE)
    await ref.orders(ALICE, ids[0], "done")
    await ref.mod(MOD, ids[0], "deadline 48")
    lists = [
        await ref.games(ALICE),
        await ref.games(ALICE, mine=True),
        await ref.games(BOB, finished=True),
        await ref.games(Caller("u-alice", "Alice"), mine=True),  # a direct message
    ]
    await ref.close()
    ref = await Referee.open(db, opponents=None, clock=Clock())
    try:
        loads.clear()
        again = [
            await ref.games(ALICE),
            await ref.games(ALICE, mine=True),
            await ref.games(BOB, finished=True),
            await ref.games(Caller("u-alice", "Alice"), mine=True),
        ]
        assert again == lists
        assert len(again[0]) == 3 and len(again[3]) == 4
        assert await ref.nudge() == []
        assert await ref.tick() == []  # no deadline is due: none is loaded
        assert loads == []
        assert ref.cached == []
    finally:
        await ref.close()


async def test_a_game_without_a_summary_is_summarised_once(
    store_url: str, loads: list[str]
) -> None:
    """A game from before issue #21 (the migration leaves `phase` NULL): summarised when
    first listed or loaded, then listed without loading."""
    # (both backends: PostgreSQL's schema steps add the summary columns to old games too)
    db = store_url
    ref = await Referee.open(db, opponents=None, clock=Clock())
    gid = await _game(ref)
    await ref.orders(ALICE, gid, "done")
    listed = await ref.games(ALICE)
    await ref.close()
    store = await Store.open(db)
    async with store._txn() as t:
        await t.execute("UPDATE games SET phase = NULL, awaiting = '[]', sides = '[]', turn = 0")
    await store.close()
    ref = await Referee.open(db, opponents=None, clock=Clock())
    try:
        loads.clear()
        assert await ref.games(ALICE) == listed
        assert loads == [gid]
        ref.forget(gid)
        assert await ref.games(ALICE) == listed
        assert loads == [gid]
        await _check_summary(ref, gid)
    finally:
        await ref.close()


# --- history paged from the end -----------------------------------------------------------


async def _undo_and_roll_back(ref: Referee, gid: str) -> None:
    """At the start of a game: undos (the second one past the snapshot the first wrote,
    then two of inputs after the record's snapshot) and a rollback, so the log holds
    inputs it no longer keeps."""
    g = await ref.game(gid)
    units = (await ref.legal(ALICE, gid))["moves"]
    first, second = sorted(units)[:2]
    await ref.orders(ALICE, gid, f"move {first} {sorted(units[first])[0]}")
    await ref.orders(ALICE, gid, f"move {second} {sorted(units[second])[0]}")
    await ref.undo(ALICE, gid)
    await ref.undo(ALICE, gid)  # the input taken back is before the undo's snapshot
    await ref.orders(ALICE, gid, f"move {first} {sorted(units[first])[-1]}")
    await ref.orders(ALICE, gid, f"move {second} {sorted(units[second])[-1]}")
    await ref.undo(ALICE, gid)  # both inputs after the record's snapshot: none read
    await ref.undo(ALICE, gid)
    await ref.orders(ALICE, gid, f"move {first} {sorted(units[first])[0]}")
    await _play(ref, gid, 12, random.Random(2))
    mark = g.state.seq
    await _play(ref, gid, 10, random.Random(3))
    await ref.mod(MOD, gid, f"rollback {mark}")


async def test_history_pages_are_the_full_logs_last_lines(store_url: str) -> None:
    # a snapshot every 7 inputs: the game is held from its latest snapshot on, and the
    # older inputs are read back from the store (SQLite, PostgreSQL), folding its undos
    # and rollback (#21)
    ref = await Referee.open(store_url, opponents=None, clock=Clock(), snapshot_every=7)
    try:
        gid = await _game(ref)
        await _undo_and_roll_back(ref, gid)
        rng, drawn = random.Random(4), 0
        for _ in range(45):  # the map's recent moves, read back past the snapshot as needed
            await _play(ref, gid, 1, rng)
            g = await ref.game(gid)
            recent = last_phase_events(await ref._recent_events(g), g.state.turn)
            whole_events = (await ref.whole_record(g)).events
            assert recent == last_phase_events(whole_events, g.state.turn)
            drawn += bool(recent) and not g.record.entries
        assert drawn  # (some of them right after a snapshot: all read back from the store)
        ref.forget(gid)
        g = await ref.game(gid)
        assert not complete(g.record) and len(g.record.entries) < 7
        whole_record = await ref.whole_record(g)
        events = whole_record.events
        assert len(events) > 60
        for viewer in ("soviet", "german", SPECTATOR, MODERATOR):
            whole = lines_for(events, g.state, viewer, numbered=True)
            for limit in (1, 2, 3, 5, 8, 13, 20, 40, len(whole), len(whole) + 5):
                assert (
                    last_lines(whole_record, g.state, viewer, limit, numbered=True)
                    == (whole[-limit:])
                )
                assert await _paged(ref, g, viewer, limit) == whole[-limit:]
            for after in (0, 1, events[len(events) // 2].seq, events[-1].seq):
                since = lines_for([e for e in events if e.seq > after], g.state, viewer)
                assert last_lines(whole_record, g.state, viewer, None, after=after) == since
                assert await _paged(ref, g, viewer, None, after) == since
        for who, viewer in ((ALICE, "soviet"), (MOD, MODERATOR)):
            out = await ref.history(who, gid, limit=20)
            shown = out[0].text.splitlines()[1:]
            assert shown == lines_for(events, g.state, viewer, numbered=True)[-20:]
    finally:
        await ref.close()


async def _paged(ref: Referee, g: Any, viewer: str, limit: int | None, after: int = 0) -> list[str]:
    """last_lines on the record in memory, reading older inputs from the store as asked."""
    past = Past(ref.store, g.id, g.record)
    while True:
        got = last_lines(
            g.record, g.state, viewer, limit, after=after, numbered=limit is not None, past=past
        )
        if got is not None:
            return got
        await past.more(3)


async def test_a_game_held_from_its_snapshot_plays_as_the_whole_log_says(
    store_url: str,
    another_store_url: str,
) -> None:
    """Undo (also past the snapshot), rollback, export and the dice check on a game held
    from its snapshot on: the position always equals the whole log replayed, and the log
    and the export are those of a referee that snapshots rarely (#21)."""
    short = await Referee.open(store_url, opponents=None, clock=Clock(), snapshot_every=3)
    long = await Referee.open(another_store_url, opponents=None, clock=Clock(), snapshot_every=500)
    try:
        ids = []
        for ref in (short, long):
            gid = await _game(ref)
            ids.append(gid)
            await _undo_and_roll_back(ref, gid)
            await _play(ref, gid, 20, random.Random(5))
            g = await ref.game(gid)
            rec = await ref.whole_record(g, replay=True)
            assert rec.state.snapshot() == g.state.snapshot()
            ref.forget(gid)
        a, b = ids
        ga, gb = await short.game(a), await long.game(b)
        assert not complete(ga.record)
        assert ga.state.snapshot() == gb.state.snapshot()
        assert [(r.kind, r.body) for r in await short.store.log(a)] == [
            (r.kind, r.body) for r in await long.store.log(b)
        ]
        export = await short.export(MOD, a)
        assert export == await long.export(MOD, b)
        assert len(export.split("orders:")[1].splitlines()) > 30
        said = [(await ref.verify(MOD, gid))[0].text for ref, gid in ((short, a), (long, b))]
        assert said[0].replace(a, b) == said[1] and "do NOT" not in said[0]
        assert await short.played_sides(ga) == {"soviet", "german"}
        # the map's recent moves: read back past the snapshot as far as the turn's start
        whole = await long.whole_record(gb)
        recent = await short._recent_events(ga)
        assert last_phase_events(recent, ga.state.turn) == last_phase_events(
            whole.events, gb.state.turn
        )
        assert await short.map_png(MOD, a) == await long.map_png(MOD, b)
    finally:
        await short.close()
        await long.close()


# --- snapshots ----------------------------------------------------------------------------


async def test_snapshots_are_pruned_and_taken_after_undo_and_rollback(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.service.game as game_module

    used: list[bool] = []  # per load: was a snapshot used (not a replay of the whole log)?
    real = game_module._from_snapshot

    def spy(*a: Any) -> Any:
        state = real(*a)
        used.append(state is not None)
        return state

    monkeypatch.setattr(game_module, "_from_snapshot", spy)
    db = store_url
    ref = await Referee.open(db, opponents=None, clock=Clock(), snapshot_every=2)
    gid = await _game(ref)
    g = await ref.game(gid)
    mark = g.state.seq
    moves = sorted((await ref.legal(ALICE, gid))["moves"]["s-180"])
    for dest in moves[:4]:  # an input, then its undo: the undo is snapshotted
        await ref.orders(ALICE, gid, f"move s-180 {dest}")
        await ref.undo(ALICE, gid)
        assert (await ref.store.snapshot_seqs(gid))[-1] == g.head
    assert len(await ref.store.snapshot_seqs(gid)) == KEEP_SNAPSHOTS
    await ref.orders(ALICE, gid, f"move s-180 {moves[0]}")
    await ref.undo(ALICE, gid)  # the latest snapshot is before this undo's input
    await _play(ref, gid, 30, random.Random(4))
    assert len(await ref.store.snapshot_seqs(gid)) == KEEP_SNAPSHOTS
    await _play(ref, gid, 1, random.Random(5))
    expected = g.state.snapshot()
    await ref.close()

    ref = await Referee.open(db, opponents=None, clock=Clock(), snapshot_every=2)
    again = await Referee.open(db, opponents=None, clock=Clock(), snapshot_every=2)
    try:
        used.clear()
        g = await ref.game(gid)
        assert used == [True]
        assert g.state.snapshot() == expected
        # the same game, replayed from its whole log, is the same position
        row = await ref.store.game(gid)
        assert row is not None
        full = game_module.build_record(g.setup, row, await ref.store.log(gid), None)
        assert full.state.snapshot() == expected
        await ref.mod(MOD, gid, f"rollback {mark}")
        assert (await ref.store.snapshot_seqs(gid))[-1] == g.head
        await _play(ref, gid, 5, random.Random(8))
        used.clear()
        h = await again.game(gid)  # loaded after the rollback's snapshot
        assert used == [True]
        assert h.state.snapshot() == g.state.snapshot()
    finally:
        await ref.close()
        await again.close()


async def test_undos_past_the_snapshot_read_from_the_oldest_snapshot_kept(
    store_url: str,
) -> None:
    """Undos past the latest snapshot (each undo writes one) are held from the oldest
    stored snapshot that serves: the store is read from there, not from the game's start
    (a long game's whole log), and the undos after it take back inputs held in memory;
    past every snapshot kept, from the start. The positions are those of the whole log
    (issue #21)."""
    ref = await Referee.open(store_url, opponents=None, clock=Clock(), snapshot_every=2)
    try:
        gid = await _game(ref)
        units = (await ref.legal(ALICE, gid))["moves"]
        moved = sorted(units)[:6]
        before = {u: h.hex for u, h in (await ref.game(gid)).state.units.items()}
        for uid in moved:  # six moves, no die: each may be taken back
            await ref.orders(ALICE, gid, f"move {uid} {sorted(units[uid])[0]}")
        reads: list[tuple[int, int | None]] = []
        real = ref.store.log

        async def spy(game_id: str, after: int = 0, before: int | None = None) -> Any:
            reads.append((after, before))
            return await real(game_id, after, before)

        ref.store.log = spy  # type: ignore[method-assign]
        ref.forget(gid)  # held from its latest snapshot, as after a restart
        # held from the snapshot at 8 (inputs at 4-9, snapshots at 4, 6, 8): the first
        # undo is of an input held; the second goes past 8 and reads from 6, the oldest
        # snapshot still kept (each undo writes one), and the third takes back an input
        # then held in memory
        for _ in range(3):
            await ref.undo(ALICE, gid)
        assert [r for r in reads if r[1] is None or r[1] > 2] == [(8, None), (6, 11)], reads
        for _ in range(3):  # older than every snapshot kept now: read from the start
            await ref.undo(ALICE, gid)
        ref.store.log = real  # type: ignore[method-assign]
        g = await ref.game(gid)
        row = await ref.store.game(gid)
        assert row is not None
        whole = build_record(g.setup, row, await ref.store.log(gid), None)
        assert g.state.snapshot() == whole.state.snapshot()
        assert {u: h.hex for u, h in g.state.units.items()} == before
    finally:
        await ref.close()


# --- kessel load --store -------------------------------------------------------------------


def test_kessel_load_names_its_store(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main
    from bot.load import rss_mb, store_refusal

    assert store_refusal("sqlite") is None
    assert store_refusal("postgresql://u@h/db", 2) is None
    assert main(["load", "--store", "postgresql", "--games", "1", "--seconds", "0.1"]) == 1
    said = capsys.readouterr().err
    assert "give the database's URL" in said and "postgresql://user@host/db" in said
    assert main(["load", "--processes", "2", "--games", "1", "--seconds", "0.1"]) == 1
    assert "PostgreSQL store only" in capsys.readouterr().err
    assert main(["load", "--store", "oracle", "--games", "1", "--seconds", "0.1"]) == 1
    assert "no such store" in capsys.readouterr().err
    now, peak = rss_mb()
    assert 0 < now <= peak


async def test_a_schema_3_database_migrates_and_its_games_are_summarised(
    tmp_path: Path, loads: list[str]
) -> None:
    """A database of the schema before issue #21, with a game and a deadline: migrated
    on opening; the game is summarised once, when first listed; its deadline wakes the
    referee at the first tick (then at its next reminder or end only)."""
    from bot.store import MIGRATIONS

    made = tmp_path / "made.db"
    ref = await Referee.open(made, opponents=None, clock=Clock())
    gid = await _game(ref)
    await ref.orders(ALICE, gid, "done")
    await ref.mod(MOD, gid, "deadline 48")
    listed = await ref.games(ALICE)
    await ref.close()
    old = tmp_path / "old.db"
    con = sqlite3.connect(old, isolation_level=None)
    for step in MIGRATIONS[:3]:
        for stmt in step:
            con.execute(stmt)
    con.execute("PRAGMA user_version = 3")
    con.execute("ATTACH ? AS made", (str(made),))
    columns = {
        "games": "id, name, guild, channel, scenario, scenario_data, seed, dice, status,"
        " settings, created_by, created_at, head",
        "deadlines": "game_id, step, due, reminded",
    }
    for table in ("games", "seats", "log", "requests", "snapshots", "deadlines", "last_seen"):
        cols = columns.get(table, "*")
        con.execute(f"INSERT INTO main.{table} SELECT {cols} FROM made.{table}")
    con.execute("DETACH made")
    con.close()
    ref = await Referee.open(old, opponents=None, clock=Clock())
    try:
        assert (await ref.store.game(gid)).summary is None  # type: ignore[union-attr]
        loads.clear()
        assert await ref.games(ALICE) == listed
        assert loads == [gid]
        await _check_summary(ref, gid)
        ref.forget(gid)
        loads.clear()
        assert await ref.tick() == []  # its wake time (0) has come: loaded once
        assert loads == [gid]
        ref.forget(gid)
        assert await ref.tick() == []  # now it waits for its first reminder
        assert loads == [gid]
    finally:
        await ref.close()


# --- the built-in opponents' memory ----------------------------------------------------------


async def test_the_opponents_in_memory_are_bounded_by_the_cache_of_games(store_url: str) -> None:
    """An opponent is kept with its game and dropped with it from the cache: a process
    that has played many games with opponents holds those of the cached games only."""
    from bot.systems import builtin_opponent

    made: list[weakref.ref[Any]] = []  # every opponent the referee made

    def opponents(side: str, seed: int) -> Any:
        chooser = builtin_opponent(side, seed)
        made.append(weakref.ref(chooser))
        return chooser

    ref = await Referee.open(store_url, opponents=opponents, clock=Clock(), cache_size=2)
    try:
        ids = []
        for seed in range(6):
            out = await ref.new_game(ALICE, "demo-steblev", seed=seed, side="german")
            gid = out[0].game
            assert gid is not None
            await ref.seat_ai(ALICE, gid, "soviet")  # it plays its first inputs at once
            ids.append(gid)
        gc.collect()
        assert len(made) == 6
        assert sum(r() is not None for r in made) <= 2  # the two games in the cache
        g = await ref.game(ids[0])  # evicted long ago: a new opponent plays on
        assert g.awaited() == ["german"] and not g.opponents
        rng = random.Random(0)
        for _ in range(60):  # German inputs until the opponent answers
            if g.opponents or not g.awaited():
                break
            order = choose_input(g.state, "german", rng)
            with contextlib.suppress(referee_module.Refusal):
                await ref.orders(ALICE, ids[0], format_order(order))
        assert "soviet" in g.opponents and len(made) == 7
        gc.collect()
        assert sum(r() is not None for r in made) <= 2
    finally:
        await ref.close()


async def test_the_last_input_and_who_played_are_read_back_past_the_snapshot(
    store_url: str,
) -> None:
    """Right after a snapshot the game in memory holds no input: local play's `SIDE: undo`
    check and a league result's "started" read the last inputs back from the store."""
    ref = await Referee.open(store_url, opponents=None, clock=Clock(), snapshot_every=4)
    try:
        gid = await _game(ref)
        g = await ref.game(gid)
        rng = random.Random(7)
        for _ in range(40):
            await _play(ref, gid, 1, rng)
            if not g.record.entries and not complete(g.record):
                break
        assert not g.record.entries and not complete(g.record)  # a snapshot just written
        whole = await ref.whole_record(g)
        last = await ref.last_input(g)
        assert last is not None and last.line == whole.entries[-1].line
        assert last.side == whole.entries[-1].side
        assert await ref.played_sides(g) == {e.side for e in whole.entries}
        for _ in range(20):  # until the Germans have played too
            if {"soviet", "german"} <= {e.side for e in whole.entries}:
                break
            await _play(ref, gid, 4, rng)
            whole = await ref.whole_record(g)
        assert await ref.played_sides(g) == {"soviet", "german"}
    finally:
        await ref.close()

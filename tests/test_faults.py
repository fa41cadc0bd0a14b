"""Faults (issue #9 "Faults and load", issue #7 persistence): the referee is killed during
writes many times, and meets a locked, read-only, full or damaged database.

The crash test: a small script (`CHILD`, started once) imports the service and, for each
round, forks a worker that opens the referee on the game database and gives inputs in a
loop, printing `SEND` before each request and `ACK` (with the log head and the last
event) after the service returned. The test SIGKILLs the worker at a random moment, then
checks the file: `integrity_check` ok, every acknowledged input present exactly once (an
unacknowledged request is retried with its idempotency key by the next worker, as a
client would), no half-written input (the log and the event numbers contiguous, every
input's request row beside it), and the game loads and plays on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from pg import sql

from bot.load import choose_input
from bot.service import Caller, Referee, Refusal
from bot.service.game import fold
from bot.store import LogRecord, Store, StoreError, is_postgres_url
from engine.notation import format_order

ROOT = Path(__file__).resolve().parent.parent
ALICE = Caller("u-a", "Alice", guild="g", channel="c")
BOB = Caller("u-b", "Bob", guild="g", channel="c")
REFEREE = Caller("u-r", "Ref", server_mod=True, guild="g", channel="c")  # plays no side

# The crash-test child: reads one JSON command per round on stdin, forks a worker that
# plays until it is killed, reports the worker's pid and its end.
CHILD = r"""
import asyncio, json, os, random, sys
from bot.service import Caller, Referee, Refusal
from bot.load import choose_input
from engine.notation import format_order

DB = sys.argv[1]
CALLERS = {"soviet": Caller("u-a", "Alice", guild="g", channel="c"),
           "german": Caller("u-b", "Bob", guild="g", channel="c")}


def say(*parts):
    sys.stdout.write(" ".join(str(p) for p in parts) + "\n")
    sys.stdout.flush()


async def give(ref, gid, key, side, text):
    say("SEND", key, gid, side, json.dumps(text))
    try:
        await ref.orders(CALLERS[side], gid, text, key=key)
    except Refusal as e:
        say("REFUSED", key, json.dumps(str(e)))
        return
    g = await ref.game(gid)
    say("ACK", key, gid, g.head, g.last_event)


async def create(ref, seed):
    # game creation only: the kill lands in Referee.new_game (issue #14)
    n = 0
    while True:
        n += 1
        out = await ref.new_game(CALLERS["soviet"], "demo-steblev", seed=seed * 1000 + n,
                                 side="soviet" if n % 2 else None)
        say("GAME", out[0].game)


async def work(cmd):
    ref = await Referee.open(DB, opponents=None)
    gid = cmd["gid"]
    rng = random.Random(cmd["seed"])
    g = await ref.game(gid)
    say("READY", gid, g.head)
    if cmd.get("create"):
        await create(ref, cmd["seed"])
    if cmd["retry"]:
        await give(ref, *cmd["retry"])
    n = 0
    while True:
        g = await ref.game(gid)
        if g.state.over or g.status != "active":
            out = await ref.new_game(CALLERS["soviet"], "demo-steblev", seed=n, side="soviet")
            gid = out[0].game
            await ref.join(CALLERS["german"], gid, "german")
            say("GAME", gid)
            continue
        side = rng.choice(g.awaited())
        order = choose_input(g.state, side, rng)
        n += 1
        await give(ref, gid, f"r{cmd['seed']}-{n}", side, format_order(order))


from bot.service.referee import shipped_ids, shipped_setup
shipped_ids(), shipped_setup("demo-steblev")  # parsed once, before the workers fork

for line in sys.stdin:
    cmd = json.loads(line)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            asyncio.run(work(cmd))
        except BaseException:
            import traceback
            say("ERROR", json.dumps(traceback.format_exc()))
        finally:
            os._exit(3)
    say("PID", pid)
    _, status = os.waitpid(pid, 0)
    say("EXIT", status)
"""


def _reader(stream: Any, q: queue.Queue[str]) -> None:
    for line in stream:
        q.put(line.rstrip("\n"))
    q.put("EOF")


def _until(q: queue.Queue[str], word: str, seen: list[str], timeout: float = 20.0) -> str:
    end = time.monotonic() + timeout
    while True:
        line = q.get(timeout=max(0.01, end - time.monotonic()))
        seen.append(line)
        if line.startswith(word):
            return line
        assert line != "EOF" and not line.startswith(("ERROR", "EXIT")), "\n".join(seen[-20:])


def _drain(q: queue.Queue[str], seen: list[str], seconds: float) -> None:
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            seen.append(q.get(timeout=left))
        except queue.Empty:
            return


async def _new_game(db: Path | str) -> str:
    ref = await Referee.open(db, opponents=None)
    try:
        out = await ref.new_game(ALICE, "demo-steblev", seed=1, side="soviet")
        gid = out[0].game
        assert gid is not None
        await ref.join(BOB, gid, "german")
        return gid
    finally:
        await ref.close()


class _Reader:
    """Reads the database after a kill with a connection of its own: the SQLite file with
    sqlite3, a PostgreSQL database (issue #21) with the store's `_all`."""

    def __init__(self, db: Path | str) -> None:
        self._con = None if is_postgres_url(db) else sqlite3.connect(db)
        if self._con is None:  # a loop of its own, for the store's coroutines
            self._loop = asyncio.new_event_loop()
            self._store = self._loop.run_until_complete(Store.open(db))

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        if self._con is not None:
            return self._con.execute(sql, args)
        rows = self._loop.run_until_complete(self._store._all(sql, args))
        return _Rows(tuple(r) for r in rows)

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            return
        self._loop.run_until_complete(self._store.close())
        self._loop.close()


class _Rows(list[tuple[Any, ...]]):
    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self)

    def fetchone(self) -> tuple[Any, ...] | None:
        return self[0] if self else None


def _check_file(db: Path | str, acked: dict[str, tuple[str, int, int]]) -> dict[str, int]:
    """The database after a kill: sound, every acknowledged input once, nothing
    half-written. Returns the inputs per game."""
    con = _Reader(db)
    try:
        if not is_postgres_url(db):
            assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        heads = dict(con.execute("SELECT id, head FROM games").fetchall())
        requests = {k: (g, s) for k, g, s in con.execute("SELECT key, game_id, seq FROM requests")}
        inputs = {}
        for gid, head in heads.items():
            rows = con.execute(
                "SELECT seq, ts, actor, kind, body FROM log WHERE game_id = ? ORDER BY seq",
                (gid,),
            ).fetchall()
            records = [LogRecord(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]
            # the log is contiguous up to the stored head: no record without its head move
            assert [r.seq for r in records] == list(range(1, head + 1)), gid
            # every input is whole: its events follow on from the previous input's
            events = [e["seq"] for _, _, evs in fold(records) for e in evs]
            # (the events before the first input come from the scenario's opening)
            first = events[0] if events else 0
            assert events == list(range(first, first + len(events))), gid
            assert first <= 3, gid
            # each input came from exactly one request (no request applied twice)
            keyed = sorted(s for k, (g, s) in requests.items() if g == gid)
            in_log = sorted(r.seq for r in records if r.kind == "input")
            assert keyed == in_log, gid
            inputs[gid] = len(in_log)
        for key, (gid, head, _last_event) in acked.items():
            assert key in requests, f"acknowledged input {key} was lost"
            g, seq = requests[key]
            assert g == gid and seq <= heads[gid]
            assert at_of(con, gid, seq)["kind"] == "input"
            assert seq <= head, key
        return inputs
    finally:
        con.close()


def at_of(con: Any, gid: str, seq: int) -> dict[str, Any]:
    row = con.execute("SELECT kind, body FROM log WHERE game_id = ? AND seq = ?", (gid, seq))
    kind, body = row.fetchone()
    return {"kind": kind, **json.loads(body)}


async def _plays_on(db: Path | str, games: list[str]) -> None:
    ref = await Referee.open(db, opponents=None)
    try:
        for gid in games:
            g = await ref.game(gid)
            assert g.record.rebuild().snapshot() == g.state.snapshot()
            if g.status == "active" and not g.state.over:
                side = g.awaited()[0]
                who = ALICE if side == "soviet" else BOB
                head = g.head
                try:
                    await ref.orders(who, gid, "done")
                except Refusal as e:  # `done` may be refused (a duty left): still judged
                    assert "done" in str(e) or "must" in str(e) or "decision" in str(e)
                else:
                    assert g.head > head
    finally:
        await ref.close()


@pytest.mark.parametrize(
    "rounds", [8, pytest.param(40, marks=pytest.mark.slow)], ids=lambda n: f"{n}-kills"
)
def test_killed_during_writes_loses_and_doubles_nothing(store_url: str, rounds: int) -> None:
    """On both backends (issue #21): the SQLite file, a PostgreSQL database."""
    db = store_url
    games = [asyncio.run(_new_game(db))]
    rng = random.Random(9)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    q: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, q), daemon=True).start()
    acked: dict[str, tuple[str, int, int]] = {}
    retry: list[Any] | None = None
    retried_after_commit = 0
    try:
        for rnd in range(rounds):
            seen: list[str] = []
            cmd = {"gid": games[-1], "seed": rnd, "retry": retry}
            proc.stdin.write(json.dumps(cmd) + "\n")
            proc.stdin.flush()
            pid = int(_until(q, "PID", seen).split()[1])
            _until(q, "READY", seen)
            _drain(q, seen, rng.uniform(0.02, 0.5))
            os.kill(pid, signal.SIGKILL)
            status = _until(q, "EXIT", seen).split()[1]
            assert os.WIFSIGNALED(int(status)), "\n".join(seen[-20:])
            retry = None
            for line in seen:
                word, *rest = line.split(" ", 4)
                if word == "SEND":
                    key, gid, side, text = rest[0], rest[1], rest[2], json.loads(rest[3])
                    retry = [gid, key, side, text]
                elif word in ("ACK", "REFUSED"):
                    if word == "ACK":
                        acked[rest[0]] = (rest[1], int(rest[2]), int(rest[3]))
                    retry = None
                elif word == "GAME":
                    games.append(rest[0])
            if retry is not None:
                con = _Reader(db)
                done = con.execute("SELECT 1 FROM requests WHERE key = ?", (retry[1],))
                retried_after_commit += done.fetchone() is not None
                con.close()
            _check_file(db, acked)
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)
    inputs = _check_file(db, acked)
    print(
        f"{len(acked)} inputs acknowledged, {sum(inputs.values())} stored in {len(games)} games;"
        f" {retried_after_commit} retried requests had been committed before the kill"
    )
    assert len(acked) >= rounds, "the workers acknowledged too few inputs to test anything"
    assert sum(inputs.values()) >= len(acked)
    asyncio.run(_plays_on(db, games))


def _games_whole(db: Path | str) -> list[str]:
    """Every game row in the database is a whole game (issue #14): its log starts with its
    `created` record and runs up to its head, and it has a moderator. Returns the ids,
    oldest first."""
    con = _Reader(db)
    try:
        if not is_postgres_url(db):
            assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        ids = []
        games = con.execute("SELECT id, head FROM games ORDER BY created_at, id").fetchall()
        for gid, head in games:
            seqs = [r[0] for r in con.execute("SELECT seq FROM log WHERE game_id = ?", (gid,))]
            first = con.execute("SELECT kind FROM log WHERE game_id = ? AND seq = 1", (gid,))
            assert first.fetchone() == ("created",), f"game {gid} (head {head}) is half-made"
            assert sorted(seqs) == list(range(1, head + 1)), gid
            mods = con.execute(
                "SELECT count(*) FROM seats WHERE game_id = ? AND role = 'moderator'"
                " AND left_seq IS NULL",
                (gid,),
            ).fetchone()[0]
            assert mods == 1, f"game {gid} has no moderator"
            ids.append(gid)
        return ids
    finally:
        con.close()


async def _load(db: Path | str, ids: list[str], new: list[str]) -> None:
    """Every game is listed; the newest ones (where the kill was) load."""
    ref = await Referee.open(db, opponents=None)
    try:
        assert {r.id for r in await ref.store.games()} == set(ids)
        for gid in new:
            g = await ref.game(gid)
            assert g.head >= 1 and any(s.role == "moderator" for s in g.seats), gid
    finally:
        await ref.close()


@pytest.mark.parametrize(
    "rounds", [6, pytest.param(30, marks=pytest.mark.slow)], ids=lambda n: f"{n}-kills"
)
def test_killed_while_creating_games_leaves_each_game_whole_or_absent(
    store_url: str, rounds: int
) -> None:
    """Issue #14: a kill during Referee.new_game left a game row with head 0, no
    `created` record and no moderator. Creation is one transaction now: after each kill
    every game in the file is whole, is listed and loads. On both backends (issue #21)."""
    db = store_url
    first = asyncio.run(_new_game(db))
    rng = random.Random(14)
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert proc.stdin is not None and proc.stdout is not None
    q: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, q), daemon=True).start()
    loaded = {first}
    made = 0
    try:
        for rnd in range(rounds):
            seen: list[str] = []
            cmd = {"gid": first, "seed": rnd, "retry": None, "create": True}
            proc.stdin.write(json.dumps(cmd) + "\n")
            proc.stdin.flush()
            pid = int(_until(q, "PID", seen).split()[1])
            _until(q, "READY", seen)
            _drain(q, seen, rng.uniform(0.02, 0.25))
            os.kill(pid, signal.SIGKILL)
            status = _until(q, "EXIT", seen).split()[1]
            assert os.WIFSIGNALED(int(status)), "\n".join(seen[-20:])
            made += sum(line.startswith("GAME") for line in seen)
            ids = _games_whole(db)
            asyncio.run(_load(db, ids, [gid for gid in ids if gid not in loaded][-3:]))
            loaded |= set(ids)
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)
    print(f"{made} games acknowledged, {len(loaded) - 1} in the file after {rounds} kills")
    assert made >= rounds, "the workers created too few games to test anything"
    assert len(loaded) - 1 >= made  # every acknowledged game is there


# --- a locked, read-only, full or damaged database ------------------------------------
# SQLite's own failures, SQLite only: another program's write lock on the file, a
# read-only file or file system, a capped (full) file, damaged rows, pages and files,
# foreign files and bad paths. PostgreSQL's equivalents are in tests/test_pg_store.py (a
# game busy in another process, a full disk, a read-only store, a dropped connection,
# another program's or a newer schema); a write failing midway and a session terminated
# mid-write run on both backends here.


async def _two_games(ref: Referee) -> tuple[str, str]:
    ids = []
    for seed in (1, 2):
        out = await ref.new_game(ALICE, "demo-steblev", seed=seed, side="soviet")
        gid = out[0].game
        assert gid is not None
        await ref.join(BOB, gid, "german")
        ids.append(gid)
    return ids[0], ids[1]


def _log_rows(db: Path, gid: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT seq, kind, body FROM log WHERE game_id = ?", (gid,)).fetchall()
    finally:
        con.close()


async def test_a_locked_database_refuses_clearly_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    ref = await Referee.open(db, opponents=None)
    try:
        g1, g2 = await _two_games(ref)
        await ref.store._db.execute("PRAGMA busy_timeout=150")
        g = await ref.game(g1)
        before = (g.head, g.state.snapshot(), _log_rows(db, g1))
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
        try:
            with pytest.raises(Refusal, match=r"nothing was saved.*busy"):
                await ref.orders(ALICE, g1, "done", key="k-locked")
            assert (g.head, g.state.snapshot()) == before[:2]
            # reads go on while the lock is held
            assert "Awaiting" in (await ref.status(ALICE, g1))[0].text
            assert (await ref.view(BOB, g2)).units
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert _log_rows(db, g1) == before[2]
        assert await ref.store.request("k-locked") is None
        # once the lock is gone, the same request (and the other game) go through
        await ref.orders(ALICE, g1, "done", key="k-locked")
        assert g.head > before[0]
        await ref.orders(ALICE, g2, "done")
        assert await ref.store.check() == "ok"
    finally:
        await ref.close()


# A write that fails in its middle (issue #21, on both backends): a trigger makes the
# insert of the request row fail, after the log records and the game's new head were
# written in the same transaction. On PostgreSQL also the transaction's session is
# terminated there (pg_terminate_backend: a dropped connection mid-write).
_FAIL_SQLITE = (
    "CREATE TRIGGER fail_midway AFTER INSERT ON requests"
    " BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
)
_FAIL_PG = """
CREATE FUNCTION fail_midway() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF {stall} THEN PERFORM pg_sleep(60); RETURN NEW; END IF;
    RAISE EXCEPTION 'injected failure';
END $$;
CREATE TRIGGER fail_midway AFTER INSERT ON requests
    FOR EACH ROW EXECUTE FUNCTION fail_midway();
"""


async def _terminate_the_stalled_write(url: str) -> int:
    """Terminate the session stalled in the trigger's pg_sleep; returns how many."""
    for _ in range(200):
        rows = await sql(
            url,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event = 'PgSleep'",
        )
        if rows:
            return len(rows)
        await asyncio.sleep(0.05)
    return 0


async def test_a_write_failing_midway_changes_nothing_and_its_key_stays_free(
    store_url: str,
) -> None:
    await _failing_midway(store_url, "error")


async def test_a_write_whose_session_is_terminated_midway_changes_nothing(pg_url: str) -> None:
    """PostgreSQL: the write's session ended by the server mid-transaction (SQLite's
    counterpart, a process killed mid-write, is test_killed_during_writes_...)."""
    await _failing_midway(pg_url, "terminated")


async def _failing_midway(store_url: str, how: str) -> None:
    pg = is_postgres_url(store_url)
    ref = await Referee.open(store_url, opponents=None)
    try:
        g1, g2 = await _two_games(ref)
        g = await ref.game(g1)
        before = (g.head, g.state.snapshot(), await ref.store.log(g1))
        if pg:
            await sql(store_url, _FAIL_PG.format(stall="true" if how == "terminated" else "false"))
        else:
            con = sqlite3.connect(store_url)
            con.execute(_FAIL_SQLITE)
            con.close()
        write = asyncio.ensure_future(ref.orders(ALICE, g1, "done", key="k-midway"))
        if how == "terminated":
            assert await _terminate_the_stalled_write(store_url) == 1
        with pytest.raises(Refusal, match=r"nothing was saved|injected failure"):
            await write
        assert (g.head, g.state.snapshot()) == before[:2]
        assert await ref.store.log(g1) == before[2]
        assert (await ref.store.game(g1)).head == before[0]  # type: ignore[union-attr]
        assert await ref.store.request("k-midway") is None
        assert (await ref.view(BOB, g2)).units  # reads go on
        if pg:
            await sql(store_url, "DROP TRIGGER fail_midway ON requests")
        else:
            con = sqlite3.connect(store_url)
            con.execute("DROP TRIGGER fail_midway")
            con.close()
        # the same request goes through once the fault is gone (a dropped session found
        # on first use refuses once, at most) ...
        for _ in range(2):
            try:
                first = await ref.orders(ALICE, g1, "done", key="k-midway")
                break
            except Refusal as e:
                assert "nothing was saved" in str(e) or "cannot be read" in str(e)
        head = g.head
        assert head > before[0]
        assert await ref.store.request("k-midway") is not None
        # ... and, sent again with its key, is answered from the store, not applied twice
        again = await ref.orders(ALICE, g1, "done", key="k-midway")
        assert again and [o.text for o in again] == [o.text for o in first[: len(again)]]
        assert g.head == head == (await ref.store.game(g1)).head  # type: ignore[union-attr]
        await ref.orders(ALICE, g2, "done")
        assert await ref.store.check() == "ok"
    finally:
        await ref.close()


async def _reads_but_never_writes(db: Path, gid: str, why: str) -> None:
    """A read-only game database (issue #14, docs/performance.md): games are listed,
    loaded, shown and exported; every write is refused and changes nothing."""
    ref = await Referee.open(db, opponents=None, read_only=why == "opened read-only")
    try:
        assert ref.store.read_only == why
        assert [x["id"] for x in await ref.games(ALICE)] == [gid]
        g = await ref.game(gid)
        before = (g.head, g.state.snapshot())
        assert "Awaiting" in (await ref.status(ALICE, gid))[0].text
        assert "recent log" in (await ref.history(ALICE, gid))[0].text
        assert "kessel: game-export" in await ref.export(REFEREE, gid)
        side = g.awaited()[0]
        with pytest.raises(Refusal, match=rf"read-only: nothing was saved \({why}\)"):
            await ref.orders(ALICE if side == "soviet" else BOB, gid, "done")
        with pytest.raises(Refusal, match="read-only: nothing was saved"):
            await ref.new_game(ALICE, "demo-steblev")
        with pytest.raises(StoreError, match="read-only: nothing was saved"):
            await ref.store.set_server_setting("g", "k", 1)
        assert (g.head, g.state.snapshot()) == before
        assert await ref.store.check() == "ok"
    finally:
        await ref.close()


async def _one_game(db: Path) -> str:
    ref = await Referee.open(db, opponents=None)
    try:
        out = await ref.new_game(ALICE, "demo-steblev", seed=1, side="soviet")
        gid = out[0].game
        assert gid is not None
        await ref.join(BOB, gid, "german")
        await ref.orders(ALICE, gid, "done")
        return gid
    finally:
        await ref.close()


async def test_a_read_only_file_is_read_and_never_written(tmp_path: Path) -> None:
    """A file the user may not write (chmod). Root may write any file, so under root the
    same read-only connection is asked for explicitly (`read_only=True`); the real
    read-only file system is test_a_read_only_file_system_...."""
    db = tmp_path / "k.db"
    gid = await _one_game(db)
    os.chmod(db, 0o444)
    try:
        data = db.read_bytes()
        await _reads_but_never_writes(
            db, gid, "opened read-only" if os.geteuid() == 0 else "the file is read-only"
        )
        assert db.read_bytes() == data
    finally:
        os.chmod(db, 0o644)


@pytest.fixture
def mounted(tmp_path: Path) -> Any:
    """A small tmpfs of the test's own, and a function making it read-only (as root;
    skipped where mounting is not permitted)."""
    where = tmp_path / "mnt"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a read-only file system needs root")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(where)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")

    def read_only() -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)

    try:
        yield where, read_only
    finally:
        if subprocess.run(["umount", str(where)]).returncode != 0:
            subprocess.run(["umount", "-l", str(where)])


async def test_a_read_only_file_system_reads_and_refuses_writes(mounted: Any) -> None:
    """A database closed cleanly, on a file system remounted read-only: SQLite cannot
    create the -shm file a WAL database's readers need, so the file is opened
    `immutable=1` (there is no -wal file: the main file is the whole database). A new
    file cannot be made there. Nothing in the folder changes."""
    where, read_only = mounted
    db = where / "k.db"
    gid = await _one_game(db)
    assert sorted(p.name for p in where.iterdir()) == ["k.db"]
    data = db.read_bytes()
    read_only()
    await _reads_but_never_writes(db, gid, "its file system is read-only")
    with pytest.raises(StoreError, match=r"new\.db: it does not exist, and it cannot be created"):
        await Store.open(where / "new.db")
    assert sorted(p.name for p in where.iterdir()) == ["k.db"]
    assert db.read_bytes() == data


KILLED_WRITER = r"""
import asyncio, os, sys
from bot.service import Caller, Referee
async def main():
    ref = await Referee.open(sys.argv[1], opponents=None)
    out = await ref.new_game(Caller("u-a", "Alice", guild="g", channel="c"), "demo-steblev",
                             seed=3, side="soviet")
    print(out[0].game, flush=True)
    os._exit(0)  # no close: the game is in the -wal file, not yet in the main file
asyncio.run(main())
"""


@pytest.mark.parametrize("shm", ["with-shm", "without-shm"])
async def test_a_read_only_file_system_after_a_crash(mounted: Any, shm: str) -> None:
    """The referee died (its last writes are in the -wal file), then the file system
    became read-only: with the -shm file beside it, SQLite reads the -wal (`mode=ro`) and
    the last game is there; without it SQLite cannot read the -wal, and opening the
    main file alone would show an old state, so the file is refused, saying why."""
    where, read_only = mounted
    db = where / "k.db"
    gid = await _one_game(db)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
    )
    last = out.stdout.split()[0]
    assert (where / "k.db-wal").stat().st_size > 0
    if shm == "without-shm":
        (where / "k.db-shm").unlink()
    files = {p.name: p.read_bytes() for p in where.iterdir()}
    read_only()
    if shm == "with-shm":
        store = await Store.open(db)
        try:
            assert store.read_only == "its file system is read-only"
            assert {r.id for r in await store.games()} == {gid, last}
        finally:
            await store.close()
    else:
        with pytest.raises(StoreError, match=r"its latest writes are in .*k\.db-wal"):
            await Store.open(db)
    assert {p.name: p.read_bytes() for p in where.iterdir()} == files


async def test_a_full_disk_refuses_clearly_and_half_applies_nothing(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    ref = await Referee.open(db, opponents=None)
    try:
        g1, g2 = await _two_games(ref)
        g = await ref.game(g1)
        rows = await ref.store._all("PRAGMA page_count")
        await ref.store._db.execute(f"PRAGMA max_page_count = {rows[0][0]}")
        refused = None
        for i in range(200):
            before = (g.head, g.state.snapshot(), _log_rows(db, g1))
            side = g.awaited()[0]
            who = ALICE if side == "soviet" else BOB
            # a long note makes each input need new pages soon
            text = f"# {'x' * 3000}\ndone"
            try:
                await ref.orders(who, g1, text, key=f"full-{i}")
            except Refusal as e:
                refused = (str(e), before, f"full-{i}", who, text)
                break
        assert refused is not None, "the capped file never filled up"
        message, before, key, who, text = refused
        assert "disk holding the game database is full: nothing was saved" in message
        assert (g.head, g.state.snapshot()) == before[:2]
        assert _log_rows(db, g1) == before[2]
        assert await ref.store.request(key) is None
        assert (await ref.view(BOB, g2)).units  # reads go on
        await ref.store._db.execute("PRAGMA max_page_count = 1073741823")  # space again
        await ref.orders(who, g1, text, key=key)
        assert g.head > before[0]
        await ref.orders(ALICE, g2, "done")
        assert await ref.store.check() == "ok"
    finally:
        await ref.close()


DAMAGES = [
    "json_set(body, '$.line', 'frobnicate the map')",  # not a line the service wrote
    "json_remove(body, '$.events')",  # an input without its events
    "json_set(body, '$.events[0].seq', 'x')",  # an event number that is no number
    "'{not json'",  # not JSON at all (the CHECK bypassed)
]


async def _damaged_game(db: Path, damage: str, *, before_snapshot: bool) -> tuple[str, str]:
    """Two games; game 1's latest input damaged in the file. A game's first input writes
    a snapshot; the second input is after it, so a load reads it (issue #21: a load reads
    the latest snapshot and the records after it), the first one is not read by a load."""
    ref = await Referee.open(db, opponents=None)
    try:
        g1, g2 = await _two_games(ref)
        await ref.orders(ALICE, g1, "done")  # snapshotted
        if not before_snapshot:
            g = await ref.game(g1)
            side = g.awaited()[0]
            who = ALICE if side == "soviet" else BOB
            order = choose_input(g.state, side, random.Random(1))
            try:
                await ref.orders(who, g1, format_order(order))
            except Refusal:
                await ref.orders(who, g1, "done")
    finally:
        await ref.close()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA ignore_check_constraints = ON")
    changed = con.execute(
        f"UPDATE log SET body = {damage} WHERE game_id = ? AND seq ="
        " (SELECT MAX(seq) FROM log WHERE game_id = ? AND kind = 'input')",
        (g1, g1),
    ).rowcount
    con.close()
    assert changed == 1
    return g1, g2


@pytest.mark.parametrize("damage", DAMAGES)
async def test_a_corrupt_record_names_its_game_and_spares_the_others(
    tmp_path: Path, damage: str
) -> None:
    db = tmp_path / "k.db"
    g1, g2 = await _damaged_game(db, damage, before_snapshot=False)
    ref = await Referee.open(db, opponents=None)
    try:
        with pytest.raises(Refusal, match=rf"game {g1}.*damaged"):
            await ref.game(g1)
        with pytest.raises(Refusal, match=rf"game {g1}.*damaged"):
            await ref.orders(ALICE, g1, "done")
        listed = {x["id"]: x for x in await ref.games(ALICE)}
        assert listed[g1]["status"] == "damaged"
        assert listed[g2]["status"] == "active"
        await ref.orders(ALICE, g2, "done")
        assert (await ref.game(g2)).state.seq > 0
    finally:
        await ref.close()


@pytest.mark.parametrize("damage", DAMAGES)
async def test_a_corrupt_record_before_the_snapshot_is_named_when_it_is_read(
    tmp_path: Path, damage: str
) -> None:
    """A load does not read the records before the game's latest snapshot (issue #21): the
    game plays on from the snapshot; what reads the damaged record (its older history,
    the export, the dice check, a rollback) is refused naming the game, in words."""
    db = tmp_path / "k.db"
    g1, g2 = await _damaged_game(db, damage, before_snapshot=True)
    ref = await Referee.open(db, opponents=None)
    try:
        g = await ref.game(g1)
        assert g.state.seq > 0 and not g.record.entries
        words = rf"game {g1}: a stored record .* is damaged"
        for reads_the_whole_log in (
            ref.export(REFEREE, g1),
            ref.verify(REFEREE, g1),
            ref.mod(REFEREE, g1, "rollback 1"),
        ):
            with pytest.raises(Refusal, match=words):
                await reads_the_whole_log
        try:  # the older history reads the events only: refused when they are damaged
            await ref.history(ALICE, g1, limit=20)
            assert "$.line" in damage
        except Refusal as e:
            assert re.search(words, e.message) and "$.line" not in damage
        side = g.awaited()[0]
        order = choose_input(g.state, side, random.Random(2))
        who = ALICE if side == "soviet" else BOB
        with contextlib.suppress(Refusal):
            await ref.orders(who, g1, format_order(order))
        listed = {x["id"]: x for x in await ref.games(ALICE)}
        assert listed[g2]["status"] == "active"
        assert "kessel: game-export" in await ref.export(REFEREE, g2)
    finally:
        await ref.close()


def _clock() -> Any:
    ticks = iter(range(1_000_000))
    return lambda: 1_700_000_000.0 + next(ticks)  # the same game ids on every run


async def _long_and_short_game(db: Path) -> tuple[str, str]:
    """Game 1 with a log spanning many pages (inputs, then long announcements), game 2
    beside it."""
    ref = await Referee.open(db, opponents=None, clock=_clock())
    try:
        g1, g2 = await _two_games(ref)
        for _ in range(6):
            side = (await ref.game(g1)).awaited()[0]
            await ref.orders(ALICE if side == "soviet" else BOB, g1, "done")
        for i in range(30):
            await ref.mod(ALICE, g1, f"announce note {i}: " + "the front holds " * 90)
        return g1, g2
    finally:
        await ref.close()


def _page_size(data: bytes) -> int:
    size = int.from_bytes(data[16:18], "big")
    return 65536 if size == 1 else size


def _far_page(db: Path, gid: str, other: str) -> int:
    """A leaf page (0-based) of the log holding only records of game `gid`, at least 3
    leaves away from any holding records of `other`: a write to `other` rebalances its
    leaf with at most two neighbours, so it never reads this page."""
    con = sqlite3.connect(db)
    try:
        leaves = con.execute(
            "SELECT pageno FROM dbstat WHERE name = 'log' AND pagetype = 'leaf' ORDER BY path"
        ).fetchall()
    except sqlite3.OperationalError as e:
        pytest.skip(f"this SQLite has no dbstat table to find a game's pages: {e}")
    finally:
        con.close()
    data = db.read_bytes()
    size = _page_size(data)
    pages = [data[(n - 1) * size : n * size] for (n,) in leaves]
    others = [i for i, page in enumerate(pages) if other.encode() in page]
    far = [
        (min(abs(i - j) for j in others), leaves[i][0] - 1)
        for i, page in enumerate(pages)
        if gid.encode() in page and other.encode() not in page
    ]
    distance, page = max(far)
    assert distance >= 3, f"game {gid}'s log is too short: {far}"
    return page


def _damage(data: bytes, page: int, how: str) -> bytes:
    size = _page_size(data)
    start = page * size + (100 if page == 0 else 0)  # page 1 starts after the header
    out = bytearray(data)
    if how == "garbage":
        out[start : (page + 1) * size] = random.Random(page).randbytes((page + 1) * size - start)
    else:  # flipped bytes: the page's b-tree header
        for i in range(start, start + 8):
            out[i] ^= 0xFF
    return bytes(out)


def _folder(where: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in where.iterdir() if p.is_file()}


@pytest.mark.parametrize("how", ["garbage", "flipped"])
async def test_a_damaged_page_spoils_one_game_and_spares_the_others(
    tmp_path: Path, how: str
) -> None:
    """Damage found after opening (issue #14): reading the damaged game gives a clear
    "damaged ... restore it from a backup"; the other games are listed, load and play."""
    db = tmp_path / "k.db"
    g1, g2 = await _long_and_short_game(db)
    db.write_bytes(_damage(db.read_bytes(), _far_page(db, g1, g2), how))
    store = await Store.open(db)
    try:
        with pytest.raises(StoreError, match=r"damaged \(.*\); restore it from a backup"):
            await store.log(g1)
        assert await store.log(g2)
    finally:
        await store.close()
    ref = await Referee.open(db, opponents=None)
    try:
        with pytest.raises(Refusal, match=rf"game {g1} .*damaged.*[Rr]estore it from a backup"):
            await ref.game(g1)
        listed = {x["id"]: x for x in await ref.games(ALICE)}
        assert (listed[g1]["status"], listed[g2]["status"]) == ("damaged", "active")
        assert "kessel: game-export" in await ref.export(REFEREE, g2)
        g = await ref.game(g2)
        head = g.head
        await ref.orders(ALICE, g2, "done")
        assert g.head > head
    finally:
        await ref.close()


@pytest.mark.parametrize(
    "how, expected",
    [
        ("garbage-page-1", r"it is damaged \(database disk image is malformed\)"),
        ("flipped-page-1", r"it is damaged \(database disk image is malformed\)"),
        ("flipped-header", r"it is damaged \(file is not a database\)"),
        ("header-gone", r"it is not an SQLite database \(if it is a Kessel game database"),
    ],
)
async def test_a_damaged_file_is_refused_clearly_and_left_as_it_was(
    tmp_path: Path, how: str, expected: str
) -> None:
    db = tmp_path / "k.db"
    await _one_game(db)
    data = bytearray(db.read_bytes())
    if how == "header-gone":
        data[:100] = b"\xff" * 100
    elif how == "flipped-header":
        data[16] ^= 0xFF  # the page size
    else:
        data = bytearray(_damage(bytes(data), 0, how.split("-")[0]))
    db.write_bytes(bytes(data))
    before = _folder(tmp_path)
    with pytest.raises(StoreError, match=rf"^cannot open the game database .*k\.db: {expected}"):
        await Referee.open(db, opponents=None)
    with pytest.raises(StoreError, match="restore it from a backup"):
        await Store.open(db)
    assert _folder(tmp_path) == before  # not changed, and no -wal or -shm file made


@pytest.mark.parametrize("journal", ["delete", "wal"])
async def test_another_programs_database_is_refused_and_not_changed(
    tmp_path: Path, journal: str
) -> None:
    """Issue #14: a valid SQLite file without Kessel's schema was switched to WAL before
    being refused. It is recognised by reading it only, and left byte for byte."""
    db = tmp_path / "other.sqlite"
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA journal_mode={journal}")
    con.execute("CREATE TABLE contacts(name TEXT, phone TEXT)")
    con.execute("INSERT INTO contacts VALUES ('Anna', '555')")
    con.commit()
    con.close()
    before = _folder(tmp_path)
    assert list(before) == ["other.sqlite"]
    for _ in range(2):
        with pytest.raises(
            StoreError,
            match=r"other\.sqlite: it is another program's SQLite database \(tables: contacts\)"
            r", not a Kessel game database; it was not changed",
        ):
            await Referee.open(db, opponents=None)
    assert _folder(tmp_path) == before


BAD_PATHS: dict[str, tuple[Any, str]] = {
    "text": (lambda d: _write(d / "k.db", b"kessel " * 300), "it is not an SQLite database"),
    "random bytes": (
        lambda d: _write(d / "k.db", random.Random(1).randbytes(8192)),
        "it is not an SQLite database",
    ),
    "a few bytes": (lambda d: _write(d / "k.db", b"SQLite"), "it is not an SQLite database"),
    "a directory": (lambda d: (d / "k.db").mkdir() or d / "k.db", "it is a folder, not a file"),
    "no parent": (
        lambda d: d / "no" / "such" / "k.db",
        r"cannot create the game database .*/no/such/k\.db: the folder .*/no/such does not exist",
    ),
    "a file as parent": (
        lambda d: _write(d / "f", b"x") / "k.db",
        r"cannot open the game database .*/f/k\.db: not a directory",
    ),
    "NUL byte": (lambda d: d / "k\x00.db", r"k\\x00\.db: the file name contains a NUL byte"),
    "name too long": (lambda d: d / ("k" * 300), r"\(\d+ characters\): file name too long"),
    "path too long for SQLite": (
        lambda d: _deep(d) / "k.db",
        r"its path is too long for SQLite \(\d+ bytes; at most 504\)",
    ),
    "a device": (lambda d: Path("/dev/null"), "/dev/null: it is not a regular file"),
}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _deep(d: Path) -> Path:
    deep = d.joinpath(*(c * 200 for c in "abc"))
    deep.mkdir(parents=True)
    return deep


@pytest.mark.parametrize("case", list(BAD_PATHS))
async def test_a_path_that_is_no_game_database_is_refused_in_one_line(
    tmp_path: Path, case: str
) -> None:
    make, expected = BAD_PATHS[case]
    path = make(tmp_path)
    before = _folder(tmp_path)
    with pytest.raises(StoreError, match=expected) as info:
        await Referee.open(path, opponents=None)
    message = str(info.value)
    assert message.startswith("cannot ") and "\n" not in message and len(message) < 400
    assert _folder(tmp_path) == before


def test_a_bad_db_for_kessel_load_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    for path, expected in [
        (tmp_path / "no" / "k.db", "the folder"),
        (tmp_path, "it is a folder, not a file"),
        (_write(tmp_path / "t.db", b"text " * 100), "it is not an SQLite database"),
    ]:
        assert main(["load", "--games", "1", "--seconds", "0.1", "--db", str(path)]) == 1
        out, err = capsys.readouterr()
        assert out == ""
        assert err.count("\n") == 1 and err.startswith("kessel: cannot ") and expected in err


OPEN_BAD_FILES = r"""
import asyncio, os, random, sqlite3, sys
from pathlib import Path
from bot.store import Store, StoreError
d = Path(sys.argv[1])
(d / "text.db").write_text("not a database\n" * 50)
(d / "random.db").write_bytes(random.Random(2).randbytes(8192))
(d / "dir.db").mkdir()
con = sqlite3.connect(d / "other.db"); con.execute("CREATE TABLE t(x)"); con.commit(); con.close()
bad = ["text.db", "random.db", "dir.db", "other.db", "no/such.db", "k\0.db", "x" * 300]
for i in range(int(sys.argv[2])):
    for name in bad:
        async def attempt():
            try:
                await Store.open(d / name)
            except StoreError:
                return
            raise SystemExit(f"{name} was opened")
        asyncio.run(attempt())  # the loop closes right after each refusal
print("done", flush=True)
"""


def test_failed_opens_leave_no_thread_to_print_tracebacks(tmp_path: Path) -> None:
    """Issue #14: "Event loop is closed" tracebacks came from aiosqlite's connection
    thread after a failed open, once the event loop was gone. Nothing is printed now,
    however often a bad file is refused (a second process keeps the CPU busy)."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        run = subprocess.run(
            [sys.executable, "-X", "dev", "-c", OPEN_BAD_FILES, str(tmp_path), "15"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            timeout=120,
        )
    finally:
        busy.kill()
        busy.wait()
    assert run.stdout == "done\n", run.stderr
    assert run.stderr == ""


async def test_the_load_generator_runs_clean_on_a_few_games(store_url: str) -> None:
    """`kessel load` in small: concurrent games, legal inputs, no errors, a sound
    database; on both backends (issue #21)."""
    from bot.load import run_load

    if is_postgres_url(store_url):
        res = await run_load(games=4, seconds=1.5, rate=8.0, store=store_url)
    else:
        res = await run_load(games=4, seconds=1.5, rate=8.0, path=store_url)
    out = res.summary()
    assert out["errors"] == []
    assert out["accepted"] >= 5
    assert 0 < out["p50_ms"] <= out["p99_ms"] <= out["max_ms"]

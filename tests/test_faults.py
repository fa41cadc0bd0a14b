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
import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bot.service import Caller, Referee, Refusal
from bot.service.game import fold
from bot.store import LogRecord, Store, StoreError

ROOT = Path(__file__).resolve().parent.parent
ALICE = Caller("u-a", "Alice", guild="g", channel="c")
BOB = Caller("u-b", "Bob", guild="g", channel="c")

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


async def work(cmd):
    ref = await Referee.open(DB, opponents=None)
    gid = cmd["gid"]
    rng = random.Random(cmd["seed"])
    g = await ref.game(gid)
    say("READY", gid, g.head)
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


async def _new_game(db: Path) -> str:
    ref = await Referee.open(db, opponents=None)
    try:
        out = await ref.new_game(ALICE, "demo-steblev", seed=1, side="soviet")
        gid = out[0].game
        assert gid is not None
        await ref.join(BOB, gid, "german")
        return gid
    finally:
        await ref.close()


def _check_file(db: Path, acked: dict[str, tuple[str, int, int]]) -> dict[str, int]:
    """The file after a kill: sound, every acknowledged input once, nothing half-written.
    Returns the inputs per game."""
    con = sqlite3.connect(db)
    try:
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


def at_of(con: sqlite3.Connection, gid: str, seq: int) -> dict[str, Any]:
    row = con.execute("SELECT kind, body FROM log WHERE game_id = ? AND seq = ?", (gid, seq))
    kind, body = row.fetchone()
    return {"kind": kind, **json.loads(body)}


async def _plays_on(db: Path, games: list[str]) -> None:
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
def test_killed_during_writes_loses_and_doubles_nothing(tmp_path: Path, rounds: int) -> None:
    db = tmp_path / "crash.db"
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
                con = sqlite3.connect(db)
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


# --- a locked, read-only, full or damaged database ------------------------------------


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


async def test_a_read_only_database_refuses_writes_and_still_reads(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    ref = await Referee.open(db, opponents=None)
    g1, _ = await _two_games(ref)
    await ref.close()
    # Read-only as the operating system would make it. Root ignores file modes, so under
    # root the connection is made read-only by SQLite itself (the same SQLITE_READONLY).
    os.chmod(db, 0o444)
    try:
        ref = await Referee.open(db, opponents=None)
        try:
            if os.geteuid() == 0:
                await ref.store._db.execute("PRAGMA query_only=ON")
            g = await ref.game(g1)
            before = (g.head, g.state.snapshot())
            with pytest.raises(Refusal, match="read-only: nothing was saved"):
                await ref.orders(ALICE, g1, "done")
            assert (g.head, g.state.snapshot()) == before
            assert "Awaiting" in (await ref.status(ALICE, g1))[0].text
            assert [x["id"] for x in await ref.games(ALICE)]
            assert "recent log" in (await ref.history(ALICE, g1))[0].text
        finally:
            await ref.close()
    finally:
        os.chmod(db, 0o644)


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


@pytest.mark.parametrize(
    "damage",
    [
        "json_set(body, '$.line', 'frobnicate the map')",  # not a line the service wrote
        "json_remove(body, '$.events')",  # an input without its events
        "json_set(body, '$.events[0].seq', 'x')",  # an event number that is no number
        "'{not json'",  # not JSON at all (the CHECK bypassed)
    ],
)
async def test_a_corrupt_record_names_its_game_and_spares_the_others(
    tmp_path: Path, damage: str
) -> None:
    db = tmp_path / "k.db"
    ref = await Referee.open(db, opponents=None)
    g1, g2 = await _two_games(ref)
    await ref.orders(ALICE, g1, "done")
    await ref.close()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA ignore_check_constraints = ON")
    changed = con.execute(
        f"UPDATE log SET body = {damage} WHERE game_id = ? AND kind = 'input'", (g1,)
    ).rowcount
    con.close()
    assert changed == 1
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


async def test_a_damaged_file_is_refused_clearly(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    ref = await Referee.open(db, opponents=None)
    await _two_games(ref)
    await ref.close()
    data = bytearray(db.read_bytes())
    data[:100] = b"\xff" * 100  # the header is gone
    db.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"damaged.*restore it from a backup"):
        await Store.open(db)


async def test_the_load_generator_runs_clean_on_a_few_games(tmp_path: Path) -> None:
    """`kessel load` in small: concurrent games, legal inputs, no errors, a sound file."""
    from bot.load import run_load

    res = await run_load(games=4, seconds=1.5, rate=8.0, path=tmp_path / "load.db")
    out = res.summary()
    assert out["errors"] == []
    assert out["accepted"] >= 5
    assert 0 < out["p50_ms"] <= out["p99_ms"] <= out["max_ms"]

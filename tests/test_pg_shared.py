"""Several bot processes on one PostgreSQL database (issue #21): the store's game lock
(an advisory lock) around each command, and the game in memory caught up when another
process appended, so concurrent inputs to one game are each judged once, in order, on
the latest position, and none is lost or refused as "changed meanwhile"."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.service import Caller, Referee, Refusal
from bot.store import Store

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")
BOB = Caller("u-bob", "Bob", guild="g1", channel="c1")
RACE = ("changed meanwhile", "busy", "nothing was saved")


async def _game(ref: Referee) -> str:
    out = await ref.new_game(ALICE, "demo-steblev", seed=3, side="soviet")
    gid = out[0].game
    assert gid is not None
    await ref.join(BOB, gid, "german")
    return gid


async def _moves(ref: Referee, gid: str, count: int) -> list[str]:
    """Moves of different Soviet units, each legal in the starting position (one may
    become illegal after another: then it is refused, which is a judgement too)."""
    legal = await ref.legal(ALICE, gid)
    moves = [f"move {u} {sorted(d)[0]}" for u, d in sorted(legal["moves"].items()) if d]
    assert len(moves) >= count
    return moves[:count]


async def _inputs_and_requests(store: Store, gid: str) -> tuple[int, int]:
    inputs = await store._all(
        "SELECT count(*) FROM log WHERE game_id = ? AND kind = 'input'", (gid,)
    )
    keys = await store._all("SELECT count(*) FROM requests WHERE game_id = ?", (gid,))
    return int(inputs[0][0]), int(keys[0][0])


async def _same_everywhere(url: str, gid: str, *refs: Referee) -> None:
    """A fresh referee's load (the log folded and replayed) is what every process holds
    once it has caught up, and the replay of its events gives the same state."""
    fresh = await Referee.open(url, opponents=None)
    try:
        want = await fresh.game(gid)
        assert want.record.rebuild().snapshot() == want.state.snapshot()
        for ref in refs:
            await ref.status(ALICE, gid)  # any command catches up
            g = await ref.game(gid)
            assert g.head == want.head
            assert g.state.snapshot() == want.state.snapshot()
    finally:
        await fresh.close()


async def test_a_process_holding_a_stale_game_catches_up_before_judging(pg_url: str) -> None:
    a = await Referee.open(pg_url, opponents=None)
    b = await Referee.open(pg_url, opponents=None)
    try:
        gid = await _game(a)
        first, second = await _moves(a, gid, 2)
        await b.game(gid)  # b holds the game in memory ...
        await a.orders(ALICE, gid, first)  # ... and a moves it on
        out = await b.orders(ALICE, gid, second)  # judged on the new position
        assert out and not any(w in r.text for r in out for w in RACE)
        assert first.split()[1] in "\n".join(r.text for r in await b.history(ALICE, gid))
        await a.orders(ALICE, gid, "done")  # and back: a catches up with b's input
        assert await _inputs_and_requests(a.store, gid) == (3, 0)
        await _same_everywhere(pg_url, gid, a, b)
    finally:
        await a.close()
        await b.close()


async def test_concurrent_inputs_from_two_referees_are_each_judged_once(pg_url: str) -> None:
    a = await Referee.open(pg_url, opponents=None)
    b = await Referee.open(pg_url, opponents=None)
    try:
        gid = await _game(a)
        moves = await _moves(a, gid, 6)
        await b.game(gid)

        async def send(ref: Referee, key: str, line: str) -> tuple[str, bool, str]:
            try:
                out = await ref.orders(ALICE, gid, line, key=key)
                return key, True, "\n".join(r.text for r in out if r.to == "caller")
            except Refusal as e:
                return key, False, str(e)

        # every move sent to both referees at once, under one request id each
        jobs = []
        for i, line in enumerate(moves):
            jobs += [send(a, f"k{i}", line), send(b, f"k{i}", line)]
        results = await asyncio.gather(*jobs)
        assert not [r for r in results if any(w in r[2] for w in RACE)], results
        accepted = {k for k, ok, _ in results if ok}
        for key in accepted:  # the second copy got the first one's stored reply
            assert len({t for k, ok, t in results if k == key and ok}) == 1
        assert await _inputs_and_requests(a.store, gid) == (len(accepted), len(accepted))
        await _same_everywhere(pg_url, gid, a, b)
    finally:
        await a.close()
        await b.close()


def test_two_bot_processes_judge_one_game_exactly_once_in_order(pg_url: str) -> None:
    """Real separate processes (tests/pg_worker.py), each with the game in memory, send
    the same requests (same ids) in opposite orders at the same moment."""

    async def setup() -> tuple[str, list[str]]:
        ref = await Referee.open(pg_url, opponents=None)
        try:
            gid = await _game(ref)
            return gid, await _moves(ref, gid, 7)
        finally:
            await ref.close()

    gid, moves = asyncio.run(setup())
    orders = [[f"k{i}", line] for i, line in enumerate(moves)]
    worker = str(Path(__file__).with_name("pg_worker.py"))
    procs = [
        subprocess.Popen(
            [sys.executable, worker, pg_url, gid, json.dumps(mine)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for mine in (orders, orders[::-1])
    ]
    for p in procs:  # each has loaded the game
        assert p.stdout is not None and json.loads(p.stdout.readline()) == {"ready": True}
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert "Traceback" not in err
        results += [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(results) == 2 * len(orders)
    assert not [r for r in results if any(w in r["text"] for w in RACE)], results
    accepted = {r["key"] for r in results if r["accepted"]}
    assert accepted, results
    for key in accepted:
        assert len({r["text"] for r in results if r["key"] == key and r["accepted"]}) == 1

    async def check() -> None:
        ref = await Referee.open(pg_url, opponents=None)
        try:
            assert await _inputs_and_requests(ref.store, gid) == (len(accepted), len(accepted))
            log = await ref.store.log(gid)
            assert [r.seq for r in log] == list(range(1, len(log) + 1))  # one after another
            g = await ref.game(gid)
            assert g.record.rebuild().snapshot() == g.state.snapshot()
            # the events of the inputs follow on each other: judged in order, none twice
            seqs = [e["seq"] for r in log if r.kind == "input" for e in r.body["events"]]
            assert seqs == sorted(set(seqs))
        finally:
            await ref.close()

    asyncio.run(check())


@pytest.mark.slow
async def test_kessel_load_drives_two_bot_processes_on_one_database(pg_url: str) -> None:
    """`kessel load --store URL --processes 2` (the figures are docs/performance.md's)."""
    from bot.load import run_load

    res = await run_load(games=4, seconds=2.0, rate=10.0, store=pg_url, processes=2)
    assert res.errors == []
    assert res.accepted and res.elapsed >= 2.0
    assert res.summary()["store"] == pg_url  # (no password in it to hide)

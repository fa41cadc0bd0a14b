"""`kessel migrate` (issue #21): every game, with its records, seats, snapshots, requests,
summaries, deadlines, settings and the league tables, moved between SQLite and
PostgreSQL intact and checked; a target that is not empty refused unless told."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.cli import main
from bot.migrate import TABLES
from bot.service import Caller, Referee
from bot.store import Store

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")
BOB = Caller("u-bob", "Bob", guild="g1", channel="c1")
MOD = Caller("u-mod", "Org", server_mod=True, guild="g1", channel="c1")


async def _fill(db: str) -> list[str]:
    """Two games with moves, an idempotency key, a snapshot, a deadline, a last-seen
    mark; a server setting; a league season with its pairings and audit."""
    ref = await Referee.open(db, opponents=None, snapshot_every=1)
    try:
        ids = []
        for seed in (3, 4):
            out = await ref.new_game(ALICE, "demo-steblev", seed=seed, side="soviet")
            gid = out[0].game
            assert gid is not None
            await ref.join(BOB, gid, "german")
            legal = await ref.legal(ALICE, gid)
            unit, dests = sorted(legal["moves"].items())[0]
            await ref.orders(ALICE, gid, f"move {unit} {sorted(dests)[0]}", key=f"k-{seed}")
            ids.append(gid)
        await ref.store.set_server_setting("g1", "channel", {"x": 1})
        league = await ref.leagues.create_league(MOD, "Winter")
        assert league
        return ids
    finally:
        await ref.close()


async def _tables(db: str) -> dict[str, list[tuple[object, ...]]]:
    store = await Store.open(db, read_only=True)
    try:
        out = {}
        for t in TABLES:
            order = ("game_id, " if t.per_game else "") + t.key.format(audit=store._AUDIT_ORDER)
            rows = await store._all(f"SELECT {', '.join(t.columns)} FROM {t.name} ORDER BY {order}")
            out[t.name] = [tuple(r) for r in rows]
        return out
    finally:
        await store.close()


async def _plays_on(db: str, gid: str) -> None:
    ref = await Referee.open(db, opponents=None)
    try:
        g = await ref.game(gid)
        assert g.record.rebuild().snapshot() == g.state.snapshot()
        await ref.orders(ALICE, gid, "done")
        # the stored request id still answers from its stored reply
        assert (await ref.store.request("k-3")) is not None
    finally:
        await ref.close()


def test_sqlite_to_postgresql_and_back_is_intact(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = str(tmp_path / "kessel.db")
    ids = asyncio.run(_fill(src))
    assert main(["migrate", "--from", f"sqlite:{src}", "--to", pg_url]) == 0
    said = capsys.readouterr().out
    assert "copied 2 games" in said and "digest match" in said
    before = asyncio.run(_tables(src))
    assert before["log"] and before["snapshots"] and before["requests"] and before["leagues"]
    assert all(r[13] is not None for r in before["games"])  # summaries
    assert asyncio.run(_tables(pg_url)) == before
    back = str(tmp_path / "back.db")
    assert main(["migrate", "--from", pg_url, "--to", back]) == 0
    assert asyncio.run(_tables(back)) == before
    asyncio.run(_plays_on(pg_url, ids[0]))


def test_a_target_that_is_not_empty_is_refused_unless_replaced(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = str(tmp_path / "kessel.db")
    asyncio.run(_fill(src))
    assert main(["migrate", "--from", src, "--to", pg_url]) == 0
    capsys.readouterr()
    assert main(["migrate", "--from", src, "--to", pg_url]) == 1
    err = capsys.readouterr().err
    assert "the target is not empty (2 games" in err and "nothing was copied" in err
    assert "--replace" in err and "Traceback" not in err
    assert main(["migrate", "--from", src, "--to", pg_url, "--replace"]) == 0
    assert asyncio.run(_tables(pg_url)) == asyncio.run(_tables(src))


def test_bad_sources_and_targets_are_one_line(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "none.db")
    assert main(["migrate", "--from", missing, "--to", pg_url]) == 1
    assert "there is no game database" in capsys.readouterr().err
    src = str(tmp_path / "kessel.db")
    asyncio.run(_fill(src))
    assert main(["migrate", "--from", src, "--to", f"sqlite:{src}"]) == 1
    assert "the same database" in capsys.readouterr().err
    nowhere = "postgresql://kessel:secret@127.0.0.1:1/x"
    assert main(["migrate", "--from", src, "--to", nowhere]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open the game database" in err
    assert "secret" not in err and "Traceback" not in err
    no_db = pg_url.rsplit("/", 1)[0] + "/no_such_db"
    assert main(["migrate", "--from", src, "--to", no_db]) == 1
    assert "does not exist" in capsys.readouterr().err

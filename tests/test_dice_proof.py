"""Verifiable dice (issue #20): the seed is committed to at the start, revealed at the end,
and every logged roll is recomputed from it; a tampered log is caught."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import play, scenario

from bot.cli import main
from bot.service import Caller, Referee, Refusal
from engine.core import Event
from engine.dice import audit, commitment, seeded_face

ALICE = Caller("u-a", "Alice", guild="g", channel="c")
BOB = Caller("u-b", "Bob", guild="g", channel="c")
GERMAN_COMBAT = {"turn": 1, "phase": "combat", "active": "german"}


def _fight() -> list[Event]:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 6},
        {"id": "s-a", "hex": "0505", "sp": 2},
    ]
    return play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505").events


def test_commitment_is_a_sha256_of_the_seed() -> None:
    c = commitment(12345)
    assert c.startswith("sha256:") and len(c) == len("sha256:") + 64
    assert c == commitment(12345) != commitment(12346)


def test_audit_recomputes_every_roll_from_the_seed() -> None:
    events = _fight()
    rolls = [e for e in events if e.kind == "dice_rolled"]
    assert rolls
    found = audit(0, (), events)
    assert found.ok and found.rolls == len(rolls) and found.faces == 2 * len(rolls)
    assert rolls[0].data["faces"] == [seeded_face(0, 0), seeded_face(0, 1)]
    assert not audit(1, (), events).ok  # another seed gives other faces


def test_audit_catches_a_changed_face_and_counts_forced_ones() -> None:
    events = _fight()
    e = next(x for x in events if x.kind == "dice_rolled")
    faces = list(e.data["faces"])
    faces[0] = faces[0] % 6 + 1
    bad = [Event(x.seq, x.kind, {**x.data, "faces": faces}) if x is e else x for x in events]
    found = audit(0, (), bad)
    assert not found.ok and found.wrong[0][0] == e.seq and "the seed gives" in found.wrong[0][1]
    units = [{"id": "g-a", "hex": "0604", "sp": 6}, {"id": "s-a", "hex": "0505", "sp": 2}]
    forced = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(6, 6))
    found = audit(0, (6, 6), forced.events)
    assert found.ok and found.forced == 2


async def _finished(db: Path | str) -> str:
    ref = await Referee.open(db, opponents=None)
    try:
        out = await ref.new_game(ALICE, "demo-steblev", side="soviet")  # no seed: the referee's
        gid = out[0].game
        assert gid is not None
        started = await ref.join(BOB, gid, "german")
        text = "\n".join(r.text for r in started)
        g = await ref.game(gid)
        assert g.seed_by == "referee" and g.commitment == commitment(g.record.seed)
        assert f"committed to as {g.commitment}" in text and str(g.record.seed) not in text
        await ref.orders(ALICE, gid, "move s-180 0307\ndone")
        await ref.orders(ALICE, gid, "attack s-180 -> 0306")
        with pytest.raises(Refusal, match="not over"):
            await ref.verify(BOB, gid)  # the seed is still secret
        over = await ref.resign(BOB, gid)
        said = "\n".join(r.text for r in over)
        assert f"Dice seed revealed: {g.record.seed}" in said
        (report,) = await ref.verify(BOB, gid)
        assert "✔ the seed matches the commitment" in report.text
        assert "✔ all" in report.text and "✘" not in report.text
        return gid
    finally:
        await ref.close()


async def test_issue_20_a_game_commits_reveals_and_verifies(store_url: str) -> None:
    await _finished(store_url)


def test_issue_20_kessel_verify_detects_a_tampered_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "k.db"
    gid = asyncio.run(_finished(db))  # `kessel verify` runs its own event loop
    assert main(["verify", gid, "--db", str(db)]) == 0
    assert "✔ all" in capsys.readouterr().out
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seq, body FROM log WHERE game_id = ?", (gid,)).fetchall()
    for seq, body in rows:
        data = json.loads(body)
        rolled = [e for e in data.get("events") or [] if e.get("kind") == "dice_rolled"]
        if rolled:
            faces = rolled[0]["data"]["faces"]
            faces[0] = faces[0] % 6 + 1  # a die turned over after the fact
            con.execute(
                "UPDATE log SET body = ? WHERE game_id = ? AND seq = ?",
                (json.dumps(data), gid, seq),
            )
            break
    else:
        pytest.fail("no roll in the log")
    con.commit()
    con.close()
    assert main(["verify", gid, "--db", str(db)]) == 2
    out = capsys.readouterr().out
    assert "✘ 1 roll(s) do NOT come from the seed" in out
    assert main(["verify", "nope", "--db", str(db)]) == 1
    assert main(["verify", gid, "--db", str(tmp_path / "none.db")]) == 1

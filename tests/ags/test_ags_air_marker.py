"""AGS-K 25.24 (issue #19): no air supply on a town a Soviet unit holds, and a Soviet unit
moved into a town with an Air marker removes the marker, while the units it supplied stay
in supply for the Game-Turn (25.23; K175)."""

from __future__ import annotations

from agsstart import korsun, ok, refused, start
from test_ags_air_supply import _isolate, _to_german_mech

from bot import systems as bot_systems
from engine import orders as o
from engine.ags import game
from engine.record import GameRecord


def _air_supplied() -> tuple[GameRecord, str, str]:
    rec = start(korsun(), 1)
    _to_german_mech(rec)
    uid, town = _isolate(rec)
    rec.state.ext["air"] = {"soviet": 3, "german": 3}  # a mud turn's (a test's shortcut)
    ok(rec, "german", o.Air(mission="supply", hex=town, amount=1))
    assert rec.state.ext["air_markers"] == [town]
    return rec, uid, town


def test_25_24_no_air_supply_on_a_town_held_by_a_soviet_unit() -> None:
    rec = start(korsun(), 1)
    _to_german_mech(rec)
    rec.state.ext["air"] = {"soviet": 3, "german": 3}
    b = game.board(rec.state)
    held = next(
        u.hex
        for u in rec.state.on_map("soviet")
        if u.hex is not None and b.terrain_at(u.hex) == "town"
    )
    r = refused(rec, "german", o.Air(mission="supply", hex=held, amount=1))
    assert "AGS-K 25.24" in str(r)
    assert rec.state.ext["air"]["german"] == 3  # nothing spent


def test_25_24_k175_a_soviet_unit_entering_the_town_removes_the_air_marker() -> None:
    rec, uid, town = _air_supplied()
    ok(rec, "german", o.Done())  # on to Game-Turn 2, the Soviet Initial Movement Phase
    assert rec.system.phase(rec.state).title == "the Soviet Initial Movement Phase, turn 2"
    assert rec.state.ext["air_markers"] == [town]  # 25.27: until the next Air Power Phase
    # the supplied unit has left the town (a test's set-up); a Soviet unit beside it enters
    rec.state.units[uid].hex = next(
        h
        for h in game.board(rec.state).hexes()
        if not rec.state.units_at(h)
        and all(not rec.state.units_at(n) for n in game.board(rec.state).grid.neighbours(h))
    )
    soviet = next(
        u.id
        for n in game.board(rec.state).grid.neighbours(town)
        for u in rec.state.units_at(n)
        if u.side == "soviet" and town in rec.system.legal_moves(rec.state, u.id)
    )
    r = ok(rec, "soviet", o.Move(units=(soviet,), path=(town,)))
    removed = [e for e in r.events if e.kind == "air_marker_removed"]
    assert [e.data["hex"] for e in removed] == [town] and removed[0].data["rule"] == "AGS-K 25.24"
    assert rec.state.ext["air_markers"] == []
    # 25.23, 25.24: the unit it supplied is still in supply this Game-Turn
    assert game.in_supply(rec.state, rec.state.units[uid])
    words = bot_systems.get("ags").describer
    assert words is not None and "Air marker" in words.event(removed[0])

"""Air supply and Heavy Equipment (AGS-K 25.2, 25.3; A37, A38; K164): the German Air Power
Phase at the end of the German Mechanized Movement Phase, Air markers on towns, isolated
units air supplied through the next Game-Turn with a Heavy Equipment marker the first
time, its defence doubled, flipped and put under as the unit moves, and VPs at the end."""

from __future__ import annotations

from functools import cache

import pytest
from agsstart import start

from engine import orders as o
from engine.ags import air, combat, game
from engine.core import Applied, Rejected, Rejection
from engine.model import Setup
from engine.record import GameRecord
from scenarios import load_scenario


@cache
def korsun() -> Setup:
    return load_scenario("ags-korsun")


def _to_german_mech(rec: GameRecord) -> None:
    while rec.system.phase(rec.state).title != "the German Mechanized Movement Phase, turn 1":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        r = rec.submit(side, order)
        assert isinstance(r, Applied), r


def _isolate(rec: GameRecord) -> tuple[str, str]:
    """Put a German unit alone on a town and Soviet units on every hex around it: no line
    leaves it (12.1) and it is far from the German units: isolated (25.1)."""
    state = rec.state
    b = game.board(state)
    uid = "g-82"
    taken = {u.hex for u in state.on_map()}
    soviets = [u for u in state.on_map("soviet") if not game.spec(state, u.id).is_hq]
    for h in sorted(b.hexes(), reverse=True):
        ring = [x for x in b.grid.neighbours(h)]
        if (
            b.terrain_at(h) != "town"
            or h in taken
            or len(ring) < 6
            or any(x in taken for x in ring)
        ):
            continue
        state.units[uid].hex = h
        for x, s in zip(ring, soviets, strict=False):
            s.hex = x
        if any(u.id == uid for u in air.isolated_by_line(state)):
            return uid, h
    raise AssertionError("no town isolates a unit")


def test_k164_air_supply_in_the_german_air_power_phase_gives_heavy_equipment() -> None:
    rec = start(korsun(), 1)
    r = rec.submit("soviet", o.Air(mission="supply", hex="0513", amount=1))
    assert isinstance(r, Rejection) and "K164" in str(r)  # not the German Air Power Phase
    _to_german_mech(rec)
    uid, town = _isolate(rec)
    r = rec.submit("german", o.Air(mission="supply", hex=town, amount=1))
    assert isinstance(r, Rejection) and "25.26" in str(r)  # snow: no air points
    rec.state.ext["air"] = {"soviet": 3, "german": 3}  # a mud turn's (a test's shortcut)
    clear = next(
        h for h in game.board(rec.state).hexes() if game.board(rec.state).terrain_at(h) == "clear"
    )
    r = rec.submit("german", o.Air(mission="supply", hex=clear, amount=1))
    assert isinstance(r, Rejection) and "not a town" in str(r)
    r2 = rec.submit("german", o.Air(mission="supply", hex=town, amount=1))
    assert isinstance(r2, Applied), r2
    e = next(e for e in r2.events if e.kind == "air_supply").data
    assert uid in e["units"] and uid in e["heavy"] and e["until"] == 2  # 25.23, 25.28
    assert rec.state.ext["air"]["german"] == 2  # 25.25: an air point spent
    u = rec.state.units[uid]
    assert game.in_supply(rec.state, u) and air.heavy(rec.state, uid) == 1
    # 25.33: the defence doubled
    _s, why = combat.unit_defence(rec.state, u, [], True, False)
    assert "Heavy Equipment (AGS-K 25.33)" in why
    r3 = rec.submit("german", o.Air(mission="supply", hex=town, amount=1))
    assert isinstance(r3, Rejection) and "AGS-K 25.22" in str(r3)  # one marker per town
    words = rec.system  # the describer says it
    from bot import systems as bot_systems

    d = bot_systems.get("ags").describer
    assert d is not None and "air supply" in d.event(
        next(x for x in r2.events if x.kind == "air_supply")
    )
    assert words.phase(rec.state).kind == "movement"


def test_25_34_heavy_equipment_flips_then_goes_under_and_the_unit_may_not_attack() -> None:
    rec = start(korsun(), 1)
    _to_german_mech(rec)
    uid, town = _isolate(rec)
    rec.state.ext["air"] = {"soviet": 3, "german": 3}
    assert isinstance(rec.submit("german", o.Air(mission="supply", hex=town, amount=1)), Applied)
    state = rec.state
    from engine.ags.reducer import reduce
    from engine.core import Ctx

    ctx = Ctx(state, reduce)
    for want in (2, 3):  # 25.34: each move flips it; the second puts it under
        ctx.emit("moved", side="german", unit=uid, path=[town], cost="0", stops=False)
        assert air.heavy(ctx.state, uid) == want
    state = ctx.state
    assert not game.in_supply(state, state.units[uid])  # 25.36: perpetually out of supply
    state.ext["defended"] = []
    with pytest.raises(Rejected) as why:
        combat.check_attack(state, "german", (uid,), ("0412",), 0)
    assert "Heavy Equipment" in why.value.rejection.message and "25.34" in why.value.rejection.rule


def test_25_36_heavy_equipment_under_a_unit_scores_at_the_end() -> None:
    from engine.ags.reducer import reduce
    from engine.ags.scoring import end_game
    from engine.core import Ctx

    rec = start(korsun(), 1)
    state = rec.state.clone()
    uid = "g-82"
    state.ext["heavy"] = {uid: 3}
    ctx = Ctx(state, reduce)
    end_game(ctx)
    awards = [e.data for e in ctx.events if e.kind == "vp_awarded"]
    assert any(
        uid in a["why"] and "Heavy Equipment" in a["why"] and "25.36" in a["rule"] for a in awards
    )


def test_25_35_heavy_equipment_comes_off_a_unit_in_supply_at_the_german_player_turn() -> None:
    from engine.ags.reducer import reduce
    from engine.core import Ctx

    rec = start(korsun(), 1)
    state = rec.state.clone()
    uid = "g-82"  # at its set-up hex (1113), in supply
    state.ext["heavy"] = {uid: 2}
    ctx = Ctx(state, reduce)
    air.start_of_german_player_turn(ctx)
    assert air.heavy(ctx.state, uid) == 0

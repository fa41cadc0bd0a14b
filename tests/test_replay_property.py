"""Invariants over random play (DESIGN §2): every legal move the engine lists is accepted,
replaying the events rebuilds the identical state, no unit vanishes without an event, no
side ends a phase over-stacked, and a view never names a hidden enemy unit."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Applied
from engine.orders import Done, Move
from engine.record import GameRecord
from engine.view import view
from engine.wb95.flow import awaited_sides
from engine.wb95.game import legal_moves
from engine.wb95.stacking import overstacked
from scenarios import load_scenario


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_legal_play_replays_identically(data: st.DataObject) -> None:
    setup = load_scenario("demo-steblev")
    rec = GameRecord(setup, seed=data.draw(st.integers(0, 1000)))
    for _ in range(data.draw(st.integers(1, 40))):
        if rec.state.over:
            break
        side = awaited_sides(rec.state)[0]
        movers = sorted(u.id for u in rec.state.on_map(side) if legal_moves(rec.state, u.id))
        if movers and data.draw(st.integers(0, 3)) > 0:
            uid = data.draw(st.sampled_from(movers))
            dest = data.draw(st.sampled_from(sorted(legal_moves(rec.state, uid))))
            result = rec.submit(side, Move(units=(uid,), path=(dest,)))
            assert isinstance(result, Applied), str(result)
        else:
            on_map_before = {u.id for u in rec.state.on_map()}
            result = rec.submit(side, Done())
            if isinstance(result, Applied):
                assert not overstacked(rec.state, side)
                # only with an event: e.g. a surrender in the Supply Phase (10.2.6)
                gone = {e.data["unit"] for e in result.events if e.kind == "unit_eliminated"}
                assert {u.id for u in rec.state.on_map()} == on_map_before - gone
        for viewer in setup.sides:
            v = view(rec.state, viewer)
            enemy = setup.enemy_of(viewer)
            shown = {u.id for u in v.units if u.side == enemy and u.id}
            tops = {
                rec.state.units_at(h)[0].id
                for h in v.stacks
                if rec.state.units_at(h)[0].side == enemy
            }
            assert shown <= tops | {u.id for u in rec.state.units.values() if u.eliminated}
    assert rec.rebuild().snapshot() == rec.state.snapshot()

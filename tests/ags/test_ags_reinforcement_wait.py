"""AGS-K 26.0 (issue #19, K176): a reinforcement whose whole entry area is held by the
enemy (or has no room, AGS 7.0) cannot enter on its Game-Turn; it does not hold up the
phase and enters at its side's first Initial Movement Phase with a free hex."""

from __future__ import annotations

from agsstart import korsun, ok, refused, start

from engine import orders as o
from engine.ags import game, reinforcements


def test_26_0_k176_a_reinforcement_with_no_free_entry_hex_waits() -> None:
    rec = start(korsun(), 1)
    while rec.system.phase(rec.state).title != "the Soviet Initial Movement Phase, turn 3":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)
    s = rec.state
    area_l = s.setup.results.entry_areas["L"]
    germans = [u for u in s.on_map("german")][: len(area_l)]
    for u, h in zip(germans, area_l, strict=True):
        u.hex = h  # the German army holds every hex of entry area L (a test's set-up)
    corps = s.units["s-gd-tc-11"]
    assert corps in reinforcements.due(s, "soviet")
    assert reinforcements.entry_hexes(s, corps) == []
    r = refused(rec, "soviet", o.Enter(units=("s-gd-tc-11",), where=area_l[0]))
    assert "AGS-K 26.0" in str(r)
    why = rec.system.done_refusal(s, "soviet")
    assert why is not None and "s-gd-tc-11" not in why.message  # the area-K units only
    # the next Game-Turn, with a hex of L free again, it is due and must enter
    germans[0].hex = "0226"
    s.turn = 4  # (a test's shortcut to the next Soviet Initial Movement Phase)
    assert corps in reinforcements.due(s, "soviet")
    assert reinforcements.entry_hexes(s, corps) == [area_l[0]]
    ok(rec, "soviet", o.Enter(units=("s-gd-tc-11",), where=area_l[0]))


def test_15_0_a_reinforcement_is_in_supply_in_the_player_turn_it_enters() -> None:
    rec = start(korsun(), 1)
    while rec.system.phase(rec.state).title != "the Soviet Initial Movement Phase, turn 3":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)
    area_l = rec.state.setup.results.entry_areas["L"]
    ok(rec, "soviet", o.Enter(units=("s-gd-tc-11",), where=area_l[0]))
    s = rec.state
    for hq in ("s-hq-6tk", "s-hq-2tk", "s-hq-40", "s-hq-27"):  # far away (a test's set-up)
        s.units[hq].hex = "3626"
    corps = s.units["s-gd-tc-11"]
    assert game.commanding_hqs(s, corps) == []  # no line of communications (11.34) ...
    assert game.in_supply(s, corps)  # ... yet in supply this player-turn (AGS 15.0)
    s.ext["fresh"] = []  # as at the next player-turn (reducer: `fresh` is cleared)
    assert not game.in_supply(s, corps)

"""The last cases of the issue #19 audit (docs/ags.md, "Rules coverage") that had no test of
their own: entering an enemy zone of control costs nothing extra (AGS 8.22), friendly zones
of control and a second enemy one change nothing (AGS 8.24), and the Out of Supply marker
comes with the supply check and goes with it (AGS 12.13, 12.21; A11)."""

from __future__ import annotations

from fractions import Fraction

from agsstart import korsun, ok, start

from engine import orders as o
from engine.ags import game, movement, moves
from engine.record import GameRecord
from engine.view import view

# s-rd-136 (a rifle division, 5 MP) from 0809 through clear hexes to 0512, beside the
# Germans in 0513 (g-4-6 and g-64-16); 0510 and 0511 lie in the Soviet units' own ZoC
PATH = ("0709", "0609", "0510", "0511", "0512")


def _costs(rec: GameRecord, uid: str, path: tuple[str, ...]) -> list[Fraction]:
    s = rec.state
    sc, u = game.scenario(s), s.units[uid]
    cls = game.spec(s, uid).move_class
    assert u.hex is not None
    return [
        Fraction(movement.step_cost(sc.board, sc.tec, cls, a, b) or 0)
        for a, b in zip((u.hex, *path[:-1]), path, strict=True)
    ]


def test_8_22_entering_an_enemy_zone_of_control_costs_only_the_terrain() -> None:
    rec = start(korsun(), 1)
    s = rec.state
    u = s.units["s-rd-136"]
    assert u.hex == "0809" and moves.allowance(s, u) == 5
    ezoc = game.enemy_zoc(s, "soviet")
    assert PATH[-1] in ezoc and not set(PATH[:-1]) & ezoc
    costs = _costs(rec, "s-rd-136", PATH)
    assert costs == [1, 1, 1, 1, 1]  # clear hexes (AGS 10.4): the last one too
    reach = moves.legal_moves(s, "s-rd-136")
    assert reach["0512"].cost == 5 and reach["0512"].stops  # its whole allowance, no more
    # every enemy-controlled hex it may reach costs what the terrain along its path costs
    for h, r in reach.items():
        if r.stops:
            assert r.cost == sum(_costs(rec, "s-rd-136", r.path)), h
    done = ok(rec, "soviet", o.Move(units=("s-rd-136",), path=PATH))
    moved = next(e.data for e in done.events if e.kind == "moved")
    assert moved["path"][-1] == "0512" and Fraction(moved["cost"]) == 5 and moved["stops"]
    assert rec.state.units["s-rd-136"].hex == "0512"
    assert rec.state.units["s-rd-136"].mp_spent == 5  # 8.22: with its last MP, none more


def test_8_24_friendly_zones_and_a_second_enemy_zone_change_nothing() -> None:
    rec = start(korsun(), 1)
    s = rec.state
    b = game.board(s)
    own = game.enemy_zoc(s, "german")  # the hexes the Soviet units control
    assert {"0510", "0511"} <= own
    reach = moves.legal_moves(s, "s-rd-136")
    for h in ("0510", "0511"):  # the Soviets' own ZoC: no stop, no extra cost
        assert not reach[h].stops and reach[h].cost == len(reach[h].path)
    # 0512 lies in the ZoC of two German units (both in 0513); 0611 in that of one (0711)
    two = [g.id for g in s.on_map("german") if g.hex and b.grid.adjacent(g.hex, "0512")]
    one = [g.id for g in s.on_map("german") if g.hex and b.grid.adjacent(g.hex, "0611")]
    assert sorted(two) == ["g-4-6", "g-64-16"] and one == ["g-79-16"]
    assert reach["0512"].stops and reach["0611"].stops
    assert reach["0512"].cost == reach["0611"].cost == 5  # the same as with one (8.22)
    # and the German units are not stopped by their own ZoCs either, in their own phase
    ok(rec, "soviet", o.Done())
    ok(rec, "soviet", o.Done())
    ok(rec, "soviet", o.Done())
    s = rec.state
    assert rec.system.phase(s).title == "the German Initial Movement Phase, turn 1"
    gz = game.enemy_zoc(s, "soviet")  # the hexes the German units control
    free = [
        (uid, h, r)
        for g in s.on_map("german")
        for uid in [g.id]
        for h, r in moves.legal_moves(s, uid).items()
        if h in gz and h not in game.enemy_zoc(s, "german") and len(r.path) > 1
    ]
    assert free and all(not r.stops for _, _, r in free)


def _until(rec: GameRecord, title: str) -> None:
    while rec.system.phase(rec.state).title != title:
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)


def _marked(rec: GameRecord, uid: str) -> dict[str, int | None]:
    """The Out of Supply marker as each viewer sees it (AGS 12.13; nothing is hidden)."""
    out = {}
    for viewer in ("soviet", "german", "spectator"):
        (u,) = [x for x in view(rec.state, viewer).units if x.id == uid]
        out[viewer] = u.oos
    return out


def test_12_13_the_out_of_supply_marker_comes_and_goes_with_the_supply_check() -> None:
    rec = start(korsun(), 1)
    s = rec.state
    uid = "s-gd-rd-28"
    assert s.units[uid].hex == "1502" and game.in_supply(s, s.units[uid])
    ok(rec, "soviet", o.Move(units=(uid,), path=("1501",)))  # beyond every HQ's reach
    s = rec.state
    assert not game.in_supply(s, s.units[uid])  # 11.34, 12.14: no line to an HQ
    assert _marked(rec, uid) == {"soviet": 0, "german": 0, "spectator": 0}  # judged later
    _until(rec, "the Soviet Mechanized Movement Phase, turn 1")
    checked = [e for e in rec.events if e.kind == "supply_checked"][-1].data
    assert checked["side"] == "soviet" and uid in checked["out_of_supply"]
    assert _marked(rec, uid) == {"soviet": 1, "german": 1, "spectator": 1}  # 12.13: placed
    _until(rec, "the Soviet Initial Movement Phase, turn 2")
    assert _marked(rec, uid)["soviet"] == 1  # still out of supply when judged again
    u = rec.state.units[uid]
    full = game.step(rec.state, u).movement
    assert moves.allowance(rec.state, u) == full // 2  # 12.21: halved this phase
    ok(rec, "soviet", o.Move(units=(uid,), path=("1502",)))
    assert game.in_supply(rec.state, rec.state.units[uid])
    assert _marked(rec, uid)["soviet"] == 1  # the marker stays until supply is judged
    _until(rec, "the Soviet Mechanized Movement Phase, turn 2")
    checked = [e for e in rec.events if e.kind == "supply_checked"][-1].data
    assert uid not in checked["out_of_supply"]
    assert _marked(rec, uid) == {"soviet": 0, "german": 0, "spectator": 0}  # 12.13: removed

"""Cases the audit of issue #19 (docs/ags.md, "Rules coverage") found enforced but without
a test of their own: supply for an overrun (AGS 6.12), a supported corps' overrun (AGS-K
24.21), the engaged result (AGS 9.69), an HQ and enemy zones of control (AGS 11.23),
command for an attack (AGS 9.15, 11.33)."""

from __future__ import annotations

from agsstart import korsun, ok, refused, start

from engine import orders as o
from engine.ags import game, moves, retreat
from engine.record import GameRecord


def _german_turn_1(dice: tuple[int, ...] = ()) -> GameRecord:
    rec = start(korsun(), 1, dice=dice)
    while rec.system.phase(rec.state).title != "the German Initial Movement Phase, turn 1":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)
    return rec


def test_6_12_a_unit_out_of_supply_as_the_phase_began_may_not_overrun() -> None:
    rec = _german_turn_1()
    rec.state.ext["out_of_supply"] = ["g-11-6"]  # as judged at the phase start (shortcut)
    r = refused(rec, "german", o.Attack(units=("g-11-6", "g-2-16", "g-114-6"), target="0213"))
    assert "AGS 6.12, 12.21" in str(r) and "g-11-6" in str(r)


def test_24_21_a_supported_corps_overruns_at_face_value() -> None:
    rec = start(korsun(), 1, dice=(1,))
    assert "s-gd-tc-5" in rec.state.ext["supported"]  # AGS-K 24.2: the corps in 0611
    ok(rec, "soviet", o.Attack(units=("s-gd-tc-5",), target="0711"))  # an overrun (6.0)
    res = next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")
    line = next(x for x in res["lines"] if x["unit"] == "s-gd-tc-5")
    assert line["strength"] == 36 and "x2 supported (AGS-K 24.2)" in line["why"]
    assert res["attack"] == 18  # 18-13 doubled, then halved for the overrun: its face value
    assert res["overrun"] and res["column"] == "6-1"  # 18 to 3 (g-79-16, 2-3 in clear)


def test_9_69_engaged_each_side_loses_a_step_with_no_retreat_and_no_advance() -> None:
    rec = start(korsun(), 1, dice=(4,))
    ok(rec, "soviet", o.Done())
    ok(rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    res = next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")
    assert (res["column"], res["result"]) == ("1-1", "eng")
    (d,) = rec.state.pending
    assert d.side == "german" and not d.options["retreat"]
    r = refused(rec, "german", o.Retreat(unit="g-4-6", path=("0514",)))
    assert "AGS 9.69" in str(r)
    ok(rec, "german", o.Losses(units=("g-4-6",)))
    (d,) = rec.state.pending
    assert d.side == "soviet" and d.options["steps"] == 1
    ok(rec, "soviet", o.Losses(units=("s-gd-cd-1",)))
    assert not rec.state.pending  # no advance after an engaged result
    assert rec.state.units["g-4-6"].cel == 1 and rec.state.units["s-gd-cd-1"].cel == 1


def test_11_23_an_hq_enters_an_enemy_zone_only_where_a_friendly_combat_unit_is() -> None:
    rec = start(korsun(), 1)
    s = rec.state
    ezoc = game.enemy_zoc(s, "soviet")
    assert "0413" in ezoc and "0412" in ezoc  # both next to the Germans in 0513
    assert "0413" in moves.legal_moves(s, "s-rd-58")  # a combat unit may
    reach = moves.legal_moves(s, "s-hq-40")
    assert "0413" not in reach  # empty: the HQ may not
    assert "0412" in reach  # s-gd-cd-1 is there
    r = refused(rec, "soviet", o.Move(units=("s-hq-40",), path=("0413",)))
    assert "s-hq-40 cannot reach 0413" in str(r)


def test_9_15_11_33_a_soviet_unit_attacks_only_within_an_hq_command_radius() -> None:
    rec = start(korsun(), 1)
    s = rec.state
    s.units["s-rd-375"].hex = "0215"  # behind the German line, beside 0214 (a test's set-up)
    assert game.commanding_hqs(s, s.units["s-rd-375"]) == []  # German ZoCs cut every line
    ok(rec, "soviet", o.Done())
    r = refused(rec, "soviet", o.Attack(units=("s-rd-375",), target="0214"))
    assert "AGS 9.15, 11.33" in str(r)
    assert not game.in_supply(rec.state, rec.state.units["s-rd-375"])  # 11.34, 12.14


def test_6_17_an_hq_in_the_overrunners_hex_neither_moves_in_nor_stops() -> None:
    rec = start(korsun(), 1, dice=(2,))
    rec.state.units["s-hq-2tk"].hex = "0611"  # with the supported corps (a test's set-up)
    ok(rec, "soviet", o.Attack(units=("s-gd-tc-5",), target="0711"))  # 36 / 2 to 3: 6-1, -/2
    ok(rec, "german", o.Losses(units=("g-79-16", "g-79-16")))  # both steps: eliminated
    s = rec.state
    assert s.units["s-gd-tc-5"].hex == "0711"  # 6.24: the overrunner moves in
    assert s.units["s-hq-2tk"].hex == "0611"  # 6.17: the HQ took no part
    assert moves.why_immobile(s, s.units["s-hq-2tk"]) is None


# a stretch of major river in the north, away from both armies at the start
RIVER = ("1903", "2002")  # a major river hexside, no road across it


def test_5_14_a22_one_hex_always_even_across_a_major_river() -> None:
    rec = start(korsun(), 1)
    s = rec.state
    h, n = RIVER
    assert game.board(s).feature(h, n) == "major-river"
    s.units["s-rd-375"].hex = h
    s.ext["out_of_supply"] = ["s-rd-375"]  # out of supply as the phase began: 5 halved, 2
    assert moves.allowance(s, s.units["s-rd-375"]) == 2
    reach = moves.legal_moves(s, "s-rd-375")
    assert reach[n].cost == 3 and reach[n].path == (n,)  # 1 + 2 for the river (A1)
    beyond = [r for r in reach.values() if r.path[0] == n and len(r.path) > 1]
    assert beyond == []  # only that one hex, with no MP spent before (5.14)
    ok(rec, "soviet", o.Move(units=("s-rd-375",), path=(n,)))


def test_10_13_a23_no_move_across_a_major_river_into_the_zoc_of_an_enemy_beside_it() -> None:
    rec = start(korsun(), 1)
    s = rec.state
    b = game.board(s)
    h, n = RIVER
    s.units["s-rd-375"].hex = h
    assert n in moves.legal_moves(s, "s-rd-375")
    guard = next(
        g
        for g in b.grid.neighbours(n)
        if g != h and not b.grid.adjacent(g, h) and b.feature(g, n) is None
        and any(b.feature(g, m) == "major-river" for m in b.grid.neighbours(g))
    )  # fmt: skip
    s.units["g-82"].hex = guard  # a German unit beside the river, its ZoC on n
    assert n in game.enemy_zoc(s, "soviet") and h not in game.enemy_zoc(s, "soviet")
    reach = moves.legal_moves(s, "s-rd-375")
    assert reach[n].path != (n,)  # not across the river: only around it, by dry hexsides
    s.units["s-rd-373"].hex = n  # a friendly unit in the hex lifts the bar (10.13)
    assert moves.legal_moves(s, "s-rd-375")[n].path == (n,)
    s.units["s-rd-373"].hex = "3512"
    done = ok(rec, "soviet", o.Move(units=("s-rd-375",), path=(n,)))
    moved = next(e.data for e in done.events if e.kind == "moved")
    assert moved["path"] == list(reach[n].path) and moved["path"][0] != n and moved["stops"]


def test_9_78_no_retreat_across_a_major_river_while_another_way_exists() -> None:
    rec = start(korsun(), 1)
    s = rec.state
    b = game.board(s)
    h, n = RIVER
    u = s.units["g-82"]
    u.hex = h
    paths = retreat.legal_paths(s, u, 1, h)
    assert paths and (n,) not in paths  # the dry hexes first
    # Soviet units on every other neighbour: the river is the only way left
    soviets = [x for x in s.on_map("soviet") if not game.spec(s, x.id).is_hq]
    others = [m for m in b.grid.neighbours(h) if m != n and not b.blocked(m)]
    for x, m in zip(soviets, others, strict=False):
        x.hex = m
    assert n not in game.enemy_zoc(s, "german")  # their ZoCs stop at the river (8.12)
    assert retreat.legal_paths(s, u, 1, h) == [(n,)]


def _german_stack_overruns_0213_after_hq_40(dice: tuple[int, ...]) -> GameRecord:
    """g-4-6 and g-64-16, put beside s-hq-40 (0411), overrun it (-/1): it retreats to
    0312 disrupted, and s-rd-31 (0213), in command of it alone, is out of supply (6.32)."""
    rec = _german_turn_1(dice)
    s = rec.state
    for uid in ("g-4-6", "g-64-16"):
        s.units[uid].hex = "0410"
        s.ext["start_hex"][uid] = "0410"  # they began the phase there (a test's set-up)
    ok(rec, "german", o.Attack(units=("g-4-6", "g-64-16"), target="0411"))
    ok(rec, "soviet", o.Retreat(unit="s-hq-40", path=("0312",)))
    return rec


def test_6_21_the_defender_of_an_overrun_is_in_supply_or_not_at_the_instant() -> None:
    rec = _german_stack_overruns_0213_after_hq_40((1, 1))
    ok(rec, "german", o.Attack(units=("g-11-6", "g-2-16", "g-114-6"), target="0213"))
    res = next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")
    line = next(x for x in res["lines"] if x["unit"] == "s-rd-31")
    assert line["strength"] == 2 and "halved out of supply" in line["why"]
    assert (res["attack"], res["defence"], res["column"]) == (6, 2, "3-1")


def test_6_13_6_14_one_stack_from_the_phase_start_against_one_hex() -> None:
    rec = _german_turn_1()
    r = refused(rec, "german", o.Attack(units=("g-4-6", "g-11-6"), target="0412"))
    assert "AGS 6.13" in str(r)  # from two hexes
    stack = ("g-11-6", "g-2-16", "g-114-6")
    r = refused(rec, "german", o.Attack(units=stack, target="0213", also=("0114",)))
    assert "AGS 6.14" in str(r)


def test_22_12_a_unit_that_delays_may_enter_another_enemy_zone_and_stops() -> None:
    rec = _german_turn_1()
    s = rec.state
    reach = moves.legal_moves(s, "g-11-6")
    dest = next(h for h, r in sorted(reach.items()) if r.stops)
    done = ok(rec, "german", o.Move(units=("g-11-6",), path=(dest,)))
    moved = next(e.data for e in done.events if e.kind == "moved")
    assert moved["how"] == "delay" and moved["stops"]
    why = moves.why_immobile(rec.state, rec.state.units["g-11-6"])
    assert why is not None and "AGS 5.23" in why[1]


def test_25_12_27_1_an_isolated_unit_destroyed_in_combat_scores_eight() -> None:
    from test_ags_air_supply import _isolate

    rec = start(korsun(), 1, dice=(1,))
    ok(rec, "soviet", o.Done())
    uid, town = _isolate(rec)  # g-82 alone on a town, Soviet units on every side
    s = rec.state
    b = game.board(s)
    ring = [x.id for n in b.grid.neighbours(town) for x in s.units_at(n)]
    s.units["s-hq-4gd"].hex = next(
        h for h in sorted(b.hexes()) if b.grid.distance(town, h) == 2 and not s.units_at(h)
    )  # an active HQ within reach (a test's set-up)
    assert game.isolated(s, s.units[uid])
    ok(rec, "soviet", o.Attack(units=tuple(ring), target=town))
    res = next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")
    assert (res["defence"], res["column"], res["result"]) == (2, "10-1", "-/E")  # halved
    opened = next(e.data for e in reversed(rec.events) if e.kind == "combat_opened")
    assert opened["isolated"] == [uid]  # judged at the instant of combat (25.12)
    assert not rec.state.units[uid].on_map
    assert rec.state.ext["vp"]["soviet"] == 8  # "any other isolated German unit" (A39)


def test_5_1_k177_a_units_move_is_over_once_other_units_are_moved() -> None:
    rec = start(korsun(), 1)
    ok(rec, "soviet", o.Move(units=("s-rd-58",), path=("0312",)))
    ok(rec, "soviet", o.Move(units=("s-rd-58",), path=("0311",)))  # still in hand: goes on
    ok(rec, "soviet", o.Move(units=("s-hq-40",), path=("0410",)))  # another unit
    r = refused(rec, "soviet", o.Move(units=("s-rd-58",), path=("0310",)))
    assert "AGS 5.1, K177" in str(r) and "s-rd-58 may not move" in str(r)
    assert moves.legal_moves(rec.state, "s-rd-58") == {}
    # the units of one input move together and may go on together ...
    ok(rec, "soviet", o.Move(units=("s-hq-2tk", "s-rd-136"), path=("0709",)))
    ok(rec, "soviet", o.Move(units=("s-hq-2tk", "s-rd-136"), path=("0708",)))
    # ... or one of them alone, which ends the other's move (the stack is split)
    ok(rec, "soviet", o.Move(units=("s-hq-2tk",), path=("0608",)))
    r = refused(rec, "soviet", o.Move(units=("s-rd-136",), path=("0707",)))
    assert "K177" in str(r)
    ok(rec, "soviet", o.Done())  # a new phase: the Combat Phase
    assert rec.state.ext["last_moved"] == []

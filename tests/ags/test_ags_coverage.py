"""Cases the audit of issue #19 (docs/ags.md, "Rules coverage") found enforced but without
a test of their own: supply for an overrun (AGS 6.12), a supported corps' overrun (AGS-K
24.21), the engaged result (AGS 9.69), an HQ and enemy zones of control (AGS 11.23),
command for an attack (AGS 9.15, 11.33)."""

from __future__ import annotations

from agsstart import korsun, ok, refused, start

from engine import orders as o
from engine.ags import game, moves
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

"""AGS 9.76 with fixed dice (issue #19): a unit retreated into a friendly-occupied hex adds
nothing to the hex's defence if it is attacked later in the Combat Phase, and dies with
any result there; not after units of one combat retreat together into an empty hex (9.75,
K173); a hex holding only units attacked already may not be attacked again (9.14).

Played in the German Combat Phase of Game-Turn 1 (reached by the deadline defaults, which
roll no die): g-4-6 and g-64-16 (2-3 each, 0513) attack the Soviet cavalry divisions in
0512 and 0412 (4-2 each) one after the other."""

from __future__ import annotations

from agsstart import korsun, ok, refused, start

from engine import orders as o
from engine.ags import combat, game
from engine.record import GameRecord


def _german_combat(dice: tuple[int, ...]) -> GameRecord:
    rec = start(korsun(), 1, dice=dice)
    while rec.system.phase(rec.state).title != "the German Combat Phase, turn 1":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)
    assert rec.state.dice.forced == list(dice)
    return rec


def _resolved(rec: GameRecord) -> dict[str, object]:
    return next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")


def _into_0412(rec: GameRecord) -> None:
    """s-gd-cd-2 retreats from 0512 into 0412, held by s-gd-cd-1: a Soviet rifle division
    put on 0511 (a test's set-up) leaves it no vacant hex (9.74)."""
    rec.state.units["s-rd-375"].hex = "0511"
    ok(rec, "german", o.Attack(units=("g-4-6",), target="0512"))  # 2 to 2: 1-1, die 1: -/1
    assert _resolved(rec)["result"] == "-/1"
    (d,) = rec.state.pending
    assert sorted(p[0] for p in d.options["paths"]["s-gd-cd-2"]) == ["0411", "0412", "0511"]
    ok(rec, "soviet", o.Retreat(unit="s-gd-cd-2", path=("0412",)))
    ok(rec, "german", o.Pass())  # no advance
    assert rec.state.ext["retreated_into"] == {"s-gd-cd-2": "0412"}


def test_9_76_the_retreated_unit_adds_nothing_and_dies_with_any_result() -> None:
    rec = _german_combat((1, 1))
    _into_0412(rec)
    ok(rec, "german", o.Attack(units=("g-64-16",), target="0412"))  # 2 to 2: 1-1, die 1: -/1
    res = _resolved(rec)
    assert (res["defence"], res["column"], res["result"]) == (2, "1-1", "-/1")
    lines = res["lines"]
    assert isinstance(lines, list)
    late = next(x for x in lines if x["unit"] == "s-gd-cd-2")
    assert late["strength"] == 0 and "AGS 9.76" in late["why"]
    # the result's loss-or-retreat is the other unit's to answer; the late one is gone
    assert not rec.state.units["s-gd-cd-2"].on_map
    gone = [e for e in rec.events if e.kind == "unit_eliminated"]
    assert [e.data["unit"] for e in gone] == ["s-gd-cd-2"]
    assert rec.state.ext["vp"]["german"] == 4  # AGS-K 27.2: a division
    (d,) = rec.state.pending
    assert d.side == "soviet" and d.options["units"] == ["s-gd-cd-1"]
    ok(rec, "soviet", o.Losses(units=("s-gd-cd-1",)))
    assert rec.state.units["s-gd-cd-1"].cel == 1


def test_9_76_with_no_result_for_the_defender_the_retreated_unit_survives() -> None:
    rec = _german_combat((1, 5))
    _into_0412(rec)
    ok(rec, "german", o.Attack(units=("g-64-16",), target="0412"))  # 1-1, die 5: 1/-
    res = _resolved(rec)
    assert (res["defence"], res["result"]) == (2, "1/-")  # still nothing from s-gd-cd-2
    assert rec.state.units["s-gd-cd-2"].on_map and rec.state.units["s-gd-cd-2"].cel == 2
    ok(rec, "german", o.Losses(units=("g-64-16",)))


def test_9_14_a_hex_holding_only_units_attacked_already_is_not_attacked_again() -> None:
    rec = _german_combat((1,))
    ok(rec, "german", o.Attack(units=("g-4-6",), target="0512"))  # -/1
    ok(rec, "soviet", o.Retreat(unit="s-gd-cd-2", path=("0511",)))  # the vacant hex (9.74)
    ok(rec, "german", o.Pass())
    assert rec.state.ext["retreated_into"] == {}  # an empty hex: 9.76 does not apply
    rec.state.units["g-64-16"].hex = "0510"  # beside it (a test's set-up)
    r = refused(rec, "german", o.Attack(units=("g-64-16",), target="0511"))
    assert "AGS 9.14" in str(r)


def test_9_75_k173_units_of_one_combat_retreating_together_into_an_empty_hex() -> None:
    """0214's three regiments attack 0213 and 0114 together (9.23): 12 to 10, 1-1, die 1,
    -/1. Both rifle divisions retreat into 0113, empty when the combat began: neither is
    a unit retreated into a friendly-occupied hex (9.75: their retreat is simultaneous)."""
    rec = _german_combat((1,))
    ok(
        rec,
        "german",
        o.Attack(units=("g-11-6", "g-2-16", "g-114-6"), target="0213", also=("0114",)),
    )
    assert _resolved(rec)["result"] == "-/1"
    ok(rec, "soviet", o.Retreat(unit="s-rd-31", path=("0113",)))
    ok(rec, "soviet", o.Retreat(unit="s-rd-6", path=("0113",)))  # no vacant hex is left
    assert {u.id for u in rec.state.units_at("0113")} == {"s-rd-31", "s-rd-6"}
    assert rec.state.ext["retreated_into"] == {}  # K173
    s = rec.state
    strength, why = combat.unit_defence(
        s, s.units["s-rd-6"], [], game.in_supply(s, s.units["s-rd-6"]), False
    )
    assert strength > 0 and "9.76" not in why


def test_9_71_a42_a_unit_at_the_map_edge_may_retreat_off_it_and_is_eliminated() -> None:
    """0114 is on the west edge: s-rd-6 may retreat off the map (A42) although it has a
    retreat on it (0113); s-rd-31 in 0213 cannot reach the edge in one hex."""
    rec = _german_combat((1,))
    ok(
        rec,
        "german",
        o.Attack(units=("g-11-6", "g-2-16", "g-114-6"), target="0213", also=("0114",)),
    )
    (d,) = rec.state.pending
    assert d.options["paths"]["s-rd-6"] == [["0113"]]
    r = refused(rec, "soviet", o.Retreat(unit="s-rd-31", path=()))
    assert "AGS 9.73, 9.71" in str(r) and "A42" in str(r)
    ok(rec, "soviet", o.Retreat(unit="s-rd-6", path=()))
    assert not rec.state.units["s-rd-6"].on_map
    assert rec.state.ext["vp"]["german"] == 4  # A42: scores as an elimination (27.2)

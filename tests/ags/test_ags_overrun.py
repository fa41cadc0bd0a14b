"""Overruns played with fixed dice (issue #19): success and failure (AGS 6.2x), disruption
(6.31-6.33) and a disrupted HQ's supply (6.32, K172), the Soviet overrun restrictions
(AGS-K 19.4, 23.13, 23.14, A4) and overruns counted against an HQ's offensive operations
(AGS-K 23.2, 23.21, A4, A40).

The German overruns are made in the German Initial Movement Phase of Game-Turn 1, reached
by the deadline defaults (which roll no die), so the first forced die is the overrun's."""

from __future__ import annotations

from agsstart import korsun, ok, refused, start

from engine import orders as o
from engine.ags import game, moves, retreat
from engine.record import GameRecord

# 0214: g-11-6 (5-2), g-2-16 (5-2), g-114-6 (2-3), 12 attack halved to 6 (AGS 6.0);
# 0213: s-rd-31, a rifle division 4-5 in clear: 6 to 5, the 1-1 column.
STACK = ("g-11-6", "g-2-16", "g-114-6")


def _german_turn_1(dice: tuple[int, ...]) -> GameRecord:
    rec = start(korsun(), 1, dice=dice)
    while rec.system.phase(rec.state).title != "the German Initial Movement Phase, turn 1":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)
    assert rec.state.dice.forced == list(dice)  # nothing rolled yet
    return rec


def _resolved(rec: GameRecord) -> dict[str, object]:
    return next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")


def test_6_24_a_successful_overrun_disrupts_the_defender_and_the_overrunners_move_on() -> None:
    rec = _german_turn_1((1,))  # 1-1, die 1: -/1
    ok(rec, "german", o.Attack(units=STACK, target="0213"))
    res = _resolved(rec)
    assert (res["column"], res["die"], res["result"], res["overrun"]) == ("1-1", 1, "-/1", True)
    assert (res["attack"], res["defence"]) == (6, 5)  # 12 halved (AGS 6.0), 4-5 in clear
    assert "s-rd-31" in rec.state.ext["disrupted"]  # 6.31: a loss or retreat disrupts
    (d,) = rec.state.pending
    assert d.side == "soviet" and d.kind == "losses_or_retreat"
    path = d.options["paths"]["s-rd-31"][0]
    ok(rec, "soviet", o.Retreat(unit="s-rd-31", path=tuple(path)))
    # 6.24: the hex emptied, no loss for them: the overrunners are moved in at no cost
    assert all(rec.state.units[u].hex == "0213" for u in STACK)
    assert all(rec.state.units[u].mp_spent == 3 for u in STACK)  # 6.16: only the three MP
    adv = next(e for e in reversed(rec.events) if e.kind == "advanced")
    assert adv.data["overrun"] and adv.data["path"] == ["0213"]
    assert not rec.state.pending  # 9.86: no advance after combat follows an overrun
    # ... and may move on with the five MP left, out of the enemy ZoC (6.24, 8.23)
    assert "0213" in game.enemy_zoc(rec.state, "german")
    assert moves.why_immobile(rec.state, rec.state.units["g-11-6"]) is None
    assert moves.legal_moves(rec.state, "g-11-6")
    # 6.32: the disrupted defender may not move in its own phases until 6.33 removes it
    assert moves.why_immobile(rec.state, rec.state.units["s-rd-31"]) is not None
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_6_22_an_overrun_that_leaves_the_defender_in_place_stops_the_overrunners() -> None:
    rec = _german_turn_1((1,))  # -/1, and the Soviet player takes the step
    ok(rec, "german", o.Attack(units=STACK, target="0213"))
    ok(rec, "soviet", o.Losses(units=("s-rd-31",)))
    assert rec.state.units["s-rd-31"].hex == "0213" and rec.state.units["s-rd-31"].cel == 1
    assert "s-rd-31" in rec.state.ext["disrupted"]  # 6.31: a loss disrupts too
    assert all(rec.state.units[u].hex == "0214" for u in STACK)
    why = moves.why_immobile(rec.state, rec.state.units["g-11-6"])
    assert why is not None and why[1] == "AGS 6.22, 6.23"
    r = refused(rec, "german", o.Move(units=("g-11-6",), path=("0215",)))
    assert "AGS 6.22, 6.23" in str(r)
    r = refused(rec, "german", o.Attack(units=STACK, target="0213"))  # nor overrun again
    assert "AGS 6.22, 6.23" in str(r)


def test_6_23_an_overrun_that_costs_the_overrunners_a_step_fails_without_disruption() -> None:
    rec = _german_turn_1((5,))  # 1-1, die 5: 1/-
    ok(rec, "german", o.Attack(units=STACK, target="0213"))
    assert _resolved(rec)["result"] == "1/-"
    assert "s-rd-31" not in rec.state.ext.get("disrupted", [])  # 6.31: no loss, no retreat
    (d,) = rec.state.pending
    assert d.side == "german" and d.options["role"] == "attacker"
    ok(rec, "german", o.Losses(units=("g-114-6",)))
    assert rec.state.units["g-114-6"].cel == 1
    assert rec.state.units["s-rd-31"].hex == "0213"
    stopped = next(e for e in reversed(rec.events) if e.kind == "overrun_stopped")
    assert set(stopped.data["units"]) == set(STACK)  # 6.23
    r = refused(rec, "german", o.Move(units=("g-2-16",), path=("0215",)))
    assert "AGS 6.22, 6.23" in str(r)


def test_6_25_the_defender_never_advances_after_the_overrunners_retreat() -> None:
    rec = _german_turn_1((6,))  # 1-1, die 6: 2/-
    ok(rec, "german", o.Attack(units=STACK, target="0213"))
    assert _resolved(rec)["result"] == "2/-"
    for uid in STACK:  # 9.74: each into a vacant hex while there is one
        path = retreat.legal_paths(rec.state, rec.state.units[uid], 2, "0214")[0]
        ok(rec, "german", o.Retreat(unit=uid, path=path))
    assert all(rec.state.units[u].hex != "0214" for u in STACK)
    assert not rec.state.pending  # 6.25, 9.86: no advance for the Soviet defender
    assert rec.state.units["s-rd-31"].hex == "0213"


def test_6_32_k172_a_disrupted_hq_supplies_and_coordinates_nobody() -> None:
    """s-hq-40 (0411) is the only HQ with a line of communications to s-rd-6 (0114) and
    s-rd-31 (0213). Two panzergrenadier regiments put beside it (a test's set-up) overrun
    it: it retreats, is disrupted, and those units are out of supply while it is (6.32),
    until the Soviet Disruption Removal Phase (6.33)."""
    rec = _german_turn_1((1, 1))
    s = rec.state
    for uid in ("g-4-6", "g-64-16"):
        s.units[uid].hex = "0410"
        s.ext["start_hex"][uid] = "0410"  # 6.13: they began the phase there
    assert game.commanding_hqs(s, s.units["s-rd-31"]) == ["s-hq-40"]
    assert game.in_supply(s, s.units["s-rd-31"]) and game.in_supply(s, s.units["s-rd-6"])
    ok(rec, "german", o.Attack(units=("g-4-6", "g-64-16"), target="0411"))  # 2 to 2, -/1
    assert rec.state.ext["disrupted"] == ["s-hq-40"]
    ok(rec, "soviet", o.Retreat(unit="s-hq-40", path=("0312",)))
    s = rec.state
    assert s.units["g-4-6"].hex == "0411"  # the overrun succeeded (6.24)
    # 6.32: a disrupted HQ may not be used to provide supply (K172: nor command)
    assert game.commanding_hqs(s, s.units["s-rd-31"]) == []
    assert not game.in_supply(s, s.units["s-rd-31"]) and not game.in_supply(s, s.units["s-rd-6"])
    assert game.in_supply(s, s.units["s-hq-40"])  # it still traces its own line to the edge
    # the German Combat Phase: s-rd-31 defends at half strength (12.23) at the instant
    ok(rec, "german", o.Done())
    ok(rec, "german", o.Attack(units=STACK, target="0213"))  # 12 to 2: 6-1, die 1: 1/3
    res = _resolved(rec)
    lines = res["lines"]
    assert isinstance(lines, list)
    line = next(x for x in lines if x["unit"] == "s-rd-31")
    assert line["strength"] == 2 and "halved out of supply" in line["why"]
    assert (res["column"], res["result"]) == ("6-1", "1/3")
    ok(rec, "soviet", o.Losses(units=("s-rd-31", "s-rd-31")))  # both its steps
    ok(rec, "german", o.Losses(units=("g-114-6",)))
    # the disruption lasts through the next Soviet player-turn, to his Disruption Removal
    # Phase (6.33): at his Initial Movement Phase the units are still out of supply
    while rec.system.phase(rec.state).title != "the Soviet Initial Movement Phase, turn 2":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)
    s = rec.state
    checked = next(e for e in reversed(rec.events) if e.kind == "supply_checked")
    assert "s-rd-6" in checked.data["out_of_supply"]
    assert moves.why_immobile(s, s.units["s-hq-40"]) == ("it is disrupted", "AGS 6.32, A36")
    while rec.system.phase(rec.state).title != "the German Initial Movement Phase, turn 2":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)
    s = rec.state
    assert "s-hq-40" not in s.ext["disrupted"]  # 6.33
    assert "s-hq-40" in game.commanding_hqs(s, s.units["s-rd-6"])
    assert game.in_supply(s, s.units["s-rd-6"])


def test_19_4_the_soviet_player_overruns_with_mechanized_units_under_an_active_hq() -> None:
    rec = start(korsun(), 1, dice=(5,))
    # 23.14: s-gd-cd-1 (0412) is in command of s-hq-40 and s-hq-2tk; with s-hq-2tk inactive
    ok(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk")))
    r = refused(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", support=("s-hq-40",)))
    assert "AGS-K 23.13" in str(r)  # s-hq-40 is inactive
    r = refused(rec, "soviet", o.Attack(units=("s-rd-58",), target="0214"))
    assert "AGS-K 19.4" in str(r)  # a rifle division never overruns
    r = refused(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", air=("1",)))
    assert "AGS 14.15" in str(r)
    done = ok(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513"))
    declared = next(e for e in done.events if e.kind == "overrun_declared").data
    assert declared["hq"] == "s-hq-2tk"  # K161: the only active HQ in command
    res = _resolved(rec)  # 4 halved to 2 against 3 + 3 in a town: 1-3, die 5: E/-
    assert (res["attack"], res["defence"], res["column"], res["result"]) == (2, 6, "1-3", "E/-")
    assert not rec.state.units["s-gd-cd-1"].on_map  # 9.65
    assert rec.state.ext["vp"]["german"] == 4  # AGS-K 27.2: a division


def test_23_21_example_an_hq_rated_six_coordinates_one_overrun_and_two_attacks() -> None:
    rec = start(korsun(), 1, dice=(5, 5, 1))
    rec.state.turn = 5  # the limit applies from Game-Turn 5 (a test's shortcut)
    ok(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", support=("s-hq-2tk",)))
    assert rec.state.ext["operations"] == {"s-hq-2tk": 1}  # A4: an overrun counts
    assert not rec.state.pending  # 1-3, die 5: E/-
    rec.state.turn = 1  # (no reinforcements are owed on the real turn)
    ok(rec, "soviet", o.Done())
    rec.state.turn = 5
    ok(rec, "soviet", o.Attack(units=("s-rd-84",), target="0711", support=("s-hq-2tk",)))
    ok(rec, "soviet", o.Losses(units=("s-rd-84",)))  # 4 to 3: 1-1, die 5: 1/-
    ok(rec, "soviet", o.Attack(units=("s-rd-138",), target="1010", support=("s-hq-2tk",)))
    ok(rec, "soviet", o.Losses(units=("s-rd-138",)))  # 4 to 10 (19.52 doubles): 1-3, die 1
    assert rec.state.ext["operations"] == {"s-hq-2tk": 3}  # leadership 6: three operations
    r = refused(rec, "soviet", o.Attack(units=("s-rd-180",), target="1111", support=("s-hq-2tk",)))
    assert "AGS-K 23.2" in str(r) and "23.23" in str(r)
    # the limit is per HQ: s-rd-180 is also in command of s-hq-6tk (inactive: 23.13)
    r = refused(rec, "soviet", o.Attack(units=("s-rd-180",), target="1111"))
    assert "AGS-K 23.2" in str(r)


def test_23_2_a4_an_overrun_is_refused_when_its_hq_has_no_operation_left() -> None:
    rec = start(korsun(), 1, dice=(5,))
    ok(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk", "s-hq-40")))
    rec.state.turn = 5
    rec.state.ext["operations"] = {"s-hq-40": 2}  # leadership 4: two operations
    r = refused(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", support=("s-hq-40",)))
    assert "AGS-K 23.2" in str(r) and "23.23" in str(r)
    assert rec.state.units["s-gd-cd-1"].mp_spent == 0  # 23.23: it does not take place
    rec.state.ext["operations"] = {"s-hq-40": 2, "s-hq-2tk": 3}
    r = refused(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513"))
    assert "AGS-K 23.2" in str(r)  # no active HQ in command has an operation left
    rec.state.ext["operations"] = {"s-hq-40": 1}
    ok(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", support=("s-hq-40",)))
    assert rec.state.ext["operations"] == {"s-hq-40": 2}
    r = refused(rec, "german", o.Attack(units=STACK, target="0213", support=("s-hq-40",)))
    assert "AGS 4.1" in str(r)


def test_25_34_an_overrun_is_a_move_of_a_unit_with_heavy_equipment() -> None:
    rec = _german_turn_1((5,))  # 1-1, die 5: 1/-
    rec.state.ext["heavy"] = {"g-11-6": 1}  # dug in (a test's set-up)
    ok(rec, "german", o.Attack(units=STACK, target="0213"))
    assert rec.state.ext["heavy"] == {"g-11-6": 2}  # AGS 6.0: overrun is movement; 25.34

"""Issue #19 (AGS): divisional integrity (AGS-K 19.5x, A30, A31), German delay and
disengagement (22.1, 22.2, K150), the movement limits of turns 1-3 (21.1x, 21.2),
overruns and disruption (AGS 6.x, 19.4), A41 over-stacking as the owner's choice (K151)
and 9.76."""

from __future__ import annotations

from functools import cache

from agsstart import start

from engine import orders as o
from engine.ags import game, integrity, limits, moves
from engine.core import Applied, Rejection
from engine.record import GameRecord
from engine.state import GameState
from scenarios import load_scenario


@cache
def _german_turn_1() -> GameRecord:
    rec = GameRecord(load_scenario("ags-korsun"), 1, dice=(6,) * 40)
    while rec.system.phase(rec.state).title != "the German Initial Movement Phase, turn 1":
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        rec.submit(side, order)
    return rec


def _state() -> GameState:
    return _german_turn_1().state.clone()


def _apply(state: GameState, side: str, order: o.Order) -> Applied | Rejection:
    return _german_turn_1().system.apply(state, side, order)


def test_19_51_a30_a_panzer_division_in_one_hex_attacks_doubled_only_all_together() -> None:
    s = _state()
    pz14 = [s.units[u] for u in integrity.members(s, "14")]  # all three in 2316
    assert set(integrity.attack_doubled(s, pz14)) == {u.id for u in pz14}
    assert integrity.attack_doubled(s, pz14[:2]) == {}  # A30: all three in the attack


def test_19_52_19_54_defence_doubled_within_two_hexes_only_with_all_in_play() -> None:
    s = _state()
    assert all(integrity.defence_doubled(s, s.units[u]) for u in integrity.members(s, "14"))
    assert not integrity.defence_doubled(s, s.units["g-394-3"])  # 3410 to 3413: 3 hexes
    assert not integrity.defence_doubled(s, s.units["g-1-1-pz"])  # 19.54: not in play
    # 19.53: a StuG may share the hex, any other German unit breaks it
    stug = next(u for u in s.on_map("german") if game.spec(s, u.id).type == "stug-regiment")
    stug.hex = "2316"
    assert integrity.defence_doubled(s, s.units["g-36-14"])
    other = next(u for u in s.on_map("german") if game.spec(s, u.id).type == "infantry-regiment")
    other.hex = "2316"
    assert not integrity.defence_doubled(s, s.units["g-36-14"])


def test_a31_k152_the_hexes_between_two_regiments_hold_no_outsider() -> None:
    s = _state()
    b = game.board(s)
    regs = [s.units[u] for u in integrity.members(s, "14")]
    a = regs[0].hex
    assert a is not None
    far = next(h for h in b.grid.all_hexes() if b.grid.distance(a, h) == 2 and not s.units_at(h))
    regs[2].hex = far
    assert integrity.defence_doubled(s, regs[0])  # an enemy ZoC between is allowed (K152)
    between = (set(b.grid.neighbours(a)) & set(b.grid.neighbours(far))) - {a, far}
    soviet = next(iter(s.on_map("soviet")))
    soviet.hex = sorted(between)[0]
    assert not integrity.defence_doubled(s, regs[0])  # A31: an enemy unit between


def test_22_1_delay_the_others_less_one_may_leave_for_two_more_mp() -> None:
    s = _state()
    here = [u for u in s.units_at("0214") if u.side == "german"]
    assert len(here) == 3 and "0214" in game.enemy_zoc(s, "german")
    assert moves.leaving(s, here[0]) == "delay"
    reach = moves.legal_moves(s, here[0].id)
    assert reach and all(r.cost >= 3 for r in reach.values())  # 22.13: +2, no A22 minimum
    for u in here[:2]:
        dest = min(moves.legal_moves(s, u.id))
        r = _apply(s, "german", o.Move(units=(u.id,), path=(dest,)))
        assert isinstance(r, Applied), r
        assert next(e for e in r.events if e.kind == "moved").data["how"] == "delay"
        s = r.state
    last = s.units[here[2].id]
    why = moves.why_immobile(s, last)  # the cover stays: no disengagement on turn 1 (22.24)
    assert why is not None and "22.24" in why[1]


def test_22_2_disengagement_from_turn_3_never_into_an_enemy_zoc() -> None:
    s = _state()
    s.turn = 3
    alone = next(
        u for u in s.on_map("german")
        if u.hex in game.enemy_zoc(s, "german") and len(s.units_at(u.hex)) == 1
    )  # fmt: skip
    assert moves.leaving(s, alone) == "disengage"
    ezoc = game.enemy_zoc(s, "german")
    assert not any(h in ezoc for h in moves.legal_moves(s, alone.id))  # 22.21
    s.turn = 1
    assert moves.leaving(s, alone) is None  # 21.16, 22.24


def test_21_11_example_area_a_unit_in_1214_may_not_go_to_1315_or_1215() -> None:
    s = _state()
    u = s.units["g-39-17"]  # area A
    u.hex = "1214"
    assert limits.problem(s, u.id, "1315") is not None
    assert limits.problem(s, u.id, "1215") is not None
    assert limits.problem(s, u.id, "1214") is None
    s.turn = 2
    assert limits.problem(s, u.id, "1315") is None  # 21.2: A is free from turn 2


def test_21_12_the_2306_group_stays_within_three_hexes_on_turns_1_to_3() -> None:
    s = _state()
    s.turn = 3
    far = next(
        h for h in game.board(s).grid.all_hexes() if game.board(s).grid.distance("2306", h) == 4
    )
    p = limits.problem(s, "g-9-ssw", far)
    assert p is not None and "3 hexes" in p[0] and p[1] == "AGS-K 21.2, 21.12, 21.14"


def test_6_overrun_is_an_attack_in_a_movement_phase_and_disrupts_the_defender() -> None:
    s = _state()
    target = "0314"
    here = s.units_at("0214")
    assert here and target in game.board(s).grid.neighbours("0214")
    soviets = [u for u in s.units_at(target) if u.side == "soviet"] or None
    if soviets is None:
        soviet = next(u for u in s.on_map("soviet") if not game.spec(s, u.id).is_hq)
        soviet.hex = target
    ids = tuple(u.id for u in here)
    r = _apply(s, "german", o.Attack(units=ids[:1], target=target))
    assert isinstance(r, Rejection) and "AGS 6.17" in str(r)  # the others must take part
    r = _apply(s, "german", o.Attack(units=ids, target=target, air=("1",)))
    assert isinstance(r, Rejection) and "AGS 14.15" in str(r)
    r = _apply(s, "german", o.Attack(units=ids, target=target))
    assert isinstance(r, Applied), r
    res = next(e for e in r.events if e.kind == "combat_resolved").data
    assert res["overrun"] and "halved" in res["notes"][0]
    assert all(r.state.units[i].mp_spent >= 3 for i in ids)  # 6.16
    if res["result"].split("/")[-1] not in ("-",) and "eng" not in res["result"]:
        assert any(e.kind == "disrupted" for e in r.events)  # 6.31


def test_19_4_soviet_rifle_units_may_not_overrun() -> None:
    rec = start(load_scenario("ags-korsun"), 1)
    s = rec.state
    rifle = next(
        u for u in s.on_map("soviet")
        if game.spec(s, u.id).type == "rifle-division"
        and any(x.side == "german" for h in game.board(s).grid.neighbours(u.hex or "")
                for x in s.units_at(h))
        and len(s.units_at(u.hex or "")) == 1
    )  # fmt: skip
    assert rifle.hex is not None
    target = next(
        h for h in game.board(s).grid.neighbours(rifle.hex)
        if any(x.side == "german" for x in s.units_at(h))
    )  # fmt: skip
    r = rec.system.apply(s, "soviet", o.Attack(units=(rifle.id,), target=target))
    assert isinstance(r, Rejection) and "AGS-K 19.4" in str(r), r


def test_6_32_a_disrupted_unit_may_not_move_or_attack_until_its_removal_phase() -> None:
    s = _state()
    s.ext["disrupted"] = ["g-9-ssw"]
    why = moves.why_immobile(s, s.units["g-9-ssw"])
    assert why is not None and "AGS 6.32" in why[1]

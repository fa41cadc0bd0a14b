"""What units may do on Game-Turns 1-3 of Korsun (issue #19), each refusal with its case:
the German movement radii (AGS-K 21.11-21.15, 21.2; K174 for overruns), no disengagement
on turns 1 and 2 (21.16, 21.2, 22.24; delay allowed), no air points on the snow turns
(19.8, 20.11). The Soviet limits of the first turns -- active HQs (23.11, 23.12) and the
Supported markers (24.2x) -- are tested in test_ags_command.py."""

from __future__ import annotations

from functools import cache

from agsstart import korsun, ok, refused, start

from engine import orders as o
from engine.ags import game, limits, moves
from engine.record import GameRecord
from engine.state import GameState


def _to(rec: GameRecord, title: str) -> GameRecord:
    while rec.system.phase(rec.state).title != title:
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        ok(rec, side, order)
    return rec


@cache
def _german_initial(turn: int) -> GameRecord:
    return _to(start(korsun(), 1), f"the German Initial Movement Phase, turn {turn}")


def _fresh(turn: int) -> GameRecord:
    """A copy of the record at the German Initial Movement Phase of `turn`."""
    copy = _german_initial(turn).copy()
    copy.state = copy.state.clone()  # tests below change it in place
    return copy


def _refusal(rec: GameRecord, uid: str, dest: str) -> str:
    assert dest in moves.legal_moves(rec.state, uid)  # reachable: only the limit refuses
    return str(refused(rec, "german", o.Move(units=(uid,), path=(dest,))))


def test_21_11_21_12_21_13_game_turn_1_each_limit_with_its_case() -> None:
    rec = _german_initial(1)
    # 21.11: areas A, B, E four hexes from their stretch of the start line
    r = _refusal(rec, "g-849-282", "2117")
    assert "within 4 hexes of set-up area E" in r and "(AGS-K 21.11, 21.14)" in r
    # 21.12: a unit with a printed hex four hexes from it ...
    r = _refusal(rec, "g-82", "0612")
    assert "within 4 hexes of its set-up hex 1113" in r and "(AGS-K 21.12, 21.14)" in r
    # ... the four units of 2306 three hexes (21.12's exception)
    r = _refusal(rec, "g-15-ssw", "2209")
    assert "within 3 hexes of its set-up hex 2306" in r and "(AGS-K 21.12, 21.14)" in r
    # 21.13: areas C and D two hexes
    r = _refusal(rec, "g-72", "3011")
    assert "within 2 hexes of set-up area D" in r and "(AGS-K 21.13, 21.14)" in r
    # within the radius the move stands (21.15: freely within the restricted area)
    inside = next(
        h for h, reach in moves.legal_moves(rec.state, "g-849-282").items()
        if limits.problem(rec.state, "g-849-282", h) is None and not reach.stops
    )  # fmt: skip
    ok(_fresh(1), "german", o.Move(units=("g-849-282",), path=(inside,)))


def test_21_2_on_game_turns_2_and_3_only_c_d_and_the_2306_group_are_limited() -> None:
    for turn in (2, 3):
        rec = _fresh(turn)
        r = _refusal(rec, "g-72", "3011")
        assert "(AGS-K 21.2, 21.13, 21.14)" in r
        r = _refusal(rec, "g-15-ssw", "2209")
        assert "(AGS-K 21.2, 21.12, 21.14)" in r
        for uid, dest in (("g-849-282", "2117"), ("g-82", "0612")):  # free from turn 2
            assert limits.limit_of(rec.state, uid) is None
            assert dest in moves.legal_moves(rec.state, uid)
            ok(rec, "german", o.Move(units=(uid,), path=(dest,)))


def test_21_15_a_unit_outside_its_limit_may_move_only_closer() -> None:
    rec = _fresh(1)
    s = rec.state
    b = game.board(s)
    lim = limits.limit_of(s, "g-72")
    assert lim is not None
    radius, dist, _what, _case = lim
    # put g-72 four hexes out (as a retreat might, 21.15: retreats are not limited)
    out = next(
        h for h in b.hexes()
        if dist(h) == radius + 2 and not s.units_at(h)
        and h not in game.enemy_zoc(s, "german") and not b.blocked(h)
    )  # fmt: skip
    s.units["g-72"].hex = out
    reach = moves.legal_moves(s, "g-72")
    farther = next(h for h in reach if dist(h) >= dist(out))
    closer = next(h for h in reach if dist(h) < dist(out) and not reach[h].stops)
    r = refused(rec, "german", o.Move(units=("g-72",), path=(farther,)))
    assert "may move only closer" in str(r) and "(AGS-K 21.13, 21.15)" in str(r)
    ok(rec, "german", o.Move(units=("g-72",), path=(closer,)))


def _beside_the_edge_of(s: GameState, uid: str) -> tuple[str, str]:
    """A free hex on `uid`'s radius with a free hex beside it just outside."""
    lim = limits.limit_of(s, uid)
    assert lim is not None
    radius, dist, _what, _case = lim
    b = game.board(s)
    taken = {u.hex for u in s.on_map()}
    for h in sorted(b.hexes()):
        if dist(h) != radius or h in taken or b.blocked(h):
            continue
        if any(n in taken for n in b.grid.neighbours(h)):
            continue
        for n in b.grid.neighbours(h):
            clear = not any(m in taken for m in b.grid.neighbours(n) if m != h)
            if dist(n) == radius + 1 and not b.blocked(n) and b.feature(h, n) is None and clear:
                return h, n
    raise AssertionError("no such hexes")


def test_k174_no_overrun_into_a_hex_the_unit_may_not_end_its_move_in() -> None:
    rec = _fresh(1)
    s = rec.state
    at, beyond = _beside_the_edge_of(s, "g-72")
    s.units["g-72"].hex = at
    s.ext["start_hex"]["g-72"] = at  # it began the phase there (a test's set-up)
    s.units["s-rd-375"].hex = beyond
    r = refused(rec, "german", o.Attack(units=("g-72",), target=beyond))
    assert "a successful overrun ends there" in str(r)
    assert "AGS-K 21.13, 21.14" in str(r) and "K174" in str(r)


def test_21_16_21_2_22_24_no_disengagement_on_game_turns_1_and_2() -> None:
    for turn, case in ((1, "21.16"), (2, "21.2")):
        rec = _german_initial(turn)
        s = rec.state
        alone = next(
            u for u in s.on_map("german")
            if u.hex in game.enemy_zoc(s, "german") and len(s.units_at(u.hex)) == 1
        )  # fmt: skip
        assert alone.hex is not None
        away = next(
            h for h in game.board(s).grid.neighbours(alone.hex)
            if h not in game.enemy_zoc(s, "german") and not s.units_at(h)
            and not game.board(s).blocked(h)
        )  # fmt: skip
        r = refused(rec, "german", o.Move(units=(alone.id,), path=(away,)))
        assert "AGS 5.24" in str(r) and "22.24" in str(r) and case in str(r)
    rec = _fresh(3)  # 22.2: from Game-Turn 3
    s = rec.state
    alone = next(
        u for u in s.on_map("german")
        if u.hex in game.enemy_zoc(s, "german") and len(s.units_at(u.hex)) == 1
        and moves.legal_moves(s, u.id)
    )  # fmt: skip
    dest = min(moves.legal_moves(s, alone.id))
    r2 = ok(rec, "german", o.Move(units=(alone.id,), path=(dest,)))
    assert next(e for e in r2.events if e.kind == "moved").data["how"] == "disengage"


def test_19_8_20_11_no_air_points_on_the_snow_turns_1_to_3() -> None:
    rec = start(korsun(), 1)
    for turn in (1, 2, 3):
        _to(rec, f"the Soviet Combat Phase, turn {turn}")
        assert rec.state.ext["weather"] == "snow"
        assert rec.state.ext["air"] == {"soviet": 0, "german": 0}
        r = refused(
            rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513", air=("1",))
        )
        assert "AGS-K 19.8" in str(r)
    _to(rec, "the Soviet Initial Movement Phase, turn 4")
    assert rec.state.ext["weather"] == "mud" and rec.state.ext["air"]["soviet"] == 3  # 20.12


def test_21_15_advances_after_combat_are_not_limited() -> None:
    rec = _to(start(korsun(), 1, dice=(1,)), "the German Combat Phase, turn 1")
    s = rec.state
    at, beyond = _beside_the_edge_of(s, "g-72")
    s.units["g-72"].hex = at  # on the edge of its two hexes (a test's set-up) ...
    s.units["s-gd-abb-3"].hex = beyond  # ... beside a Soviet airborne brigade outside it
    assert limits.problem(s, "g-72", beyond) is not None
    ok(rec, "german", o.Attack(units=("g-72",), target=beyond))  # 4 to 2: 2-1, die 1: -/1
    (d,) = rec.state.pending
    path = d.options["paths"]["s-gd-abb-3"][0]
    ok(rec, "soviet", o.Retreat(unit="s-gd-abb-3", path=tuple(path)))
    ok(rec, "german", o.Pursue(unit="g-72", path=(beyond,)))  # 21.15: not limited
    assert rec.state.units["g-72"].hex == beyond

"""Retreat and advance rules the audit of issue #19 found unplayed: an attacker retreating
after a split result avoids every hex the enemy held or controlled during the combat
(AGS 9.77, 8.25), and 9.84's free second hex of an advance is not entered across a major
river into an enemy zone of control (AGS 10.13, A23)."""

from __future__ import annotations

from agsstart import korsun, ok, refused, start

from engine import orders as o
from engine.ags import game, results


def test_9_77_the_attacker_retreats_only_into_hexes_free_of_the_enemy_during_the_combat() -> None:
    rec = start(korsun(), 1, dice=(3,))
    rec.state.units["g-64-16"].hex = "0226"  # g-4-6 defends 0513 alone (a test's set-up)
    ok(rec, "soviet", o.Done())
    ok(rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    res = next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")
    assert (res["attack"], res["defence"], res["column"], res["result"]) == (8, 3, "2-1", "1/1")
    ok(rec, "german", o.Retreat(unit="g-4-6", path=("0514",)))  # the defender first (9.68)
    (d,) = rec.state.pending
    assert d.side == "soviet" and d.options["role"] == "attacker"
    # 0612 was in g-4-6's zone of control as the combat began (next to 0513); it is not
    # now (0514 is not next to it), yet 9.77 still bars it
    assert "0612" not in game.enemy_zoc(rec.state, "soviet")
    assert d.options["paths"]["s-gd-cd-2"] == [["0511"]]
    r = refused(rec, "soviet", o.Retreat(unit="s-gd-cd-2", path=("0612",)))
    assert "AGS 9.71, 9.73, 9.74, 9.77, 9.78" in str(r)
    ok(rec, "soviet", o.Retreat(unit="s-gd-cd-2", path=("0511",)))
    ok(rec, "soviet", o.Retreat(unit="s-gd-cd-1", path=("0312",)))
    assert rec.state.units["s-gd-cd-2"].hex == "0511"


def test_10_13_a23_no_free_advance_across_a_major_river_into_a_zone_of_control() -> None:
    rec = start(korsun(), 1)
    s = rec.state.clone()
    b = game.board(s)
    taken = {u.hex for u in s.on_map()}
    for h in sorted(b.hexes()):
        for n in b.grid.neighbours(h):
            if b.feature(h, n) != "major-river" or {h, n} & taken or b.blocked(n):
                continue
            guards = [
                f
                for f in b.grid.neighbours(n)
                if f not in (h, n) and f not in taken and not b.blocked(f)
                and b.feature(n, f) is None
                and any(b.feature(f, m) == "major-river" for m in b.grid.neighbours(f))
            ]  # fmt: skip
            if guards:
                s.units["g-82"].hex = guards[0]  # a German unit beside the river
                assert results._into_river_zoc(s, "soviet", h, n)
                s.units["s-rd-375"].hex = n  # a Soviet unit there: the move is allowed
                assert not results._into_river_zoc(s, "soviet", h, n)
                return
    raise AssertionError("no major river hexside with room beside it")

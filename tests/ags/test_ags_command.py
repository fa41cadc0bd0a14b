"""Soviet command and air power as the players' choices (issue #19): the active HQs
(AGS-K 23.11, 23.12, A33, K161), the Supported markers removed on Game-Turn 2 (24.22,
K160), the offensive operations an HQ coordinates (23.2, A40, K161), HQ leadership in an
attack (AGS 11.37, 11.36, A32, A34) and the defender's air point (AGS 14.12-14.14)."""

from __future__ import annotations

from agsstart import korsun, start
from agsstart import ok as _ok
from agsstart import refused as _refused

from bot import systems as bot_systems
from engine import orders as o
from engine.core import Applied
from engine.notation import format_order, parse_order
from engine.record import GameRecord


def test_the_new_words_parse_and_format() -> None:
    for line in ("activate s-hq-2tk s-hq-5gdtk", "unsupport s-gd-tc-5 s-mrc-5"):
        order = parse_order(line)
        assert order is not None and format_order(order) == line
    assert parse_order("activate s-hq-40") == o.Activate(units=("s-hq-40",), line=1)


def test_23_11_the_soviet_player_chooses_the_active_hqs_at_the_start_of_his_player_turn() -> None:
    rec = start(korsun(), 1)
    active = rec.state.ext["active_hqs"]
    assert len(active) == 3 and {"s-hq-5gdtk", "s-hq-2tk"} <= set(active)  # the default
    said = " ".join(rec.system.announcements(rec.state, "soviet"))
    assert "activate HQ" in said and "AGS-K 23.11" in said
    # AGS-K 23.12: the two printed HQs must be active on Game-Turn 1
    r = _refused(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-40")))
    assert "AGS-K 23.12" in str(r)
    # the schedule is a maximum (A33): three on Game-Turn 1, fewer is allowed
    r = _refused(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk", "s-hq-40", "s-hq-27")))
    assert "AGS-K 23.11" in str(r) and "A33" in str(r)
    r = _refused(rec, "german", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk")))
    assert "AGS 4.1" in str(r)
    _ok(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk", "s-hq-27")))
    assert rec.state.ext["active_hqs"] == ["s-hq-27", "s-hq-2tk", "s-hq-5gdtk"]
    _ok(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk")))  # changed again: fine
    assert rec.state.ext["active_hqs"] == ["s-hq-2tk", "s-hq-5gdtk"]
    words = bot_systems.get("ags").describer
    assert words is not None and "active" in words.event(rec.events[-1]).lower()
    # K161: once a Soviet unit has moved the player-turn has begun
    _ok(rec, "soviet", o.Move(units=("s-hq-40",), path=("0412",)))
    r = _refused(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk", "s-hq-40")))
    assert "AGS-K 23.12" in str(r) and "K161" in str(r)
    assert rec.system.announcements(rec.state, "soviet") == []
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_23_14_an_inactive_hq_coordinates_no_attack() -> None:
    rec = start(korsun(), 1, dice=(1,))
    _ok(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk", "s-hq-40")))
    _ok(rec, "soviet", o.Done())
    r = _ok(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", support=("s-hq-40",)))
    declared = next(e for e in r.events if e.kind == "attack_declared").data
    assert declared["hq"] == "s-hq-40"  # A40: the HQ named
    rec2 = start(korsun(), 1, dice=(1,))
    _ok(rec2, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk")))
    _ok(rec2, "soviet", o.Done())
    r2 = _refused(
        rec2, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", support=("s-hq-40",))
    )
    assert "AGS-K 23.13" in str(r2)


def _to_turn(rec: GameRecord, turn: int) -> None:
    while rec.state.turn < turn:
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        _ok(rec, side, order)


def test_24_22_the_soviet_player_chooses_which_supported_markers_come_off() -> None:
    rec = start(korsun(), 3)
    first = list(rec.state.ext["supported"])
    assert len(first) == 4  # AGS-K 24.2, A5
    _to_turn(rec, 2)
    opts = rec.state.ext["supported_options"]
    kept = rec.state.ext["supported"]
    assert len(kept) == opts["keep"] <= 2  # K160: two markers stay at most
    assert set(kept) <= set(opts["may_keep"])  # on corps in supply (24.22)
    said = " ".join(rec.system.announcements(rec.state, "soviet"))
    assert "unsupport" in said
    if opts["keep"] == 2 and len(opts["may_keep"]) > 2:
        other = [u for u in opts["may_keep"] if u not in kept][:2]
        remove = tuple(u for u in opts["supported"] if u not in other)
        _ok(rec, "soviet", o.Unsupport(units=remove))
        assert sorted(rec.state.ext["supported"]) == sorted(other)
    r = _refused(rec, "soviet", o.Unsupport(units=(opts["supported"][0],)))
    assert "AGS-K 24.22" in str(r) and "K160" in str(r)
    _to_turn(rec, 3)
    assert rec.state.ext["supported"] == []  # 24.23
    r = _refused(rec, "soviet", o.Unsupport(units=(first[0],)))
    assert "AGS-K 24.22" in str(r)


def test_23_2_from_game_turn_5_an_hq_coordinates_half_its_leadership_in_operations() -> None:
    rec = start(korsun(), 1, dice=(1, 1, 1))
    _ok(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk", "s-hq-40")))
    _ok(rec, "soviet", o.Done())
    rec.state.turn = 5  # the limit applies from Game-Turn 5 (a test's shortcut)
    rec.state.ext["operations"] = {"s-hq-40": 2}  # leadership 4: two operations
    r = _refused(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", support=("s-hq-40",)))
    assert "AGS-K 23.2" in str(r)
    rec.state.ext["operations"] = {"s-hq-40": 1}
    r2 = _ok(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513", support=("s-hq-40",)))
    assert any(e.kind == "attack_declared" and e.data["hq"] == "s-hq-40" for e in r2.events)
    assert rec.state.ext["operations"]["s-hq-40"] == 2


def test_k161_with_no_hq_named_the_referee_charges_the_active_hq_with_most_operations_left() -> (
    None
):
    rec = start(korsun(), 1, dice=(1,))
    _ok(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk", "s-hq-40")))
    _ok(rec, "soviet", o.Done())
    rec.state.turn = 5
    rec.state.ext["operations"] = {"s-hq-40": 2, "s-hq-2tk": 3, "s-hq-5gdtk": 3}
    r = _refused(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513"))
    assert "AGS-K 23.2" in str(r) and "23.23" in str(r)
    rec.state.ext["operations"] = {"s-hq-40": 2}
    r2 = rec.submit("soviet", o.Attack(units=("s-gd-cd-1",), target="0513"))
    if isinstance(r2, Applied):
        declared = next(e for e in r2.events if e.kind == "attack_declared").data
        assert declared["hq"] not in (None, "s-hq-40")
    else:
        assert "AGS-K 23.23" in str(r2)  # no other active HQ commands it


def test_11_37_an_hq_stacked_with_attackers_adds_its_leadership_up_to_their_strength() -> None:
    rec = start(korsun(), 1, dice=(1,))
    _ok(rec, "soviet", o.Activate(units=("s-hq-5gdtk", "s-hq-2tk", "s-hq-40")))
    _ok(rec, "soviet", o.Move(units=("s-hq-40",), path=("0412",)))  # onto s-gd-cd-1
    _ok(rec, "soviet", o.Done())
    r = _ok(
        rec,
        "soviet",
        o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513", support=("s-hq-40",)),
    )
    resolved = next(e for e in r.events if e.kind == "combat_resolved").data
    lines = {x["unit"]: x for x in resolved["lines"]}
    cd1 = lines["s-gd-cd-1"]["strength"]
    added = lines["s-hq-40"]["strength"]
    assert added == min(4, cd1) and "AGS 11.37" in lines["s-hq-40"]["why"]
    assert resolved["attack"] == cd1 + lines["s-gd-cd-2"]["strength"] + added
    assert "s-hq-40" in rec.state.ext["combat"]["attackers"]  # 11.36: it shares the results
    assert "s-hq-40" in rec.state.ext["led"]


def test_14_12_the_defender_answers_the_attack_with_its_air_point() -> None:
    rec = start(korsun(), 1, dice=(1, 1))
    _ok(rec, "soviet", o.Done())
    rec.state.ext["air"] = {"soviet": 1, "german": 1}  # a mud turn's points (a shortcut)
    _ok(rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513", air=("1",)))
    (d,) = rec.state.pending
    assert (d.side, d.kind, d.rule) == ("german", "defender_air", "AGS 14.12")
    assert rec.system.decision_defaults(rec.state, d)[0] == o.Pass()  # K162
    words = bot_systems.get("ags").describer
    assert words is not None
    assert "support-defence" in words.decision(d.kind, d.rule, d.options, side="german")
    r = _refused(rec, "german", o.Losses(units=("g-4-6",)))
    assert "AGS 14.12" in str(r)
    r2 = _ok(rec, "german", o.Air(mission="support-defence", hex="0513", amount=1))
    resolved = next(e for e in r2.events if e.kind == "combat_resolved").data
    assert resolved["shift"] == 0 and resolved["defender_air"] == 1  # 14.14: they cancel
    assert rec.state.ext["air"] == {"soviet": 0, "german": 0}
    assert any("cancels" in n for n in resolved["notes"])


def test_14_12_no_decision_without_a_defending_air_point() -> None:
    rec = start(korsun(), 1, dice=(1,))
    _ok(rec, "soviet", o.Done())
    r = _ok(rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    assert any(e.kind == "combat_resolved" for e in r.events)  # snow: no air points (19.8)

"""Gaps between artillery (6.0), reinforcements (11.0), strategic movement (12.0) and the
scenario special rules (K60): docs/rulings.md K79-K83."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from conftest import play, reject, scenario
from test_wb95_reinforcements import setup as reinforcement_setup

from engine.core import Rejected
from engine.notation import format_order, parse_order
from engine.record import GameRecord
from engine.wb95 import flow
from engine.wb95.game import legal_moves
from engine.wb95.results import _check_pursuit, _why_not_retreat, retreat_paths

GUN = {"type": "art", "sp": [4, 2], "mp": 6}


def last(rec: GameRecord, kind: str) -> dict[str, Any]:
    return next(e for e in reversed(rec.events) if e.kind == kind).data


def replays(rec: GameRecord) -> bool:
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


# --- 11.1.5 + 6.1.7: a reinforcement overruns guns in its entry hex (K81) ------------------


def _entry(guns: int, mp: int = 4) -> list[dict[str, Any]]:
    return [
        {"id": "s-r", "mp": mp, "arrives": {"turn": 1, "zone": "A"}},
        {"id": "s-hq", "type": "hq", "mp": 10, "arrives": {"turn": 1, "zone": "A"}},
        {"id": "g-hq", "type": "hq", "mp": 8, "hex": "0101"},
        *({"id": f"g-art{i}", "hex": "0101", **GUN} for i in range(guns)),
        {"id": "g-far", "hex": "1008"},
        {"id": "s-x", "hex": "0508"},  # keeps the Soviet Movement Phase played
    ]


def test_11_1_5_k81_a_reinforcement_overruns_towed_artillery_in_its_entry_hex() -> None:
    s = reinforcement_setup(_entry(2), zones_={"A": ["0101"]})
    rec = play(s)
    r = reject(rec, "enter s-hq A")
    assert (r.rule, r.ruling) == ("6.1.7", "K20") and "only a regular unit" in r.message
    # clear 1.5 + 2 guns x 1 MP (not capped by R13) = 3.5 <= 4
    rec = play(s, "enter s-r A")
    assert last(rec, "reinforcement_entered")["entry_cost"] == "7/2"
    gone = [e.data for e in rec.events if e.kind == "unit_eliminated"]
    assert {e["unit"] for e in gone} == {"g-hq", "g-art0", "g-art1"}
    assert {e["rule"] for e in gone} == {"6.1.7", "6.1.7, 9.1.5"}
    assert rec.state.units["s-r"].hex == "0101"
    assert replays(rec)


def test_11_1_5_k81_the_guns_mps_are_not_capped_by_r13() -> None:
    s = reinforcement_setup(_entry(3), zones_={"A": ["0101"]})
    r = reject(play(s), "enter s-r A")  # 1.5 + 3 = 4.5 > 4
    assert (r.rule, r.ruling) == ("6.1.7", "K81") and "4.5 MP in all" in r.message
    rec = play(reinforcement_setup(_entry(3, mp=6), zones_={"A": ["0101"]}), "enter s-r A 0201")
    assert last(rec, "reinforcement_entered")["cost"] == "6"  # 1.5 + 3, then 1.5
    assert rec.state.units["g-art2"].eliminated and rec.state.units["s-r"].hex == "0201"
    assert replays(rec)


# --- R12 + 6.1.7: the extra road hex does not pay for the guns (K80) -------------------------


def _road(mp: int, *enemy: dict[str, Any]) -> Any:
    line = [f"{c:02d}03" for c in range(5, 11)]
    units = [{"id": "s-foot", "hex": "0503", "mp": mp}, *enemy, {"id": "g-far", "hex": "1008"}]
    return scenario(units, roads=[{"kind": "side", "hexes": line}])


def test_r12_k80_the_extra_road_hex_does_not_pay_for_overrunning_guns() -> None:
    gun = {"id": "g-art", "hex": "0803", **GUN}
    rec = play(_road(2, gun))
    assert "0803" not in legal_moves(rec.state, "s-foot")
    r = reject(rec, "move s-foot 0603 0703 0803")  # 2 MPs spent, the gun's 1 MP not left
    assert (r.rule, r.ruling) == ("6.1.7", "K80") and "extra road hex" in r.message
    # 3 MPs: 0603, 0703 for 2, the extra hex free, the gun 1 MP from the one left
    rec = play(_road(3, gun))
    assert legal_moves(rec.state, "s-foot")["0803"].cost == 3
    rec = play(_road(3, gun), "move s-foot 0603 0703 0803")
    assert last(rec, "moved")["bonus"] is True and last(rec, "moved")["cost"] == "3"
    assert rec.state.units["g-art"].eliminated
    assert replays(rec)


def test_r12_k80_the_extra_road_hex_may_overrun_a_lone_hq() -> None:
    rec = play(_road(2, {"id": "g-hq", "hex": "0803", "type": "hq", "mp": 8}))
    assert legal_moves(rec.state, "s-foot")["0803"].cost == 2
    rec = play(_road(2, {"id": "g-hq", "hex": "0803", "type": "hq", "mp": 8}), "move s-foot 0803")
    assert rec.state.units["g-hq"].eliminated and rec.state.units["s-foot"].hex == "0803"


# --- 6.5 barrage at objects (K79) ------------------------------------------------------------


def test_6_5_4_k79_a_barrage_cannot_target_a_bridge() -> None:
    units = [
        {"id": "s-a", "hex": "0404"},
        {"id": "g-b0", "hex": "0704", **GUN},
        {"id": "g-b1", "hex": "0705", **GUN},
    ]
    setup = scenario(
        units,
        start={"turn": 1, "phase": "barrage", "active": "german"},
        barrage=True,
        hexsides=[{"hexes": ["0404", "0504"], "feature": "river"}],
        bridges=[["0404", "0504"]],
    )
    order = parse_order("barrage g-b0 g-b1 -> 404/504")
    assert order is not None and parse_order(format_order(order)) == order
    r = reject(play(setup), "barrage g-b0 g-b1 -> 0404/0504")
    assert (r.rule, r.ruling) == ("6.5.4", "K79") and "fire UNITS -> 0404/0504" in r.message


# --- 12.2.3 + 10.2.3: marking an OoS unit that pays for full MPs (K82) ----------------------


def test_12_2_3_k82_an_oos_unit_marked_full_pays_its_level_when_it_moves() -> None:
    setup = scenario([{"id": "s-oos", "hex": "0203", "oos": 1}, {"id": "s-inf", "hex": "0205"}])
    r = reject(play(setup), "strategic s-oos")  # 4 halved = 2, less 2 = 0
    assert r.rule == "12.2.3" and "strategic UNITS full" in r.message
    r = reject(play(setup), "strategic s-inf full")
    assert (r.rule, r.ruling) == ("10.2.3", "K82")
    rec = play(setup, "strategic s-oos full")
    assert last(rec, "strategic_marked")["mp"] == {"s-oos": "2"}  # 4 less 2
    assert rec.state.units["s-oos"].oos == 1  # nothing paid yet
    rec = play(setup, "strategic s-oos full", "done")
    assert flow.current_phase(rec.state).kind == "strategic"
    r = reject(rec, "move s-oos 0303")
    assert (r.rule, r.ruling) == ("12.2.3", "K82") and "'full'" in r.message
    rec = play(setup, "strategic s-oos full", "done", "move s-oos 0303 full")
    assert rec.state.units["s-oos"].hex == "0303" and rec.state.units["s-oos"].oos == 2
    assert rec.state.units["s-oos"].mp_spent == Fraction(3, 2)
    assert replays(rec)


def test_12_2_3_k82_strategic_full_notation_round_trips() -> None:
    order = parse_order("strategic s-a s-b FULL")
    assert order is not None and format_order(order) == "strategic s-a s-b full"
    assert parse_order(format_order(order)) == order
    plain = parse_order("strategic s-a")
    assert plain is not None and format_order(plain) == "strategic s-a"


# --- K60 no_crossing in retreats and pursuits (K83) -----------------------------------------


def _no_crossing() -> GameRecord:
    units = [
        {"id": "s-a", "hex": "0603"},
        {"id": "s-b", "hex": "0603"},
        {"id": "g-a", "hex": "0108"},
    ]
    special = {
        "fronts": {"south": {}},
        "no_crossing": [{"units": ["s-a"], "hexsides": [["0503", "0603"]], "label": "s-a"}],
    }
    setup = scenario(
        units,
        game="kursk",
        initiative="german",
        calendar={"start": "1943-07-05"},
        special=special,
        start={"turn": 1, "phase": "combat", "active": "german"},
    )
    return play(setup)


def test_k83_no_crossing_bars_a_retreat_across_the_hexside() -> None:
    rec = _no_crossing()
    s = rec.state
    a, b = s.units["s-a"], s.units["s-b"]
    assert ("0503",) in retreat_paths(s, b, 1)
    assert ("0503",) not in retreat_paths(s, a, 1) and retreat_paths(s, a, 1)
    assert all(p[0] != "0503" for p in retreat_paths(s, a, 2))
    why = _why_not_retreat(s, a, ("0503",))
    assert why[1:] == ("scenario", "K60") and "may not cross between 0603 and 0503" in why[0]


def test_k83_no_crossing_bars_a_pursuit_across_the_hexside() -> None:
    s = _no_crossing().state
    opts = {"first": ["0503"], "paths": {"0503": [["0403"]]}, "mode": "pursuit"}
    with pytest.raises(Rejected) as e:
        _check_pursuit(s, s.units["s-a"], ["0503"], opts)
    assert e.value.rejection.rule == "scenario"
    _check_pursuit(s, s.units["s-b"], ["0503"], opts)  # others may

"""11.0 Reinforcements: entering (11.1), entry zones and changing them (11.2); R13, R23,
docs/rulings.md K32-K35; the examples E33, E39, E40.

Unless a test says otherwise the maps use the Korsun terrain table (foot: clear 1.5;
mechanized: clear 2), on a 10x8 clear map, and the scenario lists initial control
explicitly (`control: {}` = nobody's), so 11.1.4 blocks nothing unless a test wants it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from conftest import _unit, play, reject

from engine.core import Applied
from engine.model import Setup
from engine.notation import format_order, parse_order
from engine.orders import Delay, Leave
from engine.record import GameRecord
from engine.view import view
from engine.wb95 import flow
from engine.wb95.game import legal_actions
from engine.wb95.reinforcements import gates, legal_delays, legal_entries, zones
from scenarios import load_scenario_data

LETTERS = "ABCDEFGHIJ"


def setup(
    units: list[dict[str, Any]],
    *,
    zones_: dict[str, list[str]] | None = None,
    game: str = "korsun",
    terrain: dict[str, str] | None = None,
    roads: list[dict[str, Any]] | None = None,
    control: Any = "nobody",
    turns: int = 3,
    start: dict[str, Any] | None = None,
) -> Setup:
    """Like conftest.scenario, with entry zones on the map; `control` None: K5's."""
    data: dict[str, Any] = {
        "id": "t-reinforcements",
        "system": "wb95",
        "game": game,
        "initiative": "soviet",
        "turns": turns,
        "start": start or {"turn": 1, "phase": "movement", "active": "soviet"},
        "map": {
            "cols": [1, 10],
            "rows": [1, 8],
            "terrain": terrain or {},
            "roads": roads or [],
            "zones": zones_ or {},
        },
        "sides": {
            "soviet": {"nation": "soviet", "supply": [{"edge": "E"}]},
            "german": {"nation": "german", "supply": [{"edge": "W"}]},
        },
        "units": [_unit(u) for u in units],
    }
    if control is not None:
        data["control"] = {} if control == "nobody" else control
    return load_scenario_data(data, name="test")


GERMAN_FAR = {"id": "g-far", "hex": "1008"}  # keeps the German half of the turn played


def until(rec: GameRecord, turn: int, kind: str = "movement", side: str = "soviet") -> None:
    """Say `done` for whoever is awaited until `side`'s phase `kind` of `turn` starts."""
    for _ in range(60):
        s = rec.state
        if s.turn == turn and flow.current_phase(s).kind == kind and side in flow.acting_sides(s):
            return
        who = flow.awaited_sides(s)[0]
        order = parse_order(f"{who}: done")
        assert order is not None
        assert isinstance(rec.submit(None, order), Applied)
    raise AssertionError(f"never reached {side}'s {kind} phase of turn {turn}")


def give(rec: GameRecord, line: str) -> None:
    """One more order that must be accepted."""
    order = parse_order(line)
    assert order is not None
    r = rec.submit(None, order)
    assert isinstance(r, Applied), f"{line!r} rejected: {r}"


def last(rec: GameRecord, kind: str) -> dict[str, Any]:
    return [e for e in rec.events if e.kind == kind][-1].data


def replays(rec: GameRecord) -> bool:
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


# --- 11.1 ----------------------------------------------------------------------------------


def test_11_1_1_a_reinforcement_waits_for_its_turn_and_may_stay_off_the_map() -> None:
    s = setup(
        [{"id": "s-r", "arrives": {"turn": 2, "zone": "A"}}, {"id": "s-a", "hex": "0505"}],
        zones_={"A": ["0101", "0102"]},
    )
    rec = play(s)
    r = reject(rec, "enter s-r A")
    assert r.rule == "11.1.1" and "turn 2" in r.message
    assert legal_entries(rec.state, "s-r") == {}
    # the enemy does not see it; its side sees when and where it comes
    assert "s-r" not in {u.id for u in view(rec.state, "german").units}
    mine = {u.id: u for u in view(rec.state, "soviet").units}
    assert mine["s-r"].hex is None and mine["s-r"].arrives == {"turn": 2, "zone": "A"}
    # never entered: no penalty, it simply stays off the map
    until(rec, 3, "supply", "german")
    assert rec.state.over and rec.state.units["s-r"].hex is None
    assert not rec.state.units["s-r"].eliminated


def test_11_1_2_k34_entry_through_a_hex_of_the_zone_then_on_like_a_move() -> None:
    s = setup([{"id": "s-r", "arrives": {"turn": 1, "zone": "A"}}], zones_={"A": ["0101", "0102"]})
    rec = play(s, "enter s-r A 0102 0202")
    ev = last(rec, "reinforcement_entered")
    assert ev["hex"] == "0102" and ev["path"] == ["0102", "0202"] and ev["stack"] == 1
    assert ev["entry_cost"] == "3/2" and ev["cost"] == "3"  # clear 1.5 to enter, 1.5 on
    u = rec.state.units["s-r"]
    assert u.hex == "0202" and u.arrives is None and u.mp_spent == 3
    r = reject(rec, "move s-r 0302")  # entering was its move (3.1.6, K9)
    assert r.rule == "3.1.6"
    assert replays(rec)
    rec = play(s)
    r = reject(rec, "enter s-r A 0102 0202 0302")  # 4.5 MP
    assert r.rule == "3.1.5" and "needs 4.5 MP" in r.message
    r = reject(rec, "enter s-r 0103")
    assert r.rule == "11.1.2" and "zone A" in r.message
    r = reject(rec, "enter s-r B")
    assert r.rule == "11.1.2" and "no entry zone B" in r.message
    # the zone alone: its cheapest open hex (here the first); a hex after it: the destination
    assert play(s, "enter s-r A").state.units["s-r"].hex == "0101"
    rec = play(s, "enter s-r A 0202")
    assert last(rec, "reinforcement_entered")["path"] == ["0102", "0202"]


def test_11_1_2_k34_map_edges_and_scenario_hexes() -> None:
    s = setup(
        [
            {"id": "s-edge", "arrives": {"turn": 1, "zone": "N"}},
            {"id": "s-hex", "arrives": {"turn": 1, "hex": "0105"}},
        ]
    )
    rec = play(s, "enter s-edge N 0701", "enter s-hex 0105")
    assert rec.state.units["s-edge"].hex == "0701"
    assert rec.state.units["s-hex"].hex == "0105"
    rec = play(s)
    assert reject(rec, "enter s-hex 0104").rule == "11.1.2"
    assert reject(rec, "enter s-edge 0202").rule == "11.1.2"  # not on the N edge
    assert set(h for h in legal_entries(rec.state, "s-edge") if h.endswith("01")) == {
        f"{c:02d}01" for c in range(1, 11)
    }


def test_11_1_3_k32_reinforcements_enter_in_the_strategic_movement_phase() -> None:
    """In the Strategic Movement Phase: no marker needed, 2 MPs less (12.2.3), not into
    enemy ZoC (12.2.2), no change of zone (11.2.1 is for the Movement Phase)."""
    s = setup(
        [
            {"id": "s-mot", "type": "mot", "mp": 7, "arrives": {"turn": 1, "zone": "B"}},
            {"id": "s-inf", "arrives": {"turn": 1, "zone": "B"}},
            {"id": "g-1", "hex": "0505"},
        ],
        zones_={"A": ["0101"], "B": ["0401"], "C": ["0601"]},
    )
    rec = play(s, "done")
    assert flow.current_phase(rec.state).kind == "strategic"  # not skipped (K13, K32)
    rec2 = play(s, "enter s-mot B", "done")
    assert flow.current_phase(rec2.state).kind == "strategic"  # s-inf may still enter
    r = reject(rec, "enter s-mot A")
    assert r.rule == "11.2.1" and r.ruling == "K32"
    r = reject(rec, "enter s-mot B 0402")  # trucked clear 3 + 3 > 7 - 2
    assert r.rule == "3.1.5" and "has 5" in r.message
    rec = play(s, "done", "enter s-mot B")
    ev = last(rec, "reinforcement_entered")
    assert ev["mp"] == "5" and ev["cost"] == "3"
    assert rec.state.units["s-mot"].hex == "0401"
    assert replays(rec)


def test_11_1_3_k32_no_entry_into_enemy_zoc_in_strategic_movement() -> None:
    s = setup(
        [{"id": "s-inf", "arrives": {"turn": 1, "zone": "A"}}, {"id": "g-1", "hex": "0402"}],
        zones_={"A": ["0401", "0501"]},
    )
    rec = play(s, "done")
    r = reject(rec, "enter s-inf 0401")  # 0401 is in g-1's ZoC
    assert r.rule == "12.2.2" and r.ruling == "K32"
    # in the Movement Phase it may enter it, and stops there (4.2.1)
    rec = play(s)
    assert reject(rec, "enter s-inf 0401 0301").rule == "4.2.1"
    assert legal_entries(rec.state, "s-inf")["0401"].stops
    rec = play(s, "enter s-inf 0401")
    assert rec.state.units["s-inf"].hex == "0401"


def test_11_1_4_k33_no_entry_through_a_hex_the_enemy_controls() -> None:
    s = setup(
        [{"id": "s-r", "arrives": {"turn": 1, "zone": "A"}}, {"id": "g-1", "hex": "0103"}],
        zones_={"A": ["0101", "0102", "0103"]},
        control={"0101": "german"},
    )
    rec = play(s)
    r = reject(rec, "enter s-r 0101")
    assert r.rule == "11.1.4" and "enemy controls" in r.message
    r = reject(rec, "enter s-r 0103")  # held by enemy units
    assert r.rule == "3.1.8"
    assert set(legal_entries(rec.state, "s-r")) >= {"0102"}
    assert {e.entry for e in legal_entries(rec.state, "s-r").values()} == {"0102"}
    rec = play(s, "enter s-r A")  # the zone's open hex
    assert rec.state.units["s-r"].hex == "0102"
    # a zone the enemy controls wholly is closed
    s = setup(
        [
            {"id": "s-r", "arrives": {"turn": 1, "zone": "A"}},
            {"id": "s-a", "hex": "0505"},
            {"id": "g-1", "hex": "0808"},
        ],
        zones_={"A": ["0101"]},
        control={"german": ["0101"]},
    )
    rec = play(s)
    assert reject(rec, "enter s-r A").rule == "11.1.4"
    assert legal_entries(rec.state, "s-r") == {}


def test_11_1_5_k33_e33_stacks_through_one_hex_pay_n_times_its_cost() -> None:
    """E33 on the Kursk table, where woods cost infantry 1 + 1 = 2 MPs and a main road 1/2
    (the example's figures; on the Korsun table woods would cost 2.5, A-55): 10 infantry
    units of 2 CELs need 3 stacks; through woods they pay 2, 4 and 6 MPs -- the third, with
    4 MPs, must wait (R13's cap does not apply, A-53); along a road 0.5, 1, 1.5."""
    woods = [{"id": f"s-w{i}", "arrives": {"turn": 1, "zone": "A"}} for i in range(10)]
    road = [{"id": f"s-r{i}", "arrives": {"turn": 1, "zone": "B"}} for i in range(10)]
    s = setup(
        [*woods, *road, GERMAN_FAR],
        game="kursk",
        zones_={"A": ["0104"], "B": ["1004"]},
        terrain={"0104": "forest", "1004": "forest"},
        roads=[{"kind": "main", "hexes": ["1004", "0904", "0804"]}],
        turns=2,
    )
    rec = play(s)
    r = reject(rec, "enter s-w0 s-w1 s-w2 s-w3 s-w4 A")  # 10 CELs
    assert r.rule == "11.1.5" and "at most 8" in r.message
    play_on = [
        "enter s-w0 s-w1 s-w2 s-w3 A 0104 0204",  # 1st stack: 2 MP, then 1 on
        "enter s-w4 s-w5 s-w6 A",  # 2nd stack: 4 MP (6 CELs: room for one more, K94)
    ]
    rec = play(s, *play_on)
    entered = [e.data for e in rec.events if e.kind == "reinforcement_entered"]
    assert [(e["stack"], e["entry_cost"]) for e in entered] == [(1, "2")] * 4 + [(2, "4")] * 3
    r = reject(rec, "enter s-w8 s-w9 A")
    assert r.rule == "11.1.5" and r.ruling == "R13"
    assert "3rd stack" in r.message and "3 x 2 = 6 MP" in r.message and "has 4" in r.message
    assert "s-w8" not in legal_actions(rec.state, "soviet")["entries"]  # type: ignore[operator]
    # along the road that leaves the map at 1004: 0.5, 1, 1.5
    lines = ["enter s-r0 s-r1 s-r2 s-r3 B 1004 0904", "enter s-r4 s-r5 s-r6 s-r7 B 1004 0905"]
    rec = play(s, *play_on, *lines, "enter s-r8 s-r9 B")
    road_costs = [
        e.data["entry_cost"]
        for e in rec.events
        if e.kind == "reinforcement_entered" and e.data["hex"] == "1004"
    ]
    assert road_costs == ["1/2"] * 4 + ["1"] * 4 + ["3/2"] * 2
    assert replays(rec)
    # the count starts again in the next phase: in the Strategic Movement Phase the third
    # woods stack is a 1st stack (2 MP of 4 - 2)
    until(rec, 1, "strategic")
    give(rec, "enter s-w8 A")
    ev = last(rec, "reinforcement_entered")
    assert ev["unit"] == "s-w8" and ev["stack"] == 1 and ev["entry_cost"] == "2"


def test_11_1_5_r13_caps_the_first_stack_only() -> None:
    s = setup(
        [
            {"id": "s-a", "mp": 1, "arrives": {"turn": 1, "zone": "A"}},
            {"id": "s-b", "mp": 1, "arrives": {"turn": 1, "zone": "A"}},
        ],
        zones_={"A": ["0101"]},
        terrain={"0101": "forest"},  # Korsun: 1.5 + 1 = 2.5 for foot
    )
    rec = play(s, "enter s-a A")
    assert last(rec, "reinforcement_entered")["entry_cost"] == "1"  # capped at its 1 MP
    r = reject(rec, "enter s-b A")  # 2 x 2.5 = 5, not capped
    assert r.rule == "11.1.5" and "2 x 2.5 = 5 MP" in r.message


def test_11_1_5_k33_one_order_is_one_stack_and_an_hq_counts_one_cel() -> None:
    units = [{"id": f"s-{i}", "arrives": {"turn": 1, "zone": "A"}} for i in range(4)]
    hq = {"id": "s-hq", "type": "hq", "mp": 8, "arrives": {"turn": 1, "zone": "A"}}
    s = setup([*units, hq], zones_={"A": ["0101"]})
    rec = play(s)
    r = reject(rec, "enter s-0 s-1 s-2 s-3 s-hq A")  # 8 CELs and the HQ's 1 (3.2.2)
    assert r.rule == "11.1.5" and "9 CELs" in r.message
    rec = play(s, "enter s-0 s-1 s-2 s-hq A 0101 0102", "enter s-3 A")  # 1st stack on: K94
    stacks = {e.data["unit"]: e.data["stack"] for e in rec.events if e.kind.endswith("entered")}
    assert stacks == {"s-0": 1, "s-1": 1, "s-2": 1, "s-hq": 1, "s-3": 2}


def test_9_1_5_a_reinforcement_overruns_a_lone_hq_in_its_entry_hex() -> None:
    s = setup(
        [
            {"id": "s-r", "arrives": {"turn": 1, "zone": "A"}},
            {"id": "g-hq", "type": "hq", "mp": 8, "hex": "0101"},
        ],
        zones_={"A": ["0101"]},
    )
    rec = play(s, "enter s-r A")
    assert rec.state.units["g-hq"].eliminated and rec.state.units["s-r"].hex == "0101"
    assert replays(rec)


# --- 11.2 ----------------------------------------------------------------------------------


def _row(n: int = 10) -> dict[str, list[str]]:
    """Zones A, B, C ... one hex each along the N edge: A = 0101, B = 0201 ..."""
    return {LETTERS[i]: [f"{i + 1:02d}01"] for i in range(n)}


def test_11_2_1_k34_e39_an_adjacent_zone_with_half_the_mps_unrounded() -> None:
    """E39: an armoured division of 7 MPs due at C may enter through B or D with 3.5 MPs
    (R23: not rounded), not through A or E."""
    s = setup(
        [{"id": "s-arm", "type": "arm", "mp": 7, "arrives": {"turn": 1, "zone": "C"}}],
        zones_=_row(5),
    )
    rec = play(s, "enter s-arm B")
    ev = last(rec, "reinforcement_entered")
    assert ev["mp"] == "7/2" and ev["half"] is True and ev["rule"] == "11.2.1"
    assert ev["zone"] == "B" and ev["hex"] == "0201"
    assert replays(rec)
    rec = play(s)
    r = reject(rec, "enter s-arm D 0401 0402")  # mechanized clear 2 + 2 = 4 > 3.5
    assert r.rule == "3.1.5" and "has 3.5" in r.message
    assert reject(rec, "enter s-arm A").rule == "11.1.2"
    assert reject(rec, "enter s-arm E").rule == "11.1.2"
    u = rec.state.units["s-arm"]
    assert {g.hex: g.half for g in gates(rec.state, u)} == {
        "0201": True,
        "0301": False,
        "0401": True,
    }
    # legal_entries lists each hex with its best way in: C's full MPs before half MPs
    entries = legal_entries(rec.state, "s-arm")
    assert entries["0201"].path == ("0301", "0201") and entries["0201"].cost == 4
    assert not entries["0201"].half and entries["0302"].cost == 4  # through C: 2 + 2 of 7
    # with C closed (11.1.4) the way is through B or D
    s = setup(
        [{"id": "s-arm", "type": "arm", "mp": 7, "arrives": {"turn": 1, "zone": "C"}}],
        zones_=_row(5),
        control={"0301": "german"},
    )
    entries = legal_entries(play(s).state, "s-arm")
    assert {e.entry for e in entries.values()} == {"0201", "0401"}
    assert all(e.half and e.cost <= Fraction(7, 2) for e in entries.values())


def test_11_2_2_k34_e40_delay_moves_up_to_three_zones_a_turn() -> None:
    """E40: zones A-J, due at C. This turn: C with all MPs, B or D with half. Moving
    instead of entering: A-F from the next turn; G-I after two turns; J after three."""
    s = setup(
        [{"id": "s-r", "arrives": {"turn": 1, "zone": "C"}}, GERMAN_FAR],
        zones_=_row(10),
        turns=4,
    )
    rec = play(s)
    assert legal_delays(rec.state, "s-r") == ["A", "B", "D", "E", "F"]
    r = reject(rec, "delay s-r G")
    assert r.rule == "11.2.2" and "4 zones away" in r.message
    assert reject(rec, "delay s-r C").rule == "11.2.2"
    rec = play(s, "delay s-r F")
    assert rec.state.units["s-r"].arrives == {"turn": 2, "zone": "F"}
    assert reject(rec, "enter s-r F").rule == "11.1.1"  # from the next turn on
    until(rec, 2)
    open_ = {g.hex: g.half for g in gates(rec.state, rec.state.units["s-r"])}
    assert open_ == {"0601": False, "0501": True, "0701": True}  # F; E and G at half (11.2.1)
    assert reject(rec, "delay s-r J").rule == "11.2.2"
    give(rec, "delay s-r I")
    until(rec, 3)
    give(rec, "delay s-r J")
    until(rec, 4)
    give(rec, "enter s-r J")
    ev = last(rec, "reinforcement_entered")
    assert ev["hex"] == "1001" and ev["mp"] == "4" and not ev["half"]
    assert replays(rec)


def test_11_2_2_k34_zones_on_different_edges_are_not_adjacent() -> None:
    s = setup(
        [{"id": "s-r", "arrives": {"turn": 1, "zone": "A"}}],
        zones_={"A": ["0501"], "B": ["0508"], "C": ["0801"]},  # A, C on the N edge; B on S
    )
    rows = {z.name: (z.row, z.pos) for z in zones(s.map)}
    assert rows["A"][0] == rows["C"][0] and rows["B"][0] != rows["A"][0]
    rec = play(s)
    assert legal_delays(rec.state, "s-r") == ["C"]
    assert reject(rec, "enter s-r B").rule == "11.1.2"
    assert play(s, "enter s-r C").state.units["s-r"].hex == "0801"  # adjacent: half MPs


def test_11_2_4_k34_each_road_leaving_an_edge_is_an_entry_zone() -> None:
    """No zones printed: the roads leaving the W edge at 0103 and 0106 are two adjacent
    zones. Entering along the side road costs its 1 MP instead of clear 1.5."""
    s = setup(
        [{"id": "s-r", "arrives": {"turn": 1, "hex": "0103"}}],
        roads=[
            {"kind": "side", "hexes": ["0103", "0203", "0303"]},
            {"kind": "main", "hexes": ["0406", "0306", "0206", "0106"]},
        ],
    )
    assert [(z.name, z.pos) for z in zones(s.map)] == [("0103", 0), ("0106", 1)]
    rec = play(s)
    gates = {e.entry: e.half for e in legal_entries(rec.state, "s-r").values()}
    assert gates == {"0103": False, "0106": True}
    assert reject(rec, "enter s-r 0104").rule == "11.1.2"
    rec = play(s, "enter s-r 0103 0203 0303")
    ev = last(rec, "reinforcement_entered")
    assert ev["entry_cost"] == "1" and ev["cost"] == "3"
    rec = play(s, "enter s-r 0106 0206")  # main road 1/2 + 1/2 of 4 / 2
    assert last(rec, "reinforcement_entered")["cost"] == "1"
    assert legal_delays(play(s).state, "s-r") == ["0106"]


def test_11_2_3_k35_leaving_through_an_entry_zone_and_coming_back() -> None:
    s = setup(
        [
            {"id": "s-a", "hex": "0302"},
            {"id": "s-b", "hex": "0101", "ff": True},
            {"id": "s-c", "hex": "0505"},
            {"id": "g-1", "hex": "0203"},
            GERMAN_FAR,
        ],
        zones_={"A": ["0101", "0102"]},
    )
    rec = play(s, "leave s-b")
    ev = last(rec, "left_map")
    assert ev["hex"] == "0101" and ev["arrives"] == {"turn": 2, "zone": "A"}
    u = rec.state.units["s-b"]
    assert u.hex is None and u.fortification is None and u.arrives == {"turn": 2, "zone": "A"}
    assert "s-b" not in {x.id for x in view(rec.state, "german").units}
    assert reject(rec, "enter s-b A").rule == "11.1.1"
    assert reject(rec, "leave s-c").rule == "11.2.3"  # 0505 is in no entry zone
    # s-a would end its move in g-1's ZoC at 0102 (4.2.1)
    r = reject(rec, "leave s-a 0202 0102")
    assert r.rule in ("4.2.1", "4.2.3")
    until(rec, 2)
    give(rec, "enter s-b A 0101")
    assert rec.state.units["s-b"].hex == "0101"
    assert replays(rec)


def test_11_2_3_k35_a_unit_moves_to_the_zone_and_leaves() -> None:
    s = setup([{"id": "s-a", "hex": "0302"}], zones_={"A": ["0101", "0102"]})
    rec = play(s, "leave s-a 0102")
    moved = last(rec, "moved")
    assert moved["to"] == "0102" and moved["cost"] == "3"
    assert rec.state.units["s-a"].hex is None and replays(rec)


# --- notation and listings -----------------------------------------------------------------


def test_delay_and_leave_notation_round_trip() -> None:
    d = parse_order("delay s-1 s-2 f")
    assert d == Delay(units=("s-1", "s-2"), where="F", line=1)
    assert format_order(d) == "delay s-1 s-2 F"
    lv = parse_order("leave s-1 302 0102")
    assert lv == Leave(units=("s-1",), path=("0302", "0102"), line=1)
    assert format_order(lv) == "leave s-1 0302 0102"
    assert parse_order("leave @0101") == Leave(units=("@0101",), line=1)


def test_legal_actions_list_entries_for_autocomplete() -> None:
    s = setup([{"id": "s-r", "arrives": {"turn": 1, "zone": "A"}}], zones_={"A": ["0101"]})
    rec = play(s)
    acts = legal_actions(rec.state, "soviet")
    assert "0101" in acts["entries"]["s-r"]  # type: ignore[index]
    e = legal_entries(rec.state, "s-r")["0201"]
    assert e.path == ("0101", "0201") and e.cost == Fraction(3) and e.stack == 1
    assert legal_entries(rec.state, "nobody") == {}


def test_11_1_shipped_scenario_brings_in_its_reinforcement() -> None:
    """demo-steblev: the Wallonien brigade arrives on turn 2 in zone A (the south edge)."""
    from scenarios import load_scenario

    s = load_scenario("demo-steblev")
    rec = GameRecord(s)
    until(rec, 2, "movement", "german")
    entries = legal_entries(rec.state, "g-wallonien")
    assert entries and {e.zone for e in entries.values()} <= {"A"}
    order = parse_order(
        f"german: enter g-wallonien A {min(entries, key=lambda h: entries[h].cost)}"
    )
    assert order is not None
    assert isinstance(rec.submit(None, order), Applied)
    assert rec.state.units["g-wallonien"].on_map
    assert replays(rec)


def test_4_3_1_k33_entry_zones_start_under_their_sides_control() -> None:
    """K5 gives each hex to the nearer side's units; a side's entry zone and entry hexes are
    its own at the start all the same, unless an enemy unit stands there."""
    s = setup(
        [
            {"id": "g-r", "arrives": {"turn": 2, "zone": "A"}},
            {"id": "g-h", "arrives": {"turn": 2, "hex": "1001"}},
            {"id": "g-x", "arrives": {"turn": 2, "hex": "1008"}},
            {"id": "s-1", "hex": "0203"},
            {"id": "s-2", "hex": "1008"},
            {"id": "g-1", "hex": "0808"},
        ],
        zones_={"A": ["0101", "0102"]},
        control=None,
    )
    state = GameRecord(s).state
    assert state.control.get("0101") == "german" and state.control.get("0102") == "german"
    assert state.control.get("1001") == "german"
    assert state.control.get("1008") == "soviet"  # a Soviet unit stands there
    assert state.control.get("0103") == "soviet"  # K5 as before


def test_11_2_2_k32_moving_between_zones_in_the_strategic_movement_phase() -> None:
    s = setup(
        [{"id": "s-r", "arrives": {"turn": 1, "zone": "B"}}, GERMAN_FAR],
        zones_=_row(5),
    )
    rec = play(s, "done")
    assert flow.current_phase(rec.state).kind == "strategic"
    assert legal_delays(rec.state, "s-r") == ["A", "C", "D", "E"]
    rec = play(s, "done", "delay s-r E")
    assert rec.state.units["s-r"].arrives == {"turn": 2, "zone": "E"}
    assert replays(rec)


def test_11_1_issue_17_the_turn_notice_announces_entries_with_an_order_that_runs() -> None:
    """Issue #17: reinforcements that may enter are announced with an order the player can
    type as it stands (the entry hex first, then the path: 11.1.2, K34)."""
    from bot.service.announce import announcements
    from engine.notation import parse_order

    s = setup([{"id": "s-r", "arrives": {"turn": 1, "zone": "A"}}], zones_={"A": ["0101", "0102"]})
    rec = GameRecord(s, 0)
    lines = announcements(rec.state, "soviet")
    assert lines[0].startswith("Reinforcements may enter now (11.1)")
    order = lines[1].strip()
    assert order.startswith("enter s-r ")
    result = rec.submit("soviet", parse_order(order))  # type: ignore[arg-type]
    assert not hasattr(result, "message"), result
    assert rec.state.units["s-r"].hex is not None

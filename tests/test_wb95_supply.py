"""10.0 Supply: lines of supply (10.1), out of supply (10.2) and the Supply Phase, with R5,
R8, R9 and docs/rulings.md K38-K45; the examples E34-E38.

Korsun costs for the trucked unit a line of supply imitates (10.1.8): clear 3, forest 3+1,
town 2, hills 3, swamp and mountain closed; river +2, stream +1, big river only by bridge;
roads free (10.1.5). Supply MPs: Germans 10, Soviets 8, German allies 7 (10.1.7).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from conftest import _unit, play, reject, scenario

from engine.core import Applied
from engine.model import Setup
from engine.notation import format_order, parse_order
from engine.orders import Attack, Done, Move
from engine.record import GameRecord
from engine.state import GameState
from engine.wb95.bridges import DESTROYED
from engine.wb95.bridges import key as bridge_key
from engine.wb95.control import control_changes
from engine.wb95.flow import awaited_sides
from engine.wb95.supply import Line, supply_costs, trace
from scenarios import ScenarioError, load_morale, load_scenario_data
from scenarios.tables import load_supply

SOVIET_SUPPLY = {"turn": 1, "phase": "supply", "active": "soviet"}
SOVIET_MOVE = {"turn": 1, "phase": "movement", "active": "soviet"}
GERMAN_MOVE = {"turn": 1, "phase": "movement", "active": "german"}


def sides(soviet: list[dict[str, Any]], german: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "soviet": {"nation": "soviet", "supply": soviet},
        "german": {"nation": "german", "supply": german},
    }


def supply_setup(
    units: list[dict[str, Any]],
    *,
    game: str = "korsun",
    cols: tuple[int, int] = (1, 10),
    rows: tuple[int, int] = (1, 8),
    start: dict[str, Any] | None = None,
    map_extra: dict[str, Any] | None = None,
    **extra: Any,
) -> Setup:
    """Like conftest.scenario, with map keys conftest does not pass (zones, names)."""
    data: dict[str, Any] = {
        "id": "t-supply",
        "system": "wb95",
        "game": game,
        "initiative": "soviet",
        "turns": 3,
        "start": start or SOVIET_MOVE,
        "map": {
            "layout": "even-q",
            "cols": list(cols),
            "rows": list(rows),
            "default": "clear",
            **(map_extra or {}),
        },
        "sides": sides([{"edge": "E"}], [{"edge": "W"}]),
        "units": [_unit(u) for u in units],
    }
    data.update(extra)
    return load_scenario_data(data, name="test")


def lines(setup: Setup, side: str) -> dict[str, Line]:
    return trace(play(setup).state, side)


def supplied(setup: Setup, side: str) -> dict[str, bool]:
    return {k: v.supplied for k, v in lines(setup, side).items()}


def events(rec: GameRecord, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in rec.events if e.kind == kind]


def replays(rec: GameRecord) -> bool:
    return rec.rebuild().snapshot() == rec.state.snapshot()


# --- 10.1 lines of supply ----------------------------------------------------------------------


def test_10_1_5_roads_carry_supply_without_limit_10_1_6_off_road_by_supply_mps() -> None:
    road = ["1004", "0904", "0804", "0704", "0604", "0504", "0404", "0304", "0204", "0104"]
    setup = scenario(
        [
            {"id": "s-road", "hex": "0104"},  # 9 hexes along the road from the E edge
            {"id": "s-near", "hex": "0206"},  # 2 clear hexes off the road: 6 MPs
            {"id": "s-far", "hex": "0507"},  # 3 clear hexes off the road: 9 > 8
            {"id": "g-inf", "hex": "0101"},
        ],
        roads=[{"kind": "main", "hexes": road}],
    )
    got = lines(setup, "soviet")
    assert got["s-road"] == Line(True, Fraction(0), 8)
    assert got["s-near"] == Line(True, Fraction(6), 8)
    assert not got["s-far"].supplied and got["s-far"].mp is None


def test_10_1_7_supply_mps_by_nation_are_data() -> None:
    table = load_supply("korsun")
    assert set(load_morale()) <= set(table.mp)  # every nation has its supply MPs
    assert (table.mp["american"], table.mp["british"]) == (12, 12)
    assert (table.mp["german"], table.mp["ss"]) == (10, 10)
    assert (table.mp["soviet"], table.mp["guards"], table.mp["polish"]) == (8, 8, 8)
    assert (table.mp["romanian"], table.mp["hungarian"], table.mp["italian"]) == (7, 7, 7)
    # three clear hexes from the edge cost 9: enough for Germans, not for Soviets or Romanians
    setup = scenario(
        [
            {"id": "g-inf", "hex": "0402"},
            {"id": "g-rum", "hex": "0406", "nation": "romanian"},
            {"id": "s-inf", "hex": "0704"},
        ]
    )
    assert supplied(setup, "german") == {"g-inf": True, "g-rum": False}
    assert supplied(setup, "soviet") == {"s-inf": False}


def test_10_1_8_supply_mps_are_spent_like_a_trucked_unit() -> None:
    setup = scenario(
        [{"id": "g-inf", "hex": "0108"}],
        terrain={"0904": "forest", "0905": "swamp", "0906": "mountain", "0902": "town"},
        hexsides=[
            {"hexes": ["1003", "0903"], "feature": "river"},
            {"hexes": ["1002", "0903"], "feature": "river"},
        ],
        control={"soviet": ["1004"]},  # the town is nobody's (K38)
    )
    cost = supply_costs(play(setup).state, "soviet", limit=Fraction(100))
    assert cost["1004"] == 0  # the E edge is the base
    assert cost["0904"] == 4  # forest: clear 3 + 1
    assert cost["0902"] == 2  # town
    assert cost["0903"] == 5  # across the river 3 + 2, or from the town 2 + 3
    assert "0905" not in cost and "0906" not in cost  # swamps and mountains are closed


def test_10_1_8_rivers_bridges_and_causeways() -> None:
    """A road carries the line across a swamp (K2) and across a bridged river for nothing;
    an unbridged river on a road costs its crossing; a big river needs a bridge (R24)."""
    road = ["1004", "0904", "0804", "0704"]
    base = {
        "roads": [{"kind": "main", "hexes": road}],
        "terrain": {"0904": "swamp"},
    }
    river = [{"hexes": ["0804", "0704"], "feature": "river"}]

    def cost(**kw: Any) -> dict[str, Fraction]:
        s = scenario([{"id": "g-inf", "hex": "0108"}], **base, **kw)
        return supply_costs(play(s).state, "soviet", limit=Fraction(100))

    assert cost(hexsides=river)["0704"] == 2  # along the road, the unbridged river: +2
    assert cost(hexsides=river, bridges=[["0804", "0704"]])["0704"] == 0  # over the bridge
    big = [{"hexes": ["0804", "0704"], "feature": "big-river"}]
    assert cost(hexsides=big)["0904"] == 0  # along the road through the swamp (K2)
    assert cost(hexsides=big)["0704"] == 6  # not over the big river: round by 0705 (R24)
    assert cost(hexsides=big, bridges=[["0804", "0704"]])["0704"] == 0
    # a destroyed bridge (14.0) carries no line
    s = scenario([{"id": "g-inf", "hex": "0108"}], hexsides=big, bridges=[["0804", "0704"]], **base)
    state = play(s).state
    state.bridges[bridge_key("0804", "0704")] = DESTROYED
    assert supply_costs(state, "soviet", limit=Fraction(100))["0704"] == 6


def test_10_1_9_adjacent_friendly_units_carry_the_line_for_nothing() -> None:
    chain = [{"id": f"s-{c}", "hex": f"0{c}04"} for c in range(4, 9)]  # 0404 ... 0804
    setup = scenario([*chain, {"id": "s-gap", "hex": "0204"}, {"id": "g-inf", "hex": "0108"}])
    got = lines(setup, "soviet")
    assert all(got[f"s-{c}"] == Line(True, Fraction(6), 8) for c in range(4, 9))  # 0904, 0804
    assert not got["s-gap"].supplied  # two hexes from the chain: 6 + 3 + 3 > 8
    alone = scenario([{"id": "s-4", "hex": "0404"}, {"id": "g-inf", "hex": "0108"}])
    assert not lines(alone, "soviet")["s-4"].supplied


def corridor(
    enemy: dict[str, Any], *more: dict[str, Any], towns: tuple[str, ...] = (), **extra: Any
) -> Setup:
    """A road along row 2 from the E edge to s-end at 0102, with swamps south of it and the
    map edge north, so the only line runs along the road past `enemy` at 0501, whose ZoC
    covers the road hex 0502 (10.1.10)."""
    terrain = {f"{c:02d}03": "swamp" for c in range(1, 10)} | {h: "town" for h in towns}
    road = [f"{c:02d}02" for c in range(10, 0, -1)]
    return scenario(
        [{"id": "s-end", "hex": "0102"}, {"hex": "0501", **enemy}, *more],
        rows=(1, 3),
        terrain=terrain,
        roads=[{"kind": "main", "hexes": road}],
        **extra,
    )


def test_10_1_10_enemy_zoc_blocks_unless_a_friendly_regular_unit_holds_the_hex() -> None:
    assert not lines(corridor({"id": "g-inf"}), "soviet")["s-end"].supplied
    held = corridor({"id": "g-inf"}, {"id": "s-inf", "hex": "0502"})
    assert lines(held, "soviet")["s-end"] == Line(True, Fraction(0), 8)
    by_hq = corridor({"id": "g-inf"}, {"id": "s-hq", "hex": "0502", "type": "hq"})
    assert not lines(by_hq, "soviet")["s-end"].supplied  # an HQ is not a regular unit (K20)
    assert lines(corridor({"id": "g-inf", "hex": "0101"}), "soviet")["s-end"].supplied


@pytest.mark.parametrize(
    ("enemy", "blocks"),
    [
        ({"type": "art", "sp": [4, 2], "setup": "combat"}, True),  # 6.1.5's exception
        ({"type": "art", "sp": [4, 2], "setup": "transport"}, False),
        ({"type": "sp-art", "sp": [4, 2]}, True),
        ({"type": "rg", "sp": 1, "mp": 0}, True),  # no ZoC in play (15.2.2), but for supply
        ({"type": "hq"}, False),
        ({"type": "arm"}, True),
    ],
)
def test_10_1_11_all_enemy_units_have_zoc_for_supply_but_hqs_and_transport_artillery(
    enemy: dict[str, Any], blocks: bool
) -> None:
    setup = corridor({"id": "g-x", **enemy})
    assert lines(setup, "soviet")["s-end"].supplied is not blocks


def test_10_1_11_k38_enemy_towns_block_like_a_zoc() -> None:
    """K38: a town or city hex the enemy controls has a ZoC for supply lines: its own hex
    and the hexes around it."""

    def with_town(control: dict[str, list[str]], *more: dict[str, Any]) -> Setup:
        far = {"id": "g-inf", "hex": "0101"}  # off the line's way (s-end is regular)
        return corridor(far, *more, towns=("0501",), control=control)

    assert not lines(with_town({"german": ["0501"]}), "soviet")["s-end"].supplied
    assert lines(with_town({"soviet": ["0501"]}), "soviet")["s-end"].supplied
    assert lines(with_town({}), "soviet")["s-end"].supplied  # nobody's town
    held = with_town({"german": ["0501"]}, {"id": "s-inf", "hex": "0502"})
    assert lines(held, "soviet")["s-end"].supplied  # 10.1.10: a regular unit in the hex


def test_10_1_4_k40_supply_sources_edge_zone_hex_name_and_unit() -> None:
    units = [
        {"id": "s-a", "hex": "0304"},
        {"id": "s-hq", "hex": "0507", "type": "hq"},
        {"id": "g-inf", "hex": "0101"},
    ]
    kw: dict[str, Any] = {"map_extra": {"zones": {"A": ["0204"]}, "names": {"0404": "Steblev"}}}
    for src, ok in [
        ({"edge": "E"}, False),
        ({"zone": "A"}, True),
        ({"hex": "0404"}, True),
        ({"name": "steblev"}, True),  # the map's name, case ignored
        ({"unit": "s-hq"}, False),  # 0507 is 3 hexes from 0304
    ]:
        setup = supply_setup(units, sides=sides([src], [{"edge": "W"}]), **kw)
        assert lines(setup, "soviet")["s-a"].supplied is ok, src
    by_hq = supply_setup(
        [{"id": "s-a", "hex": "0304"}, {"id": "s-hq", "hex": "0405", "type": "hq"}],
        sides=sides([{"unit": "s-hq"}], [{"edge": "W"}]),
    )
    assert supplied(by_hq, "soviet") == {"s-a": True, "s-hq": True}
    named = supply_setup(units, sides=sides([{"name": "Steblev"}], [{"edge": "W"}]), **kw)
    assert named.sides["soviet"].supply == ({"name": "Steblev"},)


def test_10_1_4_k40_a_base_in_enemy_zoc_supplies_nothing() -> None:
    setup = supply_setup(
        [{"id": "s-a", "hex": "0304"}, {"id": "g-inf", "hex": "0504"}],
        sides=sides([{"hex": "0404"}], [{"edge": "W"}]),
    )
    assert not lines(setup, "soviet")["s-a"].supplied


def test_10_1_4_k40_bad_supply_sources_are_scenario_errors() -> None:
    units = [{"id": "s-a", "hex": "0304"}, {"id": "g-hq", "hex": "0104", "type": "hq"}]
    for src, key, words in [
        ({"name": "Korsun"}, "sides.soviet.supply[0].name", "no hex of map"),
        ({"unit": "s-nope"}, "sides.soviet.supply[0].unit", "no unit 's-nope'"),
        ({"unit": "g-hq"}, "sides.soviet.supply[0].unit", "german unit, not soviet"),
    ]:
        with pytest.raises(ScenarioError) as e:
            supply_setup(units, sides=sides([src], [{"edge": "W"}]))
        assert e.value.key == key and words in e.value.problem
    with pytest.raises(ScenarioError) as e:
        supply_setup(units, sides=sides([{"edge": "E", "hex": "0101"}], [{"edge": "W"}]))
    assert "exactly one of edge, zone, hex, name or unit" in str(e.value)


def test_7_3_7_units_in_fixed_positions_are_always_supplied_in_korsun_only() -> None:
    units = [{"id": "s-fp", "hex": "0304"}, {"id": "g-inf", "hex": "0108"}]
    fp = [{"hexes": ["0304", "0204"], "feature": "fixed-position"}]
    got = lines(scenario(units, hexsides=fp), "soviet")["s-fp"]
    assert got.supplied and got.fixed_position
    assert not lines(scenario(units, hexsides=fp, game="kursk"), "soviet")["s-fp"].supplied


def e34(*more: dict[str, Any], without: tuple[str, ...] = ()) -> Setup:
    """E34 (10.1.11) on an invented map with the example's hex numbers (the printed figure is
    missing): Kursk, Germans supplied from the W edge with 10 MPs. A Soviet unit on the road at
    4007 blocks it; mountains at 4005 and 4105. The line goes round off-road and reaches the
    road again at 4207/4206 with all 10 MPs spent. Two motorized infantry units on the road at
    4207 carry it one more hex, to the two armoured battalions at 4307 (10.1.9). The assault
    guns at 4106 and the Tigers at 4404 are out of supply. The 18th Rifle Division's ZoC
    covers 4303 on the side road to 4404; the 50th Cavalry's covers 4406 on the main road."""
    main = ["3408", "3508", "3608", "3708", "3808", "3908", "4008", "4108", "4207", "4206"]
    main += ["4306", "4406", "4405", "4404", "4504", "4604", "4704"]
    side = ["4306", "4305", "4304", "4303", "4403", "4404"]
    units = [
        {"id": "s-block", "hex": "4007"},
        {"id": "s-18", "hex": "4302", "name": "18th Rifle Division"},
        {"id": "s-50", "hex": "4507", "type": "cav", "name": "50th Cavalry Division"},
        {"id": "g-ag", "hex": "4106", "type": "ag", "name": "assault gun brigade"},
        {"id": "g-tiger", "hex": "4404", "type": "arm", "name": "Tiger company"},
        {"id": "g-mot1", "hex": "4207", "type": "mot"},
        {"id": "g-mot2", "hex": "4207", "type": "mot"},
        {"id": "g-arm1", "hex": "4307", "type": "arm"},
        {"id": "g-arm2", "hex": "4307", "type": "arm"},
        *more,
    ]
    return scenario(
        [u for u in units if u["id"] not in without],
        game="kursk",
        cols=(34, 47),
        rows=(1, 9),
        terrain={"4005": "mountain", "4105": "mountain"},
        roads=[{"kind": "main", "hexes": main}, {"kind": "side", "hexes": side}],
        start=GERMAN_MOVE,
    )


def test_10_1_11_e34_the_grossdeutschland_example() -> None:
    got = lines(e34(), "german")
    for u in ("g-mot1", "g-mot2", "g-arm1", "g-arm2"):
        assert got[u] == Line(True, Fraction(10), 10), u
    assert not got["g-ag"].supplied and not got["g-tiger"].supplied
    cost = supply_costs(play(e34()).state, "german")
    assert cost["4206"] == 10  # the road is reached with no supply MPs left
    # only the motorized infantry carry the line to the armoured battalions (10.1.9)
    bare = lines(e34(without=("g-mot1", "g-mot2")), "german")
    assert not bare["g-arm1"].supplied and not bare["g-arm2"].supplied
    # the fixes: a unit between the assault guns and the armoured battalions ...
    assert lines(e34({"id": "g-x", "hex": "4206"}), "german")["g-ag"].supplied
    # ... a unit in the 18th's ZoC at 4303, or on the road in the 50th's ZoC at 4406
    assert lines(e34({"id": "g-x", "hex": "4303"}), "german")["g-tiger"].supplied
    assert lines(e34({"id": "g-x", "hex": "4406"}), "german")["g-tiger"].supplied
    # and in the German Supply Phase they are marked
    rec = play(e34(), "done")
    (t,) = events(rec, "supply_traced")
    assert t["side"] == "german" and set(t["out_of_supply"]) == {"g-ag", "g-tiger"}
    assert rec.state.units["g-ag"].oos == 1 and rec.state.units["g-arm1"].oos == 0


def test_10_1_performance_one_search_per_side_on_a_64x36_map() -> None:
    """~150 units traced on a generated full-size map; results only, no timing."""
    rnd = random.Random(1944)
    terrain = {}
    for c in range(1, 65):
        for r in range(1, 37):
            x = rnd.random()
            if x < 0.15:
                terrain[f"{c:02d}{r:02d}"] = "forest"
            elif x < 0.2:
                terrain[f"{c:02d}{r:02d}"] = "swamp"
            elif x < 0.25:
                terrain[f"{c:02d}{r:02d}"] = "hills"
    roads = [
        {"kind": "main", "hexes": [f"{c:02d}{r:02d}" for c in range(1, 65)]} for r in (6, 18, 30)
    ]
    taken: set[str] = set()
    units: list[dict[str, Any]] = []
    while len(units) < 200:
        h = f"{rnd.randint(1, 64):02d}{rnd.randint(1, 36):02d}"
        if h in taken:
            continue
        taken.add(h)
        side = "g" if len(units) < 150 else "s"
        col = int(h[:2])
        if side == "s" and col < 50:
            continue  # the Soviets hold the east
        units.append({"id": f"{side}-{len(units)}", "hex": h})
    setup = scenario(units, cols=(1, 64), rows=(1, 36), terrain=terrain, roads=roads)
    state: GameState = play(setup).state
    got = trace(state, "german")
    assert len(got) == 150
    cost = supply_costs(state, "german")
    for uid, line in got.items():
        h = state.units[uid].hex
        assert h is not None
        assert line.supplied == (h in cost and cost[h] <= 10)
    on_west_road = [u for u in got if state.units[u].hex in {f"{c:02d}18" for c in range(1, 30)}]
    assert all(got[u].supplied for u in on_west_road)
    assert 0 < sum(x.supplied for x in got.values()) < 150
    assert trace(state, "german") == got  # deterministic


# --- 10.2 the Supply Phase (R8, R9) ------------------------------------------------------------


def phase_setup(units: list[dict[str, Any]], **extra: Any) -> Setup:
    return scenario([*units, {"id": "g-far", "hex": "0101"}], start=SOVIET_SUPPLY, **extra)


def test_r9_supplied_units_lose_4_levels_unsupplied_ones_gain_r8() -> None:
    units = [
        {"id": "s-5", "hex": "0904", "oos": 5},
        {"id": "s-3", "hex": "0906", "oos": 3},
        {"id": "s-new", "hex": "0304"},
        {"id": "s-old", "hex": "0307", "oos": 1},
    ]
    rec = play(phase_setup(units))
    u = rec.state.units
    assert (u["s-5"].oos, u["s-3"].oos, u["s-new"].oos, u["s-old"].oos) == (1, 0, 1, 2)
    (t,) = events(rec, "supply_traced")
    assert t["supplied"] == ["s-5", "s-3"] and t["out_of_supply"] == ["s-new", "s-old"]
    changes = {e["unit"]: (e["old"], e["new"], e["rule"]) for e in events(rec, "oos_changed")}
    assert changes == {
        "s-5": (5, 1, "10.2.7"),
        "s-3": (3, 0, "10.2.7"),
        "s-new": (0, 1, "10.2.1"),
        "s-old": (1, 2, "10.2.1"),
    }
    # R9: every unit at level 1 or more is tested; at 1 and 2 no dice can make it surrender
    tests = {e["unit"]: (e["level"], e["roll"]) for e in events(rec, "surrender_test")}
    assert tests == {"s-5": (1, None), "s-new": (1, None), "s-old": (2, None)}
    assert not events(rec, "dice_rolled")
    assert replays(rec)


def test_r8_option_off_keeps_the_level_of_a_unit_still_out_of_supply() -> None:
    units = [{"id": "s-new", "hex": "0304"}, {"id": "s-old", "hex": "0307", "oos": 4}]
    rec = play(phase_setup(units, options={"oos_accumulates": False}), dice=(6, 6))
    assert (rec.state.units["s-new"].oos, rec.state.units["s-old"].oos) == (1, 4)


def test_10_2_8_e37_five_levels_take_two_turns_of_supply() -> None:
    rec = GameRecord(phase_setup([{"id": "s-5", "hex": "0904", "oos": 5}]))
    assert rec.state.units["s-5"].oos == 1  # still halved (10.2.8)
    while len(events(rec, "supply_traced")) < 3:  # the German one, then the Soviet one
        assert isinstance(rec.submit(awaited_sides(rec.state)[0], Done()), Applied)
    assert rec.state.turn == 2 and rec.state.units["s-5"].oos == 0
    assert [e["new"] for e in events(rec, "oos_changed")] == [1, 0]
    assert replays(rec)


def test_10_2_6_e38_surrender_when_level_minus_2k6_is_above_0() -> None:
    units = [
        {"id": "s-4", "hex": "0304", "oos": 4},  # R8: 5; 5 - (2+2) = 1 > 0: surrenders
        {"id": "s-5", "hex": "0307", "oos": 5},  # R8: 6; 6 - (3+3) = 0: holds out
        {"id": "s-hq", "hex": "0501", "oos": 8, "type": "hq"},  # 9 - (1+1) = 7: surrenders
    ]
    rec = play(
        phase_setup(units, control={"german": ["0304", "0307", "0404", "0501"]}),
        dice=(2, 2, 3, 3, 1, 1),
    )
    u = rec.state.units
    assert u["s-4"].eliminated and not u["s-5"].eliminated and u["s-hq"].eliminated
    tests = {
        e["unit"]: (e["level"], e["roll"], e["surrendered"]) for e in events(rec, "surrender_test")
    }
    assert tests == {"s-4": (5, 4, True), "s-5": (6, 6, False), "s-hq": (9, 2, True)}
    gone = [e for e in events(rec, "unit_eliminated") if e["rule"] == "10.2.6"]
    assert [e["unit"] for e in gone] == ["s-4", "s-hq"]
    assert [x["unit"] for x in rec.state.hq_losses] == ["s-hq"]  # 9.1.6
    # 4.3.4: a unit that surrendered takes no control; the one that held out takes its hex
    assert rec.state.control["0304"] == "german" and rec.state.control["0307"] == "soviet"
    assert replays(rec)


def test_4_3_5_k45_units_that_trace_supply_take_hexes_by_zoc() -> None:
    """K45: a unit that traced supply in this Supply Phase takes the hexes of its ZoC even
    though a level is left (5 - 4 = 1); OoS units do not."""
    units = [{"id": "s-5", "hex": "0904", "oos": 5}, {"id": "s-oos", "hex": "0304"}]
    rec = play(phase_setup(units, control={"german": ["0903", "0303"]}))
    assert rec.state.units["s-5"].oos == 1
    assert rec.state.control["0903"] == "soviet"  # in s-5's ZoC
    assert rec.state.control["0303"] == "german"  # s-oos is out of supply (4.3.5)
    # outside a Supply Phase's trace, a unit counts as supplied at level 0
    before = play(scenario(units, control={"german": ["0903", "0303"]})).state
    assert "0903" not in control_changes(before, "soviet")
    assert control_changes(before, "soviet", supplied=frozenset({"s-5"}))["0903"] == "soviet"


# --- 10.2.2 - 10.2.4 effects and the player's choice ------------------------------------------


def combat_setup(**extra: Any) -> Setup:
    return scenario(
        [{"id": "s-1", "hex": "0203", "oos": 1}, {"id": "g-1", "hex": "0503"}],
        **extra,
    )


def resolved(rec: GameRecord) -> dict[str, Any]:
    return events(rec, "combat_resolved")[-1]


def test_10_2_2_oos_units_move_at_half_and_defend_at_full_strength() -> None:
    r = reject(play(combat_setup()), "move s-1 0303 0403")  # 1.5 + 1.5 > 4 / 2
    assert r.rule == "3.1.5" and "has 2" in r.message
    rec = play(
        scenario(
            [{"id": "s-1", "hex": "0403", "oos": 3}, {"id": "g-1", "hex": "0503"}],
            start={"turn": 1, "phase": "combat", "active": "german"},
        ),
        "attack g-1 -> 0403",
        dice=(3, 3),
    )
    (d,) = resolved(rec)["defenders"]
    assert d["sp"] == 4 and "out of supply" not in d["why"]


def test_10_2_3_e35_full_mps_and_full_strength_cost_a_level_each() -> None:
    """E35: moving with full MPs, then attacking at full strength: +2."""
    rec = play(
        combat_setup(), "move s-1 0303 0403 full", "done", "attack s-1 -> 0503 full", dice=(3, 3)
    )
    moved = events(rec, "moved")[0]
    assert moved["mp"] == "4" and moved["cost"] == "3"
    paid = [(e["use"], e["old"], e["new"]) for e in events(rec, "oos_paid")]
    assert paid == [("move", 1, 2), ("attack", 2, 3)]
    c = resolved(rec)
    (a,) = c["attackers"]
    assert a["sp"] == 4 and "full strength" in a["why"]  # 10.2.3: not halved
    assert c["column"] == "1:1" and c["result"] == "- / D1"
    assert rec.state.units["s-1"].oos == 3  # the defender got a Dx: no 10.2.4 level
    assert replays(rec)


def test_10_2_4_e36_a_failed_attack_and_a_dx_suffered_add_a_level_each() -> None:
    """E36: full MPs + full strength + failed attack = +3; then attacked with a Dx: +1."""
    rec = play(
        combat_setup(
            sides=sides([{"hex": "0101"}], [{"edge": "W"}])  # s-1 stays out of supply
        ),
        "move s-1 0303 0403 full",
        "done",
        "attack s-1 -> 0503 full",  # 4 : 4, roll 7: -1 / -1, no Dx
        dice=(3, 4),
    )
    assert rec.state.units["s-1"].oos == 4  # 1 + 1 + 1 + 1
    failed = [e for e in events(rec, "oos_changed") if e["rule"] == "10.2.4"]
    assert [(e["unit"], e["new"], e["ruling"]) for e in failed] == [("s-1", 4, "K44")]
    assert rec.state.units["g-1"].oos == 0  # supplied defenders gain nothing
    # the Soviet Supply Phase: still OoS, 5; 5 - (3+3) < 1 holds out; the German attack
    # with a Dx adds one more (10.2.4)
    rec2 = play(
        combat_setup(sides=sides([{"hex": "0101"}], [{"edge": "W"}])),
        "move s-1 0303 0403 full",
        "done",
        "attack s-1 -> 0503 full",
        "soviet: done",
        "german: done",
        "german: attack g-1 -> 0403",  # 2 : 2 after the losses, roll 6: - / D1
        dice=(3, 4, 3, 3, 3, 3),
    )
    assert events(rec2, "surrender_test")[-1]["roll"] == 6
    assert resolved(rec2)["result"] == "- / D1"
    assert rec2.state.units["s-1"].oos == 6
    assert replays(rec2)


def test_10_2_3_k43_full_is_only_for_units_out_of_supply() -> None:
    setup = scenario(
        [
            {"id": "s-1", "hex": "0403", "oos": 1},
            {"id": "s-2", "hex": "0402"},
            {"id": "s-3", "hex": "0205"},
            {"id": "g-1", "hex": "0503"},
        ]
    )
    r = reject(play(setup), "move s-3 0305 full")
    assert r.rule == "10.2.3" and "none of these units is out of supply" in r.message
    rec = play(setup, "done")
    r = reject(rec, "attack s-1 s-2 -> 0503 full s-2")
    assert r.rule == "10.2.3" and "s-2 is not out of supply" in r.message
    r = reject(rec, "attack s-1 s-2 -> 0503 full s-3")
    assert "s-3 is not one of the attackers" in r.message
    # `full` alone: every OoS attacker pays; supplied ones attack at full anyway
    done = play(setup, "done", "attack s-1 s-2 -> 0503 full", dice=(3, 3))
    assert [e["unit"] for e in events(done, "oos_paid")] == ["s-1"]
    assert done.state.units["s-2"].oos == 0
    supplied_only = scenario([{"id": "s-2", "hex": "0402"}, {"id": "g-1", "hex": "0503"}])
    r = reject(play(supplied_only, "done"), "attack s-2 -> 0503 full")
    assert r.rule == "10.2.3" and "none of the attackers is out of supply" in r.message


def test_10_2_3_k43_full_in_strategic_movement_gives_full_mps_less_2() -> None:
    setup = scenario(
        [{"id": "s-1", "hex": "0203", "oos": 1, "mp": 8}, {"id": "g-1", "hex": "0908"}],
        start={"turn": 1, "phase": "movement", "active": "soviet"},
    )
    rec = play(setup, "strategic s-1", "done", "move s-1 0303 0403 0503 0603 full")
    moved = events(rec, "moved")[0]
    assert moved["mp"] == "6" and rec.state.units["s-1"].oos == 2  # 8 - 2 (12.2.3, K24)


# --- notation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "order"),
    [
        ("move s-1 0405 full", Move(("s-1",), ("0405",), full=True)),
        ("move @0404 0405 0406 FULL", Move(("@0404",), ("0405", "0406"), full=True)),
        ("attack s-1 s-2 -> 0503 full", Attack(("s-1", "s-2"), "0503", full=())),
        ("attack s-1 s-2 -> 0503 full s-2", Attack(("s-1", "s-2"), "0503", full=("s-2",))),
        (
            "attack s-1 -> 0503 stars s-1 full @0404",
            Attack(("s-1",), "0503", stars=("s-1",), full=("@0404",)),
        ),
    ],
)
def test_10_2_3_notation_for_full_mps_and_full_strength(line: str, order: Move | Attack) -> None:
    parsed = parse_order(line, 0)
    assert parsed == order
    assert parse_order(format_order(order), 0) == order


def test_10_2_3_notation_errors() -> None:
    from engine.notation import NotationError

    with pytest.raises(NotationError, match="destination hex"):
        parse_order("move s-1 full")
    with pytest.raises(NotationError, match="'full' twice"):
        parse_order("attack s-1 -> 0503 full s-1 full")


def test_10_1_the_integer_search_equals_the_fraction_search() -> None:
    """supply_costs searches in whole 1/2520 MPs for speed; it must give exactly what the
    same search on Fractions gives (korsun-1944 and kursk openings, both sides)."""
    from fractions import Fraction

    from engine.record import GameRecord
    from engine.wb95 import supply
    from scenarios import load_scenario

    for sid in ("korsun-1944", "kursk"):
        state = GameRecord(load_scenario(sid), seed=1).state
        for side in state.setup.sides:
            mps = [supply.supply_mp(state, u) for u in state.on_map(side)]
            limit = Fraction(max(mps, default=0))
            exact = supply.line_search(state, side, supply.blocks(state, side), limit)
            assert supply.supply_costs(state, side) == exact
            assert exact

"""Pure AGS rule modules, with the rulebook's worked examples: odds 9.4, CRT shifts and
clamps (A25, 14.14, 19.56), strengths 9.32/10.32/11.37/11.38, movement costs 10.31/10.23/
A1/A9/A20/A21, ZOC 8.12/19.22/19.25, stacking 7.0/24.12/19.3, supply 12.1/19.71/19.72/
25.1 and K120."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.ags.board import Board
from engine.ags.crt import air_shift, column_label, odds_column
from engine.ags.movement import allowance, step_cost
from engine.ags.stacking import may_enter, stack_problem
from engine.ags.strength import hq_alone_defence, hq_bonus, terrain_multiplier, unit_strength
from engine.ags.supply import german_in_supply, in_command, isolated, soviet_hq_in_supply
from engine.ags.zoc import controlled, zoc_neighbours
from engine.hexgrid import Grid, hexside
from scenarios.ags.counters import load_counters
from scenarios.ags.tables import load_crt, load_tec


def board(
    terrain: dict[str, str] | None = None,
    sides: dict[tuple[str, str], str] | None = None,
    roads: tuple[tuple[str, str], ...] = (),
) -> Board:  # type: ignore[assignment]
    grid = Grid(cols=(1, 8), rows=(1, 8))
    t = {h: "clear" for h in grid.all_hexes()} | (terrain or {})
    return Board(
        id="t", grid=grid, terrain=t,
        hexsides={hexside(*k): v for k, v in (sides or {}).items()},
        roads=frozenset(hexside(a, b) for a, b in roads), names={}, provenance="reconstructed",
    )  # fmt: skip


# --- odds and CRT (AGS 9.4, 9.5, 14.14, AGS-K 19.56, A25) ---------------------------------
def test_9_4_example_26_to_9_is_2_1() -> None:
    assert column_label(26, 9) == "2-1"
    assert odds_column(load_crt(), 26, 9) == "2-1"


def test_9_procedure_example_29_to_10_is_2_1_and_defender_rounding_below_1_1() -> None:
    assert column_label(29, 10) == "2-1"
    assert column_label(10, 15) == "1-2" and column_label(10, 21) == "1-3"


def test_crt_note_beyond_the_table_clamps() -> None:
    crt = load_crt()
    assert odds_column(crt, 40, 3) == "10-1" and odds_column(crt, 1, 9) == "1-3"


def test_a25_clamp_then_shift_then_clamp() -> None:
    crt = load_crt()
    assert odds_column(crt, 13, 1, shift=-1) == "9-1"  # 13-1 -> 10-1 -> 9-1
    assert odds_column(crt, 1, 5, shift=+1) == "1-2"  # 1-5 -> 1-3 -> 1-2
    assert odds_column(crt, 10, 1, shift=+1) == "10-1"


def test_14_14_air_points_shift_and_cancel() -> None:
    crt = load_crt()
    assert odds_column(crt, 4, 2, shift=air_shift(1, 0)) == "3-1"
    assert odds_column(crt, 4, 2, shift=air_shift(0, 1)) == "1-1"
    assert air_shift(1, 1) == 0
    with pytest.raises(ValueError, match=r"14\.13"):
        air_shift(2, 0)


def test_19_56_example_4_1_becomes_3_1() -> None:
    assert odds_column(load_crt(), 8, 2, shift=-1) == "3-1"


# --- strengths (AGS 9.32, 10.32, 11.37, 11.38, 12.23, 19.55) ------------------------------
def test_9_32_multiply_then_halve_round_at_the_end_a29() -> None:
    assert unit_strength(3, multipliers=[2], halvings=1) == 3  # 19.55: face value
    assert unit_strength(3, halvings=1) == 1
    assert unit_strength(1, halvings=2) == 1  # never below 1
    assert unit_strength(5, multipliers=[3], halvings=1) == 7  # 7.5 rounded down once


def test_10_32_example_city_across_minor_river_is_tripled() -> None:
    b = board({"0404": "city"}, {("0403", "0404"): "minor-river"})
    tec = load_tec()
    assert terrain_multiplier(b, tec, "0404", ["0403"]) == 3
    assert terrain_multiplier(b, tec, "0404", ["0403", "0405"]) == 2  # 10.12: not all across


def test_10_14_all_across_major_is_tripled_a28_mixed_is_doubled() -> None:
    b = board(sides={("0403", "0404"): "major-river", ("0405", "0404"): "minor-river"})
    tec = load_tec()
    assert terrain_multiplier(b, tec, "0404", ["0403"]) == 3
    assert terrain_multiplier(b, tec, "0404", ["0403", "0405"]) == 2  # A28


def test_11_37_examples() -> None:
    assert 6 + hq_bonus(4, 6) == 10  # a 6-8-6 with a "4" HQ attacks with 10
    assert 1 + hq_bonus(4, 1) == 2  # a 1-2-6 with a "4" HQ attacks with 2
    assert hq_bonus(6, 10, hq_in_supply=False) == 3  # A32


def test_11_38_a7_hq_alone_defends_with_half_its_rating() -> None:
    assert hq_alone_defence(6) == 3 and hq_alone_defence(4) == 2


# --- movement (AGS 10.23, 10.31; AGS-K 19.22-19.25, 20.12; A1, A9, A20, A21) -------------
def test_10_31_examples_river_plus_terrain() -> None:
    b = board({"0404": "woods"}, {("0403", "0404"): "minor-river", ("0402", "0403"): "minor-river"})
    tec = load_tec()
    assert step_cost(b, tec, "inf", "0402", "0403") == 2  # river + clear
    assert step_cost(b, tec, "mech", "0403", "0404") == 3  # river + woods


def test_a1_major_river_plus_two_for_both_sides() -> None:
    b = board(sides={("0403", "0404"): "major-river"})
    assert step_cost(b, load_tec(), "mech", "0403", "0404") == 3


def test_a20_road_across_a_river_mech_pays_half_infantry_terrain_plus_river() -> None:
    b = board({"0404": "woods"}, {("0403", "0404"): "minor-river"}, roads=(("0403", "0404"),))
    tec = load_tec()
    assert step_cost(b, tec, "mech", "0403", "0404") == Fraction(1, 2)
    assert step_cost(b, tec, "hq", "0403", "0404") == Fraction(1, 2)  # A9
    assert step_cost(b, tec, "inf", "0403", "0404") == 2  # 10.23: no effect on infantry


def test_a9_hq_pays_infantry_terrain_costs() -> None:
    b = board({"0404": "woods"})
    assert step_cost(b, load_tec(), "hq", "0403", "0404") == 1


def test_19_25_dnieper_hexes_impassable() -> None:
    b = board({"0404": "dnieper"})
    assert step_cost(b, load_tec(), "inf", "0403", "0404") is None


def test_20_12_mud_and_a21_out_of_supply() -> None:
    assert allowance(8, "mech", mud=True, in_supply=True) == 4
    assert allowance(8, "mech", mud=True, in_supply=False) == 2  # A21
    assert allowance(5, "inf", mud=True, in_supply=False) == 2  # 5.25
    assert allowance(9, "hq", mud=True, in_supply=True) == 4


# --- ZOC (AGS 8.12, 11.35; AGS-K 19.22, 19.25) --------------------------------------------
def test_8_12_19_22_zoc_not_across_major_river_even_with_a_road() -> None:
    b = board(sides={("0403", "0404"): "major-river"}, roads=(("0403", "0404"),))
    assert "0404" not in zoc_neighbours(b, "0403")
    assert len(zoc_neighbours(b, "0404")) == 5
    assert "0403" not in controlled(b, ["0404"])


def test_19_25_no_zoc_into_the_dnieper_hexes() -> None:
    b = board({"0404": "dnieper"})
    assert "0404" not in zoc_neighbours(b, "0403") and zoc_neighbours(b, "0404") == []


# --- stacking (AGS 7.0, 11.22; AGS-K 19.3, 24.12) -----------------------------------------
def test_stacking_limits() -> None:
    c = load_counters()
    three = [c["g-80-34"], c["g-107-34"], c["g-253-34"]]
    assert stack_problem(three) is None
    assert stack_problem([*three, c["g-bake"]]) is None  # 19.3: Baeke stacks for free
    assert stack_problem([*three, c["g-805"]]) is not None
    assert not may_enter([c["s-mrc-5"]], c["s-rd-6"])  # 24.12: a corps counts three
    assert may_enter([c["s-mrc-5"]], c["s-hq-27"])  # 11.22: plus one HQ
    assert "11.22" in (stack_problem([c["s-hq-27"], c["s-hq-40"]]) or "")


# --- supply (AGS 12.1, 11.31; AGS-K 19.71, 19.72, 25.1; A2; K120) -------------------------
def test_19_72_german_supply_crosses_major_rivers_and_stops_at_ezoc() -> None:
    b = board(sides={("0403", "0404"): "major-river"})
    assert german_in_supply(b, "0404", ["0401"], enemy=[], ezoc=[], friends=[])
    wall = {f"0{c}05" for c in range(1, 9)} | {f"0{c}06" for c in range(1, 9) if c % 2 == 0}
    assert not german_in_supply(b, "0408", ["0401"], enemy=[], ezoc=wall, friends=[])
    assert german_in_supply(b, "0408", ["0401"], enemy=[], ezoc=wall, friends=list(wall))  # 8.25


def test_19_71_soviet_hq_crosses_major_river_only_by_road() -> None:
    top = [h for h in board().edge("N")]
    sides = {(h, n): "major-river" for h in top for n in board().grid.neighbours(h)}
    sides = {k: v for k, v in sides.items() if k[1] not in top}  # a river along the edge
    b = board(sides=sides)
    kw: dict[str, list[str]] = {"enemy": [], "ezoc": [], "friends": []}
    assert not soviet_hq_in_supply(b, "0405", ["N"], **kw)
    b2 = board(sides=sides, roads=(("0301", "0302"),))  # a road crosses it
    assert soviet_hq_in_supply(b2, "0405", ["N"], **kw)


def test_11_31_line_of_communications_counts_the_unit_not_the_hq() -> None:
    b = board()
    assert in_command(b, "0405", "0401", 4, enemy=[], ezoc=[], friends=[])
    assert not in_command(b, "0406", "0401", 4, enemy=[], ezoc=[], friends=[])


def test_k120_supply_into_a_swamp_but_not_through() -> None:
    b = board({"0403": "swamp"})
    cut = {f"0{c}03" for c in range(1, 9)} - {"0403"}  # enemy units leave only 0403 open
    assert not german_in_supply(b, "0405", ["0401"], enemy=cut, ezoc=[], friends=[])
    b2 = board({"0405": "swamp"})
    assert german_in_supply(b2, "0405", ["0401"], enemy=[], ezoc=[], friends=[])


def test_25_1_isolation_more_than_three_hexes() -> None:
    b = board()
    assert not isolated(b, "0401", ["0404"])
    assert isolated(b, "0401", ["0405"])

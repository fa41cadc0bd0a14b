"""1.5–1.7 and the result tables (R1–R7): combat ratio, column shifts, rounding, and the
COMBAT TABLE, AIR ATTACK, ARTILLERY FIRE and ATTACK ON OBJECTS data."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from engine.wb95.crt import (
    COLUMNS,
    CombatResult,
    FireResult,
    ResultTables,
    Shift,
    SideResult,
    clamp_roll,
    column_index,
    column_name,
    final_column,
    fire_lookup,
    halve,
    initial_column,
    lookup,
    parse_combat_cell,
    parse_fire_cell,
    parse_side,
    parse_tables,
)

RESULTS_FILE = Path(__file__).parents[1] / "scenarios/tables/wb95-results.yaml"


def _raw() -> dict[str, Any]:
    data = yaml.safe_load(RESULTS_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


RAW = _raw()
TABLES = parse_tables(RAW)


def col(name: str) -> int:
    return column_index(name)


def cell(name: str, roll: int) -> str:
    return lookup(TABLES, col(name), roll).text


def atk(cms: int, source: str = "attacker CM") -> Shift:
    return Shift(cms, source, "attacker", "1.6")


def dfn(cms: int, source: str = "defender CM") -> Shift:
    return Shift(cms, source, "defender", "1.6")


# --- the data ------------------------------------------------------------------------------


def test_tables_shape() -> None:
    assert RAW["combat"]["columns"] == list(COLUMNS)
    assert len(COLUMNS) == 13 and COLUMNS[0] == "1:4" and COLUMNS[-1] == "10:1"
    assert sorted(TABLES.combat) == list(range(2, 13))
    assert all(len(row) == 13 for row in TABLES.combat.values())
    for table in (TABLES.air_attack, TABLES.artillery_fire, TABLES.attack_on_objects):
        assert table.bands == ((1, 2), (3, 5), (6, 8), (9, 12), (13, 16), (17, None))
        assert len(table.rows) == 6 and all(len(r) == 11 for r in table.rows)


def test_every_cell_parses_and_keeps_its_printed_text() -> None:
    for roll, cells in RAW["combat"]["rows"].items():
        for i, text in enumerate(cells):
            assert isinstance(text, str)
            assert TABLES.combat[roll][i].text == text
    for key in ("air_attack", "artillery_fire", "attack_on_objects"):
        table: Any = getattr(TABLES, key)
        for band, cells in enumerate(RAW[key]["rows"]):
            assert [r.text for r in table.rows[band]] == cells


def test_r2_roll_6_at_4_1_is_the_tables_section_copy() -> None:
    r = lookup(TABLES, col("4:1"), 6)
    assert r.text == "- / D2"
    assert r.defender == SideResult(retreat=2, text="D2") and r.attacker.nothing


def test_r2_the_cell_is_data_a_league_may_change() -> None:
    data = copy.deepcopy(RAW)
    data["combat"]["rows"][6][col("4:1")] = "- / D3"  # the rules-section copy
    assert lookup(parse_tables(data), col("4:1"), 6).defender.retreat == 3


def test_specific_combat_cells() -> None:
    r = lookup(TABLES, col("10:1"), 12)
    assert r.text == "D -1 / D2"
    assert r.attacker == SideResult(losses=1, disorganized=True, text="D -1")
    assert r.defender == SideResult(retreat=2, text="D2")

    r = lookup(TABLES, col("10:1"), 2)
    assert r.text == "-1 / D5D -1"
    assert r.attacker == SideResult(losses=1, text="-1")
    assert r.defender == SideResult(retreat=5, losses=1, disorganized=True, text="D5D -1")

    r = lookup(TABLES, col("1:4"), 4)
    assert r.text == "A1• / -"
    assert r.attacker == SideResult(retreat=1, test=True, text="A1•")
    assert r.defender.nothing and r.defender.text == "-"

    assert cell("1:4", 12) == "A2D -2 / -1"
    assert lookup(TABLES, 0, 12).attacker == SideResult(2, 2, True, False, "A2D -2")
    assert cell("1:4", 2) == "-1 / -1D"
    assert lookup(TABLES, 0, 2).defender == SideResult(losses=1, disorganized=True, text="-1D")
    assert cell("3:1", 9) == "- / D1"
    assert cell("2:1", 10) == "-1 / D1 -1"


def test_a9_irregular_cells_are_kept_as_printed() -> None:
    assert [cell(c, 8) for c in ("7:1", "8:1", "9:1", "10:1")] == [
        "- / D3 -1",
        "- / D3",
        "- / D3 -1",
        "- / D3",
    ]
    assert [cell(c, 9) for c in ("4:1", "5:1", "6:1")] == ["• / D2 -1", "• / D2 -1", "• / D2"]
    assert all(lookup(TABLES, c, 2).attacker.losses == 1 for c in range(13))


def test_e5_a3_the_example_result_minus1_d2_never_occurs_at_3_1() -> None:
    at_3_1 = [cell("3:1", roll) for roll in range(2, 13)]
    assert "-1 / D2" not in at_3_1
    assert at_3_1 == [
        "-1 / D3D",
        "• / D3 -1",
        "• / D3",
        "• / D2",
        "- / D2",
        "- / D2",
        "- / D2",
        "- / D1",
        "-1 / D1 -1",
        "-1 / -1",
        "D -1 / -1",
    ]


def test_5_1_9_lone_hq_every_10_1_cell_has_a_defender_retreat() -> None:
    retreats = [lookup(TABLES, col("10:1"), roll).defender.retreat for roll in range(2, 13)]
    assert retreats == [5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 2]
    assert all(r > 0 for r in retreats)


def test_attack_on_objects_d_means_destroyed_not_disorganized() -> None:
    cells = [r for row in TABLES.attack_on_objects.rows for r in row]
    assert sum(r.destroyed for r in cells) == 31  # D3.5: 31 in every book
    assert not any(r.disorganized or r.losses or r.test for r in cells)


# --- parse_side and cells ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-", SideResult(text="-")),
        ("-1", SideResult(losses=1, text="-1")),
        ("-2", SideResult(losses=2, text="-2")),
        ("•", SideResult(test=True, text="•")),
        ("-1D", SideResult(losses=1, disorganized=True, text="-1D")),
        ("D1", SideResult(retreat=1, text="D1")),
        ("D3D", SideResult(retreat=3, disorganized=True, text="D3D")),
        ("D4 -1", SideResult(retreat=4, losses=1, text="D4 -1")),
        ("D5D -1", SideResult(retreat=5, losses=1, disorganized=True, text="D5D -1")),
        ("A1", SideResult(retreat=1, text="A1")),
        ("A1•", SideResult(retreat=1, test=True, text="A1•")),
        ("A2 -2", SideResult(retreat=2, losses=2, text="A2 -2")),
        ("A2D -1", SideResult(retreat=2, losses=1, disorganized=True, text="A2D -1")),
        ("D -1", SideResult(losses=1, disorganized=True, text="D -1")),
        ("D", SideResult(disorganized=True, text="D")),
        ("-1•", SideResult(losses=1, test=True, text="-1•")),
        ("-2D", SideResult(losses=2, disorganized=True, text="-2D")),
        # the Kursk rules-section copy prints no spaces: "A1-1", "D-1", "D5D-1"
        ("A1-1", SideResult(retreat=1, losses=1, text="A1-1")),
        ("D-1", SideResult(losses=1, disorganized=True, text="D-1")),
        (" D2 -1 ", SideResult(retreat=2, losses=1, text="D2 -1")),
    ],
)
def test_parse_side_every_token_kind(text: str, expected: SideResult) -> None:
    assert parse_side(text) == expected


@pytest.mark.parametrize(
    "text", ["", " ", "x", "-0", "A0", "D2DD", "D2D -1D", "--1", "1", "A", "-1 D", "• •", "A1 /"]
)
def test_parse_side_rejects_anything_else(text: str) -> None:
    with pytest.raises(ValueError):
        parse_side(text)


def test_parse_side_checks_the_retreat_letter_against_the_side() -> None:
    assert parse_side("A2", side="attacker").retreat == 2
    assert parse_side("D2", side="defender").retreat == 2
    assert parse_side("D -1", side="attacker").disorganized
    with pytest.raises(ValueError, match="attacker"):
        parse_side("D2", side="attacker")
    with pytest.raises(ValueError, match="defender"):
        parse_side("A2", side="defender")
    with pytest.raises(ValueError, match="lone D"):
        parse_side("D -1", side="defender")


def test_parse_combat_and_fire_cells() -> None:
    assert parse_combat_cell("A2D-2 / -1") == CombatResult(
        SideResult(2, 2, True, False, "A2D-2"), SideResult(losses=1, text="-1"), "A2D-2 / -1"
    )
    for bad in ["-1", "-1 / -1 / -1", "D2 / -", "- / A1"]:
        with pytest.raises(ValueError):
            parse_combat_cell(bad)
    assert parse_fire_cell("-1•") == FireResult(losses=1, test=True, text="-1•")
    assert parse_fire_cell("D") == FireResult(disorganized=True, text="D")
    assert parse_fire_cell("D", objects=True) == FireResult(text="D", destroyed=True)
    for bad in ["D2", "A1", ""]:
        with pytest.raises(ValueError):
            parse_fire_cell(bad)
    with pytest.raises(ValueError):
        parse_fire_cell("-1", objects=True)


def _broken(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(RAW)
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("combat", "rows", 7, 4), "- / X1", "combat row 7, column 2:1"),
        (("combat", "rows", 3, 0), -1, "combat row 3, column 1:4"),  # an unquoted -1
        (("combat", "rows", 5), ["- / -"] * 12, "combat row 5"),
        (("combat", "columns"), ["1:4"], "columns"),
        (("air_attack", "rows", 5, 10), "-2X", "air_attack band 17+, roll 12"),
        (("artillery_fire", "rows", 2, 0), "D3", "artillery_fire band 6-8, roll 2"),
        (("attack_on_objects", "rows", 0, 0), "-1", "attack_on_objects band 1-2, roll 2"),
        (("air_attack", "bands", 1), [4, 5], "air_attack: band [4, 5] must start at 3"),
        (("air_attack", "bands", 5), [17, 20], "air_attack: the last band must be open"),
        (("air_attack", "bands", 2), [6, None], "only the last band"),
        (("artillery_fire", "rows"), [["-"] * 11] * 5, "artillery_fire: rows"),
    ],
)
def test_parse_tables_names_the_bad_cell(path: tuple[Any, ...], value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("+", r"\+")):
        parse_tables(_broken(path, value))


def test_parse_tables_needs_every_row_and_table() -> None:
    data = copy.deepcopy(RAW)
    del data["combat"]["rows"][11]
    with pytest.raises(ValueError, match=r"rows missing for rolls \[11\]"):
        parse_tables(data)
    data = copy.deepcopy(RAW)
    data["combat"]["rows"][13] = data["combat"]["rows"][12]
    with pytest.raises(ValueError, match="row 13"):
        parse_tables(data)
    data = copy.deepcopy(RAW)
    del data["attack_on_objects"]
    with pytest.raises(ValueError, match="attack_on_objects"):
        parse_tables(data)


# --- 1.5–1.7: ratios, shifts, rounding -----------------------------------------------------


def test_1_5_example_8_against_5_is_2_1() -> None:
    assert COLUMNS[initial_column(4 + 4, 5)] == "2:1"


def test_1_6_example_a_cms_shift_both_ways() -> None:
    initial = initial_column(8, 3)  # 2.67:1
    assert COLUMNS[initial] == "3:1"
    final, lines = final_column(initial, [atk(3), dfn(1)])
    assert COLUMNS[final] == "5:1"
    assert lines[0] == "initial 3:1 (1.5)" and lines[-1] == "final 5:1"
    assert any("3:1 -> 6:1" in line for line in lines)


def test_1_6_example_b_r3_clamp_between_attacker_and_defender_cms() -> None:
    initial = initial_column(18, 4)  # 4.5:1
    assert COLUMNS[initial] == "5:1"
    final, lines = final_column(initial, [atk(7, "7 CMs"), dfn(2, "2 CMs")])
    assert COLUMNS[final] == "8:1"  # netting +5 first would give 10:1
    # the example says "13:1"; 5:1 + 7 columns is 12:1
    assert any("5:1 -> 12:1, held at 10:1" in line for line in lines)
    assert any("10:1 -> 8:1" in line for line in lines)


def test_r3_order_does_not_depend_on_the_order_of_the_shift_list() -> None:
    shifts = [dfn(2), atk(3), dfn(1), atk(4)]
    assert final_column(col("5:1"), shifts)[0] == col("7:1")
    assert final_column(col("5:1"), list(reversed(shifts)))[0] == col("7:1")


def test_r3_low_side_clamps_before_attacker_cms() -> None:
    # an initial 1:6 is 1:4 first; then +1 attacker -> 1:3
    assert column_name(-2) == "1:6"
    assert final_column(-2, [atk(1)])[0] == col("1:3")
    assert final_column(col("1:2"), [dfn(5)])[0] == col("1:4")
    assert final_column(col("10:1"), [atk(3)])[0] == col("10:1")
    final, lines = final_column(20, [])
    assert final == col("10:1") and "off the table" in lines[0]


def test_r3_explanation_names_every_source() -> None:
    shifts = [
        Shift(1, "tactical concentration", "attacker", "13.1"),
        Shift(1, "black star", "attacker", "15.1"),
        Shift(1, "woods", "defender", "5.5.1"),
    ]
    final, lines = final_column(initial_column(17, 8), shifts)
    assert COLUMNS[final] == "3:1"  # E5, 5.2.1 example: 17:8 -> 2:1, +2, -1
    text = "\n".join(lines)
    for needle in ("tactical concentration (13.1)", "black star (15.1)", "woods (5.5.1)"):
        assert needle in text


def test_shift_rejects_negative_cms_and_unknown_sides() -> None:
    with pytest.raises(ValueError):
        Shift(-1, "woods as printed", "defender", "5.5.1")
    with pytest.raises(ValueError):
        Shift(1, "x", "umpire", "1.6")  # type: ignore[arg-type]


def test_1_7_ratio_rounds_half_up() -> None:
    assert COLUMNS[initial_column(3, 2)] == "2:1"  # 1.5:1 -> 2:1
    assert COLUMNS[initial_column(649, 100)] == "6:1"  # 6.49:1 -> 6:1
    assert COLUMNS[initial_column(650, 100)] == "7:1"  # 6.5:1 -> 7:1
    assert COLUMNS[initial_column(5, 4)] == "1:1"  # 1.25:1
    assert COLUMNS[initial_column(11, 1)] == "10:1"  # capped (1.6)
    assert COLUMNS[initial_column(21, 2)] == "10:1"  # 10.5:1


def test_1_7_halving_rounds_up() -> None:
    assert halve(1) == 1  # "½ of 1 SP = 1"
    assert halve(5) == 3  # "5/2 = 3"
    assert halve(7) == 4
    assert halve(halve(7)) == 2  # R5: disorganized and OoS, each in turn
    assert halve(0) == 0
    with pytest.raises(ValueError):
        halve(-1)


def test_e5_17_against_8_is_2_1() -> None:
    assert COLUMNS[initial_column(17, 8)] == "2:1"


@pytest.mark.parametrize(
    ("attack", "defence", "ratio"),
    [
        (3, 7, "1:2"),  # 1:2.33
        (4, 6, "1:2"),  # 1:1.5 rounds to 1:2
        (2, 5, "1:3"),  # 1:2.5
        (1, 9, "1:4"),  # below 1:4
        (5, 5, "1:1"),
        (4, 5, "1:1"),  # 1:1.25, n rounds to 1
        (2, 7, "1:4"),  # 1:3.5
        (3, 10, "1:3"),  # 1:3.33
    ],
)
def test_r4_ratios_below_1_1(attack: int, defence: int, ratio: str) -> None:
    assert COLUMNS[initial_column(attack, defence)] == ratio


def test_r4_no_strength_on_either_side() -> None:
    assert COLUMNS[initial_column(5, 0)] == "10:1"  # as the lone HQ, 5.1.9
    assert COLUMNS[initial_column(0, 5)] == "1:4"
    assert COLUMNS[initial_column(-2, 5)] == "1:4"
    assert COLUMNS[initial_column(0, 0)] == "10:1"


def test_columns_by_name() -> None:
    assert [column_name(i) for i in range(13)] == list(COLUMNS)
    assert column_name(14) == "12:1" and column_name(-1) == "1:5"
    with pytest.raises(ValueError):
        column_index("11:1")


def test_r6_clamp_roll() -> None:
    assert clamp_roll(1) == 2
    assert clamp_roll(13) == 12
    assert [clamp_roll(n) for n in range(2, 13)] == list(range(2, 13))
    assert lookup(TABLES, col("1:1"), clamp_roll(13)).text == "A2D -1 / -1"


def test_lookup_rejects_off_table_inputs() -> None:
    with pytest.raises(ValueError):
        lookup(TABLES, 13, 7)
    with pytest.raises(ValueError):
        lookup(TABLES, -1, 7)
    with pytest.raises(ValueError, match="R6"):
        lookup(TABLES, 5, 13)


# --- fire tables ---------------------------------------------------------------------------


BAND_OF_SP = {1: 0, 2: 0, 3: 1, 5: 1, 6: 2, 8: 2, 9: 3, 12: 3, 13: 4, 16: 4, 17: 5, 40: 5}


@pytest.mark.parametrize(("sp", "band"), sorted(BAND_OF_SP.items()))
def test_fire_bands(sp: int, band: int) -> None:
    for table in (TABLES.air_attack, TABLES.artillery_fire, TABLES.attack_on_objects):
        assert table.band_index(sp) == band
        assert fire_lookup(table, sp, 7) == table.rows[band][5]


def test_fire_lookup_cells() -> None:
    assert fire_lookup(TABLES.air_attack, 17, 2) == FireResult(2, True, False, "-2D")
    assert fire_lookup(TABLES.air_attack, 99, 12) == FireResult(2, True, False, "-2D")
    assert fire_lookup(TABLES.air_attack, 17, 3) == FireResult(text="-")
    assert fire_lookup(TABLES.air_attack, 2, 12) == FireResult(losses=1, text="-1")
    assert fire_lookup(TABLES.artillery_fire, 20, 5) == FireResult(1, False, True, "-1•")
    assert fire_lookup(TABLES.artillery_fire, 4, 3) == FireResult(disorganized=True, text="D")
    assert fire_lookup(TABLES.artillery_fire, 1, 12) == FireResult(test=True, text="•")
    obj = fire_lookup(TABLES.attack_on_objects, 1, 2)
    assert obj is not None and obj.destroyed and not obj.disorganized
    assert fire_lookup(TABLES.attack_on_objects, 17, 12) == FireResult(text="-")


@pytest.mark.parametrize("sp", [0, -1, -6])
def test_r7_no_sps_left_after_terrain_no_effect(sp: int) -> None:
    for table in (TABLES.air_attack, TABLES.artillery_fire, TABLES.attack_on_objects):
        assert fire_lookup(table, sp, 2) is None
        assert table.band_index(sp) is None


def test_fire_lookup_needs_a_clamped_roll() -> None:
    with pytest.raises(ValueError, match="R6"):
        fire_lookup(TABLES.air_attack, 5, 1)


def test_result_tables_type() -> None:
    assert isinstance(TABLES, ResultTables)
    with pytest.raises(TypeError):
        TABLES.combat[2] = ()  # type: ignore[index]


# --- property ------------------------------------------------------------------------------

_shifts = st.lists(
    st.builds(
        Shift,
        cms=st.integers(0, 6),
        source=st.just("cm"),
        side=st.sampled_from(["attacker", "defender"]),
        rule=st.just("1.6"),
    ),
    max_size=6,
)


@given(initial=st.integers(-20, 30), shifts=_shifts, extra=st.integers(1, 5))
def test_r3_final_column_in_table_and_monotone(
    initial: int, shifts: list[Shift], extra: int
) -> None:
    final, lines = final_column(initial, shifts)
    assert 0 <= final <= 12
    assert lines[-1] == f"final {COLUMNS[final]}"
    more_attack, _ = final_column(initial, [*shifts, atk(extra)])
    more_defence, _ = final_column(initial, [*shifts, dfn(extra)])
    assert more_attack >= final
    assert more_defence <= final
    assert final_column(initial + extra, shifts)[0] >= final


@given(attack=st.integers(-3, 200), defence=st.integers(1, 200), more=st.integers(1, 50))
def test_1_5_initial_column_in_table_and_monotone(attack: int, defence: int, more: int) -> None:
    column = initial_column(attack, defence)
    assert 0 <= column <= 12
    assert initial_column(attack + more, defence) >= column
    assert initial_column(attack, defence + more) <= column

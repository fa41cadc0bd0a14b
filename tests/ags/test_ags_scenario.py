"""The scenario ags-korsun: German set-up from the counters (AGS-K 18.2), the Soviet one
reconstructed, 40 combat units + 8 HQs (AGS-K 18.16), the start line 0114/0115 ->
2719/2619 with areas A-E (AGS-K 18.22), HQs and supported corps (23.12, 24.2),
reinforcements (26.1, 26.2), each part with its provenance."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

import pytest

from engine.ags.setup import distance_to_area, setup_area, uncovered
from scenarios.ags.scenario import SHIPPED_DIR, load_scenario, scenario_from
from scenarios.errors import ScenarioError
from scenarios.yamlio import read_yaml_file


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    d = read_yaml_file(SHIPPED_DIR / "ags-korsun.yaml")
    assert isinstance(d, dict)
    return d


def test_scenario_loads_13_turns_26_jan_to_19_feb() -> None:
    s = load_scenario()
    assert (s.id, s.turns, s.first_player) == ("ags-korsun", 13, "soviet")
    assert s.date(1) == dt.date(1944, 1, 26) and s.date(13) == dt.date(1944, 2, 19)
    assert s.track.turn(13).date == s.date(13)


def test_every_reconstructed_part_says_so() -> None:
    s = load_scenario()
    assert set(s.provenance.values()) == {"reconstructed"}
    assert s.crt.provenance == "printed"


def test_18_16_soviet_40_combat_units_and_8_hqs() -> None:
    s = load_scenario()
    sov = [s.units[u] for u in s.positions if s.units[u].side == "soviet"]
    assert (sum(not u.is_hq for u in sov), sum(u.is_hq for u in sov)) == (40, 8)
    assert s.positions["s-hq-5gdtk"] == "3215" and s.positions["s-hq-2tk"] == "0608"
    assert s.positions["s-gd-rd-28"] == "1502" and s.units["s-gd-rd-28"].guards  # addenda


def test_18_26_german_58_units_at_their_codes() -> None:
    s = load_scenario()
    ger = [u for u in s.positions if s.units[u].side == "german"]
    assert len(ger) == 58
    assert s.positions["g-82"] == "1113" and s.positions["g-36-14"] == "2316"
    assert all(
        s.board.grid.distance(s.positions[u], "2306") <= 3
        for u in ("g-9-ssw", "g-10-ssw", "g-15-ssw", "g-wallonien")
    )


def test_24_2_supported_corps() -> None:
    s = load_scenario()
    at = {h: [u for u, p in s.positions.items() if p == h] for h in s.supported}
    assert all(len(v) == 1 and s.units[v[0]].is_corps for v in at.values())


def test_18_22_start_line_ends_and_18_24_coverage() -> None:
    s = load_scenario()
    sides = [x for letter in s.start_line for x in s.start_line[letter]]
    assert sides[0] == ("0115", "0114") and sides[-1] == ("2619", "2719")
    for letter in "ABCDE":
        mine = [s.positions[u] for u in s.positions if s.units[u].setup == letter]
        assert mine and not uncovered(s.board, s.start_line, letter, mine)
        assert all(h in setup_area(s.board, s.start_line, letter) for h in mine)


def test_21_11_example_1214_is_four_hexes_from_area_a() -> None:
    s = load_scenario()
    d = {h: distance_to_area(s.board, s.start_line, "A", h) for h in ("1214", "1215", "1315")}
    assert d == {"1214": 4, "1215": 5, "1315": 5}


def test_26_reinforcements() -> None:
    s = load_scenario()
    got = {(r.side, r.turn, r.area): len(r.units) for r in s.reinforcements}
    assert got == {
        ("soviet", 3, "K"): 6,
        ("soviet", 3, "L"): 1,
        ("soviet", 5, "K"): 8,
        ("german", 6, "F"): 7,
        ("german", 6, "G"): 3,
    }
    assert all(h.startswith("39") for h in s.entry_areas["K"])


def _broken(data: dict[str, Any], path: list[str], value: Any) -> dict[str, Any]:
    d = copy.deepcopy(data)
    node = d
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return d


@pytest.mark.parametrize(
    ("path", "value", "problem"),
    [
        (["setup", "soviet", "units", "s-hq-5gdtk"], "3316", "23.12"),
        (["setup", "german", "units", "g-82"], "1114", "18.21"),
        (["setup", "german", "units", "g-9-ssw"], "2310", "18.21"),
        (["setup", "soviet", "units", "s-rd-6"], "0611", "24.12"),
        (["setup", "german", "units", "g-72"], "1214", "18.22"),
        (["turns"], 12, "turn track"),
    ],
)
def test_a_broken_scenario_is_named(
    data: dict[str, Any], path: list[str], value: Any, problem: str
) -> None:
    with pytest.raises(ScenarioError, match=problem.replace(".", r"\.")):
        scenario_from(_broken(data, path, value), "t.yaml")


def test_a_soviet_reinforcement_of_the_wrong_type_26_1(data: dict[str, Any]) -> None:
    d = copy.deepcopy(data)
    d["reinforcements"][1]["units"] = ["s-tc-29"]
    d["reinforcements"][2]["units"] = [
        "s-gd-rd-95", "s-gd-tb-20", "s-gd-tb-21", "s-gd-tb-8",
        "s-gd-mrb-1", "s-gd-mrb-21", "s-gd-mrb-29", "s-gd-tc-11",
    ]  # fmt: skip
    with pytest.raises(ScenarioError, match=r"26\.1"):
        scenario_from(d, "t.yaml")

"""The Kursk 1943 scenarios (wb95-kursk-1943.txt SCENARIOS: *Kursk*, *Prokhorovka*): the
countersheet (scenarios/countersheets/kursk.yaml), the setups, reinforcements, STAWKA
reserves, scenario notes as `special:` data and victory (docs/rulings.md A-47-A-52 rows)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
import yaml

from engine.core import Applied
from engine.record import GameRecord
from engine.wb95.choices import candidate_orders
from engine.wb95.flow import awaited_sides
from engine.wb95.stacking import STACK_LIMIT, overstacked, stack_cels
from scenarios import load_scenario
from scenarios.tables import load_table
from scenarios.validate import validate

ROOT = Path(__file__).resolve().parent.parent
KURSK = ("kursk", "prokhorovka")


def _sheet() -> dict[str, dict[str, object]]:
    data = yaml.safe_load((ROOT / "scenarios/countersheets/kursk.yaml").read_text("utf-8"))
    return {u["id"]: u for u in data["units"]}


@pytest.mark.parametrize("sid", KURSK)
def test_scenario_loads_and_validates(sid: str) -> None:
    setup = load_scenario(sid)
    assert setup.game == "kursk"
    assert setup.initiative == "german"  # both scenarios: "Initiative (moves first): Germans"
    report = validate(sid)
    assert report.ok, report.problems


def test_countersheet_validates_and_every_unit_is_used() -> None:
    assert validate(str(ROOT / "scenarios/countersheets/kursk.yaml")).ok
    used: set[str] = set()
    for sid in KURSK:
        used |= set(load_scenario(sid).units)
    assert set(_sheet()) == used


@pytest.mark.parametrize("sid", KURSK)
def test_3_2_1_no_hex_over_stacked_at_setup(sid: str) -> None:
    rec = GameRecord(load_scenario(sid), seed=1)
    assert not overstacked(rec.state)
    assert max(stack_cels(rec.state).values()) <= STACK_LIMIT


@pytest.mark.parametrize("sid", KURSK)
def test_every_unit_starts_on_a_passable_hex_of_its_map(sid: str) -> None:
    setup = load_scenario(sid)
    table = load_table(setup.game)
    m = setup.map
    for st in setup.starts:
        if st.hex is None:
            continue
        assert m.grid.contains(st.hex), st.id
        terrain = m.terrain_of(st.hex)
        move = setup.units[st.id].move
        assert table.terrain[terrain].cost.get(move) is not None or move == "none", (st.id, terrain)
    for st in setup.starts:
        if st.arrives is not None and "hex" in st.arrives:
            assert m.grid.contains(st.arrives["hex"])


def test_kursk_a_47_nineteen_turns_5_to_23_july() -> None:
    setup = load_scenario("kursk")
    assert setup.turns == 19
    assert setup.calendar_start == date(1943, 7, 5)


def test_prokhorovka_a_48_july_not_december() -> None:
    setup = load_scenario("prokhorovka")
    assert setup.turns == 11
    assert setup.calendar_start == date(1943, 7, 5)


def test_kursk_reinforcements_and_stawka_arrive_on_their_days() -> None:
    setup = load_scenario("kursk")
    arr = {st.id: st.arrives for st in setup.starts if st.arrives is not None}
    assert arr["g-4-arm-1"] == {"turn": 2, "hex": "0500"}  # 6 VII, 500
    assert arr["s-137-inf"] == {"turn": 2, "hex": "2800"}  # 6 VII, 48 A
    assert arr["s-2mc-1-18mb"] == {"turn": 8, "zone": "E"}  # 12 VII II MOT, E
    assert arr["s-7gcc-1-14cd"] == {"turn": 15, "zone": "E"}  # 19 VII VII CAV (G)
    assert arr["s-27a-hq"]["turn"] == 13  # 17 VII 27 Army, 3100-3121 (east edge)
    days = Counter(a["turn"] for a in arr.values())
    assert min(days) == 2 and max(days) == 15


def test_kursk_special_rules_are_data_the_engine_enforces() -> None:
    setup = load_scenario("kursk")
    sr = setup.scenario_rules
    assert [f.name for f in sr.fronts] == ["north"]
    assert any("s-2ta-hq" in a.group.units and a.turn == 2 for a in sr.activation)
    assert sr.withdrawals[0].side == "german" and sr.withdrawals[0].count == 2


def test_prokhorovka_notes() -> None:
    setup = load_scenario("prokhorovka")
    sr = setup.scenario_rules
    assert [f.name for f in sr.fronts] == ["south"]
    assert sorted(a.turn for a in sr.activation) == [2, 3, 3, 7]
    assert sr.no_crossing and "s-7ga-hq" in sr.no_crossing[0].group.units
    assert sr.no_crossing[0].hexsides
    assert sr.destroyed_bridges  # "All bridges in Bielgorod are destroyed"
    assert any("s-1ta-hq" in h.group.units and h.turns == frozenset({1}) for h in sr.half_mp)


def test_22_panthers_and_17_1_3_ferdinands_flagged() -> None:
    sheet = _sheet()
    assert sheet["g-51-arm"]["equipment"] == "panther"
    assert sheet["g-52-arm"]["equipment"] == "panther"
    assert sheet["g-653-arm"]["equipment"] == "ferdinand"
    assert sheet["g-654-arm"]["equipment"] == "ferdinand"


def test_kursk_victory_scale_a_49() -> None:
    setup = load_scenario("kursk")
    levels = setup.victory_rules["levels"]
    by_vp = {lv["vp"]: lv["result"] for lv in levels if lv.get("vp") is not None}
    assert by_vp == {
        26: "german significant victory",
        19: "german medium victory",
        11: "german small victory",  # A-49: exactly 11 is a small victory
    }
    assert levels[0]["at_any_moment"] and levels[0]["holds_all"]


def test_kessel_run_kursk_json() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run", "kursk", "--seed", "1", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    data = json.loads(out.stdout)
    assert data["turn"] == 1 and data["date"] == "1943-07-05"


@pytest.mark.parametrize(("sid", "seed"), [("kursk", 3), ("prokhorovka", 5)])
def test_random_legal_inputs_replay_identically(sid: str, seed: int) -> None:
    rng = random.Random(seed)
    rec = GameRecord(load_scenario(sid), seed=seed)
    for _ in range(25):
        if rec.state.over:
            break
        side = awaited_sides(rec.state)[0]
        options = candidate_orders(rec.state, side)
        assert options
        result = rec.submit(side, rng.choice(options))
        assert isinstance(result, Applied) or result is not None
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_kursk_vp_stawka_entered_and_units_eliminated() -> None:
    from engine.wb95.victory import victory_standing

    rec = GameRecord(load_scenario("kursk"), seed=1)
    state = rec.state.clone()
    assert victory_standing(state)["vp"]["german"] == 0
    state.units["s-2mc-1-18mb"].hex = "3105"  # II MOT has entered: 3 VPs
    state.units["s-2mc-2-33mb"].hex = "3106"  # the same corps: no more
    state.units["s-8-inf"].eliminated = True  # a Soviet unit eliminated: 1 VP
    state.units["s-8-inf"].hex = None
    assert victory_standing(state)["vp"]["german"] == 4
    state.control["0814"] = "german"  # Fatież captured: 4 VPs
    assert victory_standing(state)["vp"]["german"] == 8


def test_prokhorovka_automatic_victory_needs_all_three_towns() -> None:
    from engine.wb95.victory import automatic_victory

    rec = GameRecord(load_scenario("prokhorovka"), seed=1)
    state = rec.state.clone()
    assert automatic_victory(state) is None
    for h in ("4307", "5412"):
        state.control[h] = "german"
    assert automatic_victory(state) is None  # Bielgorod 5025 and 5027 not held yet
    for h in ("5025", "5027"):
        state.control[h] = "german"
    assert automatic_victory(state) == {"winner": "german", "result": "german automatic victory"}

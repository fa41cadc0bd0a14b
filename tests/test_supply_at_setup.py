"""Lines of supply at set-up (10.1; `kessel validate`, scenarios/validate.py): every unit a
shipped WB-95 scenario sets up on the map traces a line of supply, unless the scenario
declares it cut off with the reason (`special.cut_off`); a unit that cannot is reported with
where its line breaks (K102)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import systems
from engine.wb95.supply import trace
from scenarios import load_scenario
from scenarios.validate import validate
from scenarios.yamlio import read_yaml_file

SHIPPED = Path(__file__).parents[1] / "scenarios" / "wb95"
WB95 = sorted(p.stem for p in SHIPPED.glob("*.yaml"))


def _declared(ref: str) -> set[str]:
    data = read_yaml_file(SHIPPED / f"{ref}.yaml")
    assert isinstance(data, dict)
    groups = (data.get("special") or {}).get("cut_off") or []
    return {str(uid) for g in groups for uid in g["units"]}


def _out_of_supply(ref: str) -> dict[str, str]:
    setup = load_scenario(ref)
    state = systems.of(setup).new_game(setup).state
    return {
        uid: str(state.units[uid].hex)
        for side in setup.side_names
        for uid, line in trace(state, side).items()
        if not line.supplied
    }


@pytest.mark.parametrize("ref", WB95)
def test_10_1_every_shipped_scenario_sets_up_its_units_in_supply(ref: str) -> None:
    """10.1.1-10.1.11: each unit on the map at set-up reaches a supply base within its
    nation's supply MPs (10.1.7) -- or the scenario says why it starts cut off."""
    assert _out_of_supply(ref).keys() == _declared(ref)
    assert validate(ref).ok, validate(ref).problems


@pytest.mark.parametrize(
    ("unit", "hex_"),
    [
        ("s-136-inf", "0819"),  # 6th Tank Army's rifle divisions north of the Gniloy Tikich
        ("s-359-inf", "1121"),
        ("s-167-inf", "1319"),
        ("s-1-1-fuart", "0921"),
        ("s-27a-hq", "1216"),  # 27th Army
        ("s-180-inf", "1417"),
        ("s-159-fu", "1205"),
        ("s-52a-hq", "5407"),  # 52nd Army round Cherkassy
        ("s-294-inf", "5008"),
        ("s-254-inf", "5112"),
        ("s-373-inf", "5414"),
        ("s-7-para", "5616"),  # 4th Guards Army in the Tiasmin's loop
        ("s-62-inf", "5716"),
        ("s-4ga-1art", "5916"),
        ("g-34-inf-2", "1227"),  # VII and XXXXII Corps' west face
        ("g-198-inf-3", "1520"),
        ("g-88-inf-3", "1512"),
        ("g-88-inf-4", "1309"),
        ("g-332b-inf", "1501"),
        ("g-106-inf-3", "6029"),  # the south-east corner
        ("g-320-inf-1", "6129"),
        ("g-rg-smiela", "5215"),  # "RG in Smieła", with 57 INF (10.1.10, K180)
    ],
)
def test_10_1_7_korsun_1944_the_units_cut_off_on_the_old_map_trace_supply(
    unit: str, hex_: str
) -> None:
    """The issue: on the map without the roads between Stavishche, Tarashcha, Medvin and
    Lysyanka (and east of Cherkassy) these units needed 9 to 21 supply MPs at set-up; the
    Soviets have 8, the Germans 10 (10.1.7)."""
    setup = load_scenario("korsun-1944")
    state = systems.of(setup).new_game(setup).state
    u = state.units[unit]
    assert u.hex == hex_
    line = trace(state, setup.units[unit].side)[unit]
    assert line.supplied and line.mp is not None and line.mp <= line.limit


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    p = tmp_path / "scenario.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return p


def _korsun(**special: Any) -> dict[str, Any]:
    data = read_yaml_file(SHIPPED / "korsun-1944.yaml")
    assert isinstance(data, dict)
    data["special"] = {**data["special"], **special}
    return data


def _moved(data: dict[str, Any], unit: str, hex_: str) -> dict[str, Any]:
    for u in data["units"]:
        if u["id"] == unit:
            u["hex"] = hex_
    return data


def test_10_1_7_validate_reports_a_unit_that_cannot_trace_supply_at_setup(
    tmp_path: Path,
) -> None:
    """K102: the report says where the line breaks. The Smieła RG alone on 5315, next to
    373 INF (5414): only a regular unit opens a hex in enemy ZoC (10.1.10, K180)."""
    data = _moved(_korsun(), "g-rg-smiela", "5315")
    problems = validate(str(_write(tmp_path, data))).problems
    assert len(problems) == 1, problems
    assert "g-rg-smiela (5315) cannot trace a line of supply at set-up" in problems[0]
    assert "its own hex 5315 is in enemy ZoC (10.1.10)" in problems[0]
    assert "special.cut_off" in problems[0]


def test_10_1_7_a_unit_beyond_its_supply_mps_is_reported(tmp_path: Path) -> None:
    """136 INF on 0404, north-west of Tarashcha and off the roads: three clear hexes from the
    west edge cost a truck 9 supply MPs, more than the Soviets' 8 (10.1.7, 10.1.8)."""
    data = _moved(_korsun(), "s-136-inf", "0404")
    problems = validate(str(_write(tmp_path, data))).problems
    assert len(problems) == 1, problems
    assert "s-136-inf (0404) cannot trace a line of supply at set-up" in problems[0]
    assert "more than its 8" in problems[0] and "(10.1.7)" in problems[0]


def test_10_1_a_declared_cut_off_unit_is_accepted_with_its_reason(tmp_path: Path) -> None:
    reason = "a garrison the scenario means to start cut off"
    data = _korsun(cut_off=[{"units": ["g-rg-smiela"], "reason": reason}])
    data = _moved(data, "g-rg-smiela", "5315")
    assert validate(str(_write(tmp_path, data))).ok


def test_10_1_a_declaration_needs_a_reason_and_a_unit_that_is_cut_off(tmp_path: Path) -> None:
    data = _korsun(cut_off=[{"units": ["g-rg-smiela"]}])
    problems = list(validate(str(_write(tmp_path, data))).problems)
    assert problems == [
        f"{tmp_path / 'scenario.yaml'}: special.cut_off[0]: give units: [ids] and the reason "
        "they start cut off"
    ]
    data = _korsun(cut_off=[{"units": ["g-rg-smiela", "g-no-such"], "reason": "stale"}])
    text = "\n".join(validate(str(_write(tmp_path, data))).problems)
    assert "special.cut_off: g-rg-smiela (5215) traces a line of supply at set-up (10.1)" in text
    assert "special.cut_off: g-no-such is not a unit set up on the map" in text


@pytest.mark.parametrize(("ref", "hex_"), [("prokhorovka", "5532"), ("kursk-joint", "2968")])
def test_k180_15_gds_inf_is_set_up_on_5532(ref: str, hex_: str) -> None:
    """K180: the printed 4532 is behind the German lines west of Bielgorod, where no line of
    supply reaches it; on 5532 (the joint map's 2968) it is in the 7th Gds Army's second
    line and traces supply (10.1)."""
    setup = load_scenario(ref)
    state = systems.of(setup).new_game(setup).state
    assert state.units["s-15g-inf"].hex == hex_
    assert trace(state, "soviet")["s-15g-inf"].supplied

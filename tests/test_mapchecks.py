"""The geography checks of `kessel validate` (issue #18, scenarios/mapchecks.py): each one
passes on the shipped maps and catches a deliberately broken input."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.hexgrid import hexside
from engine.model import MapData
from scenarios import load_scenario, mapchecks
from scenarios.loader import _Ctx, build_map
from scenarios.schema import MapFileIn
from scenarios.tables import load_table
from scenarios.validate import validate
from scenarios.yamlio import read_yaml_file

HERE = Path(__file__).parent
SHIPPED = Path(__file__).parents[1] / "scenarios"
KURSK = load_table("kursk")


def load_map(map_id: str) -> MapData:
    path = SHIPPED / "maps" / f"{map_id}.yaml"
    mf = MapFileIn.model_validate(read_yaml_file(path))
    return build_map(mf, mf.id, load_table(mf.game or "korsun"), _Ctx(str(path)))


def _scenario_file(tmp_path: Path, scenario: str, **changes: Any) -> Path:
    data = read_yaml_file(SHIPPED / "wb95" / f"{scenario}.yaml")
    assert isinstance(data, dict)
    data.update(changes)
    p = tmp_path / f"{scenario}.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return p


@pytest.mark.parametrize("ref", sorted(p.stem for p in (SHIPPED / "wb95").glob("*.yaml")))
def test_shipped_scenarios_pass_the_geography_checks(ref: str) -> None:
    report = validate(ref)
    assert report.ok, report.problems


# --- a setup unit on the wrong bank --------------------------------------------------------
def _placed(scenario: str) -> list[tuple[str, str, str]]:
    setup = load_scenario(scenario)
    return [(u.id, setup.units[u.id].side, u.hex) for u in setup.starts if u.hex is not None]


def test_banks_catch_a_unit_on_the_wrong_bank() -> None:
    m = load_map("prokhorovka")
    rules = load_scenario_special("prokhorovka")["banks"]
    placed = _placed("prokhorovka")
    assert mapchecks.banks(m, rules, placed, "f") == []
    # 78 Gds moved across the Donets into the Kempf bank (5030's neighbour 5130 is empty)
    # 78 Gds moved along the east bank, then across the Donets among the Kempf divisions
    moved = [(u, s, "5230" if u == "s-78g-inf" else h) for u, s, h in placed]
    assert mapchecks.banks(m, rules, moved, "f") == []  # 5230 is on the east bank
    moved = [(u, s, "5028" if u == "s-78g-inf" else h) for u, s, h in placed]
    problems = mapchecks.banks(m, rules, moved, "f")
    assert any(
        "soviet stand on both banks of the Siewiernyj Doniec" in p and "s-78g-inf (5028)" in p
        for p in problems
    ), problems


def test_banks_catch_the_old_donets_one_hex_too_far_east(tmp_path: Path) -> None:
    """The map before issue #18 (pinned for the regression games) put 81, 78 and 72 Gds
    on the German bank and 7 Pz on the Soviet one."""
    p = _scenario_file(tmp_path, "prokhorovka", map="old-prokhorovka.yaml")
    old = HERE / "regressions" / "pinned" / "maps" / "prokhorovka.yaml"
    (tmp_path / "old-prokhorovka.yaml").write_text(old.read_text(encoding="utf-8"))
    text = "\n".join(validate(str(p)).problems)
    assert "stand on both banks of the Siewiernyj Doniec" in text
    assert "s-81g-inf" in text or "s-78g-inf" in text or "g-7-arm-1" in text


def load_scenario_special(scenario: str) -> dict[str, Any]:
    data = read_yaml_file(SHIPPED / "wb95" / f"{scenario}.yaml")
    assert isinstance(data, dict)
    special = data["special"]
    assert isinstance(special, dict)
    return special


# --- an entry zone or hex without a road ---------------------------------------------------
def test_entry_zones_and_hexes_need_a_road() -> None:
    m = load_map("korsun")
    entries: list[tuple[str, str | None, str | None]] = [("k", z, None) for z in "ABCDEF"]
    entries += [("k", None, h) for h in ("0112", "0115", "0123", "0130", "6422", "6430")]
    assert mapchecks.entry_roads(m, entries) == []
    off_road = dataclasses.replace(m, zones={**m.zones, "G": ("0135", "0235")})
    problems = mapchecks.entry_roads(off_road, [("k", "G", None), ("k", None, "0101")])
    assert problems == [
        "k.zone: entry zone G has no road hex (" + mapchecks.WHERE + ")",
        "k.hex: entry hex 0101 is not on a road (" + mapchecks.WHERE + ")",
    ]


def test_validate_reports_an_entry_zone_without_a_road(tmp_path: Path) -> None:
    data = read_yaml_file(SHIPPED / "wb95" / "demo-steblev.yaml")
    assert isinstance(data, dict)
    data["map"]["zones"]["A"] = ["0210"]  # a swamp corner no road reaches
    p = tmp_path / "demo.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert any("entry zone A has no road hex" in x for x in validate(str(p)).problems)


# --- a road crossing water without a bridge ------------------------------------------------
def test_a_road_over_water_needs_a_bridge() -> None:
    m = load_map("kursk")
    assert mapchecks.unbridged_roads(m, KURSK, "f") == []
    tuskar = next(s for s in m.bridges if s[0][:2] in ("15", "16"))  # a bridge at Kursk
    broken = dataclasses.replace(m, bridges=m.bridges - {tuskar})
    (problem,) = mapchecks.unbridged_roads(broken, KURSK, "f")
    assert f"between {tuskar[0]} and {tuskar[1]} crosses the river with no bridge" in problem


def test_korsun_roads_keep_to_one_bank() -> None:
    """Issue #18: the Boguslav - Steblev - Korsun road had 25 bridges over the Ros (the map
    105): a road now crosses a river only where it must, and every crossing is bridged."""
    m = load_map("korsun")
    assert len(m.bridges) < 40
    assert mapchecks.unbridged_roads(m, load_table("korsun"), "f") == []
    axis = yaml.safe_load((SHIPPED / "maps" / "korsun.yaml").read_text(encoding="utf-8"))
    (chain,) = [
        r["hexes"] for r in axis["roads"] if r["hexes"][-1] == "2009" and r["kind"] == "main"
    ]
    road = chain[chain.index("3312") :]  # Korsuń - Steblev - Bogusław
    assert road[-1] == "2009" and "2813" in road
    assert len({hexside(a, b) for a, b in itertools.pairwise(road)} & m.bridges) <= 2


# --- a road broken at the seam of the joint map ---------------------------------------------
def test_a_road_broken_at_the_seam_is_reported() -> None:
    m = load_map("kursk-joint")
    assert mapchecks.broken_roads(m, "f") == []
    # the Kursk - Oboyan highway runs from the Kursk sheet (1735) onto the southern (1636)
    assert "main" in m.road_kinds("1735", "1736") and "main" in m.road_kinds("1736", "1636")
    cut = {hexside("1735", "1736"), hexside("1736", "1636")}
    broken = dataclasses.replace(m, roads={s: k for s, k in m.roads.items() if s not in cut})
    problems = mapchecks.broken_roads(broken, "f")
    assert [p.split("stops at ")[1][:4] for p in problems] == ["1636", "1735"]


# --- a river that stops short of a place on it ----------------------------------------------
def test_a_river_that_stops_short_of_a_place_is_reported() -> None:
    m = load_map("kursk-joint")
    assert mapchecks.rivers_at_places("kursk-joint", m, KURSK, "f") == []
    # the Seym as it was: the Kursk sheet's course only, ending at 2735 short of Solntsevo
    # (the Prokhorovka sheet's stretch and the seam's join, issue #18: every river
    # hexside with a hex in rows 36-37 west of column 32)
    seym_south = {
        s
        for s, f in m.hexsides.items()
        if "river" in f and any(int(h[2:]) in (36, 37) and h[:2] < "32" for h in s)
    }
    short = dataclasses.replace(
        m, hexsides={s: f for s, f in m.hexsides.items() if s not in seym_south}
    )
    problems = mapchecks.rivers_at_places("kursk-joint", short, KURSK, "f")
    assert any("Sołncewo (2836) stands on the Seym" in p for p in problems), problems


def test_validate_a_map_file_runs_the_map_checks(tmp_path: Path) -> None:
    data = read_yaml_file(SHIPPED / "maps" / "kursk.yaml")
    assert isinstance(data, dict)
    data["bridges"] = []
    p = tmp_path / "kursk-nobridges.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    report = validate(str(p))
    assert report.kind == "map" and any("with no bridge" in x for x in report.problems)


def test_the_7th_guards_army_rule_now_binds() -> None:
    """ "7th Gds Army cannot cross the Siewierskij Doniec north of hex 5125": with the
    Donets on its historical bank 81, 78 and 72 Gds start east of it, so south of the
    river's source (row 14) they reach Bielgorod's bank only across it (before issue #18
    they stood west of it and the rule did nothing)."""
    m = load_map("prokhorovka")
    starts = {"s-81g-inf": "5127", "s-78g-inf": "5129", "s-72g-inf": "5231"}
    placed = dict((u, h) for u, _s, h in _placed("prokhorovka"))
    assert {u: placed[u] for u in starts} == starts
    for h in starts.values():
        seen, todo = {h}, [h]
        while todo:
            x = todo.pop()
            for n in m.grid.neighbours(x):
                south = int(n[2:]) >= 20
                if south and n not in seen and "big-river" not in m.features(x, n):
                    seen.add(n)
                    todo.append(n)
        assert not {"5026", "5028", "4924"} & seen, h

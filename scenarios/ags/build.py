"""An AGS scenario file -> the engine's `Setup` (scenarios/systems.py): the common fields
the referee, the tools and the renderer read (sides, turns, the map's grid and terrain,
every unit's name and side, where it starts or when it arrives), and the whole AGS
scenario (`engine.ags.scenario.Scenario`) as `Setup.results`, which the AGS rules play."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from engine.ags.scenario import Scenario
from engine.model import MapData, Setup, SideSpec, TerrainTable, UnitSpec, UnitStart
from scenarios import systems
from scenarios.ags.scenario import SHIPPED_DIR, scenario_from


def setup_of(sc: Scenario, game: str = "korsun") -> Setup:
    b = sc.board
    roads: dict[Any, frozenset[str]] = {hs: frozenset({"road"}) for hs in b.roads}
    mapdata = MapData(
        id=b.id,
        grid=b.grid,
        terrain=dict(b.terrain),
        names=dict(b.names),
        hexsides={hs: frozenset({f}) for hs, f in b.hexsides.items()},
        roads=roads,
    )
    units = {
        u.id: UnitSpec(
            id=u.id,
            name=u.designation,
            side=u.side,
            nation=u.side,
            type=u.type,
            move="mechanized" if u.move_class == "mech" else "foot",
            size=u.size,
            formation=u.formation or "",
            sp=u.full.attack,
            mp=Fraction(u.full.movement),
            max_cel=len(u.steps),
        )
        for u in sc.units.values()
    }
    arrivals = {uid: (r.turn, r.area) for r in sc.reinforcements for uid in r.units}
    starts = tuple(
        UnitStart(
            id=uid,
            hex=sc.positions.get(uid),
            cel=len(sc.units[uid].steps),
            arrives=None
            if uid in sc.positions
            else {"turn": arrivals[uid][0], "area": arrivals[uid][1]},
        )
        for uid in sc.units
        if uid in sc.positions or uid in arrivals
    )
    return Setup(
        id=sc.id,
        name=sc.name,
        system="ags",
        game=game,
        initiative=sc.first_player,
        sides={s: SideSpec(s, s) for s in ("soviet", "german")},
        turns=sc.turns,
        start_turn=1,
        start_phase="movement",
        start_active=sc.first_player,
        map=mapdata,
        table=TerrainTable(game, {}, {}, {}),
        morale={},
        units=units,
        starts=starts,
        results=sc,
    )


def build(data: dict[str, Any], file: str, base_dir: Path | None) -> Setup:
    return setup_of(scenario_from(data, file), str(data.get("game", "korsun")))


def _validate(data: dict[str, Any], path: Path) -> list[str]:
    from scenarios.ags.validate import scenario_problems

    return scenario_problems(data, path)


def _validate_map(data: dict[str, Any], file: str) -> list[str]:
    from scenarios.ags.validate import map_problems

    return map_problems(data, file)


SCENARIO_SYSTEM = systems.ScenarioSystem(
    "ags",
    build,
    SHIPPED_DIR,
    validate=_validate,
    validate_map=_validate_map,
    map_game="ags",
    overridable=("tables/ags-*.yaml", "maps/ags/*.yaml", "ags/*.yaml"),
)

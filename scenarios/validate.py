"""`kessel validate PATH|ID`: check a map, a countersheet or a scenario and list every
problem found, not only the first (a league editing its own files needs them all).

A scenario is checked for: its schema; its map and countersheet; every setup hex on the
map and passable for its unit (the game's TERRAIN INFLUENCE table); no hex over 8 CELs
(3.2.1, an HQ counts 1) and no hex holding both sides; every reinforcement's zone or hex
existing; and the front: no unit set up with every neighbouring hex held by the enemy or
in its ZoC and no friendly unit next to it, unless `special: {surrounded: [ids]}` says the
scenario means it; the geography of its map (scenarios/mapchecks.py: unbridged roads, roads
that stop in the open, entry zones and hexes off the roads, units on the wrong bank of a
river the scenario's `special.banks` names, rivers that stop short of a place on them).
Then the full loader runs, so anything else it refuses is reported too, and the set-up is
traced for supply: every unit on the map must trace a line of supply at set-up (10.1, as
the rule system traces it), unless `special: {cut_off: [{units: [ids], reason: ...}]}` says
the scenario means it (a garrison the historical situation had cut off) and why.

Another rule system's scenarios (`system:`) and maps (`game:`) are checked by the checks
it registers (`scenarios.systems.ScenarioSystem.validate`, `validate_map`; AGS:
scenarios/ags/validate.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine import systems as rule_systems
from engine.hexgrid import HexId
from engine.model import DEFAULT_MOVE, NO_ZOC_TYPES, MapData, Setup, TerrainTable
from scenarios import mapchecks, systems
from scenarios.errors import ScenarioError, from_validation
from scenarios.loader import (
    _countersheet,
    _Ctx,
    _data_file,
    _scenario_map,
    build_map,
    list_scenarios,
    load_scenario,
    unit_id_problems,
)
from scenarios.overrides import locate
from scenarios.schema import CountersheetIn, MapFileIn, ScenarioIn, UnitIn
from scenarios.tables import PACKAGE_DIR, load_table
from scenarios.yamlio import path_exists, read_yaml_file

MAPS_DIR = PACKAGE_DIR / "maps"
GEOGRAPHY_DIR = PACKAGE_DIR / "geography"

STACK_LIMIT = 8  # 3.2.1


@dataclass(frozen=True)
class Report:
    kind: str  # scenario | map | countersheet
    file: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def resolve(ref: str) -> Path:
    """A path, or the id of a shipped scenario, map or countersheet."""
    p = Path(ref)
    if path_exists(p):  # a directory or a device too: read_text says what is wrong
        return p
    for info in list_scenarios():
        if info.id == ref:
            return info.path
    for kind in ("maps", "countersheets"):
        c = PACKAGE_DIR / kind / f"{ref}.yaml"
        if c.is_file():
            return locate(f"{kind}/{ref}.yaml")  # a league's file in its place, if any
    for c in sorted((PACKAGE_DIR / "maps").glob(f"*/{ref}.yaml")):  # a system's maps
        return locate(c.relative_to(PACKAGE_DIR).as_posix())
    raise ScenarioError(ref, "(file)", "no such file, and no shipped scenario, map or countersheet")


def validate(ref: str) -> Report:
    path = resolve(ref)
    file = str(path)
    try:
        data = read_yaml_file(path)
    except ScenarioError as e:
        return Report("file", file, (str(e),))
    if not isinstance(data, dict):
        return Report("file", file, (f"{file}: (top level): must be a mapping",))
    if "system" in data:
        try:
            system = systems.of(data, file)  # issue #19: each system checks its own
        except ScenarioError as e:
            return Report("scenario", file, (str(e),))
        if system.validate is not None:
            return Report("scenario", file, tuple(system.validate(data, path)))
        return Report("scenario", file, tuple(_scenario(data, path)))
    if "cols" in data and "rows" in data:
        for s in systems.all_systems():
            if s.validate_map is not None and s.map_game == data.get("game"):
                return Report("map", file, tuple(s.validate_map(data, file)))
        return Report("map", file, tuple(_map(data, file)))
    if "units" in data:
        return Report("countersheet", file, tuple(_sheet(data, file)))
    return Report("file", file, (f"{file}: (top level): not a scenario, map or countersheet",))


def _map(data: dict[str, Any], file: str) -> list[str]:
    try:
        mi = MapFileIn.model_validate(data)
        table = load_table(mi.game or "korsun")
        m = build_map(mi, mi.id, table, _Ctx(file))
    except ValidationError as e:
        return [str(from_validation(e, file))]
    except ScenarioError as e:
        return [str(e)]
    return _geography(m, table, Path(file), file)


def _geography(m: MapData, table: TerrainTable, path: Path | None, file: str) -> list[str]:
    """The map checks of mapchecks.py; a shipped map built from a geography is also
    checked against it (rivers at the places that stand on them)."""
    out = [*mapchecks.unbridged_roads(m, table, file), *mapchecks.broken_roads(m, file)]
    shipped = path is not None and path.resolve() == (MAPS_DIR / f"{m.id}.yaml").resolve()
    if shipped and (GEOGRAPHY_DIR / f"{m.id}.yaml").is_file():
        out += mapchecks.rivers_at_places(m.id, m, table, file)
    return out


def _sheet(data: dict[str, Any], file: str) -> list[str]:
    try:
        cs = CountersheetIn.model_validate(data)
    except ValidationError as e:
        return [str(from_validation(e, file))]
    out: list[str] = []
    seen: set[str] = set()
    bad_ids = unit_id_problems([u.id for u in cs.units])  # K89
    for i, u in enumerate(cs.units):
        key = f"{file}: units[{i}]"
        if i in bad_ids:
            out.append(f"{key}.id: {bad_ids[i]}")
        if u.id in seen:
            out.append(f"{key}.id: duplicate id {u.id!r}")
        seen.add(u.id)
        if u.type is None or u.side is None:
            out.append(f"{key}: {u.id} needs side and type")
            continue
        if u.type != "hq" and (u.sp is None or u.mp is None):
            out.append(f"{key}: {u.id} needs sp and mp (every unit but an HQ, 1.2)")
        if isinstance(u.sp, tuple) and u.type not in ("art", "sp-art"):
            out.append(f"{key}.sp: [attack, defence] SPs are only for artillery")
        if u.type in ("art", "sp-art") and isinstance(u.sp, int):
            out.append(f"{key}.sp: artillery needs [attack, defence] SPs (1.2)")
    return out


def _passable(table: TerrainTable, m: MapData, h: HexId, move: str, is_hq: bool) -> bool:
    if move == "none":
        return True
    row = table.terrain.get(m.terrain_of(h))
    if row is None:
        return False
    if is_hq and row.cost.get("hq") is not None:
        return True  # R10, 9.1.3
    if row.cost.get(move) is None:
        return False
    base = table.terrain.get(row.base) if row.base else None
    return base is None or base.cost.get(move) is not None


def _scenario(data: dict[str, Any], path: Path) -> list[str]:
    file = str(path)
    ctx = _Ctx(file)
    try:
        sc = ScenarioIn.model_validate(data)
        table = load_table(sc.game)
        m = _scenario_map(sc, table, ctx, path.parent)
        sheet = (
            {}
            if sc.countersheet is None
            else _countersheet(sc.countersheet, sc.game, ctx, path.parent)
        )
    except ValidationError as e:
        return [str(from_validation(e, file))]
    except ScenarioError as e:
        return [str(e)]
    out: list[str] = []
    grid = m.grid
    placed: list[tuple[str, str, HexId, str, int]] = []  # id, side, hex, type, stack weight
    ids: dict[int, str] = {}
    entries: list[tuple[str, str | None, HexId | None]] = []
    for i, raw in enumerate(sc.units):
        key = f"{file}: units[{i}]"
        if not isinstance(raw, dict):
            out.append(f"{key}: a unit must be a mapping")
            continue
        merged = {**sheet.get(str(raw.get("id")), {}), **raw}
        try:
            u = UnitIn.model_validate(merged)
        except ValidationError as e:
            out.append(str(from_validation(e, file, ("units", i))))
            continue
        ids[i] = u.id
        if u.side not in sc.sides:
            out.append(f"{key}.side: unknown side {u.side!r}")
            continue
        move = u.move or DEFAULT_MOVE[u.type]
        if u.hex is not None:
            if not grid.contains(u.hex):
                out.append(f"{key}.hex: {u.id} is set up on {u.hex}, which is not on the map")
                continue
            if not _passable(table, m, u.hex, move, u.type == "hq"):
                out.append(
                    f"{key}.hex: {u.id} ({move}) cannot be in {m.label(u.hex)}: "
                    f"{m.terrain_of(u.hex)} is impassable to it"
                )
            cel = 1 if u.type == "hq" else (u.cel or u.max_cel or (1 if u.type == "art" else 2))
            placed.append((u.id, u.side, u.hex, u.type, cel))
        if u.arrives is not None:
            a = u.arrives
            entries.append((key + ".arrives", a.zone, a.hex))
            if a.zone is not None and a.zone not in m.zones and a.zone not in m.edges:
                known = ", ".join([*m.zones, *m.edges]) or "none"
                out.append(f"{key}.arrives.zone: unknown entry zone {a.zone!r} (map: {known})")
            if a.hex is not None and not grid.contains(a.hex):
                out.append(f"{key}.arrives.hex: {a.hex} is not on the map")
    index = list(ids)
    for j, problem in sorted(unit_id_problems(list(ids.values())).items()):  # K89
        out.append(f"{file}: units[{index[j]}].id: {problem}")
    out.extend(_stacking(placed, m, file))
    special = sc.special.get("surrounded") if isinstance(sc.special, dict) else None
    allowed = frozenset(map(str, special)) if isinstance(special, list) else frozenset()
    out.extend(_surrounded(placed, m, file, allowed))
    map_path = (
        _data_file("maps", sc.map, path.parent, file, "map") if isinstance(sc.map, str) else None
    )
    out.extend(_geography(m, table, map_path, file))
    out.extend(mapchecks.entry_roads(m, entries))
    rules = sc.special.get("banks") if isinstance(sc.special, dict) else None
    if rules is not None:
        at = [(uid, side, h) for uid, side, h, _t, _w in placed]
        out.extend(mapchecks.banks(m, rules if isinstance(rules, list) else [rules], at, file))
    declared, problems = _cut_off(
        sc.special.get("cut_off") if isinstance(sc.special, dict) else None, file
    )
    out.extend(problems)
    if not out:
        try:
            setup = load_scenario(path)
        except ScenarioError as e:
            out.append(str(e))
        else:
            out.extend(_supply_at_setup(setup, declared, file))
    return out


def _cut_off(raw: object, file: str) -> tuple[dict[str, str], list[str]]:
    """`special.cut_off: [{units: [ids], reason: text}]`: the units a scenario means to set
    up out of supply, each group with the reason (the historical situation)."""
    key = f"{file}: special.cut_off"
    if raw is None:
        return {}, []
    if not isinstance(raw, list):
        return {}, [f"{key}: a list of {{units: [ids], reason: ...}}"]
    out: dict[str, str] = {}
    problems: list[str] = []
    for j, group in enumerate(raw):
        ids = group.get("units") if isinstance(group, dict) else None
        reason = group.get("reason") if isinstance(group, dict) else None
        if not isinstance(ids, list) or not ids or not isinstance(reason, str) or not reason:
            problems.append(f"{key}[{j}]: give units: [ids] and the reason they start cut off")
            continue
        out.update((str(uid), reason) for uid in ids)
    return out, problems


def _supply_at_setup(setup: Setup, declared: dict[str, str], file: str) -> list[str]:
    """10.1: every unit on the map at set-up traces a line of supply (the rule system's own
    trace: 10.1.4-10.1.11, 7.3.7), unless `special.cut_off` declares it; a declared unit
    must be one that is set up on the map and cannot trace one."""
    rules = rule_systems.of(setup)
    state = rules.new_game(setup).state
    out: list[str] = []
    cut: set[str] = set()
    for side in setup.side_names:
        picture = rules.supply_picture(state, side)
        if picture is None:
            return []  # the system traces no lines of supply
        for c in picture.cuts:
            cut.add(c.unit)
            if c.unit not in declared:
                out.append(
                    f"{file}: units: {c.unit} ({picture.at.get(c.unit, 'off the map')}) "
                    f"cannot trace a line of supply at set-up: {c.sentence()} (10.1; list it "
                    "under special.cut_off with the reason if the scenario means it)"
                )
    for uid in declared:
        u = state.units.get(uid)
        if u is None or u.hex is None:
            out.append(f"{file}: special.cut_off: {uid} is not a unit set up on the map")
        elif uid not in cut:
            out.append(
                f"{file}: special.cut_off: {uid} ({u.hex}) traces a line of supply at set-up "
                "(10.1): take it out of special.cut_off"
            )
    return out


def _stacking(placed: list[tuple[str, str, HexId, str, int]], m: MapData, file: str) -> list[str]:
    cels: dict[HexId, int] = {}
    sides: dict[HexId, set[str]] = {}
    for _uid, side, h, _t, w in placed:
        cels[h] = cels.get(h, 0) + w
        sides.setdefault(h, set()).add(side)
    out = [
        f"{file}: units: {m.label(h)} holds {c} CELs at setup, more than {STACK_LIMIT} (3.2.1)"
        for h, c in sorted(cels.items())
        if c > STACK_LIMIT
    ]
    out.extend(
        f"{file}: units: {m.label(h)} holds units of both sides ({', '.join(sorted(s))}) "
        "at setup: no unit may start in an enemy-occupied hex"
        for h, s in sorted(sides.items())
        if len(s) > 1
    )
    return out


def _surrounded(
    placed: list[tuple[str, str, HexId, str, int]],
    m: MapData,
    file: str,
    allowed: frozenset[str],
) -> list[str]:
    """The front is sensible: a unit with no friendly neighbour whose every neighbouring
    hex holds an enemy unit or lies next to one with a ZoC is set up surrounded."""
    grid = m.grid
    held: dict[HexId, set[str]] = {}
    zoc: dict[str, set[HexId]] = {}
    for _uid, side, h, t, _w in placed:
        held.setdefault(h, set()).add(side)
        if t not in NO_ZOC_TYPES:
            zoc.setdefault(side, set()).update(grid.neighbours(h))
    out: list[str] = []
    for uid, side, h, _t, _w in placed:
        if uid in allowed:
            continue
        nbrs = list(grid.neighbours(h))
        enemy_cover = set().union(*(z for s, z in zoc.items() if s != side))
        friendly_near = any(side in held.get(n, set()) for n in nbrs)
        if (
            nbrs
            and not friendly_near
            and all((held.get(n, set()) - {side}) or n in enemy_cover for n in nbrs)
        ):
            out.append(
                f"{file}: units: {uid} is set up surrounded by the enemy in {m.label(h)} "
                "(list it under special.surrounded if the scenario means it)"
            )
    return out

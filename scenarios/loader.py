"""Scenario YAML -> engine objects (DESIGN §5, §3).

The loader turns a scenario file (and the shipped map and countersheet it may name) into
an `engine.model.Setup`, checking everything the engine takes for granted: hexes on the
map, adjacent hexsides and road steps, terrain and features that exist in the game's
TERRAIN INFLUENCE table, known sides, unique unit ids, CELs within bounds, and stacking at
setup (3.2.1). Every failure is a `ScenarioError` naming the file, the key and the problem.

Maps and countersheets named by id are looked up next to the scenario first
(`<scenario dir>/maps/<id>.yaml`, `<scenario dir>/countersheets/<id>.yaml`), then in this
package (`scenarios/maps/`, `scenarios/countersheets/`). A name ending in `.yaml` is a
path relative to the scenario's directory.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from engine.hexgrid import Grid, HexId, HexIdError, Hexside, hexside, normalize, parse_hex
from engine.model import (
    AIR_MISSION_WORDS,
    DEFAULT_MOVE,
    Activation,
    AirCounter,
    AirSide,
    Area,
    Front,
    GameRules,
    HalfMP,
    MapData,
    NoCrossing,
    ScenarioRules,
    Setup,
    SideSpec,
    TerrainTable,
    UnitGroup,
    UnitSpec,
    UnitStart,
    VictoryHex,
    Withdrawal,
)
from engine.notation import NotationError, format_order, parse_order
from engine.orders import Air, Attack, Move, Order
from scenarios import systems
from scenarios.errors import ScenarioError, validated
from scenarios.overrides import LEAGUE_SUPPLIED, locate, read_data, relative, supplier
from scenarios.schema import (
    ARTILLERY_TYPES,
    AirSideIn,
    AreaIn,
    CountersheetIn,
    GroupIn,
    MapFileIn,
    MapIn,
    ScenarioIn,
    SpecialIn,
    StartIn,
    UnitIn,
    to_hex,
)
from scenarios.tables import (
    PACKAGE_DIR,
    load_air_rules,
    load_game_rules,
    load_morale,
    load_results,
    load_supply,
    load_table,
)
from scenarios.yamlio import parse_yaml, path_exists

SHIPPED_DIR = PACKAGE_DIR / "wb95"
STACK_LIMIT = 8  # 3.2.1
# Hexside features that have no row in the TERRAIN INFLUENCE tables (7.3 / 7.2, 19.0).
TABLELESS_FEATURES = frozenset({"fixed-position", "fortified-line"})
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
MAX_UNIT_ID = 64  # characters (shipped: 17); an order line holds at most 2,000
MAX_AIR_COUNTERS = 1000  # `counters: N` makes N counters (shipped: 6 a side)


def unit_id_problem(uid: str, air: bool = False) -> str | None:
    """Why `uid` cannot be the id of a unit (or, `air`, of an air counter), or None.

    An id is what orders name (docs/rulings.md K89): it must be written by
    `engine.notation.format_order` and read back by `parse_order` unchanged, in every
    place of an order a unit takes -- so one word of the notation (no space, NUL or other
    control character, no look-alike letter from another script, no `/` or `..`), not
    `@HEX` (the units in a hex), not a word the notation reserves where units are listed
    (`support`, `air`, `full` ...), and not empty."""
    return unit_id_problems([uid], air).get(0)


def unit_id_problems(ids: Sequence[str], air: bool = False) -> dict[int, str]:
    """`unit_id_problem` of each id, by its index in `ids` (good ids are left out). The
    ids are written and read back many to an order, so checking all the units of a
    scenario costs a few milliseconds."""
    out: dict[int, str] = {}
    for start in range(0, len(ids), _IDS_PER_ORDER):
        chunk = tuple(ids[start : start + _IDS_PER_ORDER])
        if _round_trips(chunk, air):
            continue
        for i, uid in enumerate(chunk, start):
            if len(chunk) == 1 or not _round_trips((uid,), air):
                out[i] = _id_problem(uid)
    return out


_IDS_PER_ORDER = 25  # x MAX_UNIT_ID characters stays within an order line (2,000)


def _round_trips(ids: tuple[str, ...], air: bool) -> bool:
    if not all(0 < len(uid) <= MAX_UNIT_ID and not uid.startswith("@") for uid in ids):
        return False  # `@0535` would name the units in hex 0535
    orders: tuple[Order, ...]
    if air:
        orders = (
            *(Air(mission="attack", hex="0101", counter=uid) for uid in ids),
            Attack(units=("x",), target="0101", air=ids),
        )
    else:
        orders = (
            Move(units=ids, path=("0101",), full=True),
            Attack(units=ids, target="0101", support=ids, air=("x",)),
        )
    try:
        return all(parse_order(format_order(o), 0) == o for o in orders)
    except NotationError:
        return False


def _id_problem(uid: str) -> str:
    if not uid:
        return "a unit id may not be empty"
    shown = repr(uid) if len(uid) <= 40 else repr(uid[:37]) + "..."
    if len(uid) > MAX_UNIT_ID:
        return f"{shown} is {len(uid)} characters long; a unit id has at most {MAX_UNIT_ID}"
    return (
        f"{shown} cannot be named in an order: a unit id is one word of ASCII letters, "
        "digits, '-', '_' and '.', starting with a letter, e.g. s-232, and not a word of "
        "the order notation such as support or air (K89)"
    )


@dataclass(frozen=True)
class ScenarioInfo:
    """A shipped scenario, for listings."""

    id: str
    name: str
    game: str
    turns: int
    path: Path


# --- public API ----------------------------------------------------------------------------
def load_scenario(ref: str | os.PathLike[str]) -> Setup:
    """Load a scenario from a YAML file, or a shipped scenario by its id."""
    path = _scenario_path(ref)
    data = read_data(path)
    return _build(data, str(path), path.parent)


def load_scenario_text(text: str, name: str = "<scenario>") -> Setup:
    """Load a scenario from YAML text; `name` stands for the file in error messages."""
    return _build(parse_yaml(text, name), name, None)


def load_scenario_data(data: Any, name: str = "<scenario>", base_dir: Path | None = None) -> Setup:
    """Load a scenario from already-parsed YAML (e.g. embedded in a game export).
    `base_dir` is where its maps/ and countersheets/ are looked for before the package's."""
    return _build(data, name, base_dir)


def scenario_data(ref: str | os.PathLike[str]) -> dict[str, Any]:
    """A scenario's parsed YAML (a shipped id or a file), to be changed and loaded with
    `load_scenario_data` (a league's handicap, a campaign's carried units)."""
    path = _scenario_path(ref)
    data = read_data(path)
    if not isinstance(data, dict):
        raise ScenarioError(str(path), "(top level)", "must be a mapping")
    return data


def list_scenarios() -> list[ScenarioInfo]:
    """The shipped scenarios of every rule system (`scenarios/<system>/**/*.yaml`), sorted
    by id; a league's file of the same name in its place (scenarios/overrides.py)."""
    out: list[ScenarioInfo] = []
    dirs = [s.shipped for s in systems.all_systems() if s.shipped is not None]
    for shipped in sorted(p for d in dirs for p in d.rglob("*.yaml")):
        name = relative(shipped)
        path = shipped if name is None else locate(name)
        data = read_data(path)
        if not isinstance(data, dict):
            raise ScenarioError(str(path), "(top level)", "must be a mapping")
        sid = str(data.get("id", path.stem))
        turns = data.get("turns", 0)
        out.append(
            ScenarioInfo(
                id=sid,
                name=str(data.get("name") or sid),
                game=str(data.get("game", "")),
                turns=turns if isinstance(turns, int) else 0,
                path=path,
            )
        )
    return sorted(out, key=lambda s: s.id)


# --- finding files -------------------------------------------------------------------------
def _scenario_path(ref: str | os.PathLike[str]) -> Path:
    if isinstance(ref, os.PathLike):
        return Path(ref)
    text = str(ref)
    p = Path(text)
    if p.suffix in (".yaml", ".yml") or "/" in text or os.sep in text or path_exists(p):
        return p
    shipped = list_scenarios()
    for info in shipped:
        if info.id == text:
            return info.path
    known = ", ".join(s.id for s in shipped) or "none"
    raise ScenarioError(
        text, "(file)", f"no such file, and no shipped scenario has this id (shipped: {known})"
    )


def _data_file(kind: str, ref: str, base_dir: Path | None, file: str, key: str) -> Path:
    """A map (`kind` "maps") or countersheet named by id or by a relative .yaml path."""
    what = kind[:-1]
    if ref.endswith((".yaml", ".yml")):
        p = Path(ref)
        if not p.is_absolute() and base_dir is not None:
            p = base_dir / p
        if not path_exists(p):  # anything else there: read_text says what is wrong
            raise ScenarioError(file, key, f"{what} file {p} not found")
        return p
    if not _ID.match(ref):
        raise ScenarioError(
            file, key, f"{ref!r} is not a {what} id (lowercase letters, digits, '-' and '_')"
        )
    candidates = [] if base_dir is None else [base_dir / kind / f"{ref}.yaml"]
    candidates.append(locate(f"{kind}/{ref}.yaml"))  # a league's file replaces ours
    for c in candidates:
        if c.is_file():
            return c
    looked = ", ".join(str(c) for c in candidates)
    raise ScenarioError(file, key, f"no {what} {ref!r} (looked for {looked})")


# --- provenance (issue #19) -----------------------------------------------------------------
# how players read a scenario's data parts (`provenance:` keys of a scenario)
PART_NAMES = {"map": "the map", "counters": "the counter values", "setup": "the set-up"}
# the WB-95 tables quote the rulebooks (scenarios/tables/: TERRAIN INFLUENCE, the result
# tables, 5.6.2 morale, 10.1 supply, 8.0 air)
PRINTED_TABLES = ("the result tables", "the terrain table", "the morale, supply and air tables")


def _by(provenance: str, path: Path) -> str:
    """A data file's provenance as said, with who supplied a league's file."""
    who = supplier(path)
    return f"{provenance} by {who}" if who and provenance == LEAGUE_SUPPLIED else provenance


# --- building ------------------------------------------------------------------------------
class _Ctx:
    """Where errors are reported: a file and a key prefix inside it."""

    def __init__(self, file: str, prefix: str = "") -> None:
        self.file = file
        self.prefix = prefix

    def key(self, sub: str) -> str:
        if not self.prefix:
            return sub
        return self.prefix if not sub else f"{self.prefix}.{sub}"

    def err(self, sub: str, problem: str) -> ScenarioError:
        return ScenarioError(self.file, self.key(sub), problem)


def _kind_of(value: object) -> str:
    if value is None:
        return "empty"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"


def _build(data: Any, file: str, base_dir: Path | None) -> Setup:
    """A scenario by the builder of its rule system (`system:`, scenarios/systems.py)."""
    if not isinstance(data, dict):
        raise _Ctx(file).err(
            "(top level)",
            f"a scenario must be a mapping of keys (id, system, game, ...), not {_kind_of(data)}",
        )
    return systems.of(data, file).build(data, file, base_dir)


def _build_wb95(data: dict[str, Any], file: str, base_dir: Path | None) -> Setup:
    """A WB-95 scenario (DESIGN §5)."""
    ctx = _Ctx(file)
    sc = validated(ScenarioIn, data, file)

    table = load_table(sc.game)
    morale = load_morale()
    said: dict[str, str] = {}  # where the map and counter values come from (issue #19)
    mapdata = _scenario_map(sc, table, ctx, base_dir, said)
    grid = mapdata.grid

    def on_map(h: HexId, key: str) -> HexId:
        if not grid.contains(h):
            raise ctx.err(key, _off_map(h, grid))
        return h

    # sides, initiative, start (2.2)
    if len(sc.sides) != 2:
        raise ctx.err("sides", f"a WB-95 game has exactly two sides, not {len(sc.sides)}")
    side_names = list(sc.sides)
    sides_text = ", ".join(side_names)
    sides: dict[str, SideSpec] = {}
    for sname, side in sc.sides.items():
        nation = side.nation or sname
        if nation not in morale:
            raise ctx.err(f"sides.{sname}.nation", _unknown_nation(nation, morale))
        supply: list[dict[str, str]] = []
        for j, src in enumerate(side.supply):
            skey = f"sides.{sname}.supply[{j}]"
            if src.edge is not None:
                supply.append({"edge": src.edge})
            elif src.zone is not None:
                if src.zone not in mapdata.zones:
                    raise ctx.err(f"{skey}.zone", _unknown_zone(src.zone, mapdata))
                supply.append({"zone": src.zone})
            elif src.hex is not None:
                supply.append({"hex": on_map(src.hex, f"{skey}.hex")})
            elif src.name is not None:
                supply.append({"name": _place_name(src.name, mapdata, ctx, f"{skey}.name")})
            elif src.unit is not None:
                supply.append({"unit": src.unit})  # checked with the units below
        sides[sname] = SideSpec(name=sname, nation=nation, supply=tuple(supply))
    if sc.initiative not in sides:
        raise ctx.err("initiative", f"unknown side {sc.initiative!r} (sides: {sides_text})")
    start = sc.start or StartIn()
    active = start.active or sc.initiative
    if active not in sides:
        raise ctx.err("start.active", f"unknown side {active!r} (sides: {sides_text})")
    if sc.turns < start.turn:
        raise ctx.err("turns", f"{sc.turns} is before the start turn {start.turn}")

    units, starts = _units(sc, ctx, mapdata, morale, start.turn, base_dir, said)
    _check_stacking(sc, ctx, mapdata, units, starts)
    _check_supply_units(sides, units, ctx)
    special = dict(sc.special)
    starts = _improved_fortifications(special, ctx, mapdata, units, starts, sides)
    _linked_reinforcements(special, ctx, units)

    victory: list[VictoryHex] = []
    if sc.victory is not None:
        for j, v in enumerate(sc.victory.hexes):
            vkey = f"victory.hexes[{j}]"
            on_map(v.hex, f"{vkey}.hex")
            if v.side is not None and v.side not in sides:
                raise ctx.err(f"{vkey}.side", f"unknown side {v.side!r} (sides: {sides_text})")
            victory.append(VictoryHex(hex=v.hex, vp=v.vp, side=v.side))
    victory_rules = _victory_rules(sc, ctx, mapdata, sides, victory)
    for j, g in enumerate(victory_rules.get("entered", [])):
        for uid in g["units"]:
            if uid not in units:
                raise ctx.err(f"victory.entered[{j}].units", f"no unit {uid!r} in this scenario")

    calendar_start: dt.date | None = None if sc.calendar is None else sc.calendar.start
    game_rules = load_game_rules(sc.game)
    scenario_rules = _scenario_rules(
        sc, ctx, mapdata, units, game_rules, calendar_start, start.turn, sides
    )
    return Setup(
        id=sc.id,
        name=sc.name or sc.id,
        system=sc.system,
        game=sc.game,
        initiative=sc.initiative,
        sides=sides,
        turns=sc.turns,
        start_turn=start.turn,
        start_phase=start.phase,
        start_active=active,
        map=mapdata,
        table=table,
        morale=morale,
        results=load_results(sc.system),
        supply_table=load_supply(sc.game),
        units=units,
        starts=tuple(starts),
        options=dict(sc.options),
        calendar_start=calendar_start,
        control=_control(sc.control, ctx, grid, side_names),
        victory=tuple(victory),
        victory_rules=victory_rules,
        **_barrage(sc, ctx, sides),
        air={side: _turn_keys(a) for side, a in sc.air.items()},
        air_sides=_air(sc, ctx, sides, units, calendar_start, start.turn),
        air_rules=load_air_rules(sc.game),
        special=special,
        rules=game_rules,
        scenario_rules=scenario_rules,
        provenance=_provenance(sc, said),
    )


def _provenance(sc: ScenarioIn, said: Mapping[str, str]) -> dict[str, str]:
    """Each data part with where its values come from (issue #19, engine/provenance.py):
    the map and the counter values as their files (or the scenario) say, the set-up as
    the scenario says, and the tables as printed (they quote the rulebooks)."""
    own = {PART_NAMES[k]: v for k, v in sc.provenance.items()}
    return {
        **{name: "printed" for name in PRINTED_TABLES},
        **own,
        **said,
    }


def _victory_rules(
    sc: ScenarioIn,
    ctx: _Ctx,
    m: MapData,
    sides: Mapping[str, SideSpec],
    victory: list[VictoryHex],
) -> dict[str, Any]:
    """`victory:` beyond its hexes: every hex of each named city is worth 1 VP (added to
    `victory`), and the levels, link and CEL VPs checked by engine.wb95.victory."""
    v = sc.victory
    if v is None:
        return {}
    known = ", ".join(sides)
    for j, name in enumerate(v.cities):
        place = _place_name(name, m, ctx, f"victory.cities[{j}]")
        victory.extend(VictoryHex(hex=h, vp=1) for h, n in sorted(m.names.items()) if n == place)
    places: dict[str, list[str]] = {}

    def place_hexes(name: str, key: str) -> list[str]:
        place = _place_name(name, m, ctx, key)
        return places.setdefault(place, sorted(h for h, n in m.names.items() if n == place))

    link: dict[str, Any] | None = None
    if v.link is not None:
        if v.link.side not in sides:
            raise ctx.err("victory.link.side", f"unknown side {v.link.side!r} (sides: {known})")
        for z in v.link.to_zones:
            if z not in m.zones:
                raise ctx.err("victory.link.to_zones", _unknown_zone(z, m))
        link = {
            "side": v.link.side,
            "from": place_hexes(v.link.from_place, "victory.link.from"),
            "to": sorted({h for z in v.link.to_zones for h in m.zones[z]}),
            "by": v.link.by,
        }
    levels: list[dict[str, Any]] = []
    for j, lv in enumerate(v.conditions):
        key = f"victory.conditions[{j}]"
        if lv.side not in sides:
            raise ctx.err(f"{key}.side", f"unknown side {lv.side!r} (sides: {known})")
        if lv.at_any_moment == lv.at_end:
            raise ctx.err(key, "give exactly one of at_any_moment: true or at_end: true")
        if lv.linked and link is None:
            raise ctx.err(f"{key}.linked", "the scenario's victory has no link")
        if lv.vp is None and lv.holds_all is None and not lv.linked:
            raise ctx.err(key, "give vp, holds_all and/or linked: true")
        levels.append(
            {
                "side": lv.side,
                "result": lv.result,
                "at_any_moment": lv.at_any_moment,
                "vp": lv.vp,
                "holds_all": None
                if lv.holds_all is None
                else [
                    h
                    for name in ([lv.holds_all] if isinstance(lv.holds_all, str) else lv.holds_all)
                    for h in place_hexes(name, f"{key}.holds_all")
                ],
                "place": lv.holds_all,
                "linked": lv.linked,
            }
        )
    entered: list[dict[str, Any]] = []
    for j, g in enumerate(v.entered):
        if g.side not in sides:
            raise ctx.err(f"victory.entered[{j}].side", f"unknown side {g.side!r} (sides: {known})")
        entered.append({"side": g.side, "vp": g.vp, "units": list(g.units), "label": g.label})
    rivers: list[dict[str, Any]] = []
    for j, r in enumerate(v.rivers):
        if r.side not in sides:
            raise ctx.err(f"victory.rivers[{j}].side", f"unknown side {r.side!r} (sides: {known})")
        if r.river not in m.rivers:
            names = ", ".join(sorted(m.rivers)) or "none"
            raise ctx.err(
                f"victory.rivers[{j}].river",
                f"the map names no river {r.river!r} (it has: {names})",
            )
        rivers.append({"river": r.river, "vp": r.vp, "side": r.side})
    for side in v.handicap:
        if side not in sides:
            raise ctx.err(f"victory.handicap.{side}", f"unknown side {side!r} (sides: {known})")
    return {
        "cel_vp": v.cel_vp,
        "unit_vp": v.unit_vp,
        "entered": entered,
        "rivers": rivers,
        "link": link,
        "levels": levels,
        "otherwise": v.otherwise,
        **({"handicap": dict(v.handicap)} if v.handicap else {}),
    }


def _improved_fortifications(
    special: dict[str, Any],
    ctx: _Ctx,
    m: MapData,
    units: Mapping[str, UnitSpec],
    starts: list[UnitStart],
    sides: Mapping[str, SideSpec],
) -> list[UnitStart]:
    """`special.improved_fortifications: {side, count, hexes}` (Korsuń 1944: "German
    Player can freely place 30 counters of Improved Fortifications on the map"): the
    side's placement, made before play and written into the scenario (docs/rulings.md).
    At most `count` hexes, on the map, none holding an enemy unit; the side's units that
    start there are in the IF (7.2)."""
    raw = special.get("improved_fortifications")
    if not isinstance(raw, dict):
        return starts  # absent, or a plain note (`improved_fortifications: 30`)
    key = "special.improved_fortifications"
    if raw.get("side") not in sides:
        raise ctx.err(key, f"give side ({', '.join(sides)}), count and hexes")
    side = str(raw["side"])
    count = raw.get("count", 0)
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ctx.err(f"{key}.count", f"{count!r} is not a number of markers")
    hexes: list[str] = []
    for j, h in enumerate(raw.get("hexes") or []):
        try:
            hx = normalize(str(h))
        except HexIdError as e:
            raise ctx.err(f"{key}.hexes[{j}]", str(e)) from None
        if not m.grid.contains(hx):
            raise ctx.err(f"{key}.hexes[{j}]", _off_map(hx, m.grid))
        if hx in hexes:
            raise ctx.err(f"{key}.hexes[{j}]", f"{hx} is listed twice")
        hexes.append(hx)
    if len(hexes) > count:
        raise ctx.err(f"{key}.hexes", f"{len(hexes)} markers, more than the {count} allowed")
    enemy = {st.hex for st in starts if st.hex is not None and units[st.id].side != side}
    for j, hx in enumerate(hexes):
        if hx in enemy:
            raise ctx.err(f"{key}.hexes[{j}]", f"{hx} holds an enemy unit at setup")
    special["improved_fortifications"] = {**raw, "hexes": hexes}
    chosen = set(hexes)
    return [
        replace(st, fortification="if") if st.hex in chosen and units[st.id].side == side else st
        for st in starts
    ]


def _linked_reinforcements(
    special: dict[str, Any], ctx: _Ctx, units: Mapping[str, UnitSpec]
) -> None:
    """`special.linked_reinforcements: {if_entered: [ids], then: [ids], label, note}`: the
    `then` units enter only once an `if_entered` unit has (Korsuń "24 ARM*" / "V G MOT*",
    K90). A mapping without `then` is a note only."""
    raw = special.get("linked_reinforcements")
    if not isinstance(raw, dict) or "then" not in raw:
        return
    key = "special.linked_reinforcements"
    for part in ("if_entered", "then"):
        ids = raw.get(part)
        if not isinstance(ids, list) or not ids:
            raise ctx.err(f"{key}.{part}", "give a list of unit ids")
        for j, x in enumerate(ids):
            if str(x) not in units:
                raise ctx.err(f"{key}.{part}[{j}]", f"no unit {x!r} in the scenario")


def _barrage(sc: ScenarioIn, ctx: _Ctx, sides: Mapping[str, SideSpec]) -> dict[str, Any]:
    """6.5.1, 6.5.7: `barrage: true` allows it in every turn without an AU limit; the
    mapping form names the turns and each side's Ammo Units."""
    b = sc.barrage
    if isinstance(b, bool):
        return {"barrage": b}
    for t in b.turns:
        if t > sc.turns:
            raise ctx.err("barrage.turns", f"turn {t} is after the last turn {sc.turns}")
    if b.ammo is not None:
        for side in b.ammo:
            if side not in sides:
                known = ", ".join(sides)
                raise ctx.err("barrage.ammo", f"unknown side {side!r} (sides: {known})")
    return {
        "barrage": True,
        "barrage_turns": tuple(sorted(set(b.turns))),
        "ammo": None if b.ammo is None else dict(b.ammo),
    }


def _turn_keys(side_air: object) -> object:
    """A side's `air:` entry with the turns of its `sp: {turn: SPs}` as numbers: JSON (a
    scenario the service stored) has only text keys, `"3": 5` for `3: 5`."""
    if not isinstance(side_air, dict) or not isinstance(side_air.get("sp"), dict):
        return side_air

    def turn(key: object) -> object:
        if isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 6:
            return int(key)
        return key

    return {**side_air, "sp": {turn(k): v for k, v in side_air["sp"].items()}}


def _air(
    sc: ScenarioIn,
    ctx: _Ctx,
    sides: Mapping[str, SideSpec],
    units: Mapping[str, UnitSpec],
    calendar: dt.date | None,
    start_turn: int,
) -> dict[str, AirSide]:
    """`air:` -- each side's SP pool per turn or air counters (8.1.1), the days it has air,
    the missions the scenario forbids it and whether it flies supply (docs/rulings.md
    K78). A side not listed has no air."""
    out: dict[str, AirSide] = {}
    seen: dict[str, str] = {}
    rules = load_air_rules(sc.game)  # 8.1.1 note 2: counters without printed strength
    initials = [s[:1] for s in sides]
    for side, raw in sc.air.items():
        key = f"air.{side}"
        if side not in sides:
            known = ", ".join(sides)
            raise ctx.err(key, f"unknown side {side!r} (sides: {known})")
        if raw is None:
            continue
        if isinstance(raw, int) and not isinstance(raw, bool):
            raw = {"sp": raw}  # `soviet: 4`: 4 SPs every turn
        elif isinstance(raw, list):
            raw = {"counters": raw}  # `german: [{id: g-air1, sp: 8}, ...]`
        raw = _turn_keys(raw)
        a = validated(AirSideIn, raw, ctx.file, ("air", side))

        def turn_of(value: int | dt.date, sub: str, _key: str = key) -> int:
            if isinstance(value, int):
                return value
            if calendar is None:
                raise ctx.err(f"{_key}.{sub}", "a date needs the scenario's calendar")
            t = (value - calendar).days + 1
            if not start_turn <= t <= sc.turns:
                raise ctx.err(
                    f"{_key}.{sub}",
                    f"{value} is turn {t}, outside the game ({start_turn}-{sc.turns})",
                )
            return t

        pools = [x for x in (a.sp, a.sp_per_turn) if x is not None]
        if len(pools) > 1:
            raise ctx.err(key, "give sp or sp_per_turn, not both")
        pool = pools[0] if pools else None
        if pool is not None and a.counters is not None:
            raise ctx.err(
                key,
                "give an SP pool (sp, 8.1.1 note 1) or air counters (counters), not both",
            )
        by_turn: dict[int, int] = {}
        default = a.default or 0
        if isinstance(pool, int):
            default = pool
        elif isinstance(pool, dict):
            for day, n in pool.items():
                by_turn[turn_of(day, f"sp.{day}")] = n
        counters: list[AirCounter] = []
        nation = sides[side].nation
        if isinstance(a.counters, int):
            if a.counters > MAX_AIR_COUNTERS:
                raise ctx.err(
                    f"{key}.counters", f"{a.counters} air counters: at most {MAX_AIR_COUNTERS}"
                )
            prefix = side[:1] if initials.count(side[:1]) == 1 else side
            sp = rules.default_counter_sp(nation)
            counters = [
                AirCounter(id=f"{prefix}-air{i}", side=side, sp=sp, printed=False)
                for i in range(1, a.counters + 1)
            ]
        elif a.counters is not None:
            for c in a.counters:
                sp = c.sp if c.sp is not None else rules.default_counter_sp(nation)
                counters.append(
                    AirCounter(
                        id=c.id,
                        side=side,
                        sp=sp,
                        stars=tuple(c.stars),
                        name=c.name or c.id,
                        printed=c.sp is not None,
                    )
                )
        for j, made in enumerate(counters):
            id_problem = unit_id_problem(made.id, air=True)
            if id_problem is not None:
                raise ctx.err(f"{key}.counters[{j}].id", id_problem)
            if made.id in units:
                raise ctx.err(f"{key}.counters", f"{made.id!r} is also a unit id")
            if made.id in seen:
                raise ctx.err(f"{key}.counters", f"duplicate air counter id {made.id!r}")
            seen[made.id] = side
        forbid: set[str] = set()
        for j, word in enumerate(a.forbid):
            m = AIR_MISSION_WORDS.get(word.lower())
            if m is None:
                known = ", ".join(dict.fromkeys(AIR_MISSION_WORDS.values()))
                raise ctx.err(f"{key}.forbid[{j}]", f"unknown air mission {word!r} ({known})")
            forbid.add(m)
        first = None if a.first is None else turn_of(a.first, "first")
        last = None if a.last is None else turn_of(a.last, "last")
        if first is not None and last is not None and last < first:
            raise ctx.err(f"{key}.last", f"turn {last} is before the first, {first}")
        out[side] = AirSide(
            side=side,
            sp=by_turn,
            default_sp=default,
            counters=tuple(counters),
            fly=a.fly,
            first=first,
            last=last,
            forbid=frozenset(forbid),
            supply=a.supply,
        )
    return out


# --- maps (DESIGN §3) ----------------------------------------------------------------------
def _off_map(h: HexId, grid: Grid) -> str:
    return (
        f"{h} is not on the map (columns {grid.cols[0]}-{grid.cols[1]}, "
        f"rows {grid.rows[0]}-{grid.rows[1]})"
    )


def _scenario_map(
    sc: ScenarioIn,
    table: TerrainTable,
    ctx: _Ctx,
    base_dir: Path | None,
    said: dict[str, str] | None = None,
) -> MapData:
    """The scenario's map; `said` gets the map file's provenance (issue #19)."""
    raw = sc.map
    if isinstance(raw, str):
        path = _data_file("maps", raw, base_dir, ctx.file, "map")
        data = read_data(path)
        if not isinstance(data, dict):
            raise ScenarioError(
                str(path), "(top level)", f"a map must be a mapping, not {_kind_of(data)}"
            )
        mf = validated(MapFileIn, data, str(path))
        if mf.game is not None and mf.game != sc.game:
            raise ctx.err("map", f"map {mf.id!r} is for game {mf.game}, not {sc.game}")
        if said is not None and mf.provenance is not None:
            said[PART_NAMES["map"]] = _by(mf.provenance, path)
        return build_map(mf, mf.id, table, _Ctx(str(path)))
    if isinstance(raw, dict):
        mi = validated(MapIn, raw, ctx.file, ("map",))
        return build_map(mi, sc.id, table, _Ctx(ctx.file, "map"))
    raise ctx.err(
        "map", f"must be an inline map (a mapping) or the id of a shipped map, not {_kind_of(raw)}"
    )


def _default_edges(grid: Grid) -> dict[str, tuple[HexId, ...]]:
    hexes = list(grid.all_hexes())
    (c0, c1), (r0, r1) = grid.cols, grid.rows
    return {
        "N": tuple(h for h in hexes if parse_hex(h)[1] == r0),
        "S": tuple(h for h in hexes if parse_hex(h)[1] == r1),
        "W": tuple(h for h in hexes if parse_hex(h)[0] == c0),
        "E": tuple(h for h in hexes if parse_hex(h)[0] == c1),
    }


def build_map(mi: MapIn, map_id: str, table: TerrainTable, ctx: _Ctx) -> MapData:
    """Check an inline or shipped map against its grid and the game's table."""
    for name, (lo, hi) in (("cols", mi.cols), ("rows", mi.rows)):
        if not (0 <= lo <= hi <= 99):
            raise ctx.err(name, f"[{lo}, {hi}] is not a range of numbers 0-99, first <= last")
    holes = frozenset(normalize(h) for h in mi.holes)
    grid = Grid(layout=mi.layout, cols=mi.cols, rows=mi.rows, holes=holes)
    game = table.game

    def on_map(h: HexId, key: str) -> HexId:
        if not grid.contains(h):
            raise ctx.err(key, _off_map(h, grid))
        return h

    def terrain_name(name: str, key: str) -> str:
        if name not in table.terrain:
            raise ctx.err(
                key,
                f"unknown terrain {name!r}: the {game} TERRAIN INFLUENCE table has no such "
                f"row (it has: {', '.join(table.terrain)})",
            )
        return name

    def pair(a: HexId, b: HexId, key: str) -> Hexside:
        on_map(a, f"{key}[0]")
        on_map(b, f"{key}[1]")
        if not grid.adjacent(a, b):
            raise ctx.err(key, f"{a} and {b} are not adjacent, so they share no hexside")
        return hexside(a, b)

    terrain_name(mi.default, "default")
    terrain = {
        on_map(h, f"terrain.{h}"): terrain_name(t, f"terrain.{h}") for h, t in mi.terrain.items()
    }
    names = {on_map(h, f"names.{h}"): n for h, n in mi.names.items()}

    features: dict[Hexside, set[str]] = {}
    allowed = [*table.hexsides, *sorted(TABLELESS_FEATURES)]
    for i, hs in enumerate(mi.hexsides):
        side = pair(hs.hexes[0], hs.hexes[1], f"hexsides[{i}].hexes")
        if hs.feature not in table.hexsides and hs.feature not in TABLELESS_FEATURES:
            raise ctx.err(
                f"hexsides[{i}].feature",
                f"unknown hexside feature {hs.feature!r} for game {game} "
                f"(known: {', '.join(allowed)})",
            )
        features.setdefault(side, set()).add(hs.feature)

    bridges: set[Hexside] = set()
    for i, (a, b) in enumerate(mi.bridges):
        side = pair(a, b, f"bridges[{i}]")
        if not features.get(side, set()) & set(table.hexsides):
            raise ctx.err(
                f"bridges[{i}]",
                f"there is no {' / '.join(table.hexsides)} between {a} and {b} to bridge",
            )
        bridges.add(side)

    roads: dict[Hexside, set[str]] = {}
    for i, road in enumerate(mi.roads):
        if road.kind not in table.roads:
            raise ctx.err(
                f"roads[{i}].kind",
                f"unknown road kind {road.kind!r} for game {game} "
                f"(known: {', '.join(table.roads)})",
            )
        prev: HexId | None = None
        for j, h in enumerate(road.hexes):
            on_map(h, f"roads[{i}].hexes[{j}]")
            if prev is not None:
                if not grid.adjacent(prev, h):
                    raise ctx.err(
                        f"roads[{i}].hexes[{j}]",
                        f"{h} is not adjacent to {prev}, the hex before it on this road",
                    )
                roads.setdefault(hexside(prev, h), set()).add(road.kind)
            prev = h

    edges = _default_edges(grid)
    for letter, hexes in mi.edges.items():
        edges[letter] = tuple(on_map(h, f"edges.{letter}[{j}]") for j, h in enumerate(hexes))
    zones = {
        z: tuple(on_map(h, f"zones.{z}[{j}]") for j, h in enumerate(hexes))
        for z, hexes in mi.zones.items()
    }
    # 11.2.4: a road whose first or last hex lies on a map edge leaves the map there.
    border = {h for hexes in edges.values() for h in hexes}
    road_exits: dict[HexId, set[str]] = {}
    for road in mi.roads:
        for end in {road.hexes[0], road.hexes[-1]} & border:
            road_exits.setdefault(end, set()).add(road.kind)
    return MapData(
        id=map_id,
        grid=grid,
        default=mi.default,
        terrain=terrain,
        names=names,
        hexsides={k: frozenset(v) for k, v in features.items()},
        bridges=frozenset(bridges),
        roads={k: frozenset(v) for k, v in roads.items()},
        edges=edges,
        zones=zones,
        road_exits={h: frozenset(k) for h, k in road_exits.items()},
        rivers={
            n: frozenset(pair(a, b, f"rivers.{n}[{j}]") for j, (a, b) in enumerate(sides))
            for n, sides in mi.rivers.items()
        },
    )


def _place_name(name: str, m: MapData, ctx: _Ctx, key: str) -> str:
    """A supply source by place name (10.1.4, K40): a name of the map, matched ignoring
    case; the map's own spelling is kept."""
    names = sorted(set(m.names.values()))
    for n in names:
        if n.casefold() == name.casefold():
            return n
    known = ", ".join(names) or "none"
    raise ctx.err(key, f"no hex of map {m.id} is named {name!r} (names: {known})")


def _check_supply_units(
    sides: Mapping[str, SideSpec], units: Mapping[str, UnitSpec], ctx: _Ctx
) -> None:
    """A unit named as a supply source (10.1.4, K40) must be one of that side's units."""
    for sname, side in sides.items():
        for j, src in enumerate(side.supply):
            uid = src.get("unit")
            if uid is None:
                continue
            key = f"sides.{sname}.supply[{j}].unit"
            if uid not in units:
                raise ctx.err(key, f"no unit {uid!r} in this scenario")
            if units[uid].side != sname:
                raise ctx.err(key, f"{uid!r} is a {units[uid].side} unit, not {sname}")


def _unknown_zone(zone: str, m: MapData) -> str:
    known = ", ".join(m.zones) or "none"
    return f"unknown entry zone {zone!r} (zones of map {m.id}: {known})"


# --- units ---------------------------------------------------------------------------------
def _unknown_nation(nation: str, morale: Mapping[str, int]) -> str:
    return f"unknown nation {nation!r} (5.6.2 morale table: {', '.join(morale)})"


def _countersheet(
    ref: str, game: str, ctx: _Ctx, base_dir: Path | None, said: dict[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """The countersheet's units by id; `said` gets its provenance (issue #19)."""
    path = _data_file("countersheets", ref, base_dir, ctx.file, "countersheet")
    data = read_data(path)
    if not isinstance(data, dict):
        raise ScenarioError(
            str(path), "(top level)", f"a countersheet must be a mapping, not {_kind_of(data)}"
        )
    cs = validated(CountersheetIn, data, str(path))
    if cs.game is not None and cs.game != game:
        raise ctx.err("countersheet", f"{ref!r} is a {cs.game} countersheet, not {game}")
    if said is not None and cs.provenance is not None:
        said[PART_NAMES["counters"]] = _by(cs.provenance, path)
    entries: dict[str, dict[str, Any]] = {}
    for i, problem in unit_id_problems([c.id for c in cs.units]).items():
        raise ScenarioError(str(path), f"units[{i}].id", problem)
    for i, (raw, counter) in enumerate(zip(data["units"], cs.units, strict=True)):
        if counter.id in entries:
            raise ScenarioError(str(path), f"units[{i}].id", f"duplicate id {counter.id!r}")
        entries[counter.id] = {k: v for k, v in raw.items() if k != "note"}
    return entries


def _units(
    sc: ScenarioIn,
    ctx: _Ctx,
    m: MapData,
    morale: Mapping[str, int],
    start_turn: int,
    base_dir: Path | None,
    said: dict[str, str] | None = None,
) -> tuple[dict[str, UnitSpec], list[UnitStart]]:
    sheet = (
        None
        if sc.countersheet is None
        else _countersheet(sc.countersheet, sc.game, ctx, base_dir, said)
    )
    sides_text = ", ".join(sc.sides)
    specs: dict[str, UnitSpec] = {}
    where: dict[str, int] = {}
    starts: list[UnitStart] = []
    ids: list[str] = []
    for i, raw in enumerate(sc.units):
        key = f"units[{i}]"
        if not isinstance(raw, dict):
            raise ctx.err(
                key, f"a unit must be a mapping (id: ..., side: ...), not {_kind_of(raw)}"
            )
        merged: dict[str, Any] = raw
        rid = raw.get("id")
        rid_text = str(rid) if isinstance(rid, str | int) and not isinstance(rid, bool) else None
        if sheet is not None and rid_text is not None:
            if rid_text in sheet:
                merged = {**sheet[rid_text], **raw}
            elif "side" not in raw or "type" not in raw:
                raise ctx.err(
                    f"{key}.id",
                    f"{rid_text!r} is not on countersheet {sc.countersheet!r}, and the unit "
                    "is not given inline (side, type, ...)",
                )
        u = validated(UnitIn, merged, ctx.file, ("units", i))

        def bad(sub: str, problem: str, _key: str = key) -> ScenarioError:
            return ctx.err(f"{_key}.{sub}" if sub else _key, problem)

        ids.append(u.id)
        if u.id in where:
            raise bad("id", f"duplicate unit id {u.id!r} (also units[{where[u.id]}])")
        where[u.id] = i
        if u.side not in sc.sides:
            raise bad("side", f"unknown side {u.side!r} (sides: {sides_text})")
        side_nation = sc.sides[u.side].nation or u.side
        nation = u.nation or side_nation
        if nation not in morale:
            raise bad("nation", _unknown_nation(nation, morale))
        is_hq = u.type == "hq"
        is_art = u.type in ARTILLERY_TYPES

        # SPs and MPs (1.2): required on every counter but an HQ's.
        art: tuple[int, int] | None = None
        sp = 0
        if u.sp is None:
            if not is_hq:
                raise bad("sp", "missing (required for every unit but an HQ)")
        elif isinstance(u.sp, tuple):
            if not is_art:
                raise bad("sp", "[attack, defence] SPs are only for artillery (art, sp-art)")
            art = u.sp
            sp = u.sp[0]
        else:
            sp = u.sp
        if u.mp is None and not is_hq:
            raise bad("mp", "missing (required for every unit but an HQ)")
        mp = u.mp if u.mp is not None else Fraction(0)

        # CELs (1.2): non-mechanized artillery and HQs have 1, other units usually 2.
        default_cel = 1 if u.type in ("art", "hq") else 2
        max_cel = u.max_cel if u.max_cel is not None else (u.cel or default_cel)
        cel = u.cel if u.cel is not None else max_cel
        if cel > max_cel:
            raise bad("cel", f"{cel} is more than max_cel {max_cel}")

        # Start: on the map, or arriving later (11.0) -- exactly one.
        if u.hex is not None and u.arrives is not None:
            raise bad("", "has both hex and arrives; give hex (on the map) or arrives (11.0)")
        if u.hex is None and u.arrives is None:
            raise bad("", "needs hex (on the map at the start) or arrives (a reinforcement, 11.0)")
        arrives: dict[str, Any] | None = None
        if u.hex is not None and not m.grid.contains(u.hex):
            raise bad("hex", _off_map(u.hex, m.grid))
        if u.arrives is not None:
            a = u.arrives
            if not start_turn <= a.turn <= sc.turns:
                raise bad(
                    "arrives.turn",
                    f"turn {a.turn} is outside the game (turns {start_turn}-{sc.turns})",
                )
            if a.hex is not None:
                if not m.grid.contains(a.hex):
                    raise bad("arrives.hex", _off_map(a.hex, m.grid))
                arrives = {"turn": a.turn, "hex": a.hex}
            else:
                assert a.zone is not None
                if a.zone not in m.zones and a.zone not in m.edges:
                    known = ", ".join([*m.zones, *m.edges])
                    raise bad(
                        "arrives.zone",
                        f"unknown entry zone {a.zone!r} (zones and edges of map {m.id}: {known})",
                    )
                arrives = {"turn": a.turn, "zone": a.zone}

        # 6.2: only towed artillery has a transport setup. `setup: combat` on any other unit
        # is accepted and means nothing (DESIGN §5's example gives it to infantry).
        if u.setup == "transport" and u.type != "art":
            raise bad("setup", "only towed artillery (type art) can be in transport setup (6.2)")
        setup = (u.setup or "combat") if u.type == "art" else None
        fortification = u.fortification
        if u.ff:
            if fortification not in (None, "ff"):
                raise bad("ff", f"contradicts fortification: {fortification}")
            fortification = "ff"
        if fortification is not None and u.hex is None:
            raise bad("ff", "only a unit on the map at the start can be in a fortification")

        specs[u.id] = UnitSpec(
            id=u.id,
            name=u.name or u.id,
            side=u.side,
            nation=nation,
            type=u.type,
            move=u.move or DEFAULT_MOVE[u.type],
            size=u.size,
            formation=u.formation,
            sp=sp,
            art=art,
            mp=mp,
            max_cel=max_cel,
            stars=tuple(u.stars),
            equipment=u.equipment,
        )
        starts.append(
            UnitStart(
                id=u.id,
                hex=u.hex,
                cel=cel,
                oos=u.oos,
                disorganized=u.disorganized,
                fortification=fortification,
                setup=setup,
                arrives=arrives,
            )
        )
    for i, problem in unit_id_problems(ids).items():  # K89: every unit can be ordered
        raise ctx.err(f"units[{i}].id", problem)
    return specs, starts


def _check_stacking(
    sc: ScenarioIn,
    ctx: _Ctx,
    m: MapData,
    units: Mapping[str, UnitSpec],
    starts: Sequence[UnitStart],
) -> None:
    """3.2.1: at most 8 CELs in a hex (an HQ counts 1, 3.2.2); no hex holds both sides."""
    cels: dict[HexId, int] = {}
    owner: dict[HexId, str] = {}
    for i, st in enumerate(starts):
        if st.hex is None:
            continue
        spec = units[st.id]
        key = f"units[{i}].hex"
        first = owner.setdefault(st.hex, st.id)
        if units[first].side != spec.side:
            raise ctx.err(
                key,
                f"{m.label(st.hex)} holds units of both sides ({first} of {units[first].side}, "
                f"{st.id} of {spec.side})",
            )
        cels[st.hex] = cels.get(st.hex, 0) + (1 if spec.is_hq else st.cel)
        if cels[st.hex] > STACK_LIMIT:
            raise ctx.err(
                key,
                f"{m.label(st.hex)} holds {cels[st.hex]} CELs at setup; no more than "
                f"{STACK_LIMIT} may stack in a hex (3.2.1; an HQ counts 1, 3.2.2)",
            )


# --- control (4.3.1) -----------------------------------------------------------------------
def _control(raw: Any, ctx: _Ctx, grid: Grid, side_names: Sequence[str]) -> dict[HexId, str] | None:
    """`control:` either hex -> side, or side -> [hexes]."""
    if raw is None:
        return None
    sides_text = ", ".join(side_names)
    if not isinstance(raw, dict):
        raise ctx.err("control", "must be a mapping: hex -> side, or side -> [hexes]")

    def hex_at(value: object, key: str) -> HexId:
        try:
            h = to_hex(value)
        except ValueError as e:
            raise ctx.err(key, str(e)) from None
        if not grid.contains(h):
            raise ctx.err(key, _off_map(h, grid))
        return h

    out: dict[HexId, str] = {}
    for k, v in raw.items():
        if isinstance(k, str) and k in side_names:
            if not isinstance(v, list):
                raise ctx.err(f"control.{k}", "must be a list of the hexes this side controls")
            for j, value in enumerate(v):
                h = hex_at(value, f"control.{k}[{j}]")
                if out.get(h, k) != k:
                    raise ctx.err(f"control.{k}[{j}]", f"{h} is also given to {out[h]}")
                out[h] = k
        else:
            try:
                h = to_hex(k)
            except ValueError:
                raise ctx.err(
                    f"control.{k}", f"{k!r} is neither a side ({sides_text}) nor a hex number"
                ) from None
            hex_at(h, f"control.{k}")
            if not isinstance(v, str) or v not in side_names:
                raise ctx.err(f"control.{k}", f"unknown side {v!r} (sides: {sides_text})")
            if out.get(h, v) != v:
                raise ctx.err(f"control.{k}", f"{h} is also given to {out[h]}")
            out[h] = v
    return out


# --- special rules (`special:`) ------------------------------------------------------------
def _scenario_rules(
    sc: ScenarioIn,
    ctx: _Ctx,
    m: MapData,
    units: Mapping[str, UnitSpec],
    game: GameRules,
    calendar: dt.date | None,
    start_turn: int,
    sides: Mapping[str, SideSpec],
) -> ScenarioRules:
    """The keys of `special:` the engine enforces (engine.wb95.scenario_rules, the Kursk
    fronts of 17.1.1 / 18.1.2); other keys are notes."""
    sp = validated(SpecialIn, sc.special, ctx.file, ("special",))

    def turn_of(d: dt.date, key: str) -> int:
        if calendar is None:
            raise ctx.err(key, "a date needs the scenario's calendar (calendar: {start: ...})")
        t = (d - calendar).days + 1
        if not start_turn <= t <= sc.turns:
            raise ctx.err(key, f"{d} is turn {t}, outside the game (turns {start_turn}-{sc.turns})")
        return t

    def group(g: GroupIn, key: str) -> UnitGroup:
        for j, uid in enumerate(g.units):
            if uid not in units:
                raise ctx.err(f"{key}.units[{j}]", f"no unit {uid!r} in this scenario")
        return UnitGroup(units=frozenset(g.units), formations=frozenset(g.formations))

    def area(a: AreaIn | None) -> Area:
        return Area() if a is None else Area(cols=a.cols, rows=a.rows)

    fronts: list[Front] = []
    for name, box in sp.fronts.items():
        if name not in game.fronts:
            known = ", ".join(game.fronts) or "none"
            raise ctx.err(
                f"special.fronts.{name}", f"game {sc.game} has no front {name!r} ({known})"
            )
        fronts.append(Front(name=name, area=area(box)))
    activation: list[Activation] = []
    for j, act in enumerate(sp.activation):
        key = f"special.activation[{j}]"
        first = act.from_turn
        if act.from_date is not None:
            first = turn_of(act.from_date, f"{key}.from")
        activation.append(Activation(group(act, key), first or start_turn, act.label))
    half = [
        HalfMP(
            group=group(h, f"special.half_mp[{j}]"),
            turns=frozenset(
                [*h.turns, *(turn_of(d, f"special.half_mp[{j}].dates") for d in h.dates)]
            ),
            arrival=h.arrival,
            label=h.label,
        )
        for j, h in enumerate(sp.half_mp)
    ]
    crossing: list[NoCrossing] = []
    for j, nc in enumerate(sp.no_crossing):
        key = f"special.no_crossing[{j}]"
        sides_: set[Hexside] = set()
        for i, (a, b) in enumerate(nc.hexsides):
            for h in (a, b):
                if not m.grid.contains(h):
                    raise ctx.err(f"{key}.hexsides[{i}]", _off_map(h, m.grid))
            if not m.grid.adjacent(a, b):
                raise ctx.err(f"{key}.hexsides[{i}]", f"{a} and {b} are not adjacent")
            sides_.add(hexside(a, b))
        if nc.feature is not None:
            within = area(nc.area)
            found = {
                hs
                for hs, fs in m.hexsides.items()
                if nc.feature in fs and within.contains(hs[0]) and within.contains(hs[1])
            }
            if not found:
                raise ctx.err(f"{key}.feature", f"no {nc.feature} hexside of the map in that area")
            sides_ |= found
        crossing.append(NoCrossing(group(nc, key), frozenset(sides_), nc.label))
    withdrawals: list[Withdrawal] = []
    for j, w in enumerate(sp.withdraw):
        key = f"special.withdraw[{j}]"
        if w.side not in sides:
            raise ctx.err(f"{key}.side", f"unknown side {w.side!r} (sides: {', '.join(sides)})")
        for i, uid in enumerate(w.units):
            if uid not in units:
                raise ctx.err(f"{key}.units[{i}]", f"no unit {uid!r} in this scenario")
            if units[uid].side != w.side:
                raise ctx.err(f"{key}.units[{i}]", f"{uid!r} is not a {w.side} unit")
        t = w.turn if w.date is None else turn_of(w.date, f"{key}.date")
        if t is None or not start_turn <= t <= sc.turns:
            raise ctx.err(f"{key}.turn", f"turn {t} is outside the game")
        withdrawals.append(Withdrawal(w.side, t, tuple(w.units), w.equivalent, w.count, w.label))
    broken: set[Hexside] = set()
    for i, (a, b) in enumerate(sp.destroyed_bridges):
        hs = hexside(a, b)
        if hs not in m.bridges:
            raise ctx.err(
                f"special.destroyed_bridges[{i}]", f"there is no bridge between {a} and {b}"
            )
        broken.add(hs)
    return ScenarioRules(
        fronts=tuple(fronts),
        activation=tuple(activation),
        half_mp=tuple(half),
        no_crossing=tuple(crossing),
        withdrawals=tuple(withdrawals),
        destroyed_bridges=frozenset(broken),
    )


# a league may replace the countersheets and the maps (not the rulebooks' tables)
OVERRIDABLE = (
    "countersheets/*.yaml",
    *sorted(
        f"maps/{p.name}"
        for p in (PACKAGE_DIR / "maps").glob("*.yaml")
        if not p.name.endswith(".override.yaml")
    ),
)
SCENARIO_SYSTEM = systems.ScenarioSystem("wb95", _build_wb95, SHIPPED_DIR, overridable=OVERRIDABLE)

"""The AGS tables as data (`scenarios/tables/ags-*.yaml`): the CRT (AGS 9.5), the TEC
(AGS 10.4 with the Korsun overrides), the turn track with weather and the active-HQ
schedule (AGS-K 20.0, 23.11, 28.0), the victory points (AGS-K 27.0) and the German
organization ladders (AGS 16.0). Each file states its provenance (issue #19)."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from engine.ags.crt import Cell, Crt, parse_cell
from engine.ags.provenance import Provenance
from engine.ags.tec import HexsideRow, RoadRow, Tec, TerrainRow
from engine.ags.turns import Turn, TurnTrack, Weather, WeatherEffect
from engine.ags.victory import VictoryTable
from scenarios.errors import ScenarioError, validated
from scenarios.overrides import label, locate, read_data, stamp
from scenarios.schema import to_mp

TABLES_DIR = Path(__file__).resolve().parents[1] / "tables"
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
CRT_FILE = "ags-results.yaml"
TEC_FILE = "ags-tec.yaml"
TURNS_FILE = "ags-turns.yaml"
VICTORY_FILE = "ags-victory.yaml"
ORGANIZATION_FILE = "ags-organization.yaml"

MP = Annotated[Fraction, BeforeValidator(to_mp)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DataFile(_Strict):
    """What every AGS data file says about itself."""

    provenance: Provenance
    source: str = ""
    supplied_by: str = ""  # a league's file: who supplied it (scenarios/overrides.py)
    notes: list[str] = Field(default_factory=list)


def table_file(ref: str, file: str, key: str) -> Path:
    """The file of a table the scenario names by id (`tables: {crt: ags-results}`): a
    league's in its data directory, else the shipped one (scenarios/overrides.py)."""
    if not isinstance(ref, str) or not _ID.match(ref):
        raise ScenarioError(file, key, f"{ref!r} is not a table id (lowercase letters, digits, -)")
    return locate(f"tables/{ref}.yaml")


# --- CRT ---------------------------------------------------------------------------------
class CrtIn(DataFile):
    die: Literal["1d6"]
    columns: list[str] = Field(min_length=1)
    rows: dict[int, list[str]]


def crt_from(data: Any, file: str) -> Crt:
    c = validated(CrtIn, data, file)
    _check_columns(c.columns, file)
    if sorted(c.rows) != [1, 2, 3, 4, 5, 6]:
        raise ScenarioError(file, "rows", "needs one row for each die face 1-6 (AGS 9.4)")
    rows: dict[int, tuple[Cell, ...]] = {}
    for die, cells in c.rows.items():
        if len(cells) != len(c.columns):
            raise ScenarioError(
                file, f"rows.{die}", f"has {len(cells)} cells for {len(c.columns)} columns"
            )
        try:
            rows[die] = tuple(parse_cell(x) for x in cells)
        except ValueError as e:
            raise ScenarioError(file, f"rows.{die}", str(e)) from None
    return Crt(columns=tuple(c.columns), rows=rows, provenance=c.provenance, source=c.source)


def _check_columns(columns: list[str], file: str) -> None:
    """Odds columns the rules can read (AGS 9.4): ratios, weakest first, none skipped, so
    that every ratio between the end columns has its column (odds_column)."""
    ranks = []
    for i, text in enumerate(columns):
        parts = str(text).split("-")
        if (
            len(parts) != 2
            or not all(p.isdigit() and int(p) >= 1 for p in parts)
            or ("1" not in parts)
        ):
            raise ScenarioError(file, f"columns[{i}]", f"{text!r} is not odds (e.g. 1-2, 3-1)")
        a, d = int(parts[0]), int(parts[1])
        ranks.append(a - 1 if d == 1 else -(d - 1))
    for i, (lo, hi) in enumerate(itertools.pairwise(ranks)):
        if hi != lo + 1:
            raise ScenarioError(
                file,
                f"columns[{i + 1}]",
                f"{columns[i + 1]} does not follow {columns[i]}: the odds run weakest first, "
                "none left out (AGS 9.4)",
            )


def load_crt(path: Path | None = None) -> Crt:
    p = path or locate(f"tables/{CRT_FILE}")
    return _crt(p, stamp(p))


@cache
def _crt(p: Path, _stamp: object) -> Crt:
    return crt_from(read_data(p), label(p))


# --- TEC ---------------------------------------------------------------------------------
class TerrainIn(_Strict):
    mech: MP | None
    inf: MP | None
    defence: int | None = Field(ge=1, le=3)
    blocks: bool = False
    supply: Literal["into-not-through"] | None = None
    note: str = ""


class HexsideIn(_Strict):
    cost: MP
    defence: int = Field(ge=1, le=3)
    blocks_zoc: bool = False
    printed_cost: dict[str, int] = Field(default_factory=dict)
    supply: dict[Literal["german", "soviet"], Literal["crosses", "road-only", "blocked"]] = Field(
        default_factory=dict
    )
    note: str = ""


class RoadIn(_Strict):
    mech: MP | None
    hq: MP | None
    inf: MP | None
    note: str = ""


class TecIn(DataFile):
    terrain: dict[str, TerrainIn]
    hexsides: dict[str, HexsideIn]
    roads: dict[str, RoadIn]


def tec_from(data: Any, file: str) -> Tec:
    t = validated(TecIn, data, file)
    if "clear" not in t.terrain:
        raise ScenarioError(file, "terrain", "needs a clear row (AGS 5.13)")
    if "road" not in t.roads:
        raise ScenarioError(file, "roads", "needs a road row (AGS 10.4, 10.2)")
    return Tec(
        terrain={
            k: TerrainRow(
                name=k,
                mech=r.mech,
                inf=r.inf,
                defence=r.defence,
                blocks=r.blocks,
                supply_into_only=r.supply == "into-not-through",
            )
            for k, r in t.terrain.items()
        },
        hexsides={
            k: HexsideRow(
                name=k,
                cost=r.cost,
                defence=r.defence,
                blocks_zoc=r.blocks_zoc,
                soviet_supply_road_only=r.supply.get("soviet") == "road-only",
                german_supply_blocked=r.supply.get("german") == "blocked",
            )
            for k, r in t.hexsides.items()
        },
        roads={k: RoadRow(name=k, mech=r.mech, hq=r.hq, inf=r.inf) for k, r in t.roads.items()},
        provenance=t.provenance,
        notes=tuple(t.notes),
    )


def load_tec(path: Path | None = None) -> Tec:
    p = path or locate(f"tables/{TEC_FILE}")
    return _tec(p, stamp(p))


@cache
def _tec(p: Path, _stamp: object) -> Tec:
    return tec_from(read_data(p), label(p))


# --- turn track --------------------------------------------------------------------------
class TurnIn(_Strict):
    date: dt.date
    weather: Weather
    active_hqs: int = Field(ge=0, le=8)
    reinforcements: list[Literal["soviet", "german"]] = Field(default_factory=list)


class WeatherIn(_Strict):
    air_points: int = Field(ge=0)
    mech_allowance: int | None = Field(default=None, ge=1)
    note: str = ""


class VariableWeatherIn(_Strict):
    from_turn: int = Field(ge=1)
    die: dict[int, Weather]


class TurnsIn(DataFile):
    turns: dict[int, TurnIn]
    weather: dict[Weather, WeatherIn]
    variable_weather: VariableWeatherIn


def turns_from(data: Any, file: str) -> TurnTrack:
    t = validated(TurnsIn, data, file)
    numbers = sorted(t.turns)
    if numbers != list(range(1, len(numbers) + 1)):
        raise ScenarioError(file, "turns", "must be numbered 1, 2, 3 ... without gaps")
    for n in numbers[1:]:
        if t.turns[n].date <= t.turns[n - 1].date:
            raise ScenarioError(file, f"turns.{n}.date", "must come after the turn before")
    if sorted(t.variable_weather.die) != [1, 2, 3, 4, 5, 6]:
        raise ScenarioError(file, "variable_weather.die", "needs each face 1-6 (AGS-K 28.0)")
    missing = {"snow", "mud"} - set(t.weather)
    if missing:
        raise ScenarioError(file, "weather", f"missing {', '.join(sorted(missing))}")
    return TurnTrack(
        turns={
            n: Turn(n, r.date, r.weather, r.active_hqs, tuple(r.reinforcements))
            for n, r in t.turns.items()
        },
        effects={w: WeatherEffect(r.air_points, r.mech_allowance) for w, r in t.weather.items()},
        variable_from=t.variable_weather.from_turn,
        variable_die=dict(t.variable_weather.die),
        provenance=t.provenance,
    )


def load_turns(path: Path | None = None) -> TurnTrack:
    p = path or locate(f"tables/{TURNS_FILE}")
    return _turns(p, stamp(p))


@cache
def _turns(p: Path, _stamp: object) -> TurnTrack:
    return turns_from(read_data(p), label(p))


# --- victory -----------------------------------------------------------------------------
GermanVp = dict[Literal["infantry-regiment", "other"], int]


class SovietAwardsIn(_Strict):
    destroyed: GermanVp
    destroyed_isolated: GermanVp
    heavy_equipment_under_at_end: GermanVp
    isolated_at_end: GermanVp


class GermanAwardsIn(_Strict):
    destroyed: dict[Literal["brigade", "division", "corps-step", "corps", "hq"], int]


class LevelIn(_Strict):
    at_least: int | None
    level: str


class VictoryIn(DataFile):
    soviet: SovietAwardsIn
    german: GermanAwardsIn
    levels: list[LevelIn] = Field(min_length=1)


def victory_from(data: Any, file: str) -> VictoryTable:
    v = validated(VictoryIn, data, file)
    bounds = [lv.at_least for lv in v.levels]
    if bounds[-1] is not None or None in bounds[:-1]:
        raise ScenarioError(file, "levels", "only the last level is open-ended (at_least: null)")
    closed = [b for b in bounds if b is not None]
    if any(a <= b for a, b in itertools.pairwise(closed)):
        raise ScenarioError(file, "levels", "must run from the highest difference down")
    for name, d in (
        ("soviet.destroyed", v.soviet.destroyed),
        ("soviet.destroyed_isolated", v.soviet.destroyed_isolated),
        ("soviet.heavy_equipment_under_at_end", v.soviet.heavy_equipment_under_at_end),
        ("soviet.isolated_at_end", v.soviet.isolated_at_end),
    ):
        if set(d) != {"infantry-regiment", "other"}:
            raise ScenarioError(file, name, "needs infantry-regiment and other")
    if len(v.german.destroyed) != 5:
        raise ScenarioError(
            file, "german.destroyed", "needs brigade, division, corps-step, corps, hq"
        )
    return VictoryTable(
        destroyed={str(k): n for k, n in v.soviet.destroyed.items()},
        destroyed_isolated={str(k): n for k, n in v.soviet.destroyed_isolated.items()},
        heavy_equipment_under={str(k): n for k, n in v.soviet.heavy_equipment_under_at_end.items()},
        isolated_at_end={str(k): n for k, n in v.soviet.isolated_at_end.items()},
        soviet_destroyed={str(k): n for k, n in v.german.destroyed.items()},
        levels=tuple((lv.at_least, lv.level) for lv in v.levels),
        provenance=v.provenance,
    )


def load_victory(path: Path | None = None) -> VictoryTable:
    p = path or locate(f"tables/{VICTORY_FILE}")
    return _victory(p, stamp(p))


@cache
def _victory(p: Path, _stamp: object) -> VictoryTable:
    return victory_from(read_data(p), label(p))


# --- 16.0 organization -------------------------------------------------------------------
class OrganizationIn(DataFile):
    ladders: dict[str, list[str]]


def parse_level(text: str, file: str, key: str) -> tuple[int, int]:
    """`"4-5"` -> (4, 5): attack and defence of a 16.0 level."""
    parts = str(text).split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ScenarioError(file, key, f"{text!r} is not attack-defence (e.g. 4-5)")
    return int(parts[0]), int(parts[1])


Ladders = dict[str, tuple[tuple[int, int], ...]]


def load_organization(path: Path | None = None) -> Ladders:
    """16.0 ladders: unit type -> its levels (attack, defence), strongest first."""
    return organization(path)[0]


def organization(path: Path | None = None) -> tuple[Ladders, Provenance]:
    """The 16.0 ladders and the file's provenance (the steps they give German units)."""
    p = path or locate(f"tables/{ORGANIZATION_FILE}")
    return _organization(p, stamp(p))


@cache
def _organization(p: Path, _stamp: object) -> tuple[Ladders, Provenance]:
    file = label(p)
    o = validated(OrganizationIn, read_data(p), file)
    ladders = {
        name: tuple(parse_level(x, file, f"ladders.{name}[{i}]") for i, x in enumerate(lv))
        for name, lv in o.ladders.items()
    }
    return ladders, o.provenance

"""The game tables kept as data: TERRAIN INFLUENCE per game (3.1.11, 5.5.1, R10, R11, R15,
R24), the morale limits of 5.6.2 and the supply data of 10.1.

Files live in `scenarios/tables/`, found from this package's directory, never the CWD.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from engine import systems
from engine.model import (
    AirRules,
    BreakdownRule,
    Cost,
    DisorganizeRule,
    FortifiedLineRule,
    GameRules,
    HexsideRow,
    MinesRule,
    RepairRule,
    RoadRow,
    SupplyTable,
    TerrainRow,
    TerrainTable,
)
from scenarios.errors import ScenarioError, validated
from scenarios.schema import AirTableIn, GameRulesIn, MoraleIn, SupplyTableIn, TableIn
from scenarios.yamlio import read_yaml_file

PACKAGE_DIR = Path(__file__).parent
TABLES_DIR = PACKAGE_DIR / "tables"
MORALE_FILE = TABLES_DIR / "morale.yaml"
_TERRAIN_SUFFIX = "-terrain.yaml"
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def known_games() -> list[str]:
    """Games that have a terrain table."""
    return sorted(p.name[: -len(_TERRAIN_SUFFIX)] for p in TABLES_DIR.glob(f"*{_TERRAIN_SUFFIX}"))


def table_path(game: str) -> Path:
    return TABLES_DIR / f"{game}{_TERRAIN_SUFFIX}"


def load_table(game: str) -> TerrainTable:
    """The TERRAIN INFLUENCE table of a game (`korsun`, `kursk`)."""
    if not isinstance(game, str) or not _ID.match(game) or not table_path(game).is_file():
        raise ScenarioError(
            str(TABLES_DIR),
            "game",
            f"no terrain table for game {game!r} (known: {', '.join(known_games())})",
        )
    return _load_table(game)


def _costs(
    trucked: Cost, mechanized: Cost, foot: Cost, hq: Cost | None = None, with_hq: bool = False
) -> dict[str, Fraction | None]:
    out: dict[str, Fraction | None] = {"trucked": trucked, "mechanized": mechanized, "foot": foot}
    if with_hq:
        out["hq"] = hq
    return out


@cache
def _load_table(game: str) -> TerrainTable:
    path = table_path(game)
    data = read_yaml_file(path)
    t = validated(TableIn, data, str(path))
    if t.game != game:
        raise ScenarioError(str(path), "game", f"is {t.game!r}, but the file is for {game!r}")
    terrain: dict[str, TerrainRow] = {}
    for name, row in t.terrain.items():
        if row.base is not None:
            base = t.terrain.get(row.base)
            if base is None:
                raise ScenarioError(
                    str(path), f"terrain.{name}.base", f"unknown base terrain {row.base!r}"
                )
            if base.base is not None:
                raise ScenarioError(
                    str(path), f"terrain.{name}.base", f"{row.base!r} itself has a base terrain"
                )
        terrain[name] = TerrainRow(
            name=name,
            cost=_costs(
                row.trucked, row.mechanized, row.foot, row.hq, "hq" in row.model_fields_set
            ),
            combat=row.combat,
            base=row.base,
            note=row.note,
        )
    hexsides = {
        name: HexsideRow(
            name=name,
            cost=_costs(row.trucked, row.mechanized, row.foot),
            combat=row.combat,
            bridge_only=row.bridge_only,
            blocks_zoc=row.blocks_zoc,
            no_attack=row.no_attack,
            note=row.note,
        )
        for name, row in t.hexsides.items()
    }
    roads = {
        name: RoadRow(
            name=name, cost=_costs(row.trucked, row.mechanized, row.foot), bonus=row.bonus
        )
        for name, row in t.roads.items()
    }
    for key in t.ff_cms:
        if key != "*" and key not in terrain:
            raise ScenarioError(str(path), f"ff_cms.{key}", "not a terrain of this table")
    return TerrainTable(
        game=game, terrain=terrain, hexsides=hexsides, roads=roads, ff_cms=dict(t.ff_cms)
    )


def load_morale() -> dict[str, int]:
    """Morale limits by nation (5.6.2): a unit is disorganized on 2K6 >= its limit."""
    return dict(_load_morale())


@lru_cache(maxsize=1)
def _load_morale() -> tuple[tuple[str, int], ...]:
    data = read_yaml_file(MORALE_FILE)
    m = validated(MoraleIn, data, str(MORALE_FILE))
    return tuple(m.limits.items())


RESULTS_FILE = "{system}-results.yaml"


@cache
def load_results(system: str = "wb95") -> Any:
    """A rule system's result tables, shared by every game of the system (WB-95's: COMBAT
    TABLE, AIR ATTACK, ARTILLERY FIRE, ATTACK ON OBJECTS), as the system reads them
    (`RuleSystem.result_tables`)."""
    path = TABLES_DIR / RESULTS_FILE.format(system=system)
    data = read_yaml_file(path)
    if not isinstance(data, dict):
        raise ScenarioError(path.name, "(top level)", "expected a mapping of tables")
    try:
        return systems.get(system).result_tables(data)
    except ValueError as e:
        raise ScenarioError(path.name, "(tables)", str(e)) from None


SUPPLY_FILE = TABLES_DIR / "supply.yaml"


def load_supply(game: str) -> SupplyTable:
    """The supply data of a game (10.1.5, 10.1.7, 7.3.7). Every nation of the morale table
    must have its supply MPs."""
    return _load_supply(game)


@cache
def _load_supply(game: str) -> SupplyTable:
    data = read_yaml_file(SUPPLY_FILE)
    t = validated(SupplyTableIn, data, str(SUPPLY_FILE))
    missing = [n for n in load_morale() if n not in t.mp]
    if missing:
        raise ScenarioError(
            str(SUPPLY_FILE), "mp", f"no supply MPs (10.1.7) for nation(s) {', '.join(missing)}"
        )
    g = t.games.get(game)
    return SupplyTable(
        mp=dict(t.mp),
        roads=frozenset(t.roads),
        fixed_positions_supplied=bool(g and g.fixed_positions_supplied),
    )


_RULES_SUFFIX = "-rules.yaml"


def rules_path(game: str) -> Path:
    return TABLES_DIR / f"{game}{_RULES_SUFFIX}"


def load_game_rules(game: str) -> GameRules:
    """A game's own rules (Kursk 1943: 17.0-22.0) from `tables/<game>-rules.yaml`; a game
    without such a file has none (Korsun)."""
    return _load_game_rules(game)


@cache
def _load_game_rules(game: str) -> GameRules:
    path = rules_path(game)
    if not _ID.match(game) or not path.is_file():
        return GameRules()
    data = read_yaml_file(path)
    r = validated(GameRulesIn, data, str(path))
    if r.game != game:
        raise ScenarioError(str(path), "game", f"is {r.game!r}, but the file is for {game!r}")
    mines = None
    if r.mines is not None:
        m = r.mines
        if m.last < m.first:
            raise ScenarioError(str(path), "mines.last", f"{m.last} is before {m.first}")
        unknown = [f for f in m.dice if f not in r.fronts]
        if unknown:
            raise ScenarioError(
                str(path),
                "mines.dice",
                f"unknown front(s) {', '.join(unknown)} (fronts: {', '.join(r.fronts) or 'none'})",
            )
        mines = MinesRule(
            side=m.side, first=m.first, last=m.last, dice=dict(m.dice), hits=frozenset(m.hits)
        )
    rp = r.repair
    fl = r.fortified_line
    bd = r.breakdown
    return GameRules(
        fronts=tuple(r.fronts),
        repair=None
        if rp is None
        else RepairRule(
            side=rp.side,
            counters=rp.counters,
            types=frozenset(rp.types),
            excluded=frozenset(rp.excluded),
            cels=rp.cels,
        ),
        mines=mines,
        fortified_line=None
        if fl is None
        else FortifiedLineRule(
            owner=fl.owner,
            cms=fl.cms,
            small_sp=fl.small_sp,
            small_cms=fl.small_cms,
            other_cms=fl.other_cms,
        ),
        breakdown=None
        if bd is None
        else BreakdownRule(side=bd.side, equipment=bd.equipment, hits=frozenset(bd.hits)),
    )


AIR_FILE = TABLES_DIR / "air.yaml"


def load_air_rules(game: str) -> AirRules:
    """8.0 as data for a game (`tables/air.yaml`): the system's values and the game's own
    edition of movement disorganization, its big rivers, Kursk's 21.0. A game the file
    does not list gets the system's values with no movement disorganization."""
    return _load_air_rules(game)


@cache
def _load_air_rules(game: str) -> AirRules:
    data = read_yaml_file(AIR_FILE)
    t = validated(AirTableIn, data, str(AIR_FILE))
    nations = set(load_morale())
    named = [*t.counter_sp, *t.no_defensive_support, *t.supply_nations]
    for g in t.games.values():
        if g.disorganize is not None:
            named.extend(g.disorganize.targets)
    unknown = sorted({n for n in named if n != "*" and n not in nations})
    if unknown:
        raise ScenarioError(str(AIR_FILE), "(nations)", f"unknown nation(s) {', '.join(unknown)}")
    this = t.games.get(game)
    d = None if this is None else this.disorganize
    disorganize = (
        None
        if d is None
        else DisorganizeRule(
            targets=frozenset(d.targets),
            min_sp=d.min_sp,
            max_sp_per_hex=d.max_sp_per_hex,
            radius=d.radius,
            per_sp=d.per == "sp",
            loss_from_sp=None if d.loss is None else d.loss.from_sp,
            loss_dice=2 if d.loss is None else d.loss.dice,
            loss_hits=frozenset() if d.loss is None else frozenset(d.loss.hits),
        )
    )
    star = None if this is None else this.white_star
    return AirRules(
        counter_sp=dict(t.counter_sp),
        no_defensive_support=frozenset(t.no_defensive_support),
        supply_nations=frozenset(t.supply_nations),
        object_min_sp=t.object_min_sp,
        supply_min_sp=t.supply.min_sp,
        supply_fail=frozenset(t.supply.fail),
        river_features=frozenset(() if this is None else this.river_features),
        river_attacks_per_sp=t.river.attacks_per_sp,
        river_hits=frozenset(t.river.hits),
        battle_radius=t.battle_radius,
        disorganize=disorganize,
        max_counters_per_hex=None if this is None else this.max_counters_per_hex,
        white_star_cms=0 if star is None else star.cms,
        white_star_rows=0 if star is None else star.rows,
    )

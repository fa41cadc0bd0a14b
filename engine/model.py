"""The static side of a game: map, tables, unit values and scenario settings.

These objects arrive already validated (the `scenarios` package builds them from YAML)
and never change during play, so game states share them instead of copying them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from engine.hexgrid import Grid, HexId, Hexside, hexside

MoveClass = Literal["foot", "trucked", "mechanized", "none"]
MOVE_CLASSES: tuple[MoveClass, ...] = ("foot", "trucked", "mechanized", "none")

# Movement class a unit type has unless the scenario says otherwise (1.3, R11).
DEFAULT_MOVE: Mapping[str, MoveClass] = {
    "inf": "foot",
    "cav": "foot",
    "para": "foot",
    "eng": "foot",
    "arm": "mechanized",
    "mech": "mechanized",
    "mot": "trucked",
    "recon": "mechanized",
    "ag": "mechanized",
    "at": "trucked",
    "art": "trucked",  # non-mechanized artillery counts as trucked (1.3)
    "sp-art": "mechanized",
    "aa": "trucked",
    "hq": "trucked",  # R11
    "rg": "foot",
    "vs": "foot",
    "fu": "none",
}
UNIT_TYPES: tuple[str, ...] = tuple(DEFAULT_MOVE)

# Types without a zone of control: artillery 6.1.5, HQ 9.1.1, resilience groups 15.2.2.
NO_ZOC_TYPES: frozenset[str] = frozenset({"art", "sp-art", "hq", "rg"})

# A cost of None means the move is impossible for that class.
Cost = Fraction | None


@dataclass(frozen=True, eq=False)
class TerrainRow:
    """One hex terrain of a TERRAIN INFLUENCE table (3.1.11, 5.5.1).

    `cost` maps a movement class (and optionally "hq", for R10's HQ-in-swamp cost) to the
    MP cost of entering; with `base` set, the costs are added to the base terrain's
    (forest is "+1" on top of clear ground, 3.1.12)."""

    name: str
    cost: Mapping[str, Cost]
    combat: int = 0
    base: str | None = None
    note: str = ""


@dataclass(frozen=True, eq=False)
class HexsideRow:
    """A hexside feature: extra MP cost to cross (3.1.12) and its combat effect.

    `bridge_only`: crossing is impossible except by an intact bridge (R24).
    `blocks_zoc`: ZoC does not extend across it (4.1.3). `no_attack`: attacks across it
    are impossible (Korsun table, Dnieper)."""

    name: str
    cost: Mapping[str, Cost]
    combat: int = 0
    bridge_only: bool = False
    blocks_zoc: bool = False
    no_attack: bool = False
    note: str = ""


@dataclass(frozen=True, eq=False)
class RoadRow:
    """A road kind: its cost replaces the terrain cost along a connection; `bonus` gives the
    one extra hex of the table's footnote (R12)."""

    name: str
    cost: Mapping[str, Cost]
    bonus: bool = False


@dataclass(frozen=True, eq=False)
class TerrainTable:
    game: str
    terrain: Mapping[str, TerrainRow]
    hexsides: Mapping[str, HexsideRow]
    roads: Mapping[str, RoadRow]
    # Field fortification CMs by terrain (R15); "*" is every other terrain.
    ff_cms: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class MapData:
    """A map (DESIGN §3). Hexsides, bridges and roads are keyed by unordered hexside."""

    id: str
    grid: Grid
    default: str = "clear"
    terrain: Mapping[HexId, str] = field(default_factory=dict)
    names: Mapping[HexId, str] = field(default_factory=dict)
    hexsides: Mapping[Hexside, frozenset[str]] = field(default_factory=dict)
    bridges: frozenset[Hexside] = frozenset()
    roads: Mapping[Hexside, frozenset[str]] = field(default_factory=dict)
    edges: Mapping[str, tuple[HexId, ...]] = field(default_factory=dict)
    zones: Mapping[str, tuple[HexId, ...]] = field(default_factory=dict)
    # Edge hexes where a road leaves the map (a road's first or last hex lies on an edge),
    # with the road kinds: entry along the road (11.1.5) and 11.2.4's entry zones.
    road_exits: Mapping[HexId, frozenset[str]] = field(default_factory=dict)
    # Named rivers, name -> hexsides (the Kursk victory conditions' Sjejm, Tuskar, Sosna,
    # Psioł: "crossing ... river", K68).
    rivers: Mapping[str, frozenset[Hexside]] = field(default_factory=dict)

    def terrain_of(self, h: HexId) -> str:
        return self.terrain.get(h, self.default)

    def features(self, a: HexId, b: HexId) -> frozenset[str]:
        return self.hexsides.get(hexside(a, b), frozenset())

    def bridged(self, a: HexId, b: HexId) -> bool:
        return hexside(a, b) in self.bridges

    def road_kinds(self, a: HexId, b: HexId) -> frozenset[str]:
        return self.roads.get(hexside(a, b), frozenset())

    def label(self, h: HexId) -> str:
        """`0405` or `0405 (Steblev)` for messages."""
        name = self.names.get(h)
        return f"{h} ({name})" if name else h


@dataclass(frozen=True, eq=False)
class UnitSpec:
    """A unit's printed values (the countersheet), which never change in play."""

    id: str
    name: str
    side: str
    nation: str
    type: str
    move: MoveClass
    size: str = ""
    formation: str = ""
    sp: int = 0
    art: tuple[int, int] | None = None  # artillery attack/defence SPs
    mp: Fraction = Fraction(0)
    max_cel: int = 1
    stars: tuple[str, ...] = ()
    equipment: str = ""  # e.g. panther, ferdinand (Kursk 17.1.3, 22.1.1)

    @property
    def has_zoc(self) -> bool:
        return self.type not in NO_ZOC_TYPES

    @property
    def is_hq(self) -> bool:
        return self.type == "hq"

    @property
    def motorized(self) -> bool:
        return self.move in ("trucked", "mechanized")


@dataclass(frozen=True, eq=False)
class UnitStart:
    """Where and how a unit begins: on the map, or arriving later (11.0)."""

    id: str
    hex: HexId | None
    cel: int
    oos: int = 0
    disorganized: bool = False
    fortification: str | None = None
    setup: str | None = None
    arrives: Mapping[str, Any] | None = None


@dataclass(frozen=True, eq=False)
class SideSpec:
    """A side. `supply` lists its supply sources (10.1.4), each one of `{"edge": "E"}`,
    `{"zone": "A"}`, `{"hex": "0405"}`, `{"name": "Korsuń"}` (every hex of that name) or
    `{"unit": "g-hq7"}` (the hex of that unit, an HQ, while it is on the map)."""

    name: str
    nation: str
    supply: tuple[Mapping[str, str], ...] = ()


@dataclass(frozen=True, eq=False)
class SupplyTable:
    """10.1 as data (`scenarios/tables/supply.yaml`): off-road supply MPs by nation
    (10.1.7); the road kinds along which a line of supply runs without limit (10.1.5);
    whether units in fixed positions are always supplied (7.3.7, a Korsun rule)."""

    mp: Mapping[str, int] = field(default_factory=dict)
    roads: frozenset[str] = frozenset()
    fixed_positions_supplied: bool = False


# --- game-specific rules (Kursk 17.0-22.0), loaded from scenarios/tables/<game>-rules.yaml ---


@dataclass(frozen=True, eq=False)
class RepairRule:
    """17.0 Armor Repair: `counters` Repair counters of `side` per front (17.1.1); a
    counter goes on a supplied unit of one of `types` that has lost CELs, not one whose
    `equipment` is `excluded` (17.1.3); left alone it regains `cels` (17.1.2)."""

    side: str
    counters: int = 1
    types: frozenset[str] = frozenset()
    excluded: frozenset[str] = frozenset()
    cels: int = 1


@dataclass(frozen=True, eq=False)
class MinesRule:
    """18.0 Losses on mines: from `first` to `last` (dates, 18.1.1) `side` rolls the
    front's number of dice in its Supply Phase (18.1.2, 18.1.4); every face in `hits` costs
    one CEL of an activated unit (18.1.3)."""

    side: str
    first: dt.date
    last: dt.date
    dice: Mapping[str, int] = field(default_factory=dict)
    hits: frozenset[int] = frozenset()


@dataclass(frozen=True, eq=False)
class FortifiedLineRule:
    """19.0 Fortified Lines, built by `owner`: they halve the attackers' SPs (19.1.1) and
    give `cms` when more than half of the attacking SPs cross them (19.1.2), `small_cms`
    instead to defenders of `small_sp` SPs or less (19.1.3); the other side's units in a
    fortified line get `other_cms` (19.1.4); K57."""

    owner: str
    cms: int = 2
    small_sp: int = 4
    small_cms: int = 1
    other_cms: int = 1


@dataclass(frozen=True, eq=False)
class BreakdownRule:
    """22.0 Panther tanks: every activated unit of `side` with `equipment` rolls one die in
    the side's Supply Phase; a face in `hits` costs it one CEL (22.1.1, 22.1.2)."""

    side: str
    equipment: str
    hits: frozenset[int] = frozenset()


@dataclass(frozen=True, eq=False)
class GameRules:
    """The game-specific rules a game has (Kursk 1943: 17.0-22.0); none for Korsun.
    `fronts` are the fronts a scenario of the game may name (17.1.1, 18.1.2)."""

    fronts: tuple[str, ...] = ()
    repair: RepairRule | None = None
    mines: MinesRule | None = None
    fortified_line: FortifiedLineRule | None = None
    breakdown: BreakdownRule | None = None


# --- air (8.0; Kursk 21.0), loaded from scenarios/tables/air.yaml and a scenario's `air:` --

# The missions of 8.2.1, by the names orders use, and the readable synonyms accepted.
AIR_MISSIONS: tuple[str, ...] = (
    "support-attack",  # offensive support 8.2.2, 8.2.3
    "support-defence",  # defensive support 8.2.4, 8.2.5
    "attack",  # air attack 8.2.6, 8.2.7
    "object",  # object (bridge) destruction 8.2.8-8.2.10
    "disorganize",  # Soviet movement disorganization 8.2.11-8.2.16
    "river",  # river crossing attack 8.2.17-8.2.22
    "supply",  # supply mission 8.2.23-8.2.26
)
AIR_MISSION_WORDS: Mapping[str, str] = {
    **{m: m for m in AIR_MISSIONS},
    "support": "support-attack",
    "offensive": "support-attack",
    "offensive-support": "support-attack",
    "support-offensive": "support-attack",
    "support-assault": "support-attack",
    "attack-support": "support-attack",
    "defensive": "support-defence",
    "defensive-support": "support-defence",
    "support-defense": "support-defence",
    "defence": "support-defence",
    "defense": "support-defence",
    "defence-support": "support-defence",
    "defense-support": "support-defence",
    "air-attack": "attack",
    "strike": "attack",
    "bomb": "attack",
    "objects": "object",
    "bridge": "object",
    "object-destruction": "object",
    "objects-destruction": "object",
    "disorganise": "disorganize",
    "disorganization": "disorganize",
    "disorganisation": "disorganize",
    "movement-disorganization": "disorganize",
    "movement-disorganisation": "disorganize",
    "interdict": "disorganize",
    "interdiction": "disorganize",
    "river-crossing": "river",
    "river-attack": "river",
    "crossing": "river",
    "airlift": "supply",
    "air-supply": "supply",
    "supply-drop": "supply",
}


@dataclass(frozen=True, eq=False)
class DisorganizeRule:
    """Soviet movement disorganization as a game's edition prints it (8.2.11-8.2.16).
    It hits units of the nations in `targets` (8.2.11); a mission needs `min_sp` SPs
    (8.2.12); one side puts at most `max_sp_per_hex` SPs on a hex (Korsun 8.2.15; None: no
    limit); it covers its hex and the hexes within `radius` (Kursk 8.2.13: 1); every hex it
    covers costs +1 MP per SP (`per_sp`, Korsun 8.2.13) or per mission (Kursk 8.2.13) to
    enter, and a unit that starts its move there loses as many MPs (8.2.14 / 8.2.16). With
    `loss_from_sp` SPs on a hex, a unit moving through it or starting there rolls
    `loss_dice` dice and loses a CEL on a total in `loss_hits` (Korsun 8.2.14, 8.2.16)."""

    targets: frozenset[str] = frozenset()
    min_sp: int = 1
    max_sp_per_hex: int | None = None
    radius: int = 0
    per_sp: bool = True
    loss_from_sp: int | None = None
    loss_dice: int = 2
    loss_hits: frozenset[int] = frozenset()


@dataclass(frozen=True, eq=False)
class AirRules:
    """8.0 as data (`scenarios/tables/air.yaml`): the strength of counters printed without
    one, by nation (8.1.1 note 2; "*" for the others); the nations whose air may not fly
    defensive support (8.2.5) and the ones that fly supply missions (8.2.23); minimum SPs
    for an attack on objects (8.2.10) and a supply mission (8.2.24), the supply die faces
    that fail (8.2.25); the hexside features that are big rivers for river crossing
    attacks, the attacks per SP and the faces that hit (8.2.17-8.2.20); how far opposing
    missions fight an air battle (8.1.8: same or adjacent hexes, 1); the game's edition of
    movement disorganization; Kursk's limit of counters per hex (21.1.2) and what a white
    star on an air counter gives (21.1.1: CMs in support, rows on AIR ATTACK)."""

    counter_sp: Mapping[str, int] = field(default_factory=lambda: {"*": 5})
    no_defensive_support: frozenset[str] = frozenset()
    supply_nations: frozenset[str] = frozenset()
    object_min_sp: int = 4
    supply_min_sp: int = 7
    supply_fail: frozenset[int] = frozenset({6})
    river_features: frozenset[str] = frozenset()
    river_attacks_per_sp: int = 2
    river_hits: frozenset[int] = frozenset({6})
    battle_radius: int = 1
    disorganize: DisorganizeRule | None = None
    max_counters_per_hex: int | None = None
    white_star_cms: int = 0
    white_star_rows: int = 0

    def default_counter_sp(self, nation: str) -> int:
        return self.counter_sp.get(nation, self.counter_sp.get("*", 5))


@dataclass(frozen=True, eq=False)
class AirCounter:
    """An air counter (8.1.1): its SPs (printed, or 8.1.1 note 2's default) and stars."""

    id: str
    side: str
    sp: int
    stars: tuple[str, ...] = ()
    name: str = ""
    printed: bool = True  # False: no strength printed, `sp` is 8.1.1 note 2's


@dataclass(frozen=True, eq=False)
class AirSide:
    """A side's air in a scenario (`air:`): an SP pool per turn that the player divides
    freely into missions (8.1.1 note 1: `sp` by turn, `default_sp` for the turns not
    listed), or counters (8.1.1), of which at most `fly` fly in a turn ("any two chosen air
    counters"); air only from turn `first` to turn `last`; missions the scenario forbids
    the side (Korsun: the Germans fly no movement disorganization); `supply`: the scenario
    lets the side fly supply missions whatever its nation (8.2.23, K76), or forbids it."""

    side: str
    sp: Mapping[int, int] = field(default_factory=dict)
    default_sp: int = 0
    counters: tuple[AirCounter, ...] = ()
    fly: int | None = None
    first: int | None = None
    last: int | None = None
    forbid: frozenset[str] = frozenset()
    supply: bool | None = None

    def flies(self, turn: int) -> bool:
        return (self.first is None or turn >= self.first) and (
            self.last is None or turn <= self.last
        )

    def pool(self, turn: int) -> int:
        """The SPs of the pool for `turn` (0 outside the scenario's air days)."""
        if self.counters or not self.flies(turn):
            return 0
        return self.sp.get(turn, self.default_sp)

    def counter(self, cid: str) -> AirCounter | None:
        for c in self.counters:
            if c.id == cid or c.id.lower() == cid.lower():
                return c
        return None


# --- scenario-level special rules (`special:` in a scenario) ------------------------------


@dataclass(frozen=True, eq=False)
class UnitGroup:
    """Units named by id or by formation."""

    units: frozenset[str] = frozenset()
    formations: frozenset[str] = frozenset()

    def has(self, spec: UnitSpec) -> bool:
        return spec.id in self.units or (bool(spec.formation) and spec.formation in self.formations)


@dataclass(frozen=True, eq=False)
class Area:
    """A box of the map: columns and rows, each inclusive; None is unbounded."""

    cols: tuple[int, int] | None = None
    rows: tuple[int, int] | None = None

    def contains(self, h: HexId) -> bool:
        c, r = int(h[:2]), int(h[2:])
        if self.cols is not None and not self.cols[0] <= c <= self.cols[1]:
            return False
        return self.rows is None or self.rows[0] <= r <= self.rows[1]


@dataclass(frozen=True, eq=False)
class Front:
    """A front of the game (north, south) in this scenario, over `area` of the map."""

    name: str
    area: Area = field(default_factory=Area)


@dataclass(frozen=True, eq=False)
class Activation:
    """The group cannot move before turn `turn` ("can move from July 7th")."""

    group: UnitGroup
    turn: int
    label: str = ""


@dataclass(frozen=True, eq=False)
class HalfMP:
    """The group has half MPs in `turns`, and with `arrival` on the turn it enters the map
    ("1st Guards Armoured Army has 1/2 MPs on July 5th"; STAWKA reserves' first turn)."""

    group: UnitGroup
    turns: frozenset[int] = frozenset()
    arrival: bool = False
    label: str = ""


@dataclass(frozen=True, eq=False)
class NoCrossing:
    """The group may not cross these hexsides ("7th Guards Army cannot cross the
    Siewierskij Doniec north of hex 5125")."""

    group: UnitGroup
    hexsides: frozenset[Hexside]
    label: str = ""


@dataclass(frozen=True, eq=False)
class Withdrawal:
    """On turn `turn`, in its Movement Phase, `side` must take `count` of `units` off the
    map for good -- or, with `equivalent`, units of the same type and size."""

    side: str
    turn: int
    units: tuple[str, ...]
    equivalent: bool = True
    count: int = 1
    label: str = ""


@dataclass(frozen=True, eq=False)
class ScenarioRules:
    """What a scenario's `special:` says that the engine enforces."""

    fronts: tuple[Front, ...] = ()
    activation: tuple[Activation, ...] = ()
    half_mp: tuple[HalfMP, ...] = ()
    no_crossing: tuple[NoCrossing, ...] = ()
    withdrawals: tuple[Withdrawal, ...] = ()
    destroyed_bridges: frozenset[Hexside] = frozenset()


@dataclass(frozen=True, eq=False)
class VictoryHex:
    hex: HexId
    vp: int
    side: str | None = None  # only this side scores it; None: whoever controls it


@dataclass(frozen=True, eq=False)
class Setup:
    """Everything a scenario fixes (DESIGN §5) in engine form."""

    id: str
    name: str
    system: str
    game: str
    initiative: str
    sides: Mapping[str, SideSpec]
    turns: int
    start_turn: int
    start_phase: str
    start_active: str
    map: MapData
    table: TerrainTable
    morale: Mapping[str, int]
    units: Mapping[str, UnitSpec]
    starts: tuple[UnitStart, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    calendar_start: dt.date | None = None
    control: Mapping[HexId, str] | None = None  # explicit initial control (4.3.1)
    victory: tuple[VictoryHex, ...] = ()
    # The rest of `victory:` (cel_vp, link, levels, otherwise), JSON-plain: engine.wb95.victory.
    victory_rules: Mapping[str, Any] = field(default_factory=dict)
    barrage: bool = False  # 6.5: only where the scenario allows it
    barrage_turns: tuple[int, ...] = ()  # 6.5.1: the turns it is allowed in; () = every turn
    ammo: Mapping[str, int] | None = None  # 6.5.7: Ammo Units per side; None = no limit
    air: Mapping[str, Any] = field(default_factory=dict)  # the scenario's `air:` as written
    air_sides: Mapping[str, AirSide] = field(default_factory=dict)  # ... as read (8.1.1)
    air_rules: AirRules = field(default_factory=AirRules)  # 8.0 of the game (air.yaml)
    special: Mapping[str, Any] = field(default_factory=dict)
    results: Any = None  # the system's result tables (engine.wb95.crt.ResultTables)
    supply_table: SupplyTable = field(default_factory=SupplyTable)  # 10.1 (10.1.7, 7.3.7)
    rules: GameRules = field(default_factory=GameRules)  # the game's own rules (17.0-22.0)
    scenario_rules: ScenarioRules = field(default_factory=ScenarioRules)  # from `special:`
    # each data part (the map, the counter values ...) -> printed, reconstructed,
    # league-supplied (by whom) or invented (issue #19); what it says, not what it is: out
    # of the data digest (engine/digest.py)
    provenance: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def side_names(self) -> tuple[str, ...]:
        """Player A first (2.2)."""
        others = [s for s in self.sides if s != self.initiative]
        return (self.initiative, *others)

    def enemy_of(self, side: str) -> str:
        for s in self.sides:
            if s != side:
                return s
        raise KeyError(side)

    def date_of(self, turn: int) -> dt.date | None:
        """One turn is one day (2.1.6)."""
        if self.calendar_start is None:
            return None
        return self.calendar_start + dt.timedelta(days=turn - 1)

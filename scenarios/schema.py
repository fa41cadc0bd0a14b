"""Pydantic models of the YAML files: scenarios (DESIGN §5), maps (DESIGN §3),
countersheets and the TERRAIN INFLUENCE tables.

These models check shapes and types only. What needs more than one value at a time (a
hex on *this* map, a terrain in *this* game's table, stacking) is checked by the loader.
Models that describe one thing (a unit, a map, a table row) forbid unknown keys, so a typo
is reported instead of silently ignored; the top level of a scenario allows extra keys
(DESIGN §5: shipped scenarios may add keys).
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator, model_validator

from engine.hexgrid import HexIdError, normalize
from engine.model import UNIT_TYPES

PHASES = ("air", "barrage", "movement", "combat", "strategic", "supply")
EDGE_NAMES = ("N", "S", "E", "W")
STAR_COLOURS = ("black", "white", "yellow", "blue")
UNIT_SIZES = ("D", "BR", "R", "B", "C")  # 1.3: division, brigade, regiment, battalion, company
ARTILLERY_TYPES = frozenset({"art", "sp-art"})


# --- scalar types --------------------------------------------------------------------------
def to_hex(value: object) -> str:
    """A hex id written `535`, `"535"` or `"0535"` -> `"0535"`."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{value!r} is not a hex number (CCRR, e.g. 0535)")
    try:
        return normalize(str(value))
    except HexIdError as e:
        raise ValueError(str(e)) from None


def to_fraction(value: object) -> Fraction:
    """`3`, `1.5`, `"1/3"`, `"7/2"` -> an exact Fraction (1.5 -> 3/2)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, Fraction | int):
        return Fraction(value)
    if isinstance(value, float | str):
        try:
            # str() of a float is its shortest decimal form, so 1.5 -> 3/2, 0.1 -> 1/10.
            return Fraction(str(value).replace(" ", ""))
        except (ValueError, ZeroDivisionError):
            pass
    raise ValueError(f"{value!r} is not a number or a fraction like 1/3")


def to_mp(value: object) -> Fraction:
    f = to_fraction(value)
    if f < 0:
        raise ValueError(f"{value!r} is negative")
    return f


def to_cost(value: object) -> Fraction | None:
    """A table cost: a non-negative number or fraction, or null for impassable."""
    return None if value is None else to_mp(value)


def to_text(value: object) -> str:
    """Names and ids that YAML may have read as numbers (`formation: 40`)."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{value!r} is not a text")
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return value
    raise ValueError(f"{value!r} is not a text")


def to_sp(value: object) -> int | tuple[int, int]:
    """An SP value: an int, or `[attack, defence]` for artillery (1.2)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number of SPs")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{value} is negative")
        return value
    if isinstance(value, list | tuple):
        if len(value) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value
        ):
            return (int(value[0]), int(value[1]))
        raise ValueError(f"{value!r} is not [attack, defence] (two whole numbers)")
    raise ValueError(f"{value!r} is not a whole number of SPs (or [attack, defence])")


def to_unit_type(value: object) -> str:
    text = to_text(value)
    if text not in UNIT_TYPES:
        raise ValueError(f"unknown unit type '{text}' (known: {', '.join(UNIT_TYPES)})")
    return text


def _none_to_empty_dict(value: object) -> object:
    return {} if value is None else value


def _none_to_empty_list(value: object) -> object:
    return [] if value is None else value


HexRef = Annotated[str, BeforeValidator(to_hex)]
Text = Annotated[str, BeforeValidator(to_text)]
UnitType = Annotated[str, BeforeValidator(to_unit_type)]
MP = Annotated[Fraction, PlainValidator(to_mp)]
Cost = Annotated[Fraction | None, PlainValidator(to_cost)]
SP = Annotated[int | tuple[int, int], PlainValidator(to_sp)]
FreeMap = Annotated[dict[str, Any], BeforeValidator(_none_to_empty_dict)]
Phase = Literal["air", "barrage", "movement", "combat", "strategic", "supply"]
Edge = Literal["N", "S", "E", "W"]
Star = Literal["black", "white", "yellow", "blue"]
Size = Literal["", "D", "BR", "R", "B", "C"]
MoveName = Literal["foot", "trucked", "mechanized", "none"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Open(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# --- maps (DESIGN §3) ----------------------------------------------------------------------
class HexsideIn(Strict):
    hexes: tuple[HexRef, HexRef]
    feature: Text


class RoadIn(Strict):
    kind: Text
    hexes: Annotated[list[HexRef], Field(min_length=2)]


class MapIn(Strict):
    """An inline map (`map:` in a scenario)."""

    layout: Literal["even-q", "odd-q"] = "even-q"
    cols: tuple[int, int]
    rows: tuple[int, int]
    default: Text = "clear"
    terrain: Annotated[dict[HexRef, Text], BeforeValidator(_none_to_empty_dict)] = {}
    names: Annotated[dict[HexRef, Text], BeforeValidator(_none_to_empty_dict)] = {}
    hexsides: Annotated[list[HexsideIn], BeforeValidator(_none_to_empty_list)] = []
    bridges: Annotated[list[tuple[HexRef, HexRef]], BeforeValidator(_none_to_empty_list)] = []
    roads: Annotated[list[RoadIn], BeforeValidator(_none_to_empty_list)] = []
    edges: Annotated[dict[Edge, list[HexRef]], BeforeValidator(_none_to_empty_dict)] = {}
    zones: Annotated[dict[Text, list[HexRef]], BeforeValidator(_none_to_empty_dict)] = {}
    # hexes inside cols x rows that are not on the map (joined sheets: kursk-joint)
    holes: Annotated[list[HexRef], BeforeValidator(_none_to_empty_list)] = []
    # named rivers (the Kursk VP rivers): name -> its hexsides
    rivers: Annotated[
        dict[Text, list[tuple[HexRef, HexRef]]], BeforeValidator(_none_to_empty_dict)
    ] = {}


# Where a data file's values come from (issue #19, engine/provenance.py): printed in the
# rules, the project's reconstruction, a league's transcription, or made up for a demo.
Provenance = Literal["printed", "reconstructed", "league-supplied", "invented"]


class MapFileIn(MapIn):
    """A shipped map, `scenarios/maps/<id>.yaml`: an inline map plus its id (and optionally
    the game it belongs to and where its data comes from)."""

    id: Text
    game: Literal["korsun", "kursk"] | None = None
    source: Text = ""
    notes: Text = ""
    provenance: Provenance | None = None
    supplied_by: Text = ""  # a league's file (scenarios/overrides.py)


# --- countersheets -------------------------------------------------------------------------
class UnitValues(Strict):
    """The printed values of a counter (1.2), as a countersheet holds them."""

    id: Annotated[Text, Field(min_length=1)]
    name: Text | None = None
    side: Text | None = None
    nation: Text | None = None
    type: UnitType | None = None
    move: MoveName | None = None
    size: Size = ""
    formation: Text = ""
    sp: SP | None = None
    mp: MP | None = None
    cel: Annotated[int, Field(ge=1)] | None = None
    max_cel: Annotated[int, Field(ge=1)] | None = None
    stars: Annotated[list[Star], BeforeValidator(_none_to_empty_list)] = []
    equipment: Text = ""  # Kursk: panther, ferdinand ... (17.1.3, 22.1.1)


class CounterIn(UnitValues):
    note: Text = ""


class CountersheetIn(Open):
    """`scenarios/countersheets/<id>.yaml`: `units: [...]` without placement."""

    game: Literal["korsun", "kursk"] | None = None
    source: Text = ""
    provenance: Provenance | None = None
    supplied_by: Text = ""  # a league's file (scenarios/overrides.py)
    units: list[CounterIn]


# --- scenarios (DESIGN §5) -----------------------------------------------------------------
class ArrivesIn(Strict):
    """A reinforcement (11.0): the turn and an entry zone (or an edge) or a hex."""

    turn: Annotated[int, Field(ge=1)]
    zone: Text | None = None
    hex: HexRef | None = None

    @model_validator(mode="after")
    def _one_place(self) -> ArrivesIn:
        if (self.zone is None) == (self.hex is None):
            raise ValueError("give exactly one of zone or hex")
        return self


class UnitIn(UnitValues):
    """A unit of a scenario: its values (inline, or over a countersheet's) and its start."""

    side: Text
    type: UnitType
    hex: HexRef | None = None
    ff: bool = False
    fortification: Literal["ff", "if"] | None = None  # extension: "if" = 7.2 (Korsun)
    setup: Literal["combat", "transport"] | None = None
    oos: Annotated[int, Field(ge=0)] = 0
    disorganized: bool = False
    arrives: ArrivesIn | None = None


class SupplyIn(Strict):
    """A supply source (10.1.4): a map edge, an entry zone, a hex, a named place (every
    hex of that name, e.g. a town) or a unit (an HQ) -- docs/rulings.md K40."""

    edge: Edge | None = None
    zone: Text | None = None
    hex: HexRef | None = None
    name: Text | None = None
    unit: Text | None = None

    @model_validator(mode="after")
    def _one_source(self) -> SupplyIn:
        keys = ("edge", "zone", "hex", "name", "unit")
        given = [k for k in keys if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of edge, zone, hex, name or unit")
        return self


class SideIn(Open):
    nation: Text | None = None
    supply: Annotated[list[SupplyIn], BeforeValidator(_none_to_empty_list)] = []


class StartIn(Strict):
    turn: Annotated[int, Field(ge=1)] = 1
    phase: Phase = "air"
    active: Text | None = None


class CalendarIn(Open):
    start: dt.date


class VictoryHexIn(Strict):
    hex: HexRef
    vp: int
    side: Text | None = None


class VictoryLinkIn(Strict):
    """A line of linked hexes the side must hold (Korsuń option II, Deblockade)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    side: Text
    from_place: Text = Field(alias="from")
    to_zones: Annotated[list[Text], Field(min_length=1)]
    by: Literal["hexes", "road"] = "hexes"  # road: along roads (Deblockade, K64)


class VictoryLevelIn(Strict):
    """One result and its test (engine/wb95/victory.py): `vp` reached, `holds_all` the
    hexes of a named place, `linked` (the scenario's link); checked at any moment (an
    automatic victory) or at the end."""

    side: Text
    result: Text
    at_any_moment: bool = False
    at_end: bool = False
    vp: Annotated[int, Field(ge=0)] | None = None
    holds_all: Text | list[Text] | None = None  # a place, or places all held (Prokhorovka)
    linked: bool = False


class EnteredIn(Strict):
    """`{side: german, vp: 3, label: II MOT, units: [...]}`: `side` scores `vp` once any of
    the (enemy) `units` is or was on the map."""

    side: Text
    vp: Annotated[int, Field(ge=0)]
    units: Annotated[list[Text], Field(min_length=1)]
    label: Text = ""


class RiverVpIn(Strict):
    """`{river: Sjejm, vp: 10, side: german}`: `side` scores `vp` once one of its units has
    crossed a hexside of the map's named river (Kursk: "crossing Sjejm river 10 VPs")."""

    river: Text
    vp: Annotated[int, Field(ge=0)]
    side: Text


class VictoryIn(Open):
    hexes: Annotated[list[VictoryHexIn], BeforeValidator(_none_to_empty_list)] = []
    cities: Annotated[list[Text], BeforeValidator(_none_to_empty_list)] = []  # 1 VP a hex
    cel_vp: Annotated[int, Field(ge=0)] = 0  # VPs per enemy CEL destroyed
    unit_vp: Annotated[int, Field(ge=0)] = 0  # Kursk: VPs per enemy unit eliminated
    # Kursk: VPs to `side` for each group of enemy units that has entered the map ("each
    # STAWKA reserve corps/army entered: 3 VPs").
    entered: Annotated[list[EnteredIn], BeforeValidator(_none_to_empty_list)] = []
    rivers: Annotated[list[RiverVpIn], BeforeValidator(_none_to_empty_list)] = []
    link: VictoryLinkIn | None = None
    conditions: Annotated[list[VictoryLevelIn], BeforeValidator(_none_to_empty_list)] = []
    otherwise: Text = ""  # "draw", "more VPs", or a result
    # a league's VP bid (issue #20, K134): VPs taken off a side's total for every victory
    # test -- the side that bid them for its preferred side pays them
    handicap: dict[Text, Annotated[int, Field(ge=0, le=1000)]] = {}


class BarrageIn(Strict):
    """`barrage:` as a mapping (6.5.1, 6.5.7, E22): the turns barrage is allowed in (none
    given: every turn) and the Ammo Units of each side (none given: no limit; a side not
    listed has none)."""

    turns: Annotated[list[Annotated[int, Field(ge=1)]], BeforeValidator(_none_to_empty_list)] = []
    ammo: dict[Text, Annotated[int, Field(ge=0)]] | None = None


class ScenarioIn(Open):
    """The top level of a scenario file. `map`, `units` and `control` are checked by the
    loader, since their form depends on other keys."""

    id: Annotated[Text, Field(min_length=1)]
    name: Text | None = None
    system: Literal["wb95"]
    game: Literal["korsun", "kursk"]
    initiative: Text
    turns: Annotated[int, Field(ge=1)]
    start: StartIn | None = None
    calendar: CalendarIn | None = None
    options: FreeMap = {}
    map: Any
    countersheet: Text | None = None
    sides: dict[Text, Annotated[SideIn, BeforeValidator(_none_to_empty_dict)]]
    units: Annotated[list[Any], BeforeValidator(_none_to_empty_list)] = []
    air: FreeMap = {}
    special: FreeMap = {}
    barrage: bool | BarrageIn = False  # 6.5: true, or {turns: [1, 2], ammo: {german: 8}}
    victory: VictoryIn | None = None
    control: Any = None
    # the provenance of what the scenario itself holds (an inline map, inline units, the
    # set-up): `provenance: {map: invented, counters: invented, setup: printed}`
    provenance: dict[Literal["map", "counters", "setup"], Provenance] = {}


# --- TERRAIN INFLUENCE tables --------------------------------------------------------------
class TerrainRowIn(Strict):
    trucked: Cost = None
    mechanized: Cost = None
    foot: Cost = None
    hq: Cost = None
    combat: int = 0
    base: Text | None = None
    note: Text = ""


class HexsideRowIn(Strict):
    trucked: Cost = None
    mechanized: Cost = None
    foot: Cost = None
    combat: int = 0
    bridge_only: bool = False
    blocks_zoc: bool = False
    no_attack: bool = False
    note: Text = ""


class RoadRowIn(Strict):
    trucked: Cost = None
    mechanized: Cost = None
    foot: Cost = None
    bonus: bool = False
    note: Text = ""


class TableIn(Strict):
    game: Text
    source: Text
    notes: Text = ""
    terrain: dict[Text, TerrainRowIn]
    hexsides: dict[Text, HexsideRowIn]
    roads: dict[Text, RoadRowIn]
    ff_cms: dict[Text, int] = {}


class MoraleIn(Strict):
    source: Text
    notes: Text = ""
    limits: dict[Text, Annotated[int, Field(ge=2, le=13)]]


class SupplyGameIn(Strict):
    fixed_positions_supplied: bool = False  # 7.3.7


class SupplyTableIn(Strict):
    """`tables/supply.yaml` (10.1.5, 10.1.7, 7.3.7)."""

    source: Text
    notes: Text = ""
    mp: dict[Text, Annotated[int, Field(ge=0)]]
    roads: list[Text] = []
    games: dict[Text, SupplyGameIn] = {}


# --- game-specific rules (tables/<game>-rules.yaml: Kursk 17.0-22.0) ----------------------
Dice = Annotated[int, Field(ge=1, le=6)]


class RepairRuleIn(Strict):
    side: Text
    counters: Annotated[int, Field(ge=1)] = 1
    types: list[UnitType] = []
    excluded: list[Text] = []
    cels: Annotated[int, Field(ge=1)] = 1


class MinesRuleIn(Strict):
    side: Text
    first: dt.date
    last: dt.date
    dice: dict[Text, Annotated[int, Field(ge=0)]] = {}
    hits: list[Dice] = []


class FortifiedLineRuleIn(Strict):
    owner: Text
    cms: Annotated[int, Field(ge=0)] = 2
    small_sp: Annotated[int, Field(ge=0)] = 4
    small_cms: Annotated[int, Field(ge=0)] = 1
    other_cms: Annotated[int, Field(ge=0)] = 1


class BreakdownRuleIn(Strict):
    side: Text
    equipment: Text
    hits: list[Dice] = []


class GameRulesIn(Strict):
    game: Text
    source: Text
    notes: Text = ""
    fronts: list[Text] = []
    repair: RepairRuleIn | None = None
    mines: MinesRuleIn | None = None
    fortified_line: FortifiedLineRuleIn | None = None
    breakdown: BreakdownRuleIn | None = None


# --- scenario-level special rules (`special:` keys the engine enforces) -------------------
class AreaIn(Strict):
    """A box of the map: `cols: [first, last]` and/or `rows: [first, last]`."""

    cols: tuple[int, int] | None = None
    rows: tuple[int, int] | None = None


class GroupIn(Strict):
    """Units named by id and/or formation; `label` names the group in messages."""

    units: Annotated[list[Text], BeforeValidator(_none_to_empty_list)] = []
    formations: Annotated[list[Text], BeforeValidator(_none_to_empty_list)] = []
    label: Text = ""

    @model_validator(mode="after")
    def _some_units(self) -> GroupIn:
        if not self.units and not self.formations:
            raise ValueError("name the units (units: [...]) and/or formations (formations: [...])")
        return self


class WhenIn(Strict):
    """A day: a turn number or a date of the scenario's calendar."""

    turn: Annotated[int, Field(ge=1)] | None = None
    date: dt.date | None = None


class ActivationIn(GroupIn):
    """`{units: [...], from: 1943-07-06}` (a date) or `from_turn: 2`: cannot move before."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    from_date: dt.date | None = Field(default=None, alias="from")
    from_turn: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="after")
    def _one_day(self) -> ActivationIn:
        if (self.from_date is None) == (self.from_turn is None):
            raise ValueError("give exactly one of from (a date) or from_turn")
        return self


class HalfMPIn(GroupIn):
    """`{units: [...], dates: [1943-07-05]}`, `turns: [1]` and/or `arrival: true`."""

    dates: Annotated[list[dt.date], BeforeValidator(_none_to_empty_list)] = []
    turns: Annotated[list[Annotated[int, Field(ge=1)]], BeforeValidator(_none_to_empty_list)] = []
    arrival: bool = False

    @model_validator(mode="after")
    def _when(self) -> HalfMPIn:
        if not self.dates and not self.turns and not self.arrival:
            raise ValueError("give dates, turns and/or arrival: true")
        return self


class NoCrossingIn(GroupIn):
    """`{units: [...], hexsides: [[a, b], ...]}` and/or `feature: big-river` (every hexside
    with that feature, within `area` when given)."""

    hexsides: Annotated[list[tuple[HexRef, HexRef]], BeforeValidator(_none_to_empty_list)] = []
    feature: Text | None = None
    area: AreaIn | None = None

    @model_validator(mode="after")
    def _where(self) -> NoCrossingIn:
        if not self.hexsides and self.feature is None:
            raise ValueError("give hexsides: [[a, b], ...] and/or feature (with an area)")
        return self


class WithdrawalIn(Strict):
    """`{side: german, date: 1943-07-12, units: [g-4pz], equivalent: true}`."""

    side: Text
    date: dt.date | None = None
    turn: Annotated[int, Field(ge=1)] | None = None
    units: Annotated[list[Text], Field(min_length=1)]
    equivalent: bool = True
    count: Annotated[int, Field(ge=1)] = 1
    label: Text = ""

    @model_validator(mode="after")
    def _one_day(self) -> WithdrawalIn:
        if (self.date is None) == (self.turn is None):
            raise ValueError("give exactly one of date or turn")
        return self


class SpecialIn(Open):
    """The keys of `special:` the engine enforces; any other key is kept as a note."""

    fronts: Annotated[
        dict[Text, Annotated[AreaIn, BeforeValidator(_none_to_empty_dict)]],
        BeforeValidator(_none_to_empty_dict),
    ] = {}
    activation: Annotated[list[ActivationIn], BeforeValidator(_none_to_empty_list)] = []
    half_mp: Annotated[list[HalfMPIn], BeforeValidator(_none_to_empty_list)] = []
    no_crossing: Annotated[list[NoCrossingIn], BeforeValidator(_none_to_empty_list)] = []
    withdraw: Annotated[list[WithdrawalIn], BeforeValidator(_none_to_empty_list)] = []
    destroyed_bridges: Annotated[
        list[tuple[HexRef, HexRef]], BeforeValidator(_none_to_empty_list)
    ] = []


# --- air (8.0): a scenario's `air:` and tables/air.yaml -----------------------------------
NonNeg = Annotated[int, Field(ge=0)]


def to_turnish(value: object) -> int | dt.date:
    """A turn number (1 or more) or a date of the scenario's calendar (`1944-01-24`)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a turn or a date")
    if isinstance(value, int):
        if value < 1:
            raise ValueError(f"turn {value}: turns are numbered from 1")
        return value
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not a turn number or a date (YYYY-MM-DD)")


Turnish = Annotated[int | dt.date, PlainValidator(to_turnish)]


class AirCounterIn(Strict):
    """An air counter (8.1.1): `sp` as printed (none: 8.1.1 note 2's 5, Soviet 4) and its
    stars (Kursk 21.1.1: white)."""

    id: Annotated[Text, Field(min_length=1)]
    name: Text = ""
    sp: Annotated[int, Field(ge=1)] | None = None
    stars: Annotated[list[Star], BeforeValidator(_none_to_empty_list)] = []


class AirSideIn(Strict):
    """One side's entry under `air:` (docs/rulings.md K78).

    - `sp`: an SP pool per turn to divide freely into missions (8.1.1 note 1): one number
      for every turn, or `{turn or date: SPs}` (turns not listed: `default`, else 0).
      `sp_per_turn` is the same as a single number.
    - `counters`: air counters (8.1.1): a number of counters without printed strength
      (8.1.1 note 2), or a list `{id, sp, stars}`; `fly`: at most so many fly in a turn
      ("any two chosen air counters").
    - `first` / `last`: the first and last turn (or date) with air ("VII 5 - VII 23").
    - `forbid`: missions the scenario forbids the side ("German Player cannot block
      movement of Red Army's forces with his air": `forbid: [disorganize]`).
    - `supply`: true lets the side fly supply missions although its nation is not one of
      8.2.23's (false forbids them)."""

    sp: NonNeg | dict[Turnish, NonNeg] | None = None
    sp_per_turn: NonNeg | None = None
    default: NonNeg | None = None
    counters: NonNeg | list[AirCounterIn] | None = None
    fly: Annotated[int, Field(ge=1)] | None = None
    first: Turnish | None = None
    last: Turnish | None = None
    forbid: Annotated[list[Text], BeforeValidator(_none_to_empty_list)] = []
    supply: bool | None = None


class AirLossIn(Strict):
    from_sp: Annotated[int, Field(ge=1)]
    dice: Annotated[int, Field(ge=1)] = 2
    hits: list[Annotated[int, Field(ge=1)]]


class AirDisorganizeIn(Strict):
    targets: list[Text]
    min_sp: Annotated[int, Field(ge=1)] = 1
    max_sp_per_hex: Annotated[int, Field(ge=1)] | None = None
    radius: NonNeg = 0
    per: Literal["sp", "mission"] = "sp"
    loss: AirLossIn | None = None


class AirWhiteStarIn(Strict):
    cms: NonNeg = 1
    rows: NonNeg = 1


class AirGameIn(Strict):
    disorganize: AirDisorganizeIn | None = None
    river_features: list[Text] = []
    max_counters_per_hex: Annotated[int, Field(ge=1)] | None = None
    white_star: AirWhiteStarIn | None = None


class AirMinDiceIn(Strict):
    min_sp: Annotated[int, Field(ge=1)]
    fail: list[Dice] = []


class AirRiverIn(Strict):
    attacks_per_sp: Annotated[int, Field(ge=1)] = 2
    hits: list[Dice] = []


class AirTableIn(Strict):
    """`tables/air.yaml`: 8.0 as data, the parts that differ per game under `games`."""

    source: Text
    notes: Text = ""
    counter_sp: dict[Text, Annotated[int, Field(ge=1)]]
    no_defensive_support: list[Text] = []
    supply_nations: list[Text] = []
    object_min_sp: Annotated[int, Field(ge=1)] = 4
    supply: AirMinDiceIn
    river: AirRiverIn
    battle_radius: NonNeg = 1
    games: dict[Text, AirGameIn]

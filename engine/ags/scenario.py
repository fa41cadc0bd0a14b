"""An AGS scenario as the engine receives it: map, counters, tables, set-up and the
Korsun rules' parameters (AGS-K 18.0, 19.7, 23.1, 24.2, 26.0; docs/ags.md)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from engine.ags.board import Board
from engine.ags.crt import Crt
from engine.ags.provenance import Provenance
from engine.ags.setup import StartLine
from engine.ags.tec import Tec
from engine.ags.turns import TurnTrack
from engine.ags.units import Side, UnitSpec
from engine.ags.victory import VictoryTable
from engine.hexgrid import HexId


@dataclass(frozen=True)
class Reinforcement:
    side: Side
    turn: int
    area: str
    units: tuple[str, ...]


@dataclass(frozen=True)
class MovementLimit:
    """AGS-K 21.1, 21.2: at the end of a movement phase of these turns, a unit of these
    areas (or set on a printed hex, or of the 2306 group) is within `hexes` of them."""

    turns: tuple[int, ...]
    hexes: int
    areas: tuple[str, ...] = ()
    setup_hexes: bool = False
    group: HexId | None = None


@dataclass(frozen=True)
class Scenario:
    id: str
    name: str
    turns: int
    start: dt.date
    days_per_turn: int
    first_player: Side
    board: Board
    units: dict[str, UnitSpec]
    crt: Crt
    tec: Tec
    track: TurnTrack
    victory: VictoryTable
    german_sources: tuple[HexId, ...]  # AGS-K 19.72
    soviet_edges: tuple[str, ...]  # AGS-K 19.71
    start_line: StartLine
    positions: dict[str, HexId]  # unit id -> hex at set-up
    active_turn_1: tuple[str, ...]  # AGS-K 23.12
    turn_1_choice: int
    supported: tuple[HexId, ...]  # AGS-K 24.2
    supported_removal: dict[int, int | None]  # turn -> markers removed (None: all)
    entry_areas: dict[str, tuple[HexId, ...]]
    reinforcements: tuple[Reinforcement, ...]
    movement_limits: tuple[MovementLimit, ...]
    disengagement_from: int
    air_supply_markers: int
    variable_weather: bool
    provenance: dict[str, Provenance] = field(default_factory=dict)  # per part
    # a league's files in play (issue #19): data part (engine/ags/data.py) -> who supplied it
    supplied_by: dict[str, str] = field(default_factory=dict, compare=False)  # not in the digest

    def date(self, turn: int) -> dt.date:
        return self.start + dt.timedelta(days=self.days_per_turn * (turn - 1))

    def side_units(self, side: Side) -> list[UnitSpec]:
        return [u for u in self.units.values() if u.side == side]

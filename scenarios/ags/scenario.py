"""The AGS scenario file (`scenarios/ags/<id>.yaml`, keys in docs/ags.md) -> an
`engine.ags.scenario.Scenario`: its schema and every check that needs more than one
value (units on the map and on their side of the start line, stacking 7.0, the German
set-up rules AGS-K 18.2x, the Soviet fixed hexes 23.12 and 24.2, the reinforcement types
of 26.1)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from engine.ags.board import Board
from engine.ags.provenance import Provenance
from engine.ags.scenario import MovementLimit, Reinforcement, Scenario
from engine.ags.setup import (
    german_side,
    line_breaks,
    setup_area,
    soviet_side,
    uncovered,
)
from engine.ags.stacking import over_stacked
from engine.ags.units import Side, UnitSpec
from scenarios.ags.counters import REINFORCEMENT_CODES, SETUP_LETTERS, load_counters
from scenarios.ags.maps import load_board, map_file
from scenarios.ags.tables import (
    _Strict,
    load_crt,
    load_tec,
    load_turns,
    load_victory,
    table_file,
)
from scenarios.errors import ScenarioError, validated
from scenarios.overrides import label, locate, read_data, said_by, supplier
from scenarios.schema import HexRef, to_hex

SHIPPED_DIR = Path(__file__).resolve().parent
START_LINE_ENDS = (("0115", "0114"), ("2619", "2719"))  # AGS-K 18.22 (German/Soviet)
# AGS-K 26.1 (printed): unit types per turn and entry area.
SOVIET_REINFORCEMENTS: dict[tuple[int, str], Counter[str]] = {
    (3, "K"): Counter(
        {
            "gd-airborne-division": 2,
            "gd-rifle-division": 1,
            "gd-motorized-rifle-corps": 1,
            "tank-corps": 2,
        }
    ),
    (3, "L"): Counter({"gd-tank-corps": 1}),
    (5, "K"): Counter(
        {
            "gd-rifle-division": 1,
            "gd-tank-brigade": 3,
            "gd-motorized-rifle-brigade": 3,
            "tank-corps": 1,
        }
    ),
}


class Part(_Strict):
    provenance: Provenance
    reason: str


class CalendarIn(_Strict):
    start: dt.date
    days_per_turn: int = Field(ge=1)


class TablesIn(_Strict):
    crt: str
    tec: str
    turns: str
    victory: str


class SupplyIn(_Strict):
    german: dict[Literal["hexes"], list[HexRef]]
    soviet: dict[Literal["edges"], list[Literal["N", "S", "E", "W"]]]


class StartLineIn(Part):
    segments: dict[str, list[str]]


class PlacedIn(Part):
    units: dict[str, HexRef]


class SetupIn(_Strict):
    german: PlacedIn
    soviet: PlacedIn


class HqIn(_Strict):
    active_turn_1: list[str]
    turn_1_choice: int = Field(ge=0)
    fixed_hexes: dict[str, HexRef]


class SupportedIn(_Strict):
    hexes: list[HexRef]
    remove: dict[int, int | Literal["all"]]


class AreaIn(_Strict):
    edge: Literal["N", "S", "E", "W"]
    cols: tuple[int, int] | None = None
    rows: tuple[int, int] | None = None


class EntryAreasIn(Part):
    areas: dict[str, AreaIn]


class ReinforcementIn(_Strict):
    side: Side
    turn: int = Field(ge=1)
    area: str
    units: list[str] = Field(min_length=1)


class LimitIn(_Strict):
    turns: list[int]
    hexes: int = Field(ge=0)
    areas: list[str] = Field(default_factory=list)
    setup_hexes: bool = False
    group: HexRef | None = None


class SpecialIn(_Strict):
    german_movement_limits: list[LimitIn]
    disengagement_from_turn: int = Field(ge=1)
    air_supply_markers: int = Field(ge=0)
    variable_weather: bool = False


class ScenarioIn(_Strict):
    # a league's scenario file says it is the league's (scenarios/overrides.py)
    provenance: Provenance | None = None
    supplied_by: str = ""
    source: str = ""
    id: str
    name: str
    system: Literal["ags"]
    game: Literal["korsun"]
    turns: int = Field(ge=1)
    first_player: Side
    calendar: CalendarIn
    map: str
    counters: str
    tables: TablesIn
    supply: SupplyIn
    start_line: StartLineIn
    setup: SetupIn
    hq: HqIn
    supported: SupportedIn
    entry_areas: EntryAreasIn
    reinforcements: list[ReinforcementIn]
    special: SpecialIn


def _fail(file: str, key: str, problem: str) -> ScenarioError:
    return ScenarioError(file, key, problem)


def scenario_from(data: Any, file: str) -> Scenario:
    s = validated(ScenarioIn, data, file)
    files = {
        "map": map_file(s.map, file=file, key="map"),
        "counters": table_file(f"{s.counters}-counters", file, "counters"),
        **{k: table_file(getattr(s.tables, k), file, f"tables.{k}") for k in TABLES},
    }
    board = load_board(s.map)
    units = load_counters(files["counters"])
    track = load_turns(files["turns"])
    if s.turns != track.last:
        raise _fail(file, "turns", f"is {s.turns}, the turn track has {track.last}")
    line = _start_line(s, board, file)
    positions = _positions(s, board, units, file)
    _check_german_setup(s, board, units, line, positions, file)
    _check_soviet_setup(s, units, line, positions, file)
    over = over_stacked(units, positions)
    if over:
        raise _fail(file, "setup", f"over-stacked (AGS 7.0, 18.25): {', '.join(over)}")
    entry = _entry_areas(s, board, file)
    reinf = _reinforcements(s, units, positions, entry, file)
    for h in s.supply.german["hexes"]:
        if not board.grid.contains(h):
            raise _fail(file, "supply.german", f"{h} is not on the map")
    return Scenario(
        id=s.id,
        name=s.name,
        turns=s.turns,
        start=s.calendar.start,
        days_per_turn=s.calendar.days_per_turn,
        first_player=s.first_player,
        board=board,
        units=units,
        crt=load_crt(files["crt"]),
        tec=load_tec(files["tec"]),
        track=track,
        victory=load_victory(files["victory"]),
        german_sources=tuple(s.supply.german["hexes"]),
        soviet_edges=tuple(s.supply.soviet["edges"]),
        start_line=line,
        positions=positions,
        active_turn_1=tuple(s.hq.active_turn_1),
        turn_1_choice=s.hq.turn_1_choice,
        supported=tuple(s.supported.hexes),
        supported_removal={t: None if n == "all" else n for t, n in s.supported.remove.items()},
        entry_areas=entry,
        reinforcements=reinf,
        movement_limits=tuple(
            MovementLimit(
                turns=tuple(m.turns),
                hexes=m.hexes,
                areas=tuple(m.areas),
                setup_hexes=m.setup_hexes,
                group=m.group,
            )
            for m in s.special.german_movement_limits
        ),
        disengagement_from=s.special.disengagement_from_turn,
        air_supply_markers=s.special.air_supply_markers,
        variable_weather=s.special.variable_weather,
        provenance={
            "map": board.provenance,
            "start_line": s.start_line.provenance,
            "german_setup": s.setup.german.provenance,
            "soviet_setup": s.setup.soviet.provenance,
            "entry_areas": s.entry_areas.provenance,
        },
        supplied_by=_suppliers(files, s),
    )


TABLES = ("crt", "tec", "turns", "victory")


def _suppliers(files: dict[str, Path], s: ScenarioIn) -> dict[str, str]:
    """Who supplied each league's file in play (the scenario's own `supplied_by` when it
    is a league's file: it says so only then, scenarios/overrides.py)."""
    out = {part: who for part, p in files.items() if (who := supplier(p))}
    if s.provenance == "league-supplied" and s.supplied_by.strip():
        out["scenario"] = said_by(s.supplied_by)
    return out


def _start_line(s: ScenarioIn, board: Board, file: str) -> dict[str, tuple[tuple[str, str], ...]]:
    if list(s.start_line.segments) != list(SETUP_LETTERS):
        raise _fail(file, "start_line.segments", "needs the areas A, B, C, D, E in order")
    line: dict[str, tuple[tuple[str, str], ...]] = {}
    for letter, sides in s.start_line.segments.items():
        out = []
        for i, text in enumerate(sides):
            parts = text.split("/")
            if len(parts) != 2:
                raise _fail(file, f"start_line.segments.{letter}[{i}]", "write German/Soviet")
            try:
                g, so = (to_hex(p) for p in parts)
            except ValueError as e:
                raise _fail(file, f"start_line.segments.{letter}[{i}]", str(e)) from None
            if not (board.grid.contains(g) and board.grid.contains(so)):
                raise _fail(file, f"start_line.segments.{letter}[{i}]", "is not on the map")
            out.append((g, so))
        line[letter] = tuple(out)
    breaks = line_breaks(board.grid, line)
    if breaks:
        raise _fail(file, "start_line", breaks[0])
    chain = [x for letter in line for x in line[letter]]
    if (chain[0], chain[-1]) != START_LINE_ENDS:
        raise _fail(file, "start_line", "must run from 0114/0115 to 2719/2619 (AGS-K 18.22)")
    both = german_side(line) & soviet_side(line)
    if both:
        raise _fail(file, "start_line", f"{sorted(both)[0]} is on both sides of the line")
    return line


def _positions(
    s: ScenarioIn, board: Board, units: dict[str, UnitSpec], file: str
) -> dict[str, str]:
    out: dict[str, str] = {}
    for side, placed in (("german", s.setup.german), ("soviet", s.setup.soviet)):
        for uid, h in placed.units.items():
            key = f"setup.{side}.units.{uid}"
            u = units.get(uid)
            if u is None:
                raise _fail(file, key, "no such unit on the counter sheet")
            if u.side != side:
                raise _fail(file, key, f"is a {u.side} unit")
            if not board.grid.contains(h):
                raise _fail(file, key, f"{h} is not on the map")
            if board.blocked(h):
                raise _fail(file, key, f"{h} is impassable (AGS-K 19.25)")
            out[uid] = h
    return out


def _check_german_setup(
    s: ScenarioIn,
    board: Board,
    units: dict[str, UnitSpec],
    line: dict[str, tuple[tuple[str, str], ...]],
    positions: dict[str, str],
    file: str,
) -> None:
    german = [u for u in units.values() if u.side == "german"]
    set_up = [u for u in german if u.setup not in REINFORCEMENT_CODES]
    missing = [u.id for u in set_up if u.id not in positions]
    if missing:
        raise _fail(file, "setup.german", f"{missing[0]} is not placed (58 units, AGS-K 18.26)")
    for u in german:
        key = f"setup.german.units.{u.id}"
        h = positions.get(u.id)
        if h is None:
            continue
        if u.setup in REINFORCEMENT_CODES:
            raise _fail(file, key, f"arrives on turn 6 ({u.setup}, AGS-K 26.2)")
        if u.setup in SETUP_LETTERS:
            if h not in setup_area(board, line, u.setup):
                raise _fail(file, key, f"{h} is not in set-up area {u.setup} (AGS-K 18.22)")
        elif u.setup == "2306":
            if board.grid.distance(h, "2306") > 3:
                raise _fail(file, key, f"{h} is more than three hexes from 2306 (AGS-K 18.21)")
        elif h != u.setup:
            raise _fail(file, key, f"must set up in {u.setup} (AGS-K 18.21)")
        if h in soviet_side(line):
            raise _fail(file, key, f"{h} is on the Soviet side of the start line (AGS-K 18.23)")
    for letter in SETUP_LETTERS:
        mine = [positions[u.id] for u in german if u.setup == letter and u.id in positions]
        gaps = uncovered(board, line, letter, mine)
        if gaps:
            raise _fail(
                file,
                "setup.german",
                f"{gaps[0]} borders area {letter}'s start line with no unit of {letter} "
                "in it or next to it (AGS-K 18.24)",
            )


def _check_soviet_setup(
    s: ScenarioIn,
    units: dict[str, UnitSpec],
    line: dict[str, tuple[tuple[str, str], ...]],
    positions: dict[str, str],
    file: str,
) -> None:
    soviet = [u for u in units.values() if u.side == "soviet"]
    placed = [u for u in soviet if u.id in positions]
    hqs = sum(u.is_hq for u in placed)
    if (len(placed) - hqs, hqs) != (40, 8):
        raise _fail(
            file,
            "setup.soviet",
            f"places {len(placed) - hqs} combat units and {hqs} HQs; "
            "the text implies 40 and 8 (AGS-K 18.16, 26.1)",
        )
    for uid, h in s.hq.fixed_hexes.items():
        if positions.get(uid) != h:
            raise _fail(file, f"hq.fixed_hexes.{uid}", f"must set up in {h} (AGS-K 23.12)")
    by_hex: dict[str, list[UnitSpec]] = {}
    for u in placed:
        by_hex.setdefault(positions[u.id], []).append(u)
    for h in s.supported.hexes:
        if not any(u.is_corps for u in by_hex.get(h, [])):
            raise _fail(file, "supported.hexes", f"no corps sets up in {h} (AGS-K 24.2)")
    for u in placed:
        if positions[u.id] in german_side(line):
            raise _fail(
                file, f"setup.soviet.units.{u.id}", "stands on the German side of the start line"
            )


def _entry_areas(s: ScenarioIn, board: Board, file: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for letter, a in s.entry_areas.areas.items():
        hexes = []
        for h in board.edge(a.edge):
            c, r = int(h[:2]), int(h[2:])
            if a.cols and not a.cols[0] <= c <= a.cols[1]:
                continue
            if a.rows and not a.rows[0] <= r <= a.rows[1]:
                continue
            if not board.blocked(h):
                hexes.append(h)
        if not hexes:
            raise _fail(file, f"entry_areas.areas.{letter}", "has no hex on the map")
        out[letter] = tuple(hexes)
    return out


def _reinforcements(
    s: ScenarioIn,
    units: dict[str, UnitSpec],
    positions: dict[str, str],
    entry: dict[str, tuple[str, ...]],
    file: str,
) -> tuple[Reinforcement, ...]:
    out = []
    seen: set[str] = set()
    for i, r in enumerate(s.reinforcements):
        key = f"reinforcements[{i}]"
        if r.area not in entry:
            raise _fail(file, f"{key}.area", f"no entry area {r.area!r}")
        for uid in r.units:
            u = units.get(uid)
            if u is None or u.side != r.side:
                raise _fail(file, f"{key}.units", f"{uid} is not a {r.side} unit")
            if uid in positions or uid in seen:
                raise _fail(file, f"{key}.units", f"{uid} is already in play")
            if r.side == "german" and u.setup != f"{r.turn}{r.area}":
                raise _fail(file, f"{key}.units", f"{uid} is coded {u.setup} (AGS-K 26.2)")
            seen.add(uid)
        if r.side == "soviet":
            want = SOVIET_REINFORCEMENTS.get((r.turn, r.area))
            got = Counter(units[uid].type for uid in r.units)
            if want != got:
                raise _fail(
                    file, key, f"turn {r.turn} area {r.area} brings {dict(want or {})} (AGS-K 26.1)"
                )
        out.append(Reinforcement(r.side, r.turn, r.area, tuple(r.units)))
    left = [u.id for u in units.values() if u.id not in positions and u.id not in seen]
    if left:
        raise _fail(file, "reinforcements", f"{left[0]} neither sets up nor arrives")
    return tuple(out)


def load_scenario(path: Path | str | None = None) -> Scenario:
    p = locate("ags/ags-korsun.yaml") if path is None else Path(path)
    return scenario_from(read_data(p), label(p))

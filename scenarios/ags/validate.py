"""`kessel validate` for AGS scenarios and maps (scenarios/validate.py dispatches on the
scenario's `system:` and the map's `game: ags`): every check of the AGS loaders
(scenarios/ags/scenario.py: what the text prints -- set-up areas, start line, counts,
stacking, HQ and supported hexes, reinforcements; scenarios/ags/maps.py: terrain, rivers
and roads on the TEC), then the map checks that fit AGS, each reported, not only the
first:

- a road that stops in the open: its last hex neither a named place, nor a map edge, nor
  a bank of the Dniepr's river hexes (AGS-K 19.25: roads of Kanev and Cherkassy end on
  their bank hexes); roads cross rivers in AGS (19.22), so no bridge is asked for;
- a road or a German supply hex (19.72) in a Dniepr river hex, a name off the map (a
  place may stand in a river hex: the Dniepr fills hexes whose banks hold villages);
- the Dniepr's river hexes not one chain of adjacent hexes from 2907 to 3911 (19.25);
- a unit set up in a Dniepr river hex.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.ags.board import Board
from engine.hexgrid import HexId
from scenarios.ags.maps import board_from, load_board
from scenarios.errors import ScenarioError

DNIEPR_ENDS = ("2907", "3911")  # AGS-K 19.25


def scenario_problems(data: dict[str, Any], path: Path) -> list[str]:
    from scenarios.ags.scenario import scenario_from

    file = str(path)
    try:
        sc = scenario_from(data, file)
    except ScenarioError as e:
        out = [str(e)]
        board = _board_of(data, file)
        return out + ([] if board is None else map_checks(board, file))
    out = map_checks(sc.board, file)
    for uid, h in sorted(sc.positions.items()):
        if sc.board.blocked(h):
            out.append(f"{file}: setup: {uid} is set up in {h}, a Dniepr river hex (AGS-K 19.25)")
    for h in sc.german_sources:
        if sc.board.blocked(h):
            out.append(f"{file}: supply.german: {h} is a Dniepr river hex (AGS-K 19.25, 19.72)")
    return out


def map_problems(data: dict[str, Any], file: str) -> list[str]:
    try:
        board = board_from(data, file)
    except ScenarioError as e:
        return [str(e)]
    return map_checks(board, file)


def _board_of(data: dict[str, Any], file: str) -> Board | None:
    ref = data.get("map")
    if not isinstance(ref, str):
        return None
    try:
        return load_board(ref)
    except ScenarioError:
        return None


def map_checks(b: Board, file: str) -> list[str]:
    out: list[str] = []
    grid = b.grid
    degree: dict[HexId, int] = {}
    for a, c in b.roads:
        for h in (a, c):
            degree[h] = degree.get(h, 0) + 1
            if b.blocked(h):
                out.append(f"{file}: roads: a road enters {h}, a Dniepr river hex (AGS-K 19.25)")
    edge = {h for name in ("N", "S", "E", "W") for h in b.edge(name)}
    for h, n in sorted(degree.items()):
        bank = any(b.blocked(x) for x in grid.neighbours(h))
        if n == 1 and h not in edge and h not in b.names and not bank:
            out.append(
                f"{file}: roads: a road stops at {h}, neither at a named place, a map edge nor "
                "a bank of the Dniepr (a broken road?)"
            )
    for h, name in sorted(b.names.items()):
        if not grid.contains(h):
            out.append(f"{file}: names.{h}: {name} is not on the map")
    out += _dniepr(b, file)
    return out


def _dniepr(b: Board, file: str) -> list[str]:
    """AGS-K 19.25: the Dniepr fills each hex between 2907 and 3911, one chain."""
    river = {h for h in b.hexes() if b.terrain_at(h) == "dnieper"}
    if not river:
        return []
    missing = [h for h in DNIEPR_ENDS if h not in river]
    if missing:
        return [
            f"{file}: terrain: the Dniepr's river hexes must run from 2907 to 3911 "
            f"(AGS-K 19.25); {', '.join(missing)} is not one"
        ]
    seen = {DNIEPR_ENDS[0]}
    todo = [DNIEPR_ENDS[0]]
    while todo:
        h = todo.pop()
        for x in b.grid.neighbours(h):
            if x in river and x not in seen:
                seen.add(x)
                todo.append(x)
    if DNIEPR_ENDS[1] not in seen or seen != river:
        apart = sorted(river - seen)
        return [
            f"{file}: terrain: the Dniepr's river hexes are not one chain from 2907 to 3911 "
            f"(AGS-K 19.25){': apart: ' + ', '.join(apart) if apart else ''}"
        ]
    return []

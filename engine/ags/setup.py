"""Setting up (AGS-K 18.0) and the German movement radii of turns 1-3 (AGS-K 21.1, 21.2).

The start line is a chain of hexsides from 0114/0115 to 2719/2619 (AGS-K 18.22), each
written German hex / Soviet hex and labelled with its set-up area's letter. A set-up area
is every German-side hex with a hexside on its stretch of the line, and every hex adjacent
to one on the German side (AGS-K 18.22, 18.23)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

from engine.ags.board import Board
from engine.ags.zoc import zoc_neighbours
from engine.hexgrid import Grid, HexId

LineSide = tuple[HexId, HexId]  # (German hex, Soviet hex)
StartLine = Mapping[str, tuple[LineSide, ...]]  # letter -> its hexsides, in order


def line_breaks(grid: Grid, line: StartLine) -> list[str]:
    """Why the start line is not one chain of adjacent hexsides meeting at corners
    (empty if it is)."""
    out: list[str] = []
    sides = [s for letter in line for s in line[letter]]
    for g, s in sides:
        if not grid.adjacent(g, s):
            out.append(f"{g}/{s} is not a hexside (the hexes are not adjacent)")
    for a, b in itertools.pairwise(sides):
        common = set(a) & set(b)
        rest = set(a) ^ set(b)
        if len(common) != 1 or len(rest) != 2 or not grid.adjacent(*sorted(rest)):
            out.append(f"{a[0]}/{a[1]} and {b[0]}/{b[1]} do not meet at a corner")
    return out


def german_side(line: StartLine) -> set[HexId]:
    return {g for letter in line for g, _ in line[letter]}


def soviet_side(line: StartLine) -> set[HexId]:
    return {s for letter in line for _, s in line[letter]}


def border_hexes(line: StartLine, letter: str) -> list[HexId]:
    """German-side hexes with a hexside on the letter's stretch (AGS-K 18.24)."""
    return list(dict.fromkeys(g for g, _ in line[letter]))


def setup_area(board: Board, line: StartLine, letter: str) -> set[HexId]:
    """AGS-K 18.22, 18.23: the border hexes and the hexes adjacent to them on the German
    side (not a Soviet-side hex of the line, not across a start-line hexside, not a
    blocked hex such as the Dniepr's, AGS-K 19.25)."""
    across = {frozenset(s) for lt in line for s in line[lt]}
    soviet = soviet_side(line)
    border = border_hexes(line, letter)
    out = set(border)
    for h in border:
        for n in board.grid.neighbours(h):
            if n in soviet or frozenset((h, n)) in across:
                continue
            if board.terrain_at(n) == "dnieper":
                continue
            out.add(n)
    return out


def uncovered(
    board: Board, line: StartLine, letter: str, positions: Iterable[HexId]
) -> list[HexId]:
    """AGS-K 18.24: border hexes of the letter neither occupied by nor in the ZOC of a
    unit of that letter (ZOCs do not cross major rivers, AGS 8.12)."""
    held = set(positions)
    covered = set(held)
    for h in held:
        covered |= set(zoc_neighbours(board, h))
    return [h for h in border_hexes(line, letter) if h not in covered]


def distance_to_area(board: Board, line: StartLine, letter: str, h: HexId) -> int:
    """Hexes from h to the nearest hex bordering the letter's stretch, counted
    regardless of units and ZOCs (AGS-K 21.11, 21.14)."""
    return min(board.grid.distance(h, b) for b in border_hexes(line, letter))

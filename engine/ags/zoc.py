"""Zones of control (AGS 8.0; AGS-K 19.22, 19.25).

Every unit, HQs included (AGS 11.35), disrupted or not (AGS 6.32), controls the six hexes
around it, except across a major river hexside -- even where a road crosses it (AGS 8.12,
AGS-K 19.22) -- and into or out of the Dniepr's river hexes, which block every function
(AGS-K 19.25)."""

from __future__ import annotations

from collections.abc import Iterable

from engine.ags.board import Board
from engine.hexgrid import HexId

BLOCKING_TERRAIN = frozenset({"dnieper", "sea"})


def zoc_neighbours(board: Board, h: HexId) -> list[HexId]:
    """The hexes a unit in h controls (AGS 8.12)."""
    if board.terrain_at(h) in BLOCKING_TERRAIN:
        return []
    return [
        n
        for n in board.grid.neighbours(h)
        if board.feature(h, n) != "major-river" and board.terrain_at(n) not in BLOCKING_TERRAIN
    ]


def controlled(board: Board, enemy_hexes: Iterable[HexId]) -> set[HexId]:
    """Every hex in the ZOC of the enemy units at `enemy_hexes` ("Enemy-controlled",
    AGS 8.0)."""
    out: set[HexId] = set()
    for h in enemy_hexes:
        out.update(zoc_neighbours(board, h))
    return out

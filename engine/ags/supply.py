"""Supply (AGS 12.0, 11.3; AGS-K 19.7, 25.1; A2, A11; K120).

A line of supply is a path of adjacent hexes of any length, through no enemy unit and no
enemy-controlled hex unless a friendly unit is in it (AGS 12.1, 8.25), into but not
through swamp (AGS 12.11, K120), never through the Dniepr's hexes (AGS-K 19.25). German
lines run to 0117, 0626, 1726, 2226 and cross major rivers (AGS-K 19.72); a Soviet unit
needs a line of communications no longer than its HQ's leadership rating to an HQ in
supply (AGS 11.31: the HQ's hex not counted, the unit's is; major rivers do not matter),
and the HQ a line to the north or east edge that crosses a major river only along a road
(AGS-K 19.71)."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable

from engine.ags.board import Board
from engine.hexgrid import HexId


def _open(
    board: Board,
    h: HexId,
    enemy: Collection[HexId],
    ezoc: Collection[HexId],
    friends: Collection[HexId],
) -> bool:
    if board.blocked(h) or h in enemy:
        return False
    return h not in ezoc or h in friends


def traces(
    board: Board,
    start: HexId,
    targets: Iterable[HexId],
    *,
    enemy: Collection[HexId],
    ezoc: Collection[HexId],
    friends: Collection[HexId],
    soviet_rivers: bool = False,
    max_len: int | None = None,
    swamp_stops: bool = True,
) -> bool:
    """Whether a line runs from `start` to one of `targets` (AGS 12.1). `soviet_rivers`:
    a major river hexside only along a road (AGS-K 19.71); `max_len`: a line of
    communications of at most that many hexes, the start (the HQ) not counted (AGS 11.31).
    The start hex itself is not tested: it is where the line begins."""
    goal = set(targets)
    if start in goal:
        return True
    seen = {start: 0}
    todo: deque[HexId] = deque([start])
    while todo:
        h = todo.popleft()
        if swamp_stops and h != start and board.terrain_at(h) == "swamp":
            continue  # K120: a swamp hex ends the line
        for n in board.grid.neighbours(h):
            if n in seen or not _open(board, n, enemy, ezoc, friends):
                continue
            if soviet_rivers and board.feature(h, n) == "major-river" and not board.road(h, n):
                continue
            d = seen[h] + 1
            if max_len is not None and d > max_len:
                continue
            if n in goal:
                return True
            seen[n] = d
            todo.append(n)
    return False


def german_in_supply(
    board: Board,
    unit_hex: HexId,
    sources: Iterable[HexId],
    *,
    enemy: Collection[HexId],
    ezoc: Collection[HexId],
    friends: Collection[HexId],
) -> bool:
    """AGS-K 19.72 (A2: major rivers never block it)."""
    open_sources = [s for s in sources if _open(board, s, enemy, ezoc, friends)]
    return traces(board, unit_hex, open_sources, enemy=enemy, ezoc=ezoc, friends=friends)


def soviet_hq_in_supply(
    board: Board,
    hq_hex: HexId,
    edges: Iterable[str],
    *,
    enemy: Collection[HexId],
    ezoc: Collection[HexId],
    friends: Collection[HexId],
) -> bool:
    """AGS-K 19.71: any length to a hex of the north or east edge."""
    goal = [h for e in edges for h in board.edge(e) if _open(board, h, enemy, ezoc, friends)]
    return traces(board, hq_hex, goal, enemy=enemy, ezoc=ezoc, friends=friends, soviet_rivers=True)


def in_command(
    board: Board,
    unit_hex: HexId,
    hq_hex: HexId,
    leadership: int,
    *,
    enemy: Collection[HexId],
    ezoc: Collection[HexId],
    friends: Collection[HexId],
) -> bool:
    """AGS 11.31: a line of communications from the HQ to the unit, at most `leadership`
    hexes, the HQ's hex not counted and the unit's counted; through any traversable
    terrain (swamp too), major rivers no bar (AGS-K 19.71)."""
    return traces(
        board,
        hq_hex,
        [unit_hex],
        enemy=enemy,
        ezoc=ezoc,
        friends=friends,
        max_len=leadership,
        swamp_stops=False,
    )


def isolated(board: Board, unit_hex: HexId, supplied_german: Iterable[HexId]) -> bool:
    """AGS-K 25.1, 25.14: out of supply and more than three hexes from the nearest
    supplied German unit, counting its hex but not the unit's, ignoring enemy units and
    ZOCs (call it for units out of supply)."""
    return all(board.grid.distance(unit_hex, h) > 3 for h in supplied_german)

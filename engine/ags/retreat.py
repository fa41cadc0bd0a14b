"""Retreat paths (AGS 9.7; AGS-K 19.25, 24.12; A36; K140), a retreat off the map (9.71,
A42) and the path of retreat an advance may follow (AGS 9.8)."""

from __future__ import annotations

from engine.ags import game, stacking
from engine.hexgrid import HexId
from engine.state import GameState, UnitState


def _stack_ok(state: GameState, u: UnitState, h: HexId, moving: set[str]) -> bool:
    here = [game.spec(state, x.id) for x in state.units_at(h) if x.id not in moving]
    return stacking.stack_problem([*here, game.spec(state, u.id)]) is None


def legal_paths(
    state: GameState, u: UnitState, n: int, origin: HexId, forbidden: frozenset[HexId] = frozenset()
) -> list[tuple[HexId, ...]]:
    """Every path of `n` hexes by which `u` may retreat from `origin` (9.71: never into
    an enemy unit, nor an enemy-controlled hex unless a friendly combat unit is there,
    8.25; 9.73: each hex one further from the origin; 9.74: stacking on the way and at
    the end, and vacant hexes if any path of vacant hexes exists; 9.77: an attacker not
    into hexes enemy-held or -controlled during the combat; 9.78: across a major river
    only if no other path exists)."""
    b = game.board(state)
    foes = game.hexes_of(state, game.enemy(u.side))
    ezoc = game.enemy_zoc(state, u.side)
    moving = {u.id}
    friends = {
        x.hex for x in state.on_map(u.side) if x.id != u.id and not game.spec(state, x.id).is_hq
    }
    out: list[tuple[HexId, ...]] = []

    def walk(path: tuple[HexId, ...]) -> None:
        h = path[-1]
        if len(path) == n + 1:
            out.append(path[1:])
            return
        for m in b.grid.neighbours(h):
            if b.blocked(m) or m in foes or m in forbidden or m in path:
                continue
            if b.grid.distance(origin, m) != len(path):
                continue
            if m in ezoc and m not in friends:
                continue
            if not _stack_ok(state, u, m, moving):
                continue
            walk((*path, m))

    walk((origin,))
    if not out:
        return out
    dry = [p for p in out if not _crosses_major(state, origin, p)]
    out = dry or out  # 9.78
    vacant = [p for p in out if all(not state.units_at(h) for h in p)]
    return vacant or out  # 9.74


def leaves_map(
    state: GameState, u: UnitState, n: int, origin: HexId, forbidden: frozenset[HexId] = frozenset()
) -> bool:
    """A42 (9.71): whether `u` could retreat off the map -- a legal start of a retreat
    (the same conditions as `legal_paths`) reaching a hex on the map's edge within n - 1
    hexes, the next hex of the retreat being off the map and one further from the origin."""
    b = game.board(state)
    foes = game.hexes_of(state, game.enemy(u.side))
    ezoc = game.enemy_zoc(state, u.side)
    friends = {
        x.hex for x in state.on_map(u.side) if x.id != u.id and not game.spec(state, x.id).is_hq
    }
    grid = b.grid

    def off_map_from(h: HexId, k: int) -> bool:
        return any(
            not grid.contains(m) and grid.distance(origin, m) == k + 1
            for m in grid.neighbours_unbounded(h)
        )

    todo: list[tuple[HexId, ...]] = [(origin,)]
    while todo:
        path = todo.pop()
        k = len(path) - 1
        if off_map_from(path[-1], k):
            return True
        if k + 1 >= n:
            continue
        for m in grid.neighbours(path[-1]):
            if b.blocked(m) or m in foes or m in forbidden or m in path:
                continue
            if grid.distance(origin, m) != k + 1 or (m in ezoc and m not in friends):
                continue
            if _stack_ok(state, u, m, {u.id}):
                todo.append((*path, m))
    return False


def _crosses_major(state: GameState, origin: HexId, path: tuple[HexId, ...]) -> bool:
    b = game.board(state)
    prev = origin
    for h in path:
        if b.feature(prev, h) == "major-river":
            return True
        prev = h
    return False

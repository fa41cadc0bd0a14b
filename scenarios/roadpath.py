"""Roads that keep to one bank (docs/maps.md, "Bridges"): a route's straight lines between
its towns become a chain of hexes that follows the line but crosses a river hexside only
where it must, so a road traced along a valley does not zigzag over the river.

A printed map of this scale puts a road on one bank and bridges it where the real road
crosses; a rasterised straight line instead crosses the river's hexsides every time the
two lines wander across each other (issue #18: 25 bridges on the Ros between Boguslav and
Korsun). Between two consecutive anchors of a rasterised chain (its ends and the hexes of
the route's towns) the road is the cheapest path where a step costs 1, plus the square of
how far (in hexes) the hex lies from the route's line, plus CROSSING for a river hexside
(UNBRIDGEABLE for a river that is never bridged). So a road crosses a river as often as
its towns' banks demand, near where its line does, and every crossing left is a bridge.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Mapping, Sequence

from engine.hexgrid import Grid, HexId, Hexside, hexside, parse_hex

Point = tuple[float, float]
CROSSING = 10.0  # a detour of up to ~10 hexes half a hex off the line beats a crossing
UNBRIDGEABLE = 1000.0
CORRIDOR = 3.5  # hexes: how far from its line a road may wander


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / n))
    return math.dist(p, (ax + t * dx, ay + t * dy))


def line_distance(p: Point, line: Sequence[Point]) -> float:
    """Distance from p to a polyline (plane units = hexes)."""
    if len(line) == 1:
        return math.dist(p, line[0])
    return min(_seg_dist(p, a, b) for a, b in itertools.pairwise(line))


def keep_to_banks(
    chain: list[HexId],
    anchors: set[HexId],
    line: Sequence[Point],
    grid: Grid,
    centre: Callable[[HexId], Point],
    water: Mapping[Hexside, str],
    no_bridge: set[Hexside],
) -> list[HexId]:
    """The chain re-traced between its anchors (its ends and the `anchors` it passes)."""
    stops = [i for i, h in enumerate(chain) if i in (0, len(chain) - 1) or h in anchors]
    out: list[HexId] = [chain[0]]
    for i, j in itertools.pairwise(stops):
        if j - i < 1:
            continue
        path = _cheapest(chain[i], chain[j], line, grid, centre, water, no_bridge)
        out.extend(path[1:] if path else chain[i + 1 : j + 1])
    return out


def _cheapest(
    start: HexId,
    goal: HexId,
    line: Sequence[Point],
    grid: Grid,
    centre: Callable[[HexId], Point],
    water: Mapping[Hexside, str],
    no_bridge: set[Hexside],
) -> list[HexId] | None:
    near: dict[HexId, float] = {}

    def off(h: HexId) -> float:
        if h not in near:
            near[h] = line_distance(centre(h), line)
        return near[h]

    best: dict[HexId, float] = {start: 0.0}
    came: dict[HexId, HexId] = {}
    heap: list[tuple[float, tuple[int, int], HexId]] = [(0.0, parse_hex(start), start)]
    while heap:
        cost, _, h = heapq.heappop(heap)
        if h == goal:
            path = [h]
            while path[-1] != start:
                path.append(came[path[-1]])
            return path[::-1]
        if cost > best.get(h, math.inf):
            continue
        for n in grid.neighbours(h):
            d = off(n)
            if d > CORRIDOR and n != goal:
                continue
            side = hexside(h, n)
            step = 1.0 + d * d
            if side in water:
                step += UNBRIDGEABLE if side in no_bridge else CROSSING
            c = cost + step
            if c < best.get(n, math.inf):
                best[n] = c
                came[n] = h
                heapq.heappush(heap, (c, parse_hex(n), n))
    return None

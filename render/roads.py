"""Roads and railways as smooth lines (#18, item 10). A road is stored as hexsides between
hex centres; drawn straight from centre to centre, a road that runs along a row zigzags
(the hex columns alternate half a hex up and down). Here each road kind is cut into
chains between its junctions and ends, smoothed (junctions and ends stay on their hex
centres), and a railway that shares hexsides with a road is drawn beside it, offset."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from PIL import ImageDraw

from engine.hexgrid import HexId
from engine.model import MapData
from render import style
from render.geometry import Geom, Point

RAIL_OFFSET = 0.16  # hex radii between a railway and the road on the same hexsides


def chains(m: MapData, kind: str) -> list[list[HexId]]:
    """The roads of one kind as hex paths that meet only at their ends (a loop is a path
    whose first and last hex are the same)."""
    adj: dict[HexId, list[HexId]] = {}
    for (a, b), kinds in sorted(m.roads.items()):
        if kind in kinds:
            adj.setdefault(a, []).append(b)
            adj.setdefault(b, []).append(a)
    seen: set[frozenset[HexId]] = set()
    out: list[list[HexId]] = []

    def walk(start: HexId, nxt: HexId) -> list[HexId]:
        path = [start, nxt]
        seen.add(frozenset((start, nxt)))
        while len(adj[path[-1]]) == 2:
            cand = [n for n in adj[path[-1]] if frozenset((path[-1], n)) not in seen]
            if not cand:
                break
            seen.add(frozenset((path[-1], cand[0])))
            path.append(cand[0])
        return path

    for h in sorted(adj):  # from every junction and end first, then what is left (loops)
        if len(adj[h]) != 2:
            out += [walk(h, n) for n in adj[h] if frozenset((h, n)) not in seen]
    for h in sorted(adj):
        out += [walk(h, n) for n in adj[h] if frozenset((h, n)) not in seen]
    return out


def smooth(pts: Sequence[Point], passes: int = 2) -> list[Point]:
    """Averaging passes (which take out the column-to-column zigzag) and a corner cut
    (Chaikin), the two ends kept where they are."""
    p = list(pts)
    if len(p) < 3:
        return p
    for _ in range(passes):
        p = [
            p[0],
            *(
                (0.25 * a[0] + 0.5 * b[0] + 0.25 * c[0], 0.25 * a[1] + 0.5 * b[1] + 0.25 * c[1])
                for a, b, c in zip(p, p[1:], p[2:], strict=False)
            ),
            p[-1],
        ]
    cut = [p[0]]
    for a, b in itertools.pairwise(p):
        cut += [(0.75 * a[0] + 0.25 * b[0], 0.75 * a[1] + 0.25 * b[1])]
        cut += [(0.25 * a[0] + 0.75 * b[0], 0.25 * a[1] + 0.75 * b[1])]
    return [*cut, p[-1]]


def _beside_roads(g: Geom, m: MapData, path: Sequence[HexId]) -> list[Point]:
    """A railway's hex centres, moved off the roads it shares hexsides with (each point
    by the mean of the left-hand normals of its shared segments)."""
    pts = [g.center(h) for h in path]
    off = RAIL_OFFSET * g.r
    normals: list[Point | None] = []
    for (a, b), (p, q) in zip(itertools.pairwise(path), itertools.pairwise(pts), strict=False):
        if m.road_kinds(a, b) & {"main", "side"}:
            dx, dy = q[0] - p[0], q[1] - p[1]
            n = math.hypot(dx, dy) or 1.0
            normals.append((-dy / n * off, dx / n * off))
        else:
            normals.append(None)
    out = []
    for i, (x, y) in enumerate(pts):
        near = [v for v in normals[max(0, i - 1) : i + 1] if v is not None]
        if near:
            x += sum(v[0] for v in near) / len(near)
            y += sum(v[1] for v in near) / len(near)
        out.append((x, y))
    return out


def draw_roads(d: ImageDraw.ImageDraw, g: Geom, m: MapData, shown: set[HexId]) -> None:
    for kind in ("side", "road", "main", "rail"):
        colour, wr = style.ROAD[kind]
        width = max(1, round(wr * g.r))
        for path in chains(m, kind):
            if not any(h in shown for h in path):
                continue
            raw = _beside_roads(g, m, path) if kind == "rail" else [g.center(h) for h in path]
            line = smooth(raw)
            d.line(line, fill=colour, width=width, joint="curve")
            if kind == "rail":
                _ties(d, line, 0.1 * g.r, 0.42 * g.r, colour, max(1, width // 2))
            else:
                for x, y in (line[0], line[-1]):  # round ends
                    s = width / 2
                    d.ellipse((x - s, y - s, x + s, y + s), fill=colour)


def _ties(
    d: ImageDraw.ImageDraw,
    line: Sequence[Point],
    half: float,
    every: float,
    colour: style.RGB,
    width: int,
) -> None:
    """The cross ties of a railway, one every `every` px along the line."""
    left = every / 2
    for p, q in itertools.pairwise(line):
        dx, dy = q[0] - p[0], q[1] - p[1]
        n = math.hypot(dx, dy)
        if n == 0:
            continue
        tx, ty = -dy / n * half, dx / n * half
        t = left
        while t < n:
            cx, cy = p[0] + dx * t / n, p[1] + dy * t / n
            d.line(((cx - tx, cy - ty), (cx + tx, cy + ty)), fill=colour, width=width)
            t += every
        left = t - n

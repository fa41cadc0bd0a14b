"""Pixel geometry of flat-topped hexes in the maps' CCRR numbering (engine.hexgrid)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from engine.hexgrid import Grid, HexId, parse_hex

SQ3 = math.sqrt(3.0)
Point = tuple[float, float]


@dataclass(frozen=True)
class Geom:
    """Where hexes fall in one image: hex radius `r`, and the pixel of the centre of the
    grid's first column/row hex (`ox`, `oy`)."""

    grid: Grid
    r: float
    ox: float
    oy: float

    def lowered(self, col: int) -> bool:
        return (col % 2 == 0) == (self.grid.layout == "even-q")

    def center_cr(self, col: int, row: int) -> Point:
        x = self.ox + 1.5 * self.r * (col - self.grid.cols[0])
        y = self.oy + SQ3 * self.r * (row - self.grid.rows[0] + (0.5 if self.lowered(col) else 0))
        return x, y

    def center(self, h: HexId) -> Point:
        return self.center_cr(*parse_hex(h))

    def corners(self, h: HexId, scale: float = 1.0) -> list[Point]:
        x, y = self.center(h)
        r = self.r * scale
        return [
            (x + r * math.cos(math.radians(60 * i)), y + r * math.sin(math.radians(60 * i)))
            for i in range(6)
        ]

    def edge(self, a: HexId, b: HexId) -> tuple[Point, Point]:
        """The two ends of the hexside between adjacent hexes a and b."""
        ax, ay = self.center(a)
        bx, by = self.center(b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        dx, dy = bx - ax, by - ay
        d = math.hypot(dx, dy) or 1.0
        px, py = -dy / d * self.r / 2, dx / d * self.r / 2
        return (mx - px, my - py), (mx + px, my + py)

    def shifted(self, dx: float, dy: float) -> Geom:
        return Geom(self.grid, self.r, self.ox + dx, self.oy + dy)


def full_geom(grid: Grid, r: float, margin: float) -> tuple[Geom, int, int]:
    """The geometry of the whole map and the image size it needs."""
    ncols = grid.cols[1] - grid.cols[0] + 1
    nrows = grid.rows[1] - grid.rows[0] + 1
    g = Geom(grid, r, margin + r, margin + SQ3 * r / 2)
    w = 2 * margin + 2 * r + 1.5 * r * (ncols - 1)
    h = 2 * margin + SQ3 * r * (nrows + 0.5)
    return g, math.ceil(w), math.ceil(h)


def bbox(g: Geom, hexes: Iterable[HexId], pad: float) -> tuple[int, int, int, int]:
    xs: list[float] = []
    ys: list[float] = []
    for h in hexes:
        x, y = g.center(h)
        xs.append(x)
        ys.append(y)
    return (
        math.floor(min(xs) - g.r - pad),
        math.floor(min(ys) - SQ3 * g.r / 2 - pad),
        math.ceil(max(xs) + g.r + pad),
        math.ceil(max(ys) + SQ3 * g.r / 2 + pad),
    )

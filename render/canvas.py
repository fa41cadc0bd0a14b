"""What every layer drawn over the terrain shares (#18): the image, its geometry, the map,
the viewer's View, and the pixel boxes already taken by counters, so that place names
drawn last keep clear of them. A new overlay (e.g. supply) is one function of a Canvas."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from engine.hexgrid import HexId
from engine.model import MapData
from engine.view import View
from render.geometry import Geom

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in image pixels


def overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class Boxes:
    """Taken pixel boxes, bucketed in cells of `cell` px so a query looks at few boxes."""

    def __init__(self, cell: float) -> None:
        self.cell = max(8.0, cell)
        self.all: list[Rect] = []
        self._cells: dict[tuple[int, int], list[Rect]] = {}

    def _keys(self, r: Rect) -> list[tuple[int, int]]:
        c = self.cell
        return [
            (i, j)
            for i in range(int(r[0] // c), int(r[2] // c) + 1)
            for j in range(int(r[1] // c), int(r[3] // c) + 1)
        ]

    def add(self, r: Rect) -> None:
        self.all.append(r)
        for k in self._keys(r):
            self._cells.setdefault(k, []).append(r)

    def hits(self, r: Rect) -> bool:
        return any(overlaps(r, b) for k in self._keys(r) for b in self._cells.get(k, ()))


@dataclass
class Canvas:
    img: Image.Image
    d: ImageDraw.ImageDraw
    g: Geom
    m: MapData
    v: View
    zoom: float
    counters: Boxes  # counters, their stack layers, badges and marker tags
    occupied: set[HexId] = field(default_factory=set)  # hexes with a counter drawn
    labels: list[tuple[str, Rect]] = field(default_factory=list)  # place names drawn

    @property
    def size(self) -> tuple[int, int]:
        return self.img.size

    def inside(self, h: HexId) -> bool:
        x, y = self.g.center(h)
        return -self.g.r <= x <= self.img.width + self.g.r and -self.g.r <= y <= (
            self.img.height + self.g.r
        )


Overlay = Callable[[Canvas], object]  # draws on the canvas; what it returns is unused

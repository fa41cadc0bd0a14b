"""The static layer of a map: terrain, hexsides, bridges, roads, names, hex numbers, edges
and entry zones. It depends only on the map, so it is drawn once per map, zoom and window
and cached (issue 6)."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict

from PIL import Image, ImageDraw

from engine.hexgrid import HexId
from engine.model import MapData
from render import style
from render.geometry import SQ3, Geom
from render.roads import draw_roads

_CACHE_SIZE = 12
_cache: OrderedDict[tuple[int, float, tuple[int, int, int, int]], tuple[MapData, Image.Image]] = (
    OrderedDict()
)
_lock = threading.Lock()


def terrain_layer(m: MapData, g: Geom, box: tuple[int, int, int, int]) -> Image.Image:
    """The static layer for the pixel window `box` of geometry `g` (cached; do not draw on
    the returned image -- copy it)."""
    key = (id(m), g.r, box)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is m:
            _cache.move_to_end(key)
            return hit[1]
    img = draw_terrain(m, g.shifted(-box[0], -box[1]), box[2] - box[0], box[3] - box[1])
    with _lock:
        _cache[key] = (m, img)  # keeps m alive, so id(m) stays unique while cached
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return img


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def _visible(m: MapData, g: Geom, w: int, h: int) -> list[HexId]:
    out = []
    for hx in m.grid.all_hexes():
        x, y = g.center(hx)
        if -g.r <= x <= w + g.r and -g.r <= y <= h + g.r:
            out.append(hx)
    return out


def draw_terrain(m: MapData, g: Geom, w: int, h: int) -> Image.Image:
    img = Image.new("RGB", (w, h), style.BACKGROUND)
    d = ImageDraw.Draw(img)
    hexes = _visible(m, g, w, h)
    shown = set(hexes)
    for hx in hexes:
        t = m.terrain_of(hx)
        d.polygon(g.corners(hx), fill=style.TERRAIN.get(t, style.TERRAIN_UNKNOWN))
    for hx in hexes:
        pattern(d, g, hx, m.terrain_of(hx))
    for hx in hexes:
        d.polygon(g.corners(hx), outline=style.GRID_LINE)
    _zones(d, g, m, shown)
    _frame(d, g, m)
    _hexsides(d, g, m, shown)
    draw_roads(d, g, m, shown)
    _bridges(d, g, m, shown)
    num_font = number_font(g)
    for hx in hexes:
        hex_number(d, g, hx, num_font)
    return img  # place names are drawn per picture, clear of the counters (render.labels)


def number_font(g: Geom) -> style.Font:
    return style.font(max(9.0, 0.3 * g.r), bold=False)


def hex_number(
    d: ImageDraw.ImageDraw, g: Geom, hx: HexId, f: style.Font, halo: bool = False
) -> None:
    x, y = g.center(hx)
    d.text(
        (x, y - 0.84 * g.r),
        hx,
        fill=style.HEX_NUMBER,
        font=f,
        anchor="ma",
        stroke_width=1 if halo else 0,
        stroke_fill=style.LABEL_HALO,
    )


def _ring(g: Geom, hx: HexId, n: int, dist: float, phase: float = 0.0) -> list[tuple[float, float]]:
    x, y = g.center(hx)
    return [
        (
            x + dist * g.r * math.cos(phase + 2 * math.pi * i / n),
            y + dist * g.r * math.sin(phase + 2 * math.pi * i / n),
        )
        for i in range(n)
    ]


def pattern(d: ImageDraw.ImageDraw, g: Geom, hx: HexId, t: str) -> None:
    """Print-like texture, kept off the hex centre (the centre pixel is the fill colour)."""
    ink = style.TERRAIN_MARK.get(t)
    if ink is None:
        return
    r = g.r
    if t in ("forest", "woods"):
        s = 0.11 * r
        for px, py in _ring(g, hx, 7, 0.55, 0.3):
            d.ellipse((px - s, py - s, px + s, py + s), fill=ink)
            d.line((px, py + s, px, py + 1.8 * s), fill=ink, width=max(1, round(s / 2)))
    elif t == "swamp":
        s = 0.15 * r
        for px, py in _ring(g, hx, 6, 0.55, 0.5):
            d.line((px - s, py, px + s, py), fill=ink, width=max(1, round(0.05 * r)))
            d.line((px - s / 2, py + s / 2, px + s / 2, py + s / 2), fill=ink, width=1)
    elif t == "hills":
        s = 0.16 * r
        for px, py in _ring(g, hx, 5, 0.55, 0.2):
            d.arc(
                (px - s, py - s / 1.3, px + s, py + s),
                200,
                340,
                fill=ink,
                width=max(1, round(0.06 * r)),
            )
    else:  # town / city: building blocks around the centre
        n, s, dist = (4, 0.12, 0.42) if t == "town" else (8, 0.14, 0.5)
        for px, py in _ring(g, hx, n, dist, 0.4):
            d.rectangle((px - s * r, py - s * r, px + s * r, py + s * r), fill=ink)


def _zones(d: ImageDraw.ImageDraw, g: Geom, m: MapData, shown: set[HexId]) -> None:
    f = style.font(0.45 * g.r)
    for name, hexes in sorted(m.zones.items()):
        vis = [h for h in hexes if h in shown]
        for hx in vis:
            pts = g.corners(hx, 0.85)
            d.line([*pts, pts[0]], fill=style.ZONE, width=max(2, round(0.08 * g.r)))
        if vis:
            mid = vis[len(vis) // 2]
            x, y = g.center(mid)
            d.text(
                (x, y + 0.42 * g.r),
                f"Zone {name}",
                fill=style.ZONE,
                font=f,
                anchor="mm",
                stroke_width=2,
                stroke_fill=(255, 255, 255),
            )


def _frame(d: ImageDraw.ImageDraw, g: Geom, m: MapData) -> None:
    c0, c1 = m.grid.cols
    r0, r1 = m.grid.rows
    x0 = g.center_cr(c0, r0)[0] - g.r
    x1 = g.center_cr(c1, r0)[0] + g.r
    y0 = g.oy - SQ3 * g.r / 2
    y1 = g.center_cr(c0, r1)[1] + SQ3 * g.r
    d.rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), outline=style.FRAME, width=2)


def _hexsides(d: ImageDraw.ImageDraw, g: Geom, m: MapData, shown: set[HexId]) -> None:
    for feat in style.HEXSIDE_ORDER:
        colour, wr = style.HEXSIDE[feat]
        width = max(2, round(wr * g.r))
        for (a, b), feats in m.hexsides.items():
            if feat not in feats or (a not in shown and b not in shown):
                continue
            p, q = g.edge(a, b)
            d.line((p, q), fill=colour, width=width)
            if feat in ("fortified-line", "fixed-position"):
                _teeth(d, g, a, b, p, q, colour)


def _teeth(
    d: ImageDraw.ImageDraw,
    g: Geom,
    a: HexId,
    b: HexId,
    p: tuple[float, float],
    q: tuple[float, float],
    colour: style.RGB,
) -> None:
    """Small triangles pointing to hex b along a line hexside (printed fortification)."""
    ax, ay = g.center(a)
    bx, by = g.center(b)
    dist = math.hypot(bx - ax, by - ay) or 1.0
    nx, ny = (bx - ax) / dist, (by - ay) / dist
    for t in (0.25, 0.5, 0.75):
        cx, cy = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        s = 0.09 * g.r
        ex, ey = -ny * s, nx * s
        d.polygon(
            [(cx - ex, cy - ey), (cx + ex, cy + ey), (cx + nx * 2 * s, cy + ny * 2 * s)],
            fill=colour,
        )


def _bridges(d: ImageDraw.ImageDraw, g: Geom, m: MapData, shown: set[HexId]) -> None:
    for a, b in sorted(m.bridges):
        if a in shown or b in shown:
            p, q = bridge_ends(g, a, b)
            bridge(d, p, q, g.r)


def bridge_ends(g: Geom, a: HexId, b: HexId) -> tuple[tuple[float, float], tuple[float, float]]:
    """The ends of the deck of a bridge over the hexside a/b: along the road, across it."""
    (ax, ay), (bx, by) = g.center(a), g.center(b)
    mx, my = (ax + bx) / 2, (ay + by) / 2
    dx, dy = (bx - ax) * 0.2, (by - ay) * 0.2
    return (mx - dx, my - dy), (mx + dx, my + dy)


def bridge(
    d: ImageDraw.ImageDraw,
    p: tuple[float, float],
    q: tuple[float, float],
    r: float,
    destroyed: bool = False,
) -> None:
    """A bridge deck from p to q (across the river); a blown one crossed out in red."""
    w = max(3, round(0.22 * r))
    d.line((p, q), fill=style.BRIDGE, width=w)
    d.line((p, q), fill=style.BRIDGE_DECK, width=max(1, w - 4))
    if destroyed:
        mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
        s = 0.28 * r
        lw = max(2, round(0.09 * r))
        d.line((mx - s, my - s, mx + s, my + s), fill=style.DESTROYED, width=lw)
        d.line((mx - s, my + s, mx + s, my - s), fill=style.DESTROYED, width=lw)

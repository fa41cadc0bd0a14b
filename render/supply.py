"""The supply overlay (issue #17, K102): where a side's lines of supply reach, and where
the lines of its units that cannot trace supply are cut.

Drawn from `engine.view.supply_view` -- a side gets its own lines only -- as one overlay
of the Canvas: the edge of the reachable area as a line on the hexsides between a hex the
lines reach and one they do not; each cut-off unit ringed, its cut hex crossed, and a
dashed line between them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.view import SupplyPicture
from render import style
from render.canvas import Canvas, Overlay


def supply_edges(pictures: Sequence[SupplyPicture]) -> Overlay:
    """Drawn under the counters: the edge of each supply area."""

    def draw(c: Canvas) -> None:
        for pic in pictures:
            _edge(c, pic)

    return draw


def supply_cuts(pictures: Sequence[SupplyPicture]) -> Overlay:
    """Drawn over the counters: a cut hex is often an enemy stack."""

    def draw(c: Canvas) -> None:
        for pic in pictures:
            _cuts(c, pic)

    return draw


def _edge(c: Canvas, pic: SupplyPicture) -> None:
    """Each hexside between a hex the lines reach and one they do not: a dashed line in
    the side's supply colour over a white halo, so it reads apart from rivers and roads."""
    d, g, grid = c.d, c.g, c.m.grid
    colour = edge_colour(pic.side)
    width = max(2, round(0.1 * g.r))
    for h in pic.reach:
        if not c.inside(h):
            continue
        for n in grid.neighbours(h):
            if n in pic.reach:
                continue
            a, b = g.edge(h, n)
            d.line((a, b), fill=(255, 255, 255), width=width + 2)
            _dashes(d, a, b, colour, width, parts=4)


def edge_colour(side: str) -> style.RGB:
    return style.SUPPLY_EDGE.get(side, style.SUPPLY_EDGE["other"])


def with_key(img: Image.Image, pictures: Sequence[SupplyPicture], zoom: float) -> Image.Image:
    """The picture with a one-line key of the overlay below it."""
    size = max(11.0, 7 * zoom)
    f = style.font(size, bold=False)
    pad = round(size * 0.5)
    th = round(size * 1.4) + 2 * pad
    out = Image.new("RGB", (img.width, img.height + th), (255, 255, 255))
    out.paste(img, (0, 0))
    d = ImageDraw.Draw(out)
    y = img.height + th / 2
    x = float(pad)
    for pic in pictures:
        _dashes(d, (x, y), (x + 3 * size, y), edge_colour(pic.side), max(2, round(size / 5)), 4)
        x += 3 * size + 6
        text = f"edge of the {pic.side} supply area (10.1)"
        d.text((x, y), text, fill=(0, 0, 0), font=f, anchor="lm")
        x += d.textlength(text, font=f) + 2 * size
    r = size * 0.55
    d.ellipse((x, y - r, x + 2 * r, y + r), outline=style.SUPPLY_CUT, width=2)
    x += 2 * r + 6
    text = "cannot trace supply"
    d.text((x, y), text, fill=(0, 0, 0), font=f, anchor="lm")
    x += d.textlength(text, font=f) + 2 * size
    d.line(((x, y - r), (x + 2 * r, y + r)), fill=style.SUPPLY_CUT, width=3)
    d.line(((x, y + r), (x + 2 * r, y - r)), fill=style.SUPPLY_CUT, width=3)
    x += 2 * r + 6
    d.text((x, y), "where its line is cut (K102)", fill=(0, 0, 0), font=f, anchor="lm")
    return out


def _cuts(c: Canvas, pic: SupplyPicture) -> None:
    d, g = c.d, c.g
    width = max(2, round(0.09 * g.r))
    colour = style.SUPPLY_CUT
    for cut in pic.cuts:
        at = pic.at.get(cut.unit)
        if at is None:
            continue
        x, y = g.center(at)
        r = 0.78 * g.r
        if c.inside(at):
            d.ellipse((x - r, y - r, x + r, y + r), outline=colour, width=width)
        if cut.hex is None or not c.m.grid.contains(cut.hex):
            continue
        cx, cy = g.center(cut.hex)
        if cut.hex != at:
            _dashed(c, (x, y), (cx, cy), width)
        k = 0.35 * g.r
        d.line(((cx - k, cy - k), (cx + k, cy + k)), fill=colour, width=width + 1)
        d.line(((cx - k, cy + k), (cx + k, cy - k)), fill=colour, width=width + 1)


def _dashed(c: Canvas, a: tuple[float, float], b: tuple[float, float], width: int) -> None:
    n = round(math.dist(a, b) / (3 * width))
    _dashes(c.d, a, b, style.SUPPLY_CUT, width, parts=max(1, n))


def _dashes(
    d: ImageDraw.ImageDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    colour: style.RGB,
    width: int,
    parts: int,
) -> None:
    """A line from a to b cut in `parts` pieces, every other one drawn."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    for k in range(0, parts, 2):
        p = (a[0] + dx * k / parts, a[1] + dy * k / parts)
        q = (a[0] + dx * (k + 1) / parts, a[1] + dy * (k + 1) / parts)
        d.line((p, q), fill=colour, width=width)

"""Counter images (issue 6): NATO symbols by type, size marks, SP-MP or artillery
attack(defence)-MP, side colours, stars, reduced units. Drawn only from what a
`UnitView` shows; sprites are cached by everything they depend on."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict

from PIL import Image, ImageDraw

from engine.view import UnitView
from render import style

SIZE_MARKS = {"C": "I", "B": "II", "R": "III", "BR": "X", "D": "XX", "K": "XXX", "A": "XXXX"}
NATO_MARKS = ("I", "II", "III", "X", "XX", "XXX", "XXXX")  # a size already written so (AGS)

_lock = threading.Lock()
_sprites: OrderedDict[tuple[object, ...], Image.Image] = OrderedDict()
_MAX_SPRITES = 2000


def colours(side: str, nation: str | None) -> tuple[style.RGB, style.RGB]:
    if nation in style.NATION:
        return style.NATION[nation]
    return style.SIDE_DEFAULT.get(side, style.OTHER_SIDE)


def factors(u: UnitView) -> str:
    """`6-8`; artillery `4(2)-6`: attack (defence) - MP; MP as printed ("-" for none). A
    unit that lost CELs shows its strength now (K15), marked by the red corner."""
    if u.factors is not None:  # printed by the system, e.g. AGS attack-defence-movement
        return u.factors
    mp = u.mp if u.mp not in (None, "0") else "-"
    if u.art is not None:
        return f"{u.art[0]}({u.art[1]})-{mp}"
    return f"{u.sp if u.sp_now is None else u.sp_now}-{mp}"


def sprite(u: UnitView, s: int) -> Image.Image:
    """The image of one counter `s` px square (shared: paste it, do not draw on it)."""
    key = (
        u.known,
        u.side,
        u.nation,
        u.type,
        u.size,
        u.sp,
        u.sp_now,
        u.art,
        u.mp,
        u.cel,
        u.max_cel,
        u.stars,
        u.factors,
        u.symbol,
        u.face,
        s,
    )
    with _lock:
        img = _sprites.get(key)
        if img is not None:
            _sprites.move_to_end(key)
            return img
    img = _draw(u, s)
    with _lock:
        _sprites[key] = img
        while len(_sprites) > _MAX_SPRITES:
            _sprites.popitem(last=False)
    return img


def _draw(u: UnitView, s: int) -> Image.Image:
    bg, ink = colours(u.side, u.nation)
    img = Image.new("RGB", (s, s), bg)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, s - 1, s - 1), outline=(0, 0, 0), width=max(1, s // 30))
    if u.known in ("hidden", "masked") or u.type is None:
        d.text((s / 2, s / 2), "?", fill=ink, font=style.font(0.7 * s), anchor="mm")
        return img
    # NATO box
    bw, bh = 0.62 * s, 0.36 * s
    x0, y0 = (s - bw) / 2, 0.22 * s
    x1, y1 = x0 + bw, y0 + bh
    lw = max(1, round(s / 28))
    d.rectangle((x0, y0, x1, y1), outline=ink, width=lw)
    _symbol(d, u.symbol or u.type, (x0, y0, x1, y1), ink, lw)
    mark = SIZE_MARKS.get(u.size or "") or (
        u.size if u.size and u.size.strip("()") in NATO_MARKS else None
    )
    if mark:
        d.text(
            (s / 2, y0 - 0.01 * s),
            mark,
            fill=ink,
            font=style.font(0.2 * s),
            anchor="mb",
        )
    if u.known == "full":
        text = factors(u)  # fitted: "4(2)-5", an HQ's "0-10" are never clipped (#18)
        f = style.fitted(text, max(10, 0.3 * s), 0.84 * s)
        d.text((s / 2, 0.97 * s), text, fill=ink, font=f, anchor="mb")
    for i, colour in enumerate(u.stars):
        _star(
            d,
            s - 0.14 * s - i * 0.2 * s,
            0.12 * s,
            0.1 * s,
            style.STAR.get(colour, (250, 210, 0)),
            ink,
        )
    if u.cel is not None and u.max_cel:
        _cel(d, u.cel, u.max_cel, s, ink)
    if u.face and u.known == "full":  # the printed face shown (AGS: back, rpl)
        f = style.fitted(u.face, max(8, 0.16 * s), 0.4 * s, bold=False)
        d.text((0.97 * s, 0.03 * s), u.face, fill=ink, font=f, anchor="ra")
    return img


def _cel(d: ImageDraw.ImageDraw, cel: int, max_cel: int, s: int, ink: style.RGB) -> None:
    """CEL pips down the left edge (filled = left); a reduced unit gets a red corner."""
    r = 0.045 * s
    for i in range(max_cel):
        cx, cy = 0.09 * s, 0.3 * s + i * 2.6 * r
        box = (cx - r, cy - r, cx + r, cy + r)
        if i < cel:
            d.ellipse(box, fill=ink)
        else:
            d.ellipse(box, outline=ink)
    if cel < max_cel:
        d.polygon([(0, 0), (0.3 * s, 0), (0, 0.3 * s)], fill=style.REDUCED)


def _star(
    d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: style.RGB, edge: style.RGB
) -> None:
    pts = []
    for i in range(10):
        rr = r if i % 2 == 0 else r * 0.45
        a = -math.pi / 2 + i * math.pi / 5
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    d.polygon(pts, fill=fill, outline=edge)


def _symbol(
    d: ImageDraw.ImageDraw, t: str, box: tuple[float, float, float, float], ink: style.RGB, lw: int
) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2

    def cross() -> None:
        d.line((x0, y0, x1, y1), fill=ink, width=lw)
        d.line((x0, y1, x1, y0), fill=ink, width=lw)

    def oval() -> None:
        d.ellipse((x0 + 0.2 * w, y0 + 0.22 * h, x1 - 0.2 * w, y1 - 0.22 * h), outline=ink, width=lw)

    def dot(r: float = 0.18) -> None:
        rr = r * h
        d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ink)

    def text(s: str) -> None:
        d.text((cx, cy), s, fill=ink, font=style.font(0.55 * h), anchor="mm")

    if t in ("inf", "vs"):
        cross()
        if t == "vs":
            text("VS")
    elif t == "para":
        cross()
        d.arc(
            (cx - 0.18 * w, y0 + 0.05 * h, cx + 0.18 * w, y0 + 0.55 * h),
            180,
            360,
            fill=ink,
            width=lw,
        )
    elif t in ("cav", "recon"):
        d.line((x0, y1, x1, y0), fill=ink, width=lw)
    elif t == "eng":
        d.line(
            (
                cx - 0.25 * w,
                cy + 0.15 * h,
                cx - 0.25 * w,
                cy - 0.15 * h,
                cx + 0.25 * w,
                cy - 0.15 * h,
                cx + 0.25 * w,
                cy + 0.15 * h,
            ),
            fill=ink,
            width=lw,
        )
        d.line((cx, cy - 0.15 * h, cx, cy + 0.15 * h), fill=ink, width=lw)
    elif t == "arm":
        oval()
    elif t == "mech":
        cross()
        oval()
    elif t == "mot":
        cross()
        for fx in (0.35, 0.65):
            rr = 0.08 * h
            px, py = x0 + fx * w, y1 + 0.0 * h - 2.2 * rr
            d.ellipse((px - rr, py - rr, px + rr, py + rr), fill=ink)
    elif t == "ag":
        oval()
        d.line((cx, cy, x1 - 0.05 * w, cy), fill=ink, width=lw)
    elif t == "at":
        d.line((x0 + 0.1 * w, y1, cx, y0 + 0.1 * h, x1 - 0.1 * w, y1), fill=ink, width=lw)
    elif t == "art":
        dot()
    elif t == "sp-art":
        dot(0.14)
        oval()
    elif t == "aa":
        d.arc(
            (x0 + 0.2 * w, y0 + 0.25 * h, x1 - 0.2 * w, y1 + 0.6 * h), 180, 360, fill=ink, width=lw
        )
    elif t == "hq":
        text("HQ")
    elif t == "rg":
        text("RG")
    elif t == "fu":
        d.line((x0 + 0.1 * w, y1 - 0.2 * h, x1 - 0.1 * w, y1 - 0.2 * h), fill=ink, width=lw * 2)
        for fx in (0.25, 0.5, 0.75):
            d.line((x0 + fx * w, y1 - 0.2 * h, x0 + fx * w, y0 + 0.35 * h), fill=ink, width=lw)
    else:
        text(t.upper()[:3])

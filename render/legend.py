"""Legends (#18, item 11). `map_keys`: what one map and one view actually show (no hills
on a map without hills), for the compact legend of a full-map picture. `legend_image`:
the whole key as its own picture (`/map legend`, `map legend`): the map's terrain and
lines, the markers, and the anatomy of a counter and of a stack in each view."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.model import MapData
from engine.view import UnitView, View
from render import style
from render.counters import sprite
from render.geometry import Geom
from render.stacks import badge_text, stack_markers, stacks_of
from render.terrain import bridge, pattern

TERRAIN_ORDER = ("clear", "hills", "forest", "woods", "swamp", "town", "city", "dnieper")
TERRAIN_TEXT = {  # where the name alone does not say it (AGS, issue #19)
    "dnieper": "the Dniepr's river hexes: no entry, no ZoC (AGS-K 19.25)",
}
LINES = (  # (map feature, legend text, colour, width in hex radii)
    ("stream", "stream", *style.HEXSIDE["stream"]),
    ("river", "river", *style.HEXSIDE["river"]),
    ("big-river", "big river", *style.HEXSIDE["big-river"]),
    ("fortified-line", "fortified line", *style.HEXSIDE["fortified-line"]),
    ("fixed-position", "fixed position", *style.HEXSIDE["fixed-position"]),
    ("minor-river", "minor river", *style.HEXSIDE["minor-river"]),  # AGS TEC 10.4
    ("major-river", "major river: no ZoC across (AGS 8.12)", *style.HEXSIDE["major-river"]),
)
ROADS = (
    ("main", "main road", *style.ROAD["main"]),
    ("side", "side road", *style.ROAD["side"]),
    ("rail", "railway", *style.ROAD["rail"]),
    ("road", "road (AGS TEC 10.4)", *style.ROAD["road"]),
)
MARKERS = {
    "oos": "OoS out of supply",
    "dg": "DG disorganized",
    "if": "IF/FF fortified",
    "ff": "FF/IF fortified",
    "sm": "SM strategic",
    "tr": "TR transport",
    "mask": "MASK your stack under a mask: the enemy sees '?'",
}


@dataclass(frozen=True)
class Key:
    # "terrain", "line", "bridge", "destroyed", "zone", "marker", "badge", "corner", "nation"
    kind: str
    what: str  # terrain name, feature, marker kind or badge text
    text: str


def map_keys(m: MapData, v: View | None = None) -> list[Key]:
    """The keys of what this map (and, given a view, its counters) show."""
    present = {m.default, *m.terrain.values()}
    keys = [Key("terrain", t, TERRAIN_TEXT.get(t, t)) for t in TERRAIN_ORDER if t in present]
    feats = set().union(*m.hexsides.values()) if m.hexsides else set()
    keys += [Key("line", f, text) for f, text, _c, _w in LINES if f in feats]
    kinds = set().union(*m.roads.values()) if m.roads else set()
    keys += [Key("line", k, text) for k, text, _c, _w in ROADS if k in kinds]
    if m.bridges or (v is not None and v.bridges):
        keys.append(Key("bridge", "bridge", "bridge"))
    if v is not None and any(not b.get("intact", True) for b in v.bridges.values()):
        keys.append(Key("destroyed", "destroyed", "bridge blown"))
    if m.zones:
        keys.append(Key("zone", "zone", "entry zone"))
    if v is None:
        return keys
    stacks = stacks_of(v)
    marks = {k for h, us in stacks.items() for k, _ in stack_markers(v, h, us)}
    keys += [Key("marker", k, MARKERS[k]) for k in MARKERS if k in marks and k != "if"]
    badges = {badge_text(v, h, us) for h, us in stacks.items()}
    if any(b and not b.endswith("?") for b in badges):
        keys.append(Key("badge", "3", "counters in the stack"))
    if any(b and b.endswith("?") for b in badges):
        keys.append(Key("badge", "3?", "lower counters hidden"))
    if any(u.known == "masked" for u in v.units):
        keys.append(Key("badge", "?", "masked stack"))
    if any(u.sp_now is not None for u in v.units if u.hex and not u.eliminated):
        keys.append(Key("corner", "reduced", "reduced: strength now"))
    keys += counter_keys(v)
    return keys


def counter_keys(v: View) -> list[Key]:
    """Keys of counters that print their factors (AGS, `UnitView.factors`): what the
    numbers are, and the printed face of a reduced unit."""
    shown = [u for u in v.units if u.factors and u.hex and not u.eliminated]
    out: list[Key] = []
    if any(not u.factors.startswith("(") for u in shown if u.factors):
        out.append(Key("counter", "5-2-8", "attack-defence-movement of the face shown"))
    if any(u.factors.startswith("(") for u in shown if u.factors):
        out.append(Key("counter", "(6)-9", "HQ: (leadership)-movement (AGS 11.1)"))
    if any(u.face for u in shown):
        out.append(Key("counter", "rpl", "a reduced unit's printed face: back, rpl (AGS-K 24.11)"))
    return out


def draw_key(d: ImageDraw.ImageDraw, k: Key, x: float, cy: float, sw: float) -> None:
    """The swatch of one key, `sw` px wide, left edge x, vertical centre cy."""
    h = sw * 0.8
    top, bottom = cy - h / 2, cy + h / 2
    if k.kind == "terrain":
        d.rectangle((x, top, x + sw, bottom), fill=style.TERRAIN[k.what], outline=(0, 0, 0))
    elif k.kind == "line":
        colour, wr = dict((f, (c, w)) for f, _t, c, w in (*LINES, *ROADS))[k.what]
        d.line((x, cy, x + sw, cy), fill=colour, width=max(2, round(wr * sw)))
    elif k.kind in ("bridge", "destroyed"):
        d.line((x, cy, x + sw, cy), fill=style.HEXSIDE["river"][0], width=max(2, round(sw / 6)))
        bridge(d, (x + sw / 2, cy - h / 2), (x + sw / 2, cy + h / 2), sw, k.kind == "destroyed")
    elif k.kind == "zone":
        d.rectangle((x, top, x + sw, bottom), outline=style.ZONE, width=max(2, round(sw / 10)))
    elif k.kind == "marker":
        bg, ink = style.MARKER[k.what]
        d.rectangle((x, top, x + sw, bottom), fill=bg, outline=(0, 0, 0))
        label = k.text.split()[0].split("/")[0]  # "OoS", "DG", "FF", "MASK"
        f = style.fitted(label, h * 0.6, sw - 4)
        d.text((x + sw / 2, cy), label, fill=ink, font=f, anchor="mm")
    elif k.kind == "nation":
        bg, ink = style.NATION[k.what]
        d.rectangle((x, top, x + sw, bottom), fill=bg, outline=(0, 0, 0))
    elif k.kind == "badge":
        if k.what == "?":
            d.rectangle((x, top, x + sw, bottom), fill=style.NATION["soviet"][0], outline=(0,) * 3)
            f = style.font(h * 0.8)
            d.text((x + sw / 2, cy), "?", fill=(255, 255, 255), font=f, anchor="mm")
        else:
            fill = style.HIDDEN_BADGE if k.what.endswith("?") else (255, 255, 255)
            d.rounded_rectangle((x, top, x + sw, bottom), radius=h / 2, fill=fill, outline=(0,) * 3)
            d.text((x + sw / 2, cy), k.what, fill=(0, 0, 0), font=style.font(h * 0.7), anchor="mm")
    elif k.kind == "counter":
        d.rectangle((x, top, x + sw, bottom), fill=(255, 255, 255), outline=(0, 0, 0))
        f = style.fitted(k.what, h * 0.55, sw - 4)
        d.text((x + sw / 2, cy), k.what, fill=(0, 0, 0), font=f, anchor="mm")
    elif k.kind == "corner":
        d.rectangle((x, top, x + sw, bottom), fill=(255, 255, 255), outline=(0, 0, 0))
        d.polygon([(x, top), (x + sw / 2, top), (x, top + sw / 2)], fill=style.REDUCED)


# --- the full legend as its own picture ------------------------------------------------------

WIDTH = 640  # px: a phone screen's width


def legend_image(m: MapData, v: View | None = None, title: str | None = None) -> Image.Image:
    """Every key of the map `m` (and of the view `v`), the markers, and the anatomy of a
    counter and of a stack, in a picture `WIDTH` px wide."""
    fs = 16
    big, small = style.font(fs * 1.3), style.font(fs, bold=False)
    pad, line_h, sw = 14, round(fs * 1.9), 44
    keys = [k for k in map_keys(m, v) if k.kind not in ("marker", "badge", "corner", "counter")]
    marks = [Key("marker", k, t) for k, t in MARKERS.items() if k != "if"]
    stacks = [
        Key("badge", "3", "a stack of 3 counters you see whole"),
        Key("badge", "3?", "an enemy stack of 3: only its top counter is seen (16.1.1)"),
        Key("badge", "?", "an enemy stack under a mask: nothing is seen (16.1.2)"),
        Key("corner", "reduced", "red corner: lost CELs, factors are its strength now (K15)"),
    ]
    nations = [
        Key("nation", n, t)
        for n, t in (
            ("german", "German"),
            ("ss", "German SS"),
            ("soviet", "Soviet"),
            ("guards", "Soviet Guards"),
        )
    ]
    if v is not None and counter_keys(v):  # AGS: factors as printed, no masks (19.63)
        nations = [*nations[:1], *nations[2:3], *counter_keys(v)]
        marks = [k for k in marks if k.what == "oos"]
        stacks = stacks[:1]
    anatomy_h = 290
    rows = len(keys) + len(marks) + len(stacks) + len(nations) + 4
    h = pad * 3 + round(fs * 1.8) + rows * line_h + anatomy_h + 5 * line_h
    img = Image.new("RGB", (WIDTH, h), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.text((pad, pad), title or f"Legend: the {m.id} map", fill=(0, 0, 0), font=big)
    y = pad + round(fs * 2.2)
    groups = (("The map", keys), ("Counters", nations), ("Markers", marks), ("Stacks", stacks))
    for head, group in groups:
        d.text((pad, y), head, fill=(0, 0, 0), font=style.font(fs))
        y += line_h
        for k in group:
            if k.kind == "terrain":
                terrain_swatch(img, d, m, k.what, (pad + sw / 2, y + line_h / 2 - 2), sw / 2.2)
            else:
                draw_key(d, k, pad, y + line_h / 2 - 2, sw)
            ty = y + line_h / 2 - 2
            d.text((pad + sw + 12, ty), k.text, fill=(0, 0, 0), font=small, anchor="lm")
            y += line_h
    ags = v is not None and bool(counter_keys(v))
    bottom = _anatomy(img, d, pad, y, fs, ags)
    return img.crop((0, 0, WIDTH, min(h, bottom + pad)))


def terrain_swatch(
    img: Image.Image, d: ImageDraw.ImageDraw, m: MapData, t: str, at: tuple[float, float], r: float
) -> None:
    """A hex of terrain t with its printed pattern, centred at `at`."""
    first = f"{m.grid.cols[0]:02d}{m.grid.rows[0]:02d}"
    g = Geom(m.grid, r, 0, 0)
    cx, cy = g.center(first)
    g = g.shifted(at[0] - cx, at[1] - cy)
    d.polygon(g.corners(first), fill=style.TERRAIN.get(t, style.TERRAIN_UNKNOWN))
    pattern(d, g, first, t)
    d.polygon(g.corners(first), outline=style.GRID_LINE)


SAMPLE = UnitView(
    side="german",
    hex=None,
    known="full",
    type="arm",
    size="D",
    nation="german",
    sp=6,
    sp_now=4,
    mp="8",
    cel=2,
    max_cel=3,
    stars=("yellow",),
)


SAMPLE_AGS = UnitView(  # an AGS counter (issue #19): factors as printed, a reduced face
    side="german",
    hex=None,
    known="full",
    type="panzer-regiment",
    size="III",
    nation="german",
    sp=5,
    mp="8",
    cel=2,
    max_cel=3,
    factors="3-1-8",
    symbol="arm",
    face="back",
)


def _anatomy(
    img: Image.Image, d: ImageDraw.ImageDraw, x: int, y: int, fs: int, ags: bool = False
) -> int:
    """A sample counter, 150 px, with call-outs for each part; returns the bottom."""
    f = style.font(fs, bold=False)
    d.text((x, y), "A counter", fill=(0, 0, 0), font=style.font(fs))
    s = 150
    cx0, cy0 = x + 10, y + fs * 2
    img.paste(sprite(SAMPLE_AGS if ags else SAMPLE, s), (cx0, cy0))
    tx = cx0 + s + 70
    notes: tuple[tuple[float, float, str], ...] = (
        (0.08, 0.08, "red corner: reduced (K15)"),
        (0.5, 0.14, "size: XX division, X brigade, III regiment"),
        (0.86, 0.12, "star: a special ability (15.1)"),
        (0.09, 0.4, "CEL pips: filled = CELs left"),
        (0.5, 0.4, "type: NATO symbol (armour)"),
        (0.5, 0.85, "strength-MPs; artillery attack(defence)-MPs"),
    )
    if ags:
        notes = (
            (0.08, 0.08, "red corner: reduced, its back shown"),
            (0.5, 0.14, "size: XXX corps, XX division, III regiment"),
            (0.09, 0.4, "step pips: filled = steps left (AGS 9.61)"),
            (0.5, 0.4, "type: NATO symbol (armour)"),
            (0.5, 0.85, "attack-defence-movement of that face"),
        )
    for i, (px, py, text) in enumerate(notes):
        ty = cy0 + 8 + i * (s + 40) / len(notes)
        ax, ay = cx0 + px * s, cy0 + py * s
        d.line((ax, ay, tx - 6, ty), fill=(60, 60, 60), width=1)
        d.ellipse((ax - 3, ay - 3, ax + 3, ay + 3), fill=(0, 0, 0))
        d.text((tx, ty), text, fill=(0, 0, 0), font=f, anchor="lm")
    y2 = cy0 + s + 50
    f = style.font(fs * 0.85, bold=False)
    d.multiline_text((x, y2), _VIEWS, fill=(0, 0, 0), font=f)
    return round(d.multiline_textbbox((x, y2), _VIEWS, font=f)[3])


_VIEWS = (
    "Frame colour = whose picture: German grey, Soviet red,\n"
    "moderator gold (lists what is under each top counter),\n"
    "spectator blue (what both sides see)."
)

"""A map snapshot: the cached terrain layer + what one viewer may see (issue 6).

Everything about units, markers and control comes from an `engine.view.View`, never from
the game state, so fog of war holds in every picture; the map itself (`MapData`) is public.
Rendering keeps no mutable global state outside the locked caches of `render.terrain` and
`render.counters`, so it may run in a worker thread (`asyncio.to_thread`).
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.core import Event
from engine.hexgrid import HexId, HexIdError, normalize
from engine.model import MapData
from engine.state import GameState
from engine.view import MODERATOR, SPECTATOR, UnitView, View, view
from render import style
from render.counters import colours, sprite
from render.geometry import Geom, bbox, full_geom
from render.terrain import terrain_layer

MAX_RADIUS = 20
CROP_ZOOM = 2.0  # default for crops: counter text ~18 px, readable on a phone


class RenderError(ValueError):
    """A snapshot that cannot be drawn: unknown hex or viewer, radius or zoom out of range."""


@dataclass(frozen=True)
class Around:
    hex: HexId
    radius: int


@dataclass(frozen=True)
class Box:
    a: HexId
    b: HexId


Crop = Around | Box


def snapshot(
    state: GameState,
    viewer: str,
    *,
    crop: Crop | None = None,
    zoom: float | None = None,
    control: bool = False,
    hq_range: int | None = None,
    events: Sequence[Event] | None = None,
) -> Image.Image:
    """The map as `viewer` (a side, "spectator" or "moderator") sees it. `events`: the log
    the caller has already filtered with `engine.view.visible_events(events, viewer)`; the
    last phase of the current turn that has moves or combats is drawn over the map."""
    setup = state.setup
    if viewer not in setup.sides and viewer not in (SPECTATOR, MODERATOR):
        choices = ", ".join([*setup.sides, SPECTATOR, MODERATOR])
        raise RenderError(f"'{viewer}' is not a viewer; choose one of {choices}")
    v = view(state, viewer)
    return render_view(
        setup.map,
        v,
        title=setup.name,
        crop=crop,
        zoom=zoom,
        control=control,
        hq_range=hq_range,
        events=events,
    )


def snapshot_png(state: GameState, viewer: str, **kw: object) -> bytes:
    return to_png(snapshot(state, viewer, **kw))  # type: ignore[arg-type]


def to_png(img: Image.Image) -> bytes:
    """PNG bytes; 64-colour palette (the map has few colours; ~2x faster, ~half the size)."""
    buf = io.BytesIO()
    img.quantize(64, Image.Quantize.FASTOCTREE).save(buf, "PNG")
    return buf.getvalue()


def crop_hexes(m: MapData, crop: Crop) -> list[HexId]:
    """The hexes a crop asks for (on the map)."""
    grid = m.grid
    if isinstance(crop, Around):
        h = _hex(m, crop.hex)
        if not 0 <= crop.radius <= MAX_RADIUS:
            raise RenderError(f"radius {crop.radius} is out of range: use 0 to {MAX_RADIUS}")
        return grid.within(h, crop.radius)
    a, b = _hex(m, crop.a), _hex(m, crop.b)
    (ca, ra), (cb, rb) = (int(a[:2]), int(a[2:])), (int(b[:2]), int(b[2:]))
    return [
        h
        for h in grid.all_hexes()
        if min(ca, cb) <= int(h[:2]) <= max(ca, cb) and min(ra, rb) <= int(h[2:]) <= max(ra, rb)
    ]


def _hex(m: MapData, text: str) -> HexId:
    try:
        h = normalize(text)
    except HexIdError as e:
        raise RenderError(str(e)) from None
    if not m.grid.contains(h):
        c0, c1 = m.grid.cols
        r0, r1 = m.grid.rows
        raise RenderError(
            f"hex {h} is not on the {m.id} map (columns {c0:02d}-{c1:02d}, rows {r0:02d}-{r1:02d})"
        )
    return h


def render_view(
    m: MapData,
    v: View,
    *,
    title: str | None = None,
    crop: Crop | None = None,
    zoom: float | None = None,
    control: bool = False,
    hq_range: int | None = None,
    events: Sequence[Event] | None = None,
) -> Image.Image:
    z = zoom if zoom is not None else (1.0 if crop is None else CROP_ZOOM)
    if not style.ZOOM_RANGE[0] <= z <= style.ZOOM_RANGE[1]:
        lo, hi = style.ZOOM_RANGE
        raise RenderError(f"zoom {z:g} is out of range: use {lo:g} to {hi:g}")
    r = style.BASE_RADIUS * z
    g_full, w, h = full_geom(m.grid, r, margin=0.3 * r)
    if crop is None:
        box = (0, 0, w, h)
    else:
        box = bbox(g_full, crop_hexes(m, crop), pad=0.1 * r)
    layer = terrain_layer(m, g_full, box)
    img = layer.copy()
    g = g_full.shifted(-box[0], -box[1])
    d = ImageDraw.Draw(img)
    if control:
        _control(d, g, v, img.size)
    if hq_range is not None:
        _hq_ranges(d, g, m, v, hq_range, img.size)
    _units(img, d, g, v)
    _pending(d, g, v, img.size)
    if events:
        _overlays(d, g, m, last_phase_events(events, v.turn))
    return _with_title(img, v, title or v.scenario, z)


def locate(
    m: MapData, img: Image.Image, h: HexId, crop: Crop | None = None, zoom: float | None = None
) -> tuple[int, int]:
    """The pixel of hex h's centre in a snapshot drawn with these crop and zoom (it may lie
    outside the image for a hex outside the crop)."""
    z = zoom if zoom is not None else (1.0 if crop is None else CROP_ZOOM)
    r = style.BASE_RADIUS * z
    g, w, hh = full_geom(m.grid, r, margin=0.3 * r)
    box = (0, 0, w, hh) if crop is None else bbox(g, crop_hexes(m, crop), pad=0.1 * r)
    title = img.height - (box[3] - box[1])
    x, y = g.center(h)
    return round(x - box[0]), round(y - box[1] + title)


def _inside(g: Geom, h: HexId, size: tuple[int, int]) -> bool:
    x, y = g.center(h)
    return -g.r <= x <= size[0] + g.r and -g.r <= y <= size[1] + g.r


def _control(d: ImageDraw.ImageDraw, g: Geom, v: View, size: tuple[int, int]) -> None:
    width = max(2, round(0.08 * g.r))
    for h, side in v.control.items():
        if _inside(g, h, size):
            pts = g.corners(h, 0.9)
            d.line([*pts, pts[0]], fill=style.CONTROL.get(side, (80, 80, 200)), width=width)


def _hq_ranges(
    d: ImageDraw.ImageDraw, g: Geom, m: MapData, v: View, radius: int, size: tuple[int, int]
) -> None:
    """HQ range on request: the rim of the hexes within `radius` of each HQ the view shows."""
    width = max(2, round(0.06 * g.r))
    for u in v.units:
        if u.type != "hq" or u.hex is None or u.eliminated or u.known != "full":
            continue
        area = set(m.grid.within(u.hex, radius))
        for h in area:
            if not _inside(g, h, size):
                continue
            for n in m.grid.neighbours_unbounded(h):
                if n not in area:
                    p, q = g.edge(h, n)
                    d.line((p, q), fill=style.HQ_RANGE, width=width)


OVERLAY_KINDS = ("moved", "retreated", "pursued", "combat_resolved")


def last_phase_events(events: Sequence[Event], turn: int) -> list[Event]:
    """The overlay events (moves, retreats, pursuits, combats) of the last phase of `turn`
    that has any; events before the first `phase_started` count for no turn."""
    segments: list[tuple[int | None, list[Event]]] = [(None, [])]
    for e in events:
        if e.kind == "phase_started":
            segments.append((e.data.get("turn"), []))
        elif e.kind in OVERLAY_KINDS:
            segments[-1][1].append(e)
    for t, evs in reversed(segments):
        if t == turn and evs:
            return evs
    return []


def _overlays(d: ImageDraw.ImageDraw, g: Geom, m: MapData, events: Sequence[Event]) -> None:
    """Arrows along moved (solid) and retreat/pursuit (dashed) paths, then combat labels
    ("3:1  - / D2") at the defending hexes. Only hexes and results are drawn, never unit ids."""
    width = max(3, round(0.12 * g.r))
    for e in events:
        path = [h for h in e.data.get("path") or [] if isinstance(h, str) and m.grid.contains(h)]
        if e.kind == "combat_resolved" or len(path) < 2:
            continue
        pts = [g.center(h) for h in path]
        if e.kind == "moved":
            d.line(pts, fill=style.MOVE_ARROW, width=width, joint="curve")
            colour = style.MOVE_ARROW
        else:
            colour = style.RETREAT_ARROW
            for a, b in itertools.pairwise(pts):
                _dashed(d, a, b, colour, width)
        _arrow_head(d, pts[-2], pts[-1], colour, g.r)
    font = style.font(max(10, 0.32 * g.r))
    bg, ink = style.COMBAT_LABEL
    for e in events:
        if e.kind != "combat_resolved":
            continue
        label = f"{e.data.get('column', '?')}  {e.data.get('result', '')}".strip()
        for h in e.data.get("hexes") or []:
            if not (isinstance(h, str) and m.grid.contains(h)):
                continue
            x, y = g.center(h)
            y -= 0.62 * g.r
            bx0, by0, bx1, by1 = d.textbbox((x, y), label, font=font, anchor="mm")
            d.rectangle((bx0 - 3, by0 - 2, bx1 + 3, by1 + 2), fill=bg, outline=ink)
            d.text((x, y), label, fill=ink, font=font, anchor="mm")


def _dashed(
    d: ImageDraw.ImageDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    colour: style.RGB,
    width: int,
) -> None:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = max(1, round((dx * dx + dy * dy) ** 0.5 / (3 * width)))
    for k in range(0, n, 2):
        p = (a[0] + dx * k / n, a[1] + dy * k / n)
        q = (a[0] + dx * (k + 1) / n, a[1] + dy * (k + 1) / n)
        d.line((p, q), fill=colour, width=width)


def _arrow_head(
    d: ImageDraw.ImageDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    colour: style.RGB,
    r: float,
) -> None:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / n, dy / n
    size = 0.45 * r
    base = (b[0] - ux * size, b[1] - uy * size)
    d.polygon(
        [
            b,
            (base[0] - uy * size * 0.5, base[1] + ux * size * 0.5),
            (base[0] + uy * size * 0.5, base[1] - ux * size * 0.5),
        ],
        fill=colour,
        outline=(0, 0, 0),
    )


def _pending(d: ImageDraw.ImageDraw, g: Geom, v: View, size: tuple[int, int]) -> None:
    """The hexes of a pending retreat/pursuit/losses decision, when the view shows its
    options (only to the side it is addressed to, and the moderator)."""
    where = {u.id: u.hex for u in v.units if u.id is not None and u.hex is not None}
    hexes: set[str] = set()
    for p in v.pending:
        o = p.options
        if not isinstance(o, dict):
            continue
        if p.kind not in ("retreat", "pursuit", "losses"):
            continue
        # the units the decision is about (their hexes), and a pursuit's vacated hexes
        units = o.get("paths") if p.kind == "retreat" else o.get("units")
        if isinstance(units, dict | list):
            hexes.update(h for u in units if (h := where.get(str(u))) is not None)
        first = o.get("first") if p.kind == "pursuit" else None
        if isinstance(first, list):
            hexes.update(h for h in first if isinstance(h, str))
    width = max(3, round(0.1 * g.r))
    for h in sorted(hexes):
        if _inside(g, h, size):
            pts = g.corners(h, 0.82)
            d.line([*pts, pts[0]], fill=style.PENDING, width=width)


def _stack_markers(us: Sequence[UnitView]) -> list[tuple[str, str]]:
    full = [u for u in us if u.known == "full"]
    out: list[tuple[str, str]] = []
    oos = max((u.oos or 0 for u in full), default=0)
    if oos:
        out.append(("oos", f"OoS{oos}"))
    if any(u.disorganized for u in full):
        out.append(("dg", "DG"))
    forts = {u.fortification for u in us if u.fortification}
    for f in ("if", "ff"):
        if f in forts:
            out.append((f, f.upper()))
            break
    if any(u.strategic for u in full):
        out.append(("sm", "SM"))
    if any(u.setup == "transport" for u in full):
        out.append(("tr", "TR"))
    return out


def _units(img: Image.Image, d: ImageDraw.ImageDraw, g: Geom, v: View) -> None:
    stacks: dict[HexId, list[UnitView]] = {}
    for u in v.units:
        if u.hex is not None and not u.eliminated:
            stacks.setdefault(u.hex, []).append(u)
    s = max(12, round(1.2 * g.r))
    badge_font = style.font(max(10, 0.3 * s))
    tag_font = style.font(max(9, 0.24 * s))
    for h in sorted(stacks):
        if not _inside(g, h, img.size):
            continue
        us = sorted(stacks[h], key=lambda u: u.stack_pos)
        top = us[0]
        count = v.stacks.get(h)  # None: a masked stack, its count is not seen
        x, y = g.center(h)
        x0, y0 = round(x - s / 2), round(y + 0.05 * g.r - s / 2)
        bg, _ink = colours(top.side, top.nation if top.known == "full" else None)
        if count and count > 1:
            step = max(2, round(0.07 * s))
            shade = tuple(max(0, c - 50) for c in bg)
            for k in (2, 1) if count > 2 else (1,):
                d.rectangle(
                    (x0 + k * step, y0 - k * step, x0 + k * step + s - 1, y0 - k * step + s - 1),
                    fill=shade,
                    outline=(0, 0, 0),
                )
        img.paste(sprite(top, s), (x0, y0))
        if count and count > 1:
            bx, by, br = x0 + s, y0 + s, max(7, round(0.2 * s))
            d.ellipse((bx - br, by - br, bx + br, by + br), fill=(255, 255, 255), outline=(0, 0, 0))
            d.text((bx, by), str(count), fill=(0, 0, 0), font=badge_font, anchor="mm")
        ty: float = y0
        for kind, label in _stack_markers(us):
            tbg, tink = style.MARKER[kind]
            left, t, rr, b = d.textbbox((0, 0), label, font=tag_font)
            tw, th = rr - left + 4, b - t + 4
            tx = x0 - tw + max(3, round(0.15 * s))
            d.rectangle((tx, ty, tx + tw, ty + th), fill=tbg, outline=(0, 0, 0))
            d.text((tx + tw / 2, ty + th / 2), label, fill=tink, font=tag_font, anchor="mm")
            ty += th + 1


def _phase_text(v: View) -> str:
    date = f" ({v.date})" if v.date else ""
    active = ", ".join(v.active) if v.active else "-"
    status = "  GAME OVER" if v.over else ""
    waiting = f"  waiting for {', '.join(v.awaited)}" if v.awaited and v.awaited != v.active else ""
    return (
        f"Turn {v.turn}{date}  ·  {v.phase} phase ({v.phase_number})  ·  active: {active}"
        f"{waiting}  ·  view: {v.viewer}{status}"
    )


_LEGEND_TERRAIN = ("clear", "hills", "forest", "swamp", "town", "city")
_LEGEND_LINES = (
    ("stream", style.HEXSIDE["stream"][0]),
    ("river", style.HEXSIDE["river"][0]),
    ("big river", style.HEXSIDE["big-river"][0]),
    ("fortified line", style.HEXSIDE["fortified-line"][0]),
    ("main road", style.ROAD["main"][0]),
    ("side road", style.ROAD["side"][0]),
    ("railway", style.ROAD["rail"][0]),
)
_LEGEND_MARKERS = (
    ("oos", "OoS out of supply"),
    ("dg", "DG disorganized"),
    ("ff", "FF/IF fortified"),
    ("sm", "SM strategic"),
    ("tr", "TR transport"),
)


def _with_title(img: Image.Image, v: View, name: str, z: float) -> Image.Image:
    """A title block above the map: scenario, turn and date, phase, active side, legend."""
    w = img.width
    fs = max(11.0, 8 * z)
    big, small = style.font(fs * 1.25), style.font(fs, bold=False)
    pad = round(fs * 0.5)
    # lay out legend items as (kind, swatch, text) and wrap them by width
    items: list[tuple[str, style.RGB, str]] = [
        ("fill", style.TERRAIN[t], t) for t in _LEGEND_TERRAIN
    ]
    items += [("line", c, t) for t, c in _LEGEND_LINES]
    items += [("tag", style.MARKER[k][0], t) for k, t in _LEGEND_MARKERS]
    # the red corner of a counter that lost CELs: its factors show its strength now (K15)
    items.append(("corner", style.REDUCED, "reduced: strength now"))
    probe = ImageDraw.Draw(img)
    sw = round(fs * 1.2)
    rows: list[list[tuple[str, style.RGB, str, int]]] = [[]]
    x = pad
    for kind, c, text in items:
        tw = round(probe.textlength(text, font=small)) + sw + round(fs * 1.3)
        if x + tw > w - pad and rows[-1]:
            rows.append([])
            x = pad
        rows[-1].append((kind, c, text, x))
        x += tw
    line_h = round(fs * 1.5)
    title_lines = [f"{name}", _phase_text(v)]
    head = pad + round(fs * 1.6) + line_h * len(_wrap(probe, title_lines[1], small, w - 2 * pad))
    th = head + line_h * len(rows) + pad
    out = Image.new("RGB", (w, th + img.height), (255, 255, 255))
    out.paste(img, (0, th))
    d = ImageDraw.Draw(out)
    d.text((pad, pad), title_lines[0], fill=(0, 0, 0), font=big)
    y = pad + round(fs * 1.6)
    for line in _wrap(d, title_lines[1], small, w - 2 * pad):
        d.text((pad, y), line, fill=(0, 0, 0), font=small)
        y += line_h
    for row in rows:
        for kind, c, text, lx in row:
            cy = y + line_h / 2 - 1
            if kind == "fill":
                d.rectangle((lx, cy - sw / 2.5, lx + sw, cy + sw / 2.5), fill=c, outline=(0, 0, 0))
            elif kind == "line":
                d.line((lx, cy, lx + sw, cy), fill=c, width=max(2, round(fs / 4)))
            elif kind == "corner":
                top, bottom = cy - sw / 2.5, cy + sw / 2.5
                d.rectangle((lx, top, lx + sw, bottom), fill=(255, 255, 255), outline=(0, 0, 0))
                d.polygon([(lx, top), (lx + sw / 2, top), (lx, top + sw / 2)], fill=c)
            else:
                d.rectangle((lx, cy - sw / 3, lx + sw, cy + sw / 3), fill=c, outline=(0, 0, 0))
            d.text((lx + sw + 4, cy), text, fill=(0, 0, 0), font=small, anchor="lm")
        y += line_h
    d.line((0, th - 1, w, th - 1), fill=(0, 0, 0), width=1)
    return out


def _wrap(d: ImageDraw.ImageDraw, text: str, f: style.Font, width: float) -> list[str]:
    parts = text.split("  ·  ")
    lines = [parts[0]]
    for p in parts[1:]:
        cand = f"{lines[-1]}  ·  {p}"
        if d.textlength(cand, font=f) <= width:
            lines[-1] = cand
        else:
            lines.append(p)
    return lines

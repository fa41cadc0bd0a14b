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
from engine.view import MODERATOR, SPECTATOR, SupplyPicture, View, supply_view, view
from render import style
from render.canvas import Boxes, Canvas, Overlay
from render.geometry import SQ3, Geom, bbox, full_geom
from render.header import with_header
from render.labels import place_names
from render.legend import legend_image
from render.stacks import draw_stacks
from render.supply import supply_cuts, supply_edges, with_key
from render.terrain import bridge, bridge_ends, terrain_layer

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
    supply: bool = False,
) -> Image.Image:
    """The map as `viewer` (a side, "spectator" or "moderator") sees it. `events`: the log
    the caller has already filtered with `engine.view.visible_events(events, viewer)`; the
    last phase of the current turn that has moves or combats is drawn over the map.
    `supply`: the viewer's supply overlay (`engine.view.supply_view`, K102)."""
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
        supply=supply_view(state, viewer) if supply else None,
    )


def legend(state: GameState, viewer: str) -> Image.Image:
    """The full legend of the game's map as its own picture (#18, item 11), with the keys
    of what `viewer`'s view shows."""
    setup = state.setup
    if viewer not in setup.sides and viewer not in (SPECTATOR, MODERATOR):
        raise RenderError(f"'{viewer}' is not a viewer")
    return legend_image(setup.map, view(state, viewer), title=f"Legend: {setup.name}")


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


def crop_box(
    m: MapData, g: Geom, crop: Crop | None, size: tuple[int, int]
) -> tuple[int, int, int, int]:
    """The pixel window of a crop in the whole map's geometry: a hex and its radius are
    centred in the picture, even at the map's edge (#18, item 12)."""
    if crop is None:
        return (0, 0, size[0], size[1])
    if isinstance(crop, Box):
        return bbox(g, crop_hexes(m, crop), pad=0.1 * g.r)
    crop_hexes(m, crop)  # checks the hex and the radius
    x, y = g.center(normalize(crop.hex))
    hw = 1.5 * g.r * crop.radius + 1.1 * g.r
    hh = SQ3 * g.r * (crop.radius + 0.5) + 0.1 * g.r
    return (round(x - hw), round(y - hh), round(x + hw), round(y + hh))


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
    supply: Sequence[SupplyPicture] | None = None,
) -> Image.Image:
    """The picture of view `v` of map `m`: `draw_map`, then the header."""
    c = draw_map(
        m,
        v,
        crop=crop,
        zoom=zoom,
        control=control,
        hq_range=hq_range,
        events=events,
        supply=supply,
    )
    where = ""
    if isinstance(crop, Around):
        where = f"around {normalize(crop.hex)}"
    elif isinstance(crop, Box):
        where = f"{crop.a}-{crop.b}"
    out = with_header(c.img, m, v, title or v.scenario, c.zoom, crop is not None, where)
    return with_key(out, supply, c.zoom) if supply else out


def draw_map(
    m: MapData,
    v: View,
    *,
    crop: Crop | None = None,
    zoom: float | None = None,
    control: bool = False,
    hq_range: int | None = None,
    events: Sequence[Event] | None = None,
    supply: Sequence[SupplyPicture] | None = None,
) -> Canvas:
    """The map part of a picture: the terrain layer, then the overlays in order (each a
    function of the Canvas; an optional one is appended where asked for), place names
    last so that they keep clear of everything drawn before them."""
    z = zoom if zoom is not None else (1.0 if crop is None else CROP_ZOOM)
    if not style.ZOOM_RANGE[0] <= z <= style.ZOOM_RANGE[1]:
        lo, hi = style.ZOOM_RANGE
        raise RenderError(f"zoom {z:g} is out of range: use {lo:g} to {hi:g}")
    r = style.BASE_RADIUS * z
    g_full, w, h = full_geom(m.grid, r, margin=0.3 * r)
    box = crop_box(m, g_full, crop, (w, h))
    img = terrain_layer(m, g_full, box).copy()
    g = g_full.shifted(-box[0], -box[1])
    c = Canvas(img, ImageDraw.Draw(img), g, m, v, z, Boxes(2 * r))
    overlays: list[Overlay] = [bridge_states]
    if control:
        overlays.append(_control)
    if hq_range is not None:
        overlays.append(lambda c: _hq_ranges(c, hq_range))
    if supply is not None:
        overlays.append(supply_edges(supply))  # under the counters: they stay readable
    overlays += [draw_stacks, _pending]
    if supply is not None:
        overlays.append(supply_cuts(supply))
    if events:
        overlays.append(lambda c: _overlays(c, last_phase_events(events, v.turn)))
    overlays.append(place_names)
    for overlay in overlays:
        overlay(c)
    return c


def locate(
    m: MapData, img: Image.Image, h: HexId, crop: Crop | None = None, zoom: float | None = None
) -> tuple[int, int]:
    """The pixel of hex h's centre in a snapshot drawn with these crop and zoom (it may lie
    outside the image for a hex outside the crop)."""
    z = zoom if zoom is not None else (1.0 if crop is None else CROP_ZOOM)
    r = style.BASE_RADIUS * z
    g, w, hh = full_geom(m.grid, r, margin=0.3 * r)
    box = crop_box(m, g, crop, (w, hh))
    title = img.height - (box[3] - box[1])
    x, y = g.center(h)
    return round(x - box[0]), round(y - box[1] + title)


def bridge_states(c: Canvas) -> None:
    """Bridges whose state the view tells (14.0): a blown printed bridge is crossed out,
    a bridge built in play is drawn (#18, item 9). The printed ones are in the terrain."""
    for k, b in c.v.bridges.items():
        a, bb = k.split("/")
        if not (c.inside(a) or c.inside(bb)):
            continue
        intact, printed = b.get("intact", True), b.get("printed", True)
        if printed and intact:
            continue
        p, q = bridge_ends(c.g, a, bb)
        bridge(c.d, p, q, c.g.r, destroyed=not intact)


def _control(c: Canvas) -> None:
    d, g = c.d, c.g
    width = max(2, round(0.08 * g.r))
    for h, side in c.v.control.items():
        if c.inside(h):
            pts = g.corners(h, 0.9)
            d.line([*pts, pts[0]], fill=style.CONTROL.get(side, (80, 80, 200)), width=width)


def _hq_ranges(c: Canvas, radius: int) -> None:
    """HQ range on request: the rim of the hexes within `radius` of each HQ the view shows."""
    d, g, m = c.d, c.g, c.m
    width = max(2, round(0.06 * g.r))
    for u in c.v.units:
        if u.type != "hq" or u.hex is None or u.eliminated or u.known != "full":
            continue
        area = set(m.grid.within(u.hex, radius))
        for h in area:
            if not c.inside(h):
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


def _overlays(c: Canvas, events: Sequence[Event]) -> None:
    """Arrows along moved (solid) and retreat/pursuit (dashed) paths, then combat labels
    ("3:1  - / D2") at the defending hexes. Only hexes and results are drawn, never unit ids."""
    d, g, m = c.d, c.g, c.m
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


def _pending(c: Canvas) -> None:
    """The hexes of a pending retreat/pursuit/losses decision, when the view shows its
    options (only to the side it is addressed to, and the moderator)."""
    d, g, v = c.d, c.g, c.v
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
        if c.inside(h):
            pts = g.corners(h, 0.82)
            d.line([*pts, pts[0]], fill=style.PENDING, width=width)

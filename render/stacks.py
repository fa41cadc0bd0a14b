"""Stacks of counters as the viewer's View shows them (issue 6), with the fog of war made
visible (#18, item 7): a white count badge on a stack the viewer sees whole, a yellow
"3?" on an enemy stack whose lower counters are hidden (16.1.1), a MASK tag on the viewer's
own stacks under a mask (the enemy sees a plain "?", 16.1.2), and in the moderator's
crops a tab listing the counters under the top one. Nothing here reads the game state."""

from __future__ import annotations

from collections.abc import Sequence

from engine.hexgrid import HexId
from engine.view import MODERATOR, UnitView, View
from render import style
from render.canvas import Canvas, Rect
from render.counters import colours, factors, sprite
from render.geometry import Geom
from render.terrain import hex_number, number_font

COUNTER = 1.2  # a counter's side in hex radii
DROP = 0.1  # its centre below the hex centre (radii): room above it for the hex number
CONTENTS_ZOOM = 1.5  # the moderator's contents tabs from this zoom (crops) on


def counter_size(g: Geom) -> int:
    return max(12, round(COUNTER * g.r))


def counter_box(g: Geom, h: HexId) -> tuple[int, int, int, int]:
    """The pixel box of the top counter in hex h."""
    s = counter_size(g)
    x, y = g.center(h)
    x0, y0 = round(x - s / 2), round(y + DROP * g.r - s / 2)
    return x0, y0, x0 + s, y0 + s


def stacks_of(v: View) -> dict[HexId, list[UnitView]]:
    """The counters on the map by hex, top counter first."""
    out: dict[HexId, list[UnitView]] = {}
    for u in v.units:
        if u.hex is not None and not u.eliminated:
            out.setdefault(u.hex, []).append(u)
    return {h: sorted(us, key=lambda u: u.stack_pos) for h, us in out.items()}


def all_seen(us: Sequence[UnitView]) -> bool:
    return all(u.known == "full" for u in us)


def badge_text(v: View, h: HexId, us: Sequence[UnitView]) -> str | None:
    """ "3" for a stack of 3 seen whole, "3?" when its lower counters are hidden from the
    viewer, None for one counter or a masked stack (its size is not seen, K28)."""
    count = v.stacks.get(h)
    if not count or count < 2:
        return None
    return str(count) if all_seen(us) and len(us) == count else f"{count}?"


def stack_markers(v: View, h: HexId, us: Sequence[UnitView]) -> list[tuple[str, str]]:
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
    if h in v.masked and us and v.viewer in (us[0].side, MODERATOR):  # own stack masked
        out.append(("mask", "MASK"))
    return out


def draw_stacks(c: Canvas) -> None:
    """Counters, then (over every counter) badges, marker tags, contents tabs and the
    hex numbers of the occupied hexes; every box drawn is recorded in `c.counters`."""
    g, d = c.g, c.d
    s = counter_size(g)
    stacks = {h: us for h, us in stacks_of(c.v).items() if c.inside(h)}
    step = max(2, round(0.07 * s))
    for h in sorted(stacks):
        us = stacks[h]
        top = us[0]
        x0, y0, x1, y1 = counter_box(g, h)
        count = c.v.stacks.get(h) or 1
        layers = min(2, count - 1)
        top_bg = colours(top.side, top.nation if top.known == "full" else None)[0]
        for k in range(layers, 0, -1):
            # a layer shows the colour of a counter the viewer sees in full, else the top's
            lower = us[k] if k < len(us) else None
            bg = colours(lower.side, lower.nation)[0] if lower and lower.known == "full" else top_bg
            shade = tuple(max(0, ch - 50) for ch in bg)
            box = (x0 + k * step, y0 - k * step, x1 - 1 + k * step, y1 - 1 - k * step)
            d.rectangle(box, fill=shade, outline=(0, 0, 0))
        c.img.paste(sprite(top, s), (x0, y0))
        c.counters.add((x0, y0 - layers * step, x1 + layers * step, y1))
        c.occupied.add(h)
    numbers = number_font(g)
    for h in sorted(stacks):  # the hex numbers again, over the stacks' layers (#18, item 12)
        hex_number(d, g, h, numbers, halo=True)
    for h in sorted(stacks):
        _badge(c, h, stacks[h], s)
        _tags(c, h, stacks[h], s)
    if c.v.viewer == MODERATOR and c.zoom >= CONTENTS_ZOOM:
        for h in sorted(stacks):
            if len(stacks[h]) > 1:
                _contents(c, h, stacks[h][1:], s)


def _badge(c: Canvas, h: HexId, us: Sequence[UnitView], s: int) -> None:
    text = badge_text(c.v, h, us)
    if text is None:
        return
    _, y0, x1, _ = counter_box(c.g, h)
    # at the top right, over the stack's layers: never on the factors (#18, item 12)
    bx, by = x1 + 0.08 * s, y0 - 0.08 * s
    f = style.font(max(10, 0.3 * s))
    br = max(7.0, 0.2 * s)
    half = max(br, c.d.textlength(text, font=f) / 2 + 0.25 * br)
    box: Rect = (bx - half, by - br, bx + half, by + br)
    hidden = text.endswith("?")
    fill = style.HIDDEN_BADGE if hidden else (255, 255, 255)
    c.d.rounded_rectangle(box, radius=br, fill=fill, outline=(0, 0, 0))
    c.d.text((bx, by), text, fill=(0, 0, 0), font=f, anchor="mm")
    c.counters.add(box)


def _tags(c: Canvas, h: HexId, us: Sequence[UnitView], s: int) -> None:
    x0, y0, _, _ = counter_box(c.g, h)
    f = style.font(max(9, 0.24 * s))
    ty: float = y0
    for kind, label in stack_markers(c.v, h, us):
        tbg, tink = style.MARKER[kind]
        left, t, rr, b = c.d.textbbox((0, 0), label, font=f)
        tw, th = rr - left + 4, b - t + 4
        tx = x0 - tw + max(3, round(0.15 * s))
        c.d.rectangle((tx, ty, tx + tw, ty + th), fill=tbg, outline=(0, 0, 0))
        c.d.text((tx + tw / 2, ty + th / 2), label, fill=tink, font=f, anchor="mm")
        c.counters.add((tx, ty, tx + tw, ty + th))
        ty += th + 1


def _contents(c: Canvas, h: HexId, lower: Sequence[UnitView], s: int) -> None:
    """The moderator's list of the counters under the top one: colour chip, type, factors."""
    f = style.font(max(9, 0.2 * s), condensed=True)
    lines = [(u, f"{(u.type or '?').upper()} {factors(u)}") for u in lower]
    lh = round(f.size * 1.25) if hasattr(f, "size") else 12
    chip = round(0.6 * lh)
    w = max(c.d.textlength(t, font=f) for _, t in lines) + chip + 8
    th = lh * len(lines) + 4
    # beside the counter where no other counter is, else on the right over its neighbour
    x0, y0, x1, y1 = counter_box(c.g, h)
    spots = ((x1 + 0.2 * s, y0 + 0.25 * s), (x0 - w - 0.2 * s, y0 + 0.4 * s), (x1 + 0.1 * s, y1))
    boxes: list[Rect] = [(x, y, x + w, y + th) for x, y in spots]
    box = next((b for b in boxes if not c.counters.hits(b)), boxes[0])
    tx, ty = box[0], box[1]
    c.d.rectangle(box, fill=(255, 255, 255), outline=style.VIEW_COLOUR[MODERATOR])
    for i, (u, text) in enumerate(lines):
        cy = ty + 2 + lh * i + lh / 2
        c.d.rectangle(
            (tx + 3, cy - chip / 2, tx + 3 + chip, cy + chip / 2),
            fill=colours(u.side, u.nation)[0],
            outline=(0, 0, 0),
        )
        c.d.text((tx + chip + 6, cy), text, fill=(0, 0, 0), font=f, anchor="lm")
    c.counters.add(box)

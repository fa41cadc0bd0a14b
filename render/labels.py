"""Place names drawn last, clear of every counter (#18, item 8): each name tries spots
below, on, above and beside its place (as printed maps set names by the town) and takes
the first whose box meets no counter, badge, tag or other name; a name with no free spot
is left out rather than drawn over a counter. White halo for legibility."""

from __future__ import annotations

import threading
from collections import OrderedDict

from engine.hexgrid import HexId
from engine.model import MapData
from render import style
from render.canvas import Boxes, Canvas

# Where a name may go, in hex radii from the foot of its place (below the lowest hex of the
# place's group): first under the counter at the hex's bottom, then on the hex centre, over
# the hex number, to the sides, and one hex further out.
SPOTS: tuple[tuple[float, float], ...] = (
    (0.0, 0.72),
    (0.0, 0.0),
    (0.0, -1.05),
    (-1.15, 0.3),
    (1.15, 0.3),
    (-0.9, 0.72),
    (0.9, 0.72),
    (0.0, 1.5),
    (-1.5, -0.45),
    (1.5, -0.45),
    (-1.5, 1.2),
    (1.5, 1.2),
    (0.0, -1.9),
)

_lock = threading.Lock()
_groups: OrderedDict[int, tuple[MapData, list[tuple[str, list[HexId]]]]] = OrderedDict()


def name_groups(m: MapData) -> list[tuple[str, list[HexId]]]:
    """One label per place: hexes of one name within 2 hexes of each other (a city's
    footprint) share it. Cached per map."""
    with _lock:
        hit = _groups.get(id(m))
        if hit is not None and hit[0] is m:
            return hit[1]
    groups: list[tuple[str, list[HexId]]] = []
    for hx, name in sorted(m.names.items()):
        for gname, members in groups:
            if gname == name and m.grid.distance(members[0], hx) <= 2:
                members.append(hx)
                break
        else:
            groups.append((name, [hx]))
    with _lock:
        _groups[id(m)] = (m, groups)
        while len(_groups) > 8:
            _groups.popitem(last=False)
    return groups


def place_names(c: Canvas) -> None:
    """Draws the names of the places in view; records each with its box in `c.labels`."""
    g, d = c.g, c.d
    f = style.font(max(9.0, 0.4 * g.r))
    halo = max(2, round(0.08 * g.r))
    taken = Boxes(2 * g.r)
    w, h = c.size
    for name, members in name_groups(c.m):
        if not any(c.inside(hx) for hx in members):
            continue
        pts = [g.center(hx) for hx in members]
        fx = sum(p[0] for p in pts) / len(pts)
        fy = max(p[1] for p in pts)  # the foot of a city is under its lowest hex
        x0, y0, x1, y1 = d.textbbox((0, 0), name, font=f, anchor="mm", stroke_width=halo)
        for dx, dy in SPOTS:
            x, y = fx + dx * g.r, fy + dy * g.r
            box = (x + x0, y + y0, x + x1, y + y1)
            if box[0] < 0 or box[1] < 0 or box[2] > w or box[3] > h:
                continue
            clear = (box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1)  # a pixel to spare
            if c.counters.hits(clear) or taken.hits(box):
                continue
            d.text(
                (x, y),
                name,
                fill=style.PLACE_NAME,
                font=f,
                anchor="mm",
                stroke_width=halo,
                stroke_fill=style.LABEL_HALO,
            )
            taken.add(box)
            c.labels.append((name, box))
            break

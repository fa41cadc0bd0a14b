"""Where a phone-sized crop looks when no hex is asked for (#18, item 12): the hex with the
most of the viewer's own counters within the crop's radius (every counter for the
moderator and spectators), from the View only."""

from __future__ import annotations

from engine.hexgrid import HexId
from engine.model import MapData
from engine.view import View


def focus_hex(m: MapData, v: View, radius: int) -> HexId:
    """The busiest hex for `v.viewer`; the map's centre hex when it sees no counter."""
    mine = [
        u.hex
        for u in v.units
        if u.hex is not None and not u.eliminated and u.side in (v.viewer, *_all(v))
    ]
    if not mine:
        (c0, c1), (r0, r1) = m.grid.cols, m.grid.rows
        return f"{(c0 + c1) // 2:02d}{(r0 + r1) // 2:02d}"
    hexes = sorted(set(mine))
    weight = {h: mine.count(h) for h in hexes}

    def score(h: HexId) -> tuple[int, HexId]:
        near = sum(n for o, n in weight.items() if m.grid.distance(h, o) <= radius)
        return (-near, h)

    return min(hexes, key=score)


def _all(v: View) -> tuple[str, ...]:
    """Every side, for a viewer who has no side of its own."""
    sides = {u.side for u in v.units}
    return tuple(sides) if v.viewer not in sides else ()

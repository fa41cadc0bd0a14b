"""Map snapshots drawn with Pillow from an engine View (DESIGN §1; issue 6).

`snapshot(state, viewer, crop=Around("3211", 3))` draws what `viewer` may see
(`engine.view.view`, so fog of war holds) over the cached terrain layer of the map;
`to_png` encodes it; `legend(state, viewer)` is the map's full legend (#18); `focus_hex`
picks a phone-sized crop's centre when none is asked for. Safe to call from a worker
thread. League pictures (#20): `standings_image` (the standings as a table) and
`rating_chart` (rating history with ±2·RD bands).
"""

from render.focus import focus_hex
from render.league import rating_chart, standings_image
from render.snapshot import (
    Around,
    Box,
    RenderError,
    crop_hexes,
    legend,
    render_view,
    snapshot,
    snapshot_png,
    to_png,
)

__all__ = [
    "Around",
    "Box",
    "RenderError",
    "crop_hexes",
    "focus_hex",
    "legend",
    "rating_chart",
    "render_view",
    "snapshot",
    "snapshot_png",
    "standings_image",
    "to_png",
]

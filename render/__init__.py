"""Map snapshots drawn with Pillow from an engine View (DESIGN §1; issue 6).

`snapshot(state, viewer, crop=Around("3211", 3))` draws what `viewer` may see
(`engine.view.view`, so fog of war holds) over the cached terrain layer of the map;
`to_png` encodes it. Safe to call from a worker thread.
"""

from render.snapshot import (
    Around,
    Box,
    RenderError,
    crop_hexes,
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
    "render_view",
    "snapshot",
    "snapshot_png",
    "to_png",
]

"""Colours, fonts and sizes of the map snapshots (issue 6): print-like, one place to tune."""

from __future__ import annotations

import threading
from pathlib import Path

from PIL import ImageFont

RGB = tuple[int, int, int]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

# Terrain fills (distinct, like the printed map). Patterns are drawn away from hex centres,
# so the pixel at a hex centre has exactly the fill colour where nothing else is drawn.
TERRAIN: dict[str, RGB] = {
    "clear": (238, 232, 205),
    # hills a pale ochre, towns and cities grey: apart from the brown Soviet counters (#18)
    "hills": (226, 208, 140),
    "forest": (135, 175, 105),
    "swamp": (160, 200, 196),
    "town": (205, 203, 210),
    "city": (165, 163, 175),
    # AGS (issue #19): its chart's words
    "woods": (135, 175, 105),
    "dnieper": (120, 165, 225),  # the Dniepr's river hexes (AGS-K 19.25)
    "sea": (120, 165, 225),
}
TERRAIN_UNKNOWN: RGB = (225, 225, 225)
TERRAIN_MARK: dict[str, RGB] = {  # pattern colours
    "hills": (165, 140, 60),
    "forest": (60, 110, 50),
    "swamp": (60, 120, 150),
    "town": (70, 68, 80),
    "city": (40, 38, 50),
    "woods": (60, 110, 50),
}
GRID_LINE: RGB = (150, 140, 120)
BACKGROUND: RGB = (250, 248, 240)
FRAME: RGB = (40, 40, 40)

# Hexside features: (colour, width in hex radii).
HEXSIDE: dict[str, tuple[RGB, float]] = {
    "stream": ((95, 155, 220), 0.07),
    "river": ((40, 100, 200), 0.13),
    "big-river": ((20, 60, 160), 0.26),
    "fortified-line": ((90, 0, 70), 0.1),
    "fixed-position": ((90, 60, 20), 0.09),
    "minor-river": ((40, 100, 200), 0.1),  # AGS
    "major-river": ((20, 60, 160), 0.22),  # AGS
}
HEXSIDE_ORDER = (
    "stream",
    "river",
    "big-river",
    "minor-river",
    "major-river",
    "fixed-position",
    "fortified-line",
)
BRIDGE: RGB = (60, 50, 40)
BRIDGE_DECK: RGB = (235, 225, 200)
DESTROYED: RGB = (225, 0, 0)  # the cross over a blown bridge (14.0)
ROAD: dict[str, tuple[RGB, float]] = {
    "main": ((210, 60, 30), 0.13),
    "side": ((120, 85, 55), 0.07),
    "rail": ((25, 25, 25), 0.06),
    "road": ((210, 60, 30), 0.1),  # AGS: one kind of road (TEC 10.4)
}
ZONE: RGB = (140, 40, 160)
PLACE_NAME: RGB = (20, 20, 20)
HEX_NUMBER: RGB = (95, 90, 80)

# Counter colours by nation: (background, ink).
NATION: dict[str, tuple[RGB, RGB]] = {
    "german": ((150, 158, 140), (10, 10, 10)),  # field grey
    "ss": ((30, 30, 30), (240, 240, 240)),  # black
    "soviet": ((150, 75, 40), (255, 245, 225)),  # brown
    "guards": ((185, 35, 35), (255, 240, 220)),  # red
}
SIDE_DEFAULT: dict[str, tuple[RGB, RGB]] = {
    "german": NATION["german"],
    "soviet": NATION["soviet"],
}
OTHER_SIDE: tuple[RGB, RGB] = ((120, 120, 170), (255, 255, 255))
STAR: dict[str, RGB] = {
    "black": (0, 0, 0),
    "red": (220, 20, 20),
    "white": (255, 255, 255),
    "yellow": (250, 210, 0),
    "gold": (250, 210, 0),
}
# Markers: label colours (background, ink).
MARKER: dict[str, tuple[RGB, RGB]] = {
    "oos": ((250, 215, 40), (0, 0, 0)),
    "dg": ((240, 120, 20), (0, 0, 0)),
    "ff": ((120, 90, 50), (255, 255, 255)),
    "if": ((70, 50, 25), (255, 255, 255)),
    "sm": ((40, 140, 60), (255, 255, 255)),
    "tr": ((110, 60, 160), (255, 255, 255)),
    "mask": ((60, 60, 60), (255, 255, 255)),  # the viewer's own stack under a mask (16.1.2)
}
CONTROL: dict[str, RGB] = {"german": (90, 100, 80), "soviet": (200, 40, 30)}
HQ_RANGE: RGB = (30, 90, 200)
REDUCED: RGB = (220, 30, 30)

BASE_RADIUS = 24.0  # hex radius in px at zoom 1 (whole map ~2300 px wide for 64 columns)
ZOOM_RANGE = (0.5, 4.0)

_DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
_local = threading.local()  # fonts per thread: FreeType faces are not shared across threads


def font(size: float, bold: bool = True, condensed: bool = False) -> Font:
    """A scalable TrueType font: DejaVu Sans when the system has it, else Pillow's own."""
    px = max(6, round(size))
    cache: dict[tuple[int, bool, bool], Font] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = {}
        _local.fonts = cache
    key = (px, bold, condensed)
    f = cache.get(key)
    if f is None:
        name = "DejaVuSansCondensed" if condensed else "DejaVuSans"
        path = _DEJAVU / (name + ("-Bold.ttf" if bold else ".ttf"))
        try:
            f = ImageFont.truetype(str(path), px)
        except OSError:
            f = ImageFont.load_default(size=px)
        cache[key] = f
    return f


# "What happened" overlays (issue 6): the last phase's moves, retreats/pursuits, combats,
# and the hexes of a pending retreat/pursuit/losses decision.
MOVE_ARROW: RGB = (220, 0, 140)
RETREAT_ARROW: RGB = (230, 130, 0)
COMBAT_LABEL: tuple[RGB, RGB] = ((255, 250, 205), (0, 0, 0))  # background, ink
PENDING: RGB = (0, 190, 230)


def fitted(text: str, size: float, width: float, bold: bool = True) -> Font:
    """The largest condensed font up to `size` px in which `text` is at most `width` px
    wide: counter factors such as "4(2)-5" or an HQ's "0-10" are never clipped (#18)."""
    px = max(6, round(size))
    f = font(px, bold, condensed=True)
    while px > 6 and f.getlength(text) > width:
        px -= 1
        f = font(px, bold, condensed=True)
    return f


# Whose picture it is (#18, fog of war): the frame round the map and the header's banner.
VIEW_COLOUR: dict[str, RGB] = {
    "german": (70, 80, 60),
    "soviet": (170, 30, 25),
    "moderator": (215, 160, 0),
    "spectator": (70, 90, 150),
}
VIEW_NOTE: dict[str, str] = {
    "moderator": "every counter; stacks list the counters under the top one",
    "spectator": "what both sides see: top counters and stack sizes only",
}
SIDE_NOTE = "your units in full; enemy stacks: top counter and size only"
HIDDEN_BADGE: RGB = (255, 220, 80)  # "3?": an enemy stack whose lower counters are hidden
LABEL_HALO: RGB = (255, 255, 250)

# The supply overlay (issue #17): the edge of each side's supply area, and cut lines.
SUPPLY_EDGE: dict[str, RGB] = {
    "german": (20, 120, 60),
    "soviet": (190, 110, 0),
    "other": (40, 90, 170),
}
SUPPLY_CUT: RGB = (215, 0, 0)

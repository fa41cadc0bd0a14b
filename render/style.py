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
    "hills": (214, 180, 120),
    "forest": (135, 175, 105),
    "swamp": (160, 200, 196),
    "town": (232, 196, 170),
    "city": (196, 140, 122),
}
TERRAIN_UNKNOWN: RGB = (225, 225, 225)
TERRAIN_MARK: dict[str, RGB] = {  # pattern colours
    "hills": (168, 128, 70),
    "forest": (60, 110, 50),
    "swamp": (60, 120, 150),
    "town": (120, 40, 30),
    "city": (90, 25, 20),
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
}
HEXSIDE_ORDER = ("stream", "river", "big-river", "fixed-position", "fortified-line")
BRIDGE: RGB = (60, 50, 40)
ROAD: dict[str, tuple[RGB, float]] = {
    "main": ((210, 60, 30), 0.13),
    "side": ((120, 85, 55), 0.07),
    "rail": ((25, 25, 25), 0.06),
}
ZONE: RGB = (140, 40, 160)
PLACE_NAME: RGB = (20, 20, 20)
HEX_NUMBER: RGB = (95, 90, 80)

# Counter colours by nation: (background, ink).
NATION: dict[str, tuple[RGB, RGB]] = {
    "german": ((150, 158, 140), (10, 10, 10)),  # field grey
    "ss": ((30, 30, 30), (240, 240, 240)),  # black
    "soviet": ((165, 95, 60), (255, 245, 225)),  # brown
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
}
CONTROL: dict[str, RGB] = {"german": (90, 100, 80), "soviet": (200, 40, 30)}
HQ_RANGE: RGB = (30, 90, 200)
REDUCED: RGB = (220, 30, 30)

BASE_RADIUS = 24.0  # hex radius in px at zoom 1 (whole map ~2300 px wide for 64 columns)
ZOOM_RANGE = (0.5, 4.0)

_DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
_local = threading.local()  # fonts per thread: FreeType faces are not shared across threads


def font(size: float, bold: bool = True) -> Font:
    """A scalable TrueType font: DejaVu Sans when the system has it, else Pillow's own."""
    px = max(6, round(size))
    cache: dict[tuple[int, bool], Font] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = {}
        _local.fonts = cache
    key = (px, bold)
    f = cache.get(key)
    if f is None:
        path = _DEJAVU / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
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

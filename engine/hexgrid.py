"""Hex geometry for the printed maps (DESIGN §3).

Hex ids are the rulebook's `CCRR` numbers: column then row, two digits each. Columns run
west to east, rows north to south, hexes are flat-topped. In the default `even-q` layout
even-numbered columns sit half a hex lower than odd ones; `odd-q` is the opposite.
Internally a hex is converted to cube coordinates (after Red Blob Games) for distance and
lines; ids stay the public form everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Layout = Literal["even-q", "odd-q"]
HexId = str
Hexside = tuple[HexId, HexId]

_ID = re.compile(r"^[0-9]{3,4}$")  # ASCII digits only


class HexIdError(ValueError):
    """A hex id that is not 3 or 4 digits."""


@lru_cache(maxsize=1 << 16)  # hot in movement and ZoC searches (kessel bench)
def parse_hex(text: str) -> tuple[int, int]:
    """`"0535"` or `"535"` -> (5, 35). The last two digits are always the row."""
    t = str(text).strip()
    if not _ID.match(t):
        raise HexIdError(f"'{text}' is not a hex number (CCRR, e.g. 0535)")
    return int(t[:-2]), int(t[-2:])


def hex_id(col: int, row: int) -> HexId:
    if not (0 <= col <= 99 and 0 <= row <= 99):
        raise HexIdError(f"column {col} / row {row} has no CCRR number")
    return f"{col:02d}{row:02d}"


def normalize(text: str) -> HexId:
    """Canonical four-digit id: `535` -> `0535`."""
    return hex_id(*parse_hex(text))


def hexside(a: HexId, b: HexId) -> Hexside:
    """A hexside as an unordered pair, stored in sorted order."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class Grid:
    """The numbering of one map: its layout and its column/row bounds (inclusive)."""

    layout: Layout = "even-q"
    cols: tuple[int, int] = (0, 99)
    rows: tuple[int, int] = (0, 99)
    # Hexes inside the bounds that are not on the map: where joined sheets do not cover
    # the rectangle (the Kursk joint game, docs/maps.md). Off the map in every respect.
    holes: frozenset[HexId] = frozenset()

    # --- coordinates -------------------------------------------------------------------
    def _lowered(self, col: int) -> bool:
        """True when this column sits half a hex lower."""
        return (col % 2 == 0) == (self.layout == "even-q")

    def to_cube(self, h: HexId) -> tuple[int, int, int]:
        return _to_cube(self, h)

    def _cube(self, h: HexId) -> tuple[int, int, int]:
        c, r = parse_hex(h)
        q = c
        # Lowered columns' rows start half a hex further south.
        if self.layout == "even-q":
            rr = r - (c + (c & 1)) // 2
        else:
            rr = r - (c - (c & 1)) // 2
        return q, rr, -q - rr

    def from_cube(self, q: int, r: int) -> tuple[int, int]:
        if self.layout == "even-q":
            return q, r + (q + (q & 1)) // 2
        return q, r + (q - (q & 1)) // 2

    # --- queries -----------------------------------------------------------------------
    def contains(self, h: HexId) -> bool:
        try:
            c, r = parse_hex(h)
        except HexIdError:
            return False
        inside = self.cols[0] <= c <= self.cols[1] and self.rows[0] <= r <= self.rows[1]
        return inside and not (self.holes and hex_id(c, r) in self.holes)

    def all_hexes(self) -> Iterator[HexId]:
        for c in range(self.cols[0], self.cols[1] + 1):
            for r in range(self.rows[0], self.rows[1] + 1):
                h = hex_id(c, r)
                if not self.holes or h not in self.holes:
                    yield h

    def neighbours_unbounded(self, h: HexId) -> list[HexId]:
        c, r = parse_hex(h)
        if self._lowered(c):
            cand = [(c, r - 1), (c, r + 1), (c - 1, r), (c - 1, r + 1), (c + 1, r), (c + 1, r + 1)]
        else:
            cand = [(c, r - 1), (c, r + 1), (c - 1, r - 1), (c - 1, r), (c + 1, r - 1), (c + 1, r)]
        return [hex_id(cc, rr) for cc, rr in cand if 0 <= cc <= 99 and 0 <= rr <= 99]

    def neighbours(self, h: HexId) -> list[HexId]:
        """The adjacent hexes that are on this map."""
        return list(_neighbours(self, h))

    def adjacent(self, a: HexId, b: HexId) -> bool:
        return self.distance(a, b) == 1

    def distance(self, a: HexId, b: HexId) -> int:
        """Hexes between a and b, ignoring terrain and units (R18)."""
        aq, ar, as_ = self.to_cube(a)
        bq, br, bs = self.to_cube(b)
        return max(abs(aq - bq), abs(ar - br), abs(as_ - bs))

    def within(self, h: HexId, radius: int) -> list[HexId]:
        """Every on-map hex at distance <= radius from h (h included)."""
        q0, r0, _ = self.to_cube(h)
        out: list[HexId] = []
        for dq in range(-radius, radius + 1):
            for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
                c, r = self.from_cube(q0 + dq, r0 + dr)
                if 0 <= c <= 99 and 0 <= r <= 99:
                    hid = hex_id(c, r)
                    if self.contains(hid):
                        out.append(hid)
        return out

    def line(self, a: HexId, b: HexId) -> list[HexId]:
        """The hexes on the straight line from a to b, both included (cube lerp with a
        small nudge so lines along hexsides break ties the same way every time)."""
        n = self.distance(a, b)
        aq, ar, as_ = self.to_cube(a)
        bq, br, bs = self.to_cube(b)
        eps = (1e-6, 2e-6, -3e-6)
        out: list[HexId] = []
        for i in range(n + 1):
            t = i / n if n else 0.0
            fq = aq + eps[0] + (bq - aq) * t
            fr = ar + eps[1] + (br - ar) * t
            fs = as_ + eps[2] + (bs - as_) * t
            q, r, s = round(fq), round(fr), round(fs)
            dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
            if dq > dr and dq > ds:
                q = -r - s
            elif dr > ds:
                r = -q - s
            c, rr = self.from_cube(q, r)
            out.append(hex_id(c, rr))
        return out


@lru_cache(maxsize=1 << 16)
def _neighbours(grid: Grid, h: HexId) -> tuple[HexId, ...]:
    return tuple(n for n in grid.neighbours_unbounded(h) if grid.contains(n))


@lru_cache(maxsize=1 << 16)
def _to_cube(grid: Grid, h: HexId) -> tuple[int, int, int]:
    return grid._cube(h)

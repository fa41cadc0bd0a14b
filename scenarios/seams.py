"""Rivers across the seam of a joint map (issue #18): a river that leaves one sheet where
the other sheet abuts it continues on that sheet's stretch of the same river. The built
sheets each trace their own stretch, and the two chains of hexsides can stop a hexside or
two short of each other at the seam (the Seym between Kursk and Solntsevo); the shortest
chain of on-map hexsides between their ends closes the gap.

Hexsides meet at corners; a corner is the three hexes around it (unbounded neighbours, so
a corner on the map's edge is one too)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from engine.hexgrid import Grid, HexId, Hexside, hexside

Corner = frozenset[HexId]
GAP = 3  # hexsides: river ends this close across a seam are one river


def corners(grid: Grid, side: Hexside) -> list[Corner]:
    a, b = side
    common = set(grid.neighbours_unbounded(a)) & set(grid.neighbours_unbounded(b))
    return [frozenset((a, b, c)) for c in sorted(common)]


def _sides_at(corner: Corner) -> list[Hexside]:
    x, y, z = sorted(corner)
    return [hexside(x, y), hexside(y, z), hexside(x, z)]


def components(grid: Grid, sides: Iterable[Hexside]) -> list[set[Hexside]]:
    """The river's chains: hexsides joined through shared corners."""
    left = set(sides)
    out: list[set[Hexside]] = []
    while left:
        start = min(left)  # in a fixed order: the built map must not depend on hashing
        left.remove(start)
        comp = {start}
        todo = [start]
        while todo:
            s = todo.pop()
            for c in corners(grid, s):
                for t in _sides_at(c):
                    if t in left:
                        left.remove(t)
                        comp.add(t)
                        todo.append(t)
        out.append(comp)
    return out


def ends(grid: Grid, comp: set[Hexside]) -> list[Corner]:
    """The corners where a chain stops: on one of its hexsides only."""
    count: dict[Corner, int] = {}
    for s in comp:
        for c in corners(grid, s):
            count[c] = count.get(c, 0) + 1
    return sorted((c for c, n in count.items() if n == 1), key=sorted)


def bridge(grid: Grid, a: Corner, b: Corner, limit: int = GAP) -> list[Hexside] | None:
    """The shortest chain of on-map hexsides from corner a to corner b (at most `limit`)."""
    seen = {a: [a]}
    paths: dict[Corner, list[Hexside]] = {a: []}
    todo = deque([a])
    while todo:
        c = todo.popleft()
        if c == b:
            return paths[c]
        if len(paths[c]) >= limit:
            continue
        for s in _sides_at(c):
            if not (grid.contains(s[0]) and grid.contains(s[1])):
                continue
            for d in corners(grid, s):
                if d != c and d not in seen:
                    seen[d] = [d]
                    paths[d] = [*paths[c], s]
                    todo.append(d)
    return None


def join_rivers(
    grid: Grid,
    rivers: dict[str, set[Hexside]],
    hexsides: dict[Hexside, str],
    seams: list[set[HexId]],
    features: Iterable[str] = ("stream", "river", "big-river"),
) -> list[str]:
    """Close the gaps of water lines at the seams, in place: chains of one feature whose
    ends near a seam are joined (a sheet need not name its stretch of a river); a gap
    next to a named river's chain joins that name too. One note per gap closed."""
    at_seam = set().union(*seams) if seams else set()
    notes: list[str] = []
    for feature in features:
        comps = components(grid, (x for x, f in hexsides.items() if f == feature))
        if len(comps) < 2:
            continue
        open_ends = [
            (i, c) for i, comp in enumerate(comps) for c in ends(grid, comp) if c & at_seam
        ]
        used: set[Corner] = set()
        for i, a in open_ends:
            if a in used:
                continue
            best: list[Hexside] | None = None
            other: Corner | None = None
            for j, b in open_ends:
                if j == i or b in used:
                    continue
                path = bridge(grid, a, b)
                if path is not None and (best is None or len(path) < len(best)):
                    best, other = path, b
            if best is None or other is None:
                continue
            for x in best:
                hexsides.setdefault(x, feature)
            # the named river whose chain ends at this corner (not every river that
            # joins the same water further off: the Tuskar flows into the Seym)
            touching = set(_sides_at(a)) | set(_sides_at(other))
            named = sorted(n for n, chain in rivers.items() if chain & touching)
            for n in named:
                rivers[n].update(best)
            used |= {a, other}
            shown = ", ".join("/".join(x) for x in best)
            what = named[0] if named else f"a {feature}"
            notes.append(f"{what}: joined across the seam at {shown}")
    return notes

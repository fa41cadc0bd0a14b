"""Issue #18: a river that reaches the seam of a joint map continues on the other sheet's
stretch (scenarios/seams.py) -- the Seym from the Kursk sheet to Solntsevo."""

from __future__ import annotations

from test_mapchecks import load_map

from engine.hexgrid import Grid, hexside
from scenarios.seams import bridge, components, corners, ends, join_rivers


def test_the_seym_runs_unbroken_across_the_joint_maps_seam() -> None:
    m = load_map("kursk-joint")
    seym = m.rivers["Sjejm"]
    south = {s for s, f in m.hexsides.items() if f == "river" and "2936" in s}
    assert hexside("2835", "2836") in seym  # the join reaches Solntsevo's hex
    chains = components(m.grid, seym | south)
    assert len(chains) == 1  # one river, no gap at the seam
    from test_mapchecks import SHIPPED

    from scenarios.yamlio import read_yaml_file

    raw = read_yaml_file(SHIPPED / "maps" / "kursk-joint.yaml")
    assert isinstance(raw, dict) and "Sjejm: joined across the seam" in str(raw["notes"])


def test_a_gap_of_hexsides_is_bridged_by_the_shortest_chain() -> None:
    grid = Grid(cols=(1, 10), rows=(1, 10))
    north = {hexside("0304", "0404"), hexside("0404", "0305")}
    south = {hexside("0306", "0406"), hexside("0406", "0307")}  # two hexsides short
    sides = {s: "river" for s in north | south}
    rivers = {"R": set(north)}
    seam = [{"0305", "0306", "0405", "0406"}]
    notes = join_rivers(grid, rivers, sides, seam)
    assert len(notes) == 1 and notes[0].startswith("R: joined across the seam at ")
    assert {"0305/0405", "0306/0405"} == set(notes[0].split(" at ")[1].split(", "))
    assert len(components(grid, rivers["R"] | south)) == 1
    a = ends(grid, {hexside("0304", "0404")})
    assert a and all(len(c) == 3 for c in a)
    assert bridge(grid, a[0], a[0]) == []
    assert corners(grid, hexside("0304", "0404"))

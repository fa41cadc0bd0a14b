"""The renderer draws AGS counters and terrain from the View alone (issue #19): the
attack-defence-movement of the face shown (AGS 2.2), the step's printed face (back,
`rpl`, AGS-K 24.11), the NATO symbol of the AGS unit type, and the AGS chart's terrain
(woods, town, city, the Dniepr's river hexes, minor and major rivers, roads)."""

from __future__ import annotations

from functools import cache

from PIL import Image

from engine.model import Setup
from engine.record import GameRecord
from engine.view import view
from render import Around, snapshot, style
from render.counters import factors, sprite
from render.snapshot import locate
from scenarios import load_scenario


@cache
def korsun() -> Setup:
    return load_scenario("ags-korsun")


def _px(img: Image.Image, xy: tuple[int, int]) -> tuple[int, int, int]:
    p = img.getpixel(xy)
    assert isinstance(p, tuple)
    return (p[0], p[1], p[2])


def test_ags_counters_show_attack_defence_movement_and_their_symbol() -> None:
    rec = GameRecord(korsun(), 1)
    v = view(rec.state, "german")
    by_id = {u.id: u for u in v.units}
    pz = by_id["g-1-1-pz"]
    step = rec.state.setup.results.units["g-1-1-pz"].steps[0]
    assert factors(pz) == f"{step.attack}-{step.defence}-{step.movement}" == "5-2-8"
    assert pz.symbol == "arm" and pz.face is None
    hq = by_id["s-hq-2tk"]
    assert factors(hq) == "(6)-9" and hq.symbol == "hq"  # leadership, movement (11.1)
    assert by_id["s-gd-cd-1"].symbol == "cav"


def test_the_step_shown_is_the_printed_face_of_a_reduced_unit() -> None:
    rec = GameRecord(korsun(), 1)
    corps = next(u for u in rec.state.on_map("soviet") if u.id.startswith("s-gd-tc"))
    full = {u.id: u for u in view(rec.state, "soviet").units}[corps.id]
    state = rec.state.clone()
    state.units[corps.id].cel = corps.max_cel - 2  # two steps lost: the rpl counter (24.11)
    reduced = {u.id: u for u in view(state, "soviet").units}[corps.id]
    steps = rec.state.setup.results.units[corps.id].steps
    assert factors(reduced) == str(steps[2]) != factors(full)
    assert reduced.face == "rpl" and full.face is None
    a, b = sprite(full, 60), sprite(reduced, 60)
    assert a.tobytes() != b.tobytes()  # another face, another picture


def test_ags_terrain_is_drawn_in_its_colours() -> None:
    setup = korsun()
    state = GameRecord(setup, 1).state
    occupied = {u.hex for u in state.on_map()}
    m = setup.map
    named = set(m.names)
    for t in ("woods", "dnieper"):
        h = next(
            h
            for h in sorted(m.terrain)
            if m.terrain_of(h) == t and h not in occupied and h not in named
        )
        img = snapshot(state, "moderator", crop=Around(h, 2))
        assert _px(img, locate(m, img, h, crop=Around(h, 2))) == style.TERRAIN[t], (t, h)
    assert {"minor-river", "major-river"} <= set(style.HEXSIDE) and "road" in style.ROAD


def test_the_ags_legend_keys_its_terrain_and_counters() -> None:
    """The map legend names what an AGS map and its counters show (issue #19): woods,
    the Dniepr's river hexes (AGS-K 19.25), minor and major rivers, roads, and counters
    printing attack-defence-movement and an HQ's (leadership)-movement; no WB-95 masks."""
    from render import legend
    from render.legend import map_keys

    rec = GameRecord(korsun(), 1)
    v = view(rec.state, "german")
    keys = {k.what: k for k in map_keys(rec.state.setup.map, v)}
    for what in ("woods", "dnieper", "minor-river", "major-river", "road", "5-2-8", "(6)-9"):
        assert what in keys, what
    assert "AGS-K 19.25" in keys["dnieper"].text and "hills" not in keys
    assert keys["5-2-8"].kind == "counter"
    img = legend(rec.state, "german")
    assert img.width == 640 and img.height > 600
    wb = GameRecord(load_scenario("korsun-1944"), 1)
    wb_keys = {k.what for k in map_keys(wb.state.setup.map, view(wb.state, "german"))}
    assert not wb_keys & {"5-2-8", "(6)-9", "dnieper", "major-river"}

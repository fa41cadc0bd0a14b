"""render/: issue #18, items 7-12 -- the fog of war shown, names clear of counters, blown
bridges, smooth roads, map-specific legends, readable counters, centred crops. Pixel and
box checks on the shipped maps' set-ups; no golden images."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache

import pytest
from conftest import scenario
from PIL import Image

from engine.record import GameRecord
from engine.state import GameState
from engine.view import UnitView, View, view
from render import Around, legend, render_view, snapshot, style
from render.canvas import Rect, overlaps
from render.counters import sprite
from render.legend import map_keys
from render.roads import smooth
from render.snapshot import draw_map, locate
from render.stacks import badge_text, counter_box, counter_size, stacks_of
from scenarios import load_scenario

SHIPPED = ("korsun-1944", "kursk", "prokhorovka")


@cache
def _state(name: str) -> GameState:
    return GameRecord(load_scenario(name), 0, ()).state


def _colours(img: Image.Image, box: Rect) -> set[tuple[int, int, int]]:
    part = img.crop((round(box[0]), round(box[1]), round(box[2]), round(box[3]))).convert("RGB")
    return {c for _, c in part.getcolors(1 << 20) or []}  # type: ignore[misc]


def _badge_area(c_box: tuple[int, int, int, int], s: int) -> Rect:
    _, y0, x1, _ = c_box
    return (x1 + 0.08 * s - 3, y0 - 0.08 * s - 3, x1 + 0.08 * s + 3, y0 - 0.08 * s + 3)


@pytest.mark.parametrize("name", SHIPPED)
def test_7_each_view_shows_its_own_fog_of_war_at_set_up(name: str) -> None:
    """Issue #18 item 7 (16.1.1): at set-up the German, Soviet and moderator pictures
    differ on the map itself: each view's frame colour; an enemy stack whose lower
    counters are hidden carries a yellow "N?" badge, the same stack seen whole by its
    side and by the moderator a white "N"."""
    state = _state(name)
    m = state.setup.map
    views = {s: view(state, s) for s in ("german", "soviet", "moderator")}
    maps = {s: draw_map(m, v).img for s, v in views.items()}
    assert len({img.tobytes() for img in maps.values()}) == 3
    for s, v in views.items():
        img = render_view(m, v)
        assert img.getpixel((1, img.height - 2)) == style.VIEW_COLOUR[s]
    g = draw_map(m, views["moderator"]).g
    size = counter_size(g)
    for side, enemy in (("german", "soviet"), ("soviet", "german")):
        v = views[side]
        hidden = [
            h
            for h, us in stacks_of(v).items()
            if us[0].side == enemy and (badge_text(v, h, us) or "").endswith("?")
        ]
        assert hidden, (name, side)
        for h in hidden[:5]:
            area = _badge_area(counter_box(g, h), size)
            assert style.HIDDEN_BADGE in _colours(maps[side], area), (name, side, h)
            for whole in (enemy, "moderator"):
                seen = _colours(maps[whole], area)
                assert style.HIDDEN_BADGE not in seen and (255, 255, 255) in seen, (whole, h)


def test_7_own_masked_stack_is_tagged_and_the_enemy_sees_a_plain_question_mark() -> None:
    """16.1.2 / K28: the masking side sees MASK on its stack; the enemy a "?" counter."""
    setup = scenario(
        [
            {"id": "s1", "hex": "0202", "type": "inf"},
            {"id": "g1", "hex": "0808", "type": "arm", "sp": 6, "mp": 8},
            {"id": "g2", "hex": "0808", "type": "inf"},
        ]
    )
    state = GameRecord(setup, 0, ()).state
    crop = Around("0808", 1)
    plain = snapshot(state, "german", crop=crop)
    state.masks["0808"] = "german"
    own = snapshot(state, "german", crop=crop)
    x, y = locate(setup.map, own, "0808", crop=crop)
    s = counter_size(draw_map(setup.map, view(state, "german"), crop=crop).g)
    tags = (x - s, y - s / 2, x - s / 2 + 4, y + s / 2)  # the marker column left of it
    assert style.MARKER["mask"][0] in _colours(own, tags)
    assert style.MARKER["mask"][0] not in _colours(plain, tags)
    enemy = view(state, "soviet")
    assert [u.known for u in enemy.units if u.hex == "0808"] == ["masked"]
    assert "0808" not in enemy.stacks


def test_7_moderator_crop_lists_the_counters_under_the_top_one() -> None:
    setup = scenario(
        [
            {"id": "s1", "hex": "0202", "type": "inf"},
            {"id": "g1", "hex": "0505", "type": "arm", "sp": 6, "mp": 8},
            {"id": "g2", "hex": "0505", "type": "art", "sp": [4, 2], "mp": 5},
        ]
    )
    state = GameRecord(setup, 0, ()).state
    crop = Around("0505", 2)
    tab = style.VIEW_COLOUR["moderator"]
    x, y = locate(setup.map, snapshot(state, "moderator", crop=crop), "0505", crop=crop)
    r = style.BASE_RADIUS * 2  # the crop's zoom
    near = (x - 1.5 * r, y - r, x + 2 * r, y + r)
    for viewer, shown in (("moderator", True), ("german", False), ("soviet", False)):
        img = snapshot(state, viewer, crop=crop)
        assert (tab in _colours(img, near)) is shown, viewer


@pytest.mark.parametrize("name", SHIPPED)
def test_8_no_place_name_overlaps_a_counter(name: str) -> None:
    """Issue #18 item 8: every name's box (halo included) is clear of every counter and
    its stack layers; nearly all names of the map still find a place."""
    state = _state(name)
    m = state.setup.map
    for viewer in ("german", "moderator"):
        v = view(state, viewer)
        crops = [None, Around("5026", 3)] if name == "prokhorovka" else [None]
        for crop in crops:
            c = draw_map(m, v, crop=crop)
            counters: list[Rect] = []
            step = max(2, round(0.07 * counter_size(c.g)))
            for h in c.occupied:  # each counter with the layers of its stack
                x0, y0, x1, y1 = counter_box(c.g, h)
                layers = min(2, (v.stacks.get(h) or 1) - 1) * step
                counters.append((x0, y0 - layers, x1 + layers, y1))
            for text, box in c.labels:
                hit = [b for b in counters if overlaps(box, b)]
                assert not hit, (name, viewer, crop, text, box, hit)
            if crop is None:
                assert len(c.labels) >= 0.85 * len({*m.names.values()}), (name, viewer)
            else:
                assert "Bielgorod" in {t for t, _ in c.labels}


def test_9_a_blown_bridge_is_crossed_out() -> None:
    """Issue #18 item 9 (14.0): the Belgorod bridges the scenario destroys are drawn
    crossed out in red; drawn standing when the view says they stand."""
    state = _state("prokhorovka")
    m = state.setup.map
    v = view(state, "german")
    blown = [k for k, b in v.bridges.items() if not b["intact"]]
    assert "5126/5225" in blown or "5225/5126" in blown
    standing = replace(v, bridges={k: {**b, "intact": True} for k, b in v.bridges.items()})
    crop = Around("5126", 2)
    for k in blown:
        a, b = k.split("/")
        crossed = draw_map(m, v, crop=crop)
        whole = draw_map(m, standing, crop=crop)
        (ax, ay), (bx, by) = crossed.g.center(a), crossed.g.center(b)
        mid = ((ax + bx) / 2 - 6, (ay + by) / 2 - 6, (ax + bx) / 2 + 6, (ay + by) / 2 + 6)
        assert style.DESTROYED in _colours(crossed.img, mid), k
        assert style.DESTROYED not in _colours(whole.img, mid), k
    assert any(k.kind == "destroyed" for k in map_keys(m, v))


def test_10_smoothing_takes_out_the_zigzag_of_a_road_along_a_row() -> None:
    """Issue #18 item 10: hex centres along a row alternate half a hex up and down; the
    drawn road keeps within a tenth of a hex of the straight line, ends in place."""
    r = 24.0
    pts = [(1.5 * r * i, (0.5 * r * math.sqrt(3) / 2) * (i % 2)) for i in range(9)]
    line = smooth(pts)
    mid = 0.25 * r * math.sqrt(3) / 2
    inner = [p for p in line if pts[1][0] <= p[0] <= pts[-2][0]]
    assert max(abs(y - mid) for _, y in inner) < 0.1 * r
    assert line[0] == pts[0] and line[-1] == pts[-1]


def test_10_a_railway_on_a_road_runs_beside_it() -> None:
    """Issue #18 item 10: a railway on a road's hexsides is drawn beside the road, not on it."""
    line = ["0402", "0403", "0404", "0405", "0406"]  # a column: a straight line
    setup = scenario([], roads=[{"kind": "main", "hexes": line}, {"kind": "rail", "hexes": line}])
    state = GameRecord(setup, 0, ()).state
    c = draw_map(setup.map, view(state, "moderator"), zoom=2.0)
    x, y = c.g.center("0404")
    road, rail = style.ROAD["main"][0], style.ROAD["rail"][0]
    assert road in _colours(c.img, (x - 1, y - 8, x + 1, y + 8))
    assert rail not in _colours(c.img, (x - 1, y - 8, x + 1, y + 8))
    off = 0.16 * c.g.r
    beside = _colours(c.img, (x - off - 2, y - 8, x + off + 2, y + 8))
    assert rail in beside


def test_11_the_legend_is_the_maps_own() -> None:
    """Issue #18 item 11: Korsun (no fortified lines) does not list them, but its hills
    (item 6) it does; Prokhorovka lists both and its blown bridges; a crop's header is one
    short line."""
    korsun = {k.what for k in map_keys(_state("korsun-1944").setup.map)}
    prok = {k.what for k in map_keys(_state("prokhorovka").setup.map)}
    assert "fortified-line" not in korsun and "hills" in korsun
    assert {"hills", "fortified-line", "bridge"} <= prok
    state = _state("korsun-1944")
    crop = Around("3211", 4)
    img = snapshot(state, "german", crop=crop)
    header = img.height - draw_map(state.setup.map, view(state, "german"), crop=crop).img.height
    assert header <= 0.06 * img.height
    full = legend(state, "german")
    assert full.width <= 700 and full.height > 800  # its own picture: the keys and a counter


def test_12_counter_factors_are_never_clipped() -> None:
    """Issue #18 item 12: an HQ's "0-10" and an artillery "4(2)-5" fit their counter at
    the full map's and a crop's size: no ink in the two pixels inside the border."""
    hq = UnitView(side="german", hex=None, known="full", type="hq", nation="german", sp=0, mp="10")
    art = UnitView(
        side="soviet", hex=None, known="full", type="art", nation="soviet", art=(4, 2), mp="5"
    )
    for u in (hq, art):
        for s in (29, 58):
            img = sprite(u, s)
            band = (0.65 * s, 0.97 * s)
            border = max(1, s // 30)
            for x in (border, border + 1, s - border - 2, s - border - 1):
                edge = _colours(img, (x, band[0], x + 1, band[1]))
                bg = style.NATION[u.nation or ""][0]
                assert edge == {bg}, (u.type, s, x, edge)


def test_12_the_stack_badge_is_off_the_factors() -> None:
    setup = scenario(
        [
            {"id": "g1", "hex": "0505", "type": "art", "sp": [4, 2], "mp": 5},
            {"id": "g2", "hex": "0505"},
        ]
    )
    c = draw_map(setup.map, view(GameRecord(setup, 0, ()).state, "german"), zoom=2.0)
    x0, y0, x1, y1 = counter_box(c.g, "0505")
    s = x1 - x0
    factors_band: Rect = (x0, y0 + 0.65 * s, x1, y1)
    badges = [b for b in c.counters.all if (b[1] + b[3]) / 2 < y0]  # centred above it
    assert badges and not any(overlaps(b, factors_band) for b in badges)


def test_12_counters_and_terrain_are_apart_in_colour() -> None:
    def dist(a: tuple[int, ...], b: tuple[int, ...]) -> float:
        return math.dist(a, b)

    soviet = style.NATION["soviet"][0]
    for t in ("hills", "town", "city"):
        assert dist(soviet, style.TERRAIN[t]) > 90, t


@pytest.mark.parametrize("hexid", ["3211", "0101", "6435"])
def test_12_a_crop_is_centred_on_the_hex_asked_for(hexid: str) -> None:
    state = _state("korsun-1944")
    crop = Around(hexid, 3)
    c = draw_map(state.setup.map, view(state, "soviet"), crop=crop)
    x, y = c.g.center(hexid)
    assert abs(x - c.img.width / 2) <= 2 and abs(y - c.img.height / 2) <= 2


def test_7_views_of_the_moderator_and_spectator_are_named() -> None:
    state = _state("korsun-1944")
    for viewer in ("moderator", "spectator"):
        img = snapshot(state, viewer, crop=Around("3211", 2))
        assert img.getpixel((1, img.height - 2)) == style.VIEW_COLOUR[viewer]
    v: View = view(state, "spectator")
    assert not any(u.known == "full" and u.stack_pos > 0 for u in v.units if u.hex)

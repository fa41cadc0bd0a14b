"""render/: map snapshots from engine views (issue 6). Structural checks, no golden images."""

from __future__ import annotations

import threading

import pytest
from conftest import scenario
from PIL import Image

from bot.cli import main
from engine.record import GameRecord
from engine.view import view
from render import Around, Box, RenderError, crop_hexes, render_view, snapshot, style, to_png
from render.counters import SIZE_MARKS, factors
from render.snapshot import locate
from scenarios import load_scenario

TERRAIN = {"0303": "forest", "0505": "swamp", "0707": "city", "0204": "hills", "0906": "town"}


def _setup(units: list[dict[str, object]] | None = None, **kw: object):  # type: ignore[no-untyped-def]
    return scenario(units or [], terrain=TERRAIN, **kw)


def _px(img: Image.Image, xy: tuple[int, int]) -> tuple[int, int, int]:
    p = img.getpixel(xy)
    assert isinstance(p, tuple)
    return (p[0], p[1], p[2])


def test_terrain_colour_at_hex_centre() -> None:
    setup = _setup()
    state = GameRecord(setup, 0, ()).state
    img = snapshot(state, "moderator")
    for h, t in [*TERRAIN.items(), ("0808", "clear")]:
        assert _px(img, locate(setup.map, img, h)) == style.TERRAIN[t], h


def test_unit_counter_is_drawn_where_the_unit_is() -> None:
    setup = _setup([{"id": "g1", "hex": "0404", "type": "arm", "sp": 6, "mp": 8, "size": "R"}])
    state = GameRecord(setup, 0, ()).state
    img = snapshot(state, "moderator", crop=Around("0404", 2))
    bg, ink = style.NATION["german"]
    x, y = locate(setup.map, img, "0404", crop=Around("0404", 2))
    s = round(1.2 * style.BASE_RADIUS * 2)
    y += round(0.05 * style.BASE_RADIUS * 2)
    counter = img.crop((x - s // 2 + 2, y - s // 2 + 2, x + s // 2 - 2, y + s // 2 - 2))
    colours = counter.getcolors(100000)
    assert colours is not None
    count = {c: n for n, c in colours}
    assert count.get(bg, 0) > 0.3 * counter.width * counter.height  # the field grey counter
    # the "6-8" label: ink in the bottom third of the counter
    bottom = img.crop((x - s // 3, y + s // 6, x + s // 3, y + s // 2 - 2)).getcolors(100000)
    assert bottom is not None and any(c == ink for _, c in bottom)
    # the hex next door has no counter
    x2, y2 = locate(setup.map, img, "0406", crop=Around("0404", 2))
    assert _px(img, (x2, y2)) == style.TERRAIN["clear"]


def test_factors_and_size_marks() -> None:
    setup = _setup(
        [
            {"id": "g1", "hex": "0404", "type": "arm", "sp": 6, "mp": 8},
            {"id": "s1", "hex": "0808", "type": "art", "sp": [4, 2], "mp": 6, "size": "BR"},
        ]
    )
    v = view(GameRecord(setup, 0, ()).state, "moderator")
    by_id = {u.id: u for u in v.units}
    assert factors(by_id["g1"]) == "6-8"
    assert factors(by_id["s1"]) == "4(2)-6"
    assert SIZE_MARKS["D"] == "XX" and SIZE_MARKS["BR"] == "X"


def test_crops_contain_the_hexes_asked_for() -> None:
    setup = _setup()
    state = GameRecord(setup, 0, ()).state
    for crop in (Around("0505", 2), Box("0302", "0706")):
        img = snapshot(state, "german", crop=crop)
        hexes = crop_hexes(setup.map, crop)
        assert hexes
        for h in hexes:
            x, y = locate(setup.map, img, h, crop=crop)
            assert 0 <= x < img.width and 0 <= y < img.height, (crop, h)
            assert _px(img, (x, y)) == style.TERRAIN[TERRAIN.get(h, "clear")]
    near = set(crop_hexes(setup.map, Around("0505", 1)))
    assert near == {"0505", *setup.map.grid.neighbours("0505")} and len(near) == 7
    assert len(crop_hexes(setup.map, Box("0302", "0706"))) == 25
    small = snapshot(state, "german", crop=Around("0505", 1))
    whole = snapshot(state, "german")
    assert small.width < whole.width


def test_crop_is_readable_on_a_phone() -> None:
    """Default crop zoom: counters at least ~58 px, so their factor text is >= 10 px high."""
    setup = _setup()
    img = snapshot(GameRecord(setup, 0, ()).state, "german", crop=Around("0505", 3))
    assert round(1.2 * style.BASE_RADIUS * 2) * 0.3 >= 10
    assert img.width < 1200


def test_leak_hidden_enemy_units_do_not_change_the_picture() -> None:
    """A side's view renders pixel-identical whatever hides behind its fog of war."""

    def picture(second: dict[str, object], oos: int) -> bytes:
        setup = _setup(
            [
                {"id": "s1", "hex": "0202", "type": "inf"},
                {"id": "g1", "hex": "0808", "type": "arm", "sp": 6, "mp": 8},
                {"id": "g2", "hex": "0808", **second},
            ]
        )
        rec = GameRecord(setup, 0, ())
        rec.state.units["g2"].oos = oos
        rec.state.units["g2"].disorganized = oos > 0
        return (
            snapshot(rec.state, "soviet").tobytes()
            + snapshot(rec.state, "soviet", crop=Around("0808", 2)).tobytes()
        )

    base = picture({"type": "inf", "sp": 3, "mp": 4}, 0)
    assert picture({"type": "art", "sp": [5, 3], "mp": 6, "size": "D"}, 2) == base
    # ... while the moderator does see the difference
    setup = _setup(
        [
            {"id": "g1", "hex": "0808", "type": "arm", "sp": 6, "mp": 8},
            {"id": "g2", "hex": "0808", "type": "inf"},
        ]
    )
    rec = GameRecord(setup, 0, ())
    before = snapshot(rec.state, "moderator").tobytes()
    rec.state.units["g2"].oos = 2
    assert snapshot(rec.state, "moderator").tobytes() != before


def test_masked_stack_is_a_plain_question_mark() -> None:
    setup = _setup(
        [
            {"id": "g1", "hex": "0808", "type": "arm", "sp": 6, "mp": 8},
            {"id": "g2", "hex": "0808", "type": "inf"},
        ]
    )
    v = view(GameRecord(setup, 0, ()).state, "soviet")
    from dataclasses import replace

    from engine.view import UnitView

    masked = replace(
        v, units=(UnitView(side="german", hex="0808", known="masked"),), stacks={}, masked=("0808",)
    )
    a = render_view(setup.map, masked)
    b = render_view(setup.map, v)
    assert a.tobytes() != b.tobytes()  # no top counter, no count badge


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"crop": Around("9999", 2)}, "not on the"),
        ({"crop": Around("0505", 99)}, "radius 99 is out of range"),
        ({"crop": Around("05x5", 2)}, "is not a hex number"),
        ({"crop": Box("0101", "3030")}, "not on the"),
        ({"zoom": 40.0}, "zoom 40 is out of range"),
    ],
)
def test_bad_input_has_a_clear_message(kw: dict[str, object], message: str) -> None:
    state = GameRecord(_setup(), 0, ()).state
    with pytest.raises(RenderError, match=message):
        snapshot(state, "german", **kw)  # type: ignore[arg-type]


def test_unknown_view() -> None:
    state = GameRecord(_setup(), 0, ()).state
    with pytest.raises(RenderError, match="'nobody' is not a viewer"):
        snapshot(state, "nobody")


def test_render_from_worker_threads() -> None:
    setup = _setup([{"id": "g1", "hex": "0404", "type": "arm"}, {"id": "s1", "hex": "0707"}])
    state = GameRecord(setup, 0, ()).state
    expected = snapshot(state, "spectator").tobytes()
    out: list[bytes] = []

    def work() -> None:
        out.append(snapshot(state, "spectator").tobytes())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [expected] * 4


def test_korsun_opening_position_full_map_and_crop() -> None:
    setup = load_scenario("korsun-1944")
    state = GameRecord(setup, 0, ()).state
    png = to_png(snapshot(state, "soviet"))
    assert png.startswith(b"\x89PNG") and len(png) < 2_000_000
    crop = Around("3211", 3)
    img = snapshot(state, "german", crop=crop)
    assert setup.map.names["3211"].startswith("Korsu")
    x, y = locate(setup.map, img, "3211", crop=crop)
    assert 0 <= x < img.width and 0 <= y < img.height


def test_cli_render(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "k.png"
    assert main(["render", "korsun-1944", "--view", "german", "--around", "3211",
                 "--radius", "3", "--out", str(out)]) == 0  # fmt: skip
    assert Image.open(out).size[0] > 0
    assert main(["render", "korsun-1944", "--box", "3010", "3414", "--out", str(out)]) == 0
    assert main(["render", "korsun-1944", "--view", "soviet", "--supply", "--out", str(out),
                 "--force"]) == 0  # fmt: skip
    assert main(["render", "korsun-1944", "--legend", "--out", str(out), "--force"]) == 0
    assert Image.open(out).size[0] <= 800  # the legend picture, not the map
    assert main(["render", "korsun-1944", "--around", "9999", "--out", str(out)]) == 1
    assert "not on the korsun map" in capsys.readouterr().err
    assert main(["render", "korsun-1944", "--view", "nobody", "--out", str(out)]) == 1
    assert "not a viewer" in capsys.readouterr().err

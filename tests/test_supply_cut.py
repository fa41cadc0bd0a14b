"""Why a unit is out of supply (10.1, issue #17, K102): `engine.wb95.supply_cut` names the hex
where the line a player would trace breaks, and the Supply Phase says so (10.2.1)."""

from __future__ import annotations

from conftest import play, scenario

from engine.wb95.supply_cut import cuts

SOVIET_SUPPLY = {"turn": 1, "phase": "supply", "active": "soviet"}
ROAD = [{"kind": "main", "hexes": [f"{c:02d}04" for c in range(10, 0, -1)]}]


def test_10_1_7_too_far_the_line_stops_short_of_a_hex() -> None:
    # 3 clear hexes off the road: 9 supply MPs, more than the Soviets' 8
    setup = scenario([{"id": "s-far", "hex": "0507"}, {"id": "g-1", "hex": "0101"}], roads=ROAD)
    (cut,) = cuts(play(setup).state, "soviet").values()
    assert cut.unit == "s-far" and cut.rule == "10.1.7" and cut.hex == "0507"
    assert "9 supply MPs away, more than its 8" in cut.why
    assert "stops short of 0507" in cut.why


def test_10_1_10_the_first_enemy_zoc_hex_back_from_the_unit_is_the_cut() -> None:
    setup = scenario([{"id": "s-a", "hex": "0204"}, {"id": "g-1", "hex": "0604"}], roads=ROAD)
    state = play(setup).state
    cut = cuts(state, "soviet")["s-a"]
    assert cut.rule == "10.1.10" and cut.hex is not None
    assert state.setup.map.grid.adjacent(cut.hex, "0604") and cut.hex[2:] in ("03", "04")
    assert cut.why == f"{cut.hex} is in enemy ZoC"
    assert cut.sentence() == f"{cut.hex} is in enemy ZoC (10.1.10)"


def test_10_1_11_k38_an_enemy_town_cuts_the_road() -> None:
    setup = scenario(
        [{"id": "s-a", "hex": "0204"}, {"id": "g-1", "hex": "0101"}],
        roads=ROAD,
        terrain={"0704": "town"},
        control={"german": ["0704"]},
    )
    cut = cuts(play(setup).state, "soviet")["s-a"]
    assert (cut.rule, cut.ruling) == ("10.1.11", "K38")
    assert "enemy-held town or next to one" in cut.why


def test_10_1_8_no_line_over_the_ground_names_no_hex() -> None:
    swamp = {f"09{r:02d}": "swamp" for r in range(1, 9)}
    setup = scenario([{"id": "s-a", "hex": "0504"}, {"id": "g-1", "hex": "0101"}], terrain=swamp)
    cut = cuts(play(setup).state, "soviet")["s-a"]
    assert cut.hex is None and cut.rule == "10.1.8" and "swamp" in cut.why


def test_supplied_units_are_not_listed() -> None:
    setup = scenario([{"id": "s-a", "hex": "0904"}, {"id": "g-1", "hex": "0101"}])
    assert cuts(play(setup).state, "soviet") == {}


def test_10_2_1_the_supply_phase_says_where_the_line_is_cut() -> None:
    setup = scenario(
        [{"id": "s-a", "hex": "0204"}, {"id": "g-1", "hex": "0604"}],
        roads=ROAD,
        start=SOVIET_SUPPLY,
    )
    rec = play(setup)
    e = next(e for e in rec.events if e.kind == "oos_changed" and e.data["unit"] == "s-a")
    assert e.data["reason"].startswith("it cannot trace a line of supply: ")
    assert "is in enemy ZoC (10.1.10)" in e.data["reason"]


def test_issue_17_the_turn_notice_lists_units_out_of_supply_with_the_cut() -> None:
    from bot.service.announce import announcements

    setup = scenario(
        [{"id": "s-a", "hex": "0204"}, {"id": "s-b", "hex": "0904"}, {"id": "g-1", "hex": "0604"}],
        roads=ROAD,
        start=SOVIET_SUPPLY,
    )
    rec = play(setup)
    assert rec.state.units["s-a"].oos == 1
    lines = announcements(rec.state, "soviet")
    head = lines.index("Out of supply (10.2: half MPs and attack strength):")
    assert lines[head + 1].startswith("  s-a (level 1): ")
    assert lines[head + 1].endswith("is in enemy ZoC (10.1.10)")
    assert not any("s-b" in x for x in lines)  # it traces supply


def _reds(img: object, xy: tuple[int, int], r: int = 6) -> int:
    from PIL import Image

    assert isinstance(img, Image.Image)
    x, y = xy
    box = img.convert("RGB").crop((x - r, y - r, x + r, y + r))
    return sum(n for n, c in box.getcolors(10_000) or [] if c == style_cut())


def style_cut() -> tuple[int, int, int]:
    from render import style

    return style.SUPPLY_CUT


def test_issue_17_the_supply_overlay_crosses_the_cut_hex_for_its_own_side_only() -> None:
    from engine.view import supply_view
    from render import snapshot
    from render.snapshot import locate

    setup = scenario([{"id": "s-a", "hex": "0204"}, {"id": "g-1", "hex": "0604"}], roads=ROAD)
    state = play(setup).state
    (pic,) = supply_view(state, "soviet")
    (cut,) = pic.cuts
    assert cut.hex is not None and pic.at["s-a"] == "0204"
    assert "0904" in pic.reach and "0204" not in pic.reach
    assert supply_view(state, "spectator") == ()
    assert [p.side for p in supply_view(state, "moderator")] == list(state.setup.sides)
    plain = snapshot(state, "soviet")
    drawn = snapshot(state, "soviet", supply=True)
    at = locate(setup.map, plain, cut.hex)  # the key goes below the map: same offsets
    assert drawn.height > plain.height and drawn.width == plain.width
    assert _reds(drawn, at) > 10 and _reds(plain, at) == 0
    german = snapshot(state, "german", supply=True)  # the Germans trace from the W edge
    assert _reds(german, locate(setup.map, snapshot(state, "german"), cut.hex)) == 0

"""16.1 Fog of war through views (K12): a viewer never sees what it may not."""

from __future__ import annotations

from conftest import play, scenario

from engine.view import view

UNITS = [
    {"id": "s-inf", "hex": "0203"},
    {"id": "g-top", "hex": "0805", "type": "arm"},
    {"id": "g-mid", "hex": "0805", "type": "inf"},
    {"id": "g-low", "hex": "0805", "type": "art", "sp": [6, 2]},
    {"id": "g-late", "arrives": {"turn": 2, "hex": "1005"}},
]


def test_16_1_1_k12_only_the_top_counter_of_an_enemy_stack_is_seen() -> None:
    v = view(play(scenario(UNITS)).state, "soviet")
    german = [u for u in v.units if u.side == "german"]
    assert [(u.known, u.id) for u in german] == [
        ("full", "g-top"),
        ("hidden", None),
        ("hidden", None),
    ]
    assert v.stacks["0805"] == 3
    assert all(u.id != "g-late" for u in v.units)  # not on the map yet
    text = repr(v.to_json())
    assert "g-mid" not in text and "g-low" not in text and "g-late" not in text


def test_16_1_4_adjacent_stacks_show_types_and_cels() -> None:
    units = [dict(u) for u in UNITS]
    units[0]["hex"] = "0705"
    v = view(play(scenario(units)).state, "soviet")
    seen = [(u.known, u.type, u.cel) for u in v.units if u.side == "german"]
    assert seen == [("full", "arm", 2), ("type", "inf", 2), ("type", "art", 1)]


def test_moderator_sees_all_and_spectator_sees_what_both_share() -> None:
    rec = play(scenario(UNITS))
    mod = view(rec.state, "moderator")
    assert {u.id for u in mod.units} >= {"g-top", "g-mid", "g-low", "g-late", "s-inf"}
    spec = view(rec.state, "spectator")
    assert [u.id for u in spec.units if u.side == "german"] == ["g-top", None, None]
    assert [u.id for u in spec.units if u.side == "soviet"] == [
        "s-inf"
    ]  # a lone unit is its own top


def test_private_reports_are_counted_not_listed_for_the_other_side() -> None:
    from engine.core import Event
    from engine.view import visible_events

    e = Event(
        5,
        "supply_traced",
        {
            "side": "soviet",
            "supplied": ["s-a", "s-b"],
            "out_of_supply": ["s-c"],
            "fixed_position": [],
        },
    )
    (theirs,) = visible_events([e], "german")
    assert theirs.data["supplied"] == 2 and theirs.data["out_of_supply"] == 1
    assert "s-a" not in repr(theirs.data)
    (mine,) = visible_events([e], "soviet")
    assert mine.data["supplied"] == ["s-a", "s-b"]
    assert visible_events([e], "moderator")[0] is e


def test_16_1_1_reports_about_one_unit_do_not_name_it_to_the_enemy() -> None:
    from engine.core import Event
    from engine.view import visible_events

    e = Event(7, "oos_changed", {"unit": "s-c", "side": "soviet", "old": 0, "new": 1})
    d = Event(8, "dice_rolled", {"faces": [3, 4], "unit": "s-c", "side": "soviet"})
    # without the state, a unit of another side's event counts as not seen (K98)
    theirs = visible_events([e, d], "german")
    assert [x.data["unit"] for x in theirs] == ["a Soviet unit", "a Soviet unit"]
    assert "s-c" not in repr([x.data for x in theirs])
    assert theirs[0].data["old"] is None and theirs[0].data["new"] is None  # its supply level
    assert theirs[1].data["faces"] == [3, 4]  # dice are public
    assert [x.data["unit"] for x in visible_events([e, d], "soviet")] == ["s-c", "s-c"]


def test_16_1_1_the_log_does_not_name_a_hidden_counter_to_its_enemy() -> None:
    """visible_events with the state: a unit that moved under another counter is "a Soviet
    unit" to the German player and a spectator, itself to its owner and the moderator."""
    from engine.view import MODERATOR, SPECTATOR, visible_events

    units = [
        {"id": "s-a", "hex": "0303"},
        {"id": "s-b", "hex": "0203"},
        {"id": "g-x", "hex": "0808"},
    ]
    rec = play(scenario(units), "move s-b 0303")  # s-a stays the top counter
    moved = [e for e in rec.events if e.kind == "moved"]
    for viewer in ("german", SPECTATOR):
        (e,) = [x for x in visible_events(moved, viewer, rec.state)]
        assert e.data["unit"] == "a Soviet unit"
        assert "s-b" not in str(e.data)
    for viewer in ("soviet", MODERATOR):
        (e,) = visible_events(moved, viewer, rec.state)
        assert e.data["unit"] == "s-b"


def test_5_2_1_k15_issue_16_a_reduced_unit_shows_its_strength_now() -> None:
    """Issue #16: `s-66-inf 4 4 1/2` looked full while combat counted 2 SP. The view gives
    the strength now (K15), and `units`, `/unit`, `/hex` and the map counter show it."""
    from bot.discord.cogs.looking import unit_line
    from bot.local import _unit_row
    from render.counters import factors

    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "sp": 4, "cel": 1, "max_cel": 2},
            {"id": "s-b", "hex": "0204", "sp": 5, "cel": 3, "max_cel": 3},
            {"id": "g-x", "hex": "0808"},
        ]
    )
    v = view(play(setup).state, "soviet")
    a = next(u for u in v.units if u.id == "s-a")
    b = next(u for u in v.units if u.id == "s-b")
    assert (a.sp, a.sp_now) == (4, 2) and (b.sp, b.sp_now) == (5, None)
    assert "2 (of 4, reduced)" in _unit_row(a) and "5" in _unit_row(b)
    assert "SP 2 (reduced from 4 by lost CELs)" in unit_line(a)
    assert factors(a).startswith("2-") and factors(b).startswith("5-")

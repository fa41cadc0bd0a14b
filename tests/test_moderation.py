"""Moderator edits (`mod:` lines, DESIGN §4, issue #7; docs/rulings.md K86): one
`mod_edited` event each, replayable, refused for players, for the referee service's own
commands and where the state would be left inconsistent (5.2.1, 3.2.1); fog of war in the
log (16.1.1)."""

from __future__ import annotations

from conftest import play, reject, scenario

from bot.script import describe_event
from engine.core import Applied, Rejection
from engine.notation import parse_order
from engine.view import visible_events
from engine.wb95.game import apply


def _setup():  # type: ignore[no-untyped-def]
    return scenario(
        [
            {"id": "s1", "hex": "0303", "cel": 2},
            {"id": "s2", "hex": "0304", "cel": 4},
            {"id": "s3", "hex": "0404", "cel": 4},
            {"id": "g1", "hex": "0603", "cel": 2},
            {"id": "g2", "arrives": {"turn": 2, "zone": "W"}},
        ]
    )


def _edits(rec):  # type: ignore[no-untyped-def]
    return [e for e in rec.events if e.kind == "mod_edited"]


def test_mod_place_moves_a_unit_and_replays() -> None:
    rec = play(_setup(), "mod: place s1 0505")
    assert rec.state.units["s1"].hex == "0505"
    (e,) = _edits(rec)
    assert (e.data["field"], e.data["before"], e.data["after"]) == ("hex", "0303", "0505")
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_mod_place_brings_back_an_off_map_unit() -> None:
    rec = play(_setup(), "mod: place g2 0808")
    g2 = rec.state.units["g2"]
    assert g2.hex == "0808" and g2.arrives is None and g2.on_map
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_mod_remove_eliminate_and_values() -> None:
    rec = play(
        _setup(),
        "mod: remove s3",
        "mod: cel s2 3",
        "mod: oos g1 2",
        "mod: disorganized g1 on",
        "mod: strategic s1 on",
        "mod: moved s1 on",
        "mod: mp s1 3/2",
        "mod: eliminate g1",
    )
    u = rec.state.units
    assert u["s3"].hex is None and not u["s3"].on_map
    assert u["s2"].cel == 3
    assert u["g1"].oos == 2 and u["g1"].disorganized and u["g1"].eliminated
    assert u["g1"].disorganized_at == (rec.state.turn, rec.state.phase)  # R22 from now
    assert u["s1"].strategic and u["s1"].moved and str(u["s1"].mp_spent) == "3/2"
    assert len(_edits(rec)) == 8
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_mod_fortification_and_control() -> None:
    rec = play(_setup(), "mod: fortification 0304 ff", "mod: control 0505 none")
    assert rec.state.units["s2"].fortification == "ff"
    assert rec.state.fortifications is not None and rec.state.fortifications["0304"]["kind"] == "ff"
    assert "0505" not in rec.state.control
    play_more = play(_setup(), "mod: fortification 0304 if", "mod: fortification 0304 none")
    assert play_more.state.units["s2"].fortification is None
    assert rec.rebuild().snapshot() == rec.state.snapshot()
    r = reject(rec, "mod: fortification 0808 ff")  # empty hex, no side named
    assert "name the side" in r.message
    r = reject(rec, "mod: fortification 0603 ff soviet")  # under enemy units
    assert "cannot lie under them" in r.message


def test_mod_from_a_player_side_is_refused() -> None:
    rec = play(_setup())
    order = parse_order("mod: place s1 0505")
    assert order is not None
    r = apply(rec.state, "soviet", order)
    assert isinstance(r, Rejection) and "moderator" in r.message


def test_moderator_gives_no_player_orders() -> None:
    rec = play(_setup())
    order = parse_order("done")
    assert order is not None
    r = apply(rec.state, "mod", order)
    assert isinstance(r, Rejection)


def test_service_verbs_are_left_to_the_service() -> None:
    rec = play(_setup())
    for verb in ("rollback 3", "deadline 24h", "pause", "answer soviet pass", "policy pass"):
        r = reject(rec, f"mod: {verb}")
        assert "is a referee-service command" in r.message


def test_unknown_verb_lists_the_edits() -> None:
    r = reject(play(_setup()), "mod: teleport s1 0505")
    assert "mod: place UNIT HEX" in r.message and "mod: control HEX SIDE|none" in r.message


def test_mod_bad_arguments_are_explained() -> None:
    rec = play(_setup())
    assert "1 to" in reject(rec, "mod: cel s1 9").message
    assert "not on the map" in reject(rec, "mod: place s1 9999").message
    assert "no unit" in reject(rec, "mod: place zz 0505").message
    assert "enemy units" in reject(rec, "mod: place s1 0603").message
    assert "nothing to change" in reject(rec, "mod: oos s1 0").message


def test_3_2_1_mod_refuses_overstacking_outside_own_movement() -> None:
    # Soviet Movement Phase: the Soviet side may be over the limit for a moment (3.2.1)
    rec = play(_setup(), "mod: place s3 0304")
    assert rec.state.units["s3"].hex == "0304"
    # the German side is not moving now: its hexes must stay within 8 CELs
    setup = scenario(
        [
            {"id": "s1", "hex": "0303"},
            {"id": "g1", "hex": "0703", "cel": 4},
            {"id": "g2", "hex": "0703", "cel": 4},
            {"id": "g3", "hex": "0705", "cel": 2},
        ]
    )
    rec = play(setup)
    assert "3.2.1" in reject(rec, "mod: place g3 0703").message
    play(setup, "mod: place g3 0704")


def _in_combat():  # type: ignore[no-untyped-def]
    """A self-play position of demo-steblev with a combat being resolved."""
    import random

    from engine.record import GameRecord
    from engine.wb95.choices import candidate_orders
    from engine.wb95.flow import awaited_sides
    from scenarios import load_scenario

    setup = load_scenario("demo-steblev")
    for seed in range(20):
        rng = random.Random(seed)
        rec = GameRecord(setup, seed=seed)
        for _ in range(150):
            if rec.state.over:
                break
            if rec.state.combat is not None and rec.state.combat.get("units"):
                return rec
            side = awaited_sides(rec.state)[0]
            rec.submit(side, rng.choice(candidate_orders(rec.state, side)))
    raise AssertionError("no combat in self-play")


def test_5_2_1_mod_refuses_editing_units_of_the_combat_being_resolved() -> None:
    rec = _in_combat()
    c = rec.state.combat
    assert c is not None
    unit = c["units"]["defender"][0]
    free = next(
        h for h in rec.state.setup.map.grid.all_hexes() if rec.state.occupant_side(h) is None
    )
    r = reject(rec, f"mod: place {unit} {free}")
    assert "combat being resolved" in r.message and "5.2.1" in r.message
    assert "combat being resolved" in reject(rec, f"mod: remove {unit}").message
    # an edit touching no unit of the combat is accepted even now, and changes only that
    before = rec.state.pending
    other = next(u for u in rec.state.on_map() if u.id not in str(c) and u.oos == 0)
    assert isinstance(rec.submit(None, parse_order(f"mod: oos {other.id} 1")), Applied)  # type: ignore[arg-type]
    assert rec.state.pending == before
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_mod_edited_is_redacted_for_the_enemy() -> None:
    rec = play(_setup(), "mod: cel s2 3", "mod: control 0505 none")
    edit, ctl = _edits(rec)
    (seen,) = [e for e in visible_events([edit], "german")]
    assert seen.data["unit"] is None and seen.data["after"] is None and seen.data["private"]
    assert seen.data["hexes"] == ["0304"]
    assert visible_events([edit], "soviet")[0].data["unit"] == "s2"
    assert visible_events([edit], "moderator")[0].data["after"] == 3
    assert visible_events([edit], "spectator")[0].data["unit"] is None
    assert visible_events([ctl], "german")[0].data["before"] == "soviet"  # control is public
    assert "moderator edited" in describe_event(seen)
    assert "s2 cel 4 -> 3" in describe_event(edit)

"""2.0 Sequence of play: phases, player A/B, skipping (2.1.4, K13), done, turns, end."""

from __future__ import annotations

from conftest import play, reject, scenario

from engine.wb95.flow import awaited_sides
from engine.wb95.sequence import PHASES, phase_index


def kinds(rec):  # type: ignore[no-untyped-def]
    return [(e.data["number"], e.data["phase"]) for e in rec.events if e.kind == "phase_started"]


def test_2_2_twelve_phases_in_order() -> None:
    assert [(p.number, p.kind, p.player) for p in PHASES][:6] == [
        (1, "air", "both"),
        (2, "barrage", "A"),
        (3, "movement", "A"),
        (4, "combat", "A"),
        (5, "strategic", "A"),
        (6, "supply", "A"),
    ]
    assert [p.player for p in PHASES[6:]] == ["both", "B", "B", "B", "B", "B"]
    sides = ("soviet", "german")
    assert phase_index("movement", "german", sides) == 8
    assert phase_index("air", "german", sides) == 6


def test_2_1_4_phases_with_nothing_possible_are_skipped() -> None:
    setup = scenario([{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0808"}])
    rec = play(setup, "soviet: done")
    skipped = [e.data["number"] for e in rec.events if e.kind == "phase_skipped"]
    assert skipped == [4, 5, 7, 8]  # no attack possible, no SM, no air, no barrage
    assert PHASES[rec.state.phase].number == 9
    assert awaited_sides(rec.state) == ["german"]


def test_2_2_supply_phase_runs_by_itself() -> None:
    setup = scenario([{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0808"}])
    rec = play(setup, "move s-inf 0303", "done")
    assert (6, "supply") in kinds(rec)


def test_2_1_4_combat_phase_waits_when_an_attack_is_possible() -> None:
    setup = scenario([{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0405"}])
    rec = play(setup, "move s-inf 0304 0404", "done")
    assert PHASES[rec.state.phase].kind == "combat"
    assert awaited_sides(rec.state) == ["soviet"]
    r = reject(rec, "done")  # s-inf is in enemy ZoC: it must attack first
    assert r.rule == "5.1.7" and "s-inf (0404)" in r.message and "0405" in r.message


def test_2_1_2_orders_outside_their_phase_are_rejected() -> None:
    setup = scenario([{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0405"}])
    rec = play(setup, "move s-inf 0304 0404", "done")
    r = reject(rec, "move s-inf 0303")
    assert r.rule == "2.1.2" and "Movement Phase" in r.message


def test_air_phase_needs_both_sides_done() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0808"}],
        start={"turn": 1, "phase": "air", "active": "soviet"},
        air={"soviet": 4, "german": 6},
    )
    rec = play(setup)
    assert sorted(awaited_sides(rec.state)) == ["german", "soviet"]
    r = reject(rec, "done")
    assert "start the line with the side" in r.message
    rec = play(setup, "german: done")
    assert awaited_sides(rec.state) == ["soviet"]
    assert "already said done" in reject(rec, "german: done").message
    rec = play(setup, "german: done", "soviet: done")
    assert PHASES[rec.state.phase].kind == "movement"


def test_2_1_5_turns_advance_with_the_calendar_and_the_game_ends() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0808"}],
        calendar={"start": "1944-01-24"},
        turns=2,
    )
    rec = play(setup, "soviet: done", "german: done")
    started = [e for e in rec.events if e.kind == "turn_started"]
    assert started[0].data == {"turn": 2, "date": "1944-01-25"}
    rec = play(setup, "soviet: done", "german: done", "soviet: done", "german: done")
    assert rec.state.over and rec.events[-1].kind == "game_ended"
    assert "over" in reject(rec, "soviet: done").message


def test_3_2_1_cannot_end_a_phase_over_stacked() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "cel": 2},
            {"id": "s-b", "hex": "0203", "cel": 2},
            {"id": "s-c", "hex": "0203", "cel": 2},
            {"id": "s-d", "hex": "0303", "cel": 2},
            {"id": "s-e", "hex": "0304", "cel": 2},
            {"id": "g-x", "hex": "0808"},
        ]
    )
    rec = play(setup, "move s-d 0203", "move s-e 0203")
    r = reject(rec, "done")
    assert r.rule == "3.2.1" and "0203 (10 CELs)" in r.message


def test_3_2_2_an_hq_counts_one_cel() -> None:
    units = [{"id": f"s-{i}", "hex": "0203", "cel": 2} for i in range(4)]
    units += [
        {"id": "s-hq", "hex": "0303", "type": "hq", "sp": 0, "cel": 2},
        {"id": "g-x", "hex": "0808"},
    ]
    rec = play(scenario(units), "move s-hq 0203")
    r = reject(rec, "done")
    assert "9 CELs" in r.message


def test_3_2_1_k94_a_move_that_over_stacks_a_hex_for_good_is_refused() -> None:
    """K94, K97: if no unit in the over-stacked hex could still move away, `done` could
    never be accepted, so the move itself is refused; while one of them can still leave,
    the move stands and only `done` waits for it."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "cel": 3},
            {"id": "s-b", "hex": "0303", "cel": 3},
            {"id": "s-c", "hex": "0304", "cel": 3},
            {"id": "s-d", "hex": "0202", "cel": 3},
            {"id": "g-x", "hex": "0808"},
        ]
    )
    rec = play(setup, "move s-b 0203", "move s-a 0202")  # s-a moved out: 6 CELs left
    rec = play(setup, "move s-b 0203", "move s-c 0203")  # 9 CELs, s-a may still leave
    r = reject(rec, "done")
    assert r.rule == "3.2.1"
    rec = play(setup, "move s-b 0203", "move s-c 0203", "move s-a 0303")
    rec = play(setup, "move s-a 0403", "move s-b 0403")  # s-a and s-b have moved
    r = reject(rec, "move s-c 0403")
    assert r.rule == "3.2.1" and r.ruling == "K97" and "0403 (9 CELs)" in r.message


def test_3_2_1_k97_building_field_fortifications_may_not_take_the_last_way_out() -> None:
    """K97 (issue #13): the over-stacked hex's only unit still able to move starts
    building field fortifications (7.1.2: it may not move this phase) -- refused, or
    `done` could never be accepted. Found by the built-in opponents on korsun-1944."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0403", "cel": 3},
            {"id": "s-b", "hex": "0303", "cel": 3},
            {"id": "s-c", "hex": "0304", "cel": 3},
            {"id": "g-x", "hex": "0808"},
        ]
    )
    rec = play(setup, "move s-b 0403", "move s-c 0403")  # 9 CELs; s-a may still leave
    r = reject(rec, "fortify s-a")
    assert r.rule == "3.2.1" and r.ruling == "K97" and "0403 (9 CELs)" in r.message
    rec = play(setup, "move s-b 0403", "move s-c 0403", "move s-a 0503", "done")


def test_3_2_1_k97_a_unit_able_to_move_but_with_nowhere_to_go_does_not_count() -> None:
    """K97: "a unit could still move away" is not enough -- it needs a hex it reaches
    with room for it. Here the only mover (6 CELs) reaches two hexes, one with room for 3
    and one full: the move that over-stacks its hex is refused."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0101", "cel": 6},
            {"id": "s-b", "hex": "0102", "cel": 3},
            {"id": "s-f", "hex": "0102", "cel": 5},
            {"id": "s-g", "hex": "0103", "cel": 8},
            {"id": "g-x", "hex": "0105"},
        ],
        cols=(1, 1),
        rows=(1, 5),
    )
    r = reject(play(setup), "move s-b 0101")
    assert r.ruling == "K97" and "0101 (9 CELs)" in r.message
    assert "soviet could not end the phase" in r.message
    # with room for s-a next door (s-f gone first), the same move stands and `done` waits
    rec = play(setup, "move s-f 0104", "move s-b 0101")
    assert reject(rec, "done").rule == "3.2.1"

"""The built-in AGS opponent with the system's tools (issue #19, bot/systems/ags/opponent.py):
it activates the HQs where its attacks are (AGS-K 23.11, 23.12), overruns at 5-1 or better
(AGS 6.0, AGS-K 19.4), air-supplies isolated units (AGS-K 25.2), sees what its side sees
and never the dice to come, is deterministic for a seed, and plays against the first
opponent (bot/systems/ags/baseline.py) through the duel (bot/systems/ags/duel.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from agsstart import korsun, ok, start
from test_ags_air_supply import _isolate, _to_german_mech

from bot.systems.ags import duel
from bot.systems.ags import opponent as opponent_module
from bot.systems.ags.opponent import Opponent
from engine import orders as o
from engine.ags import game
from engine.record import GameRecord
from engine.state import GameState
from engine.view import View

FIRST = "the Soviet Initial Movement Phase, turn 1"


def _soviet_phase(rec: GameRecord, bot: Opponent, stop_at_roll: bool = False) -> list[o.Order]:
    """The opponent's inputs through the Soviet Initial Movement Phase of turn 1 (the
    German answers by the deadline defaults); with `stop_at_roll`, up to the first input
    that rolled a die."""
    given: list[o.Order] = []
    while rec.system.phase(rec.state).title == FIRST:
        side = rec.system.awaited_sides(rec.state)[0]
        order = bot.choose(rec.state) if side == "soviet" else None
        order = order or rec.system.next_default(rec.state, side)
        assert order is not None
        done = ok(rec, side, order)
        if side == "soviet":
            given.append(order)
            if stop_at_roll and any(e.kind == "dice_rolled" for e in done.events):
                break
    return given


def _front_strength(rec: GameRecord, hq: str) -> int:
    """The attack strength of the Soviet units within three hexes of a German unit that
    `hq` commands (11.31), mechanized units twice (they move again only under an active HQ
    in the Mechanized Movement Phase, 23.14)."""
    s = rec.state
    g = game.board(s).grid
    germans = [u.hex for u in s.on_map("german") if u.hex]
    total = 0
    for u in s.on_map("soviet"):
        sp = game.spec(s, u.id)
        if sp.is_hq or u.hex is None or min(g.distance(u.hex, x) for x in germans) > 3:
            continue
        if hq in game.commanding_hqs(s, u):
            total += game.step(s, u).attack * (2 if sp.mechanized else 1)
    return total


def test_23_11_it_activates_the_hqs_where_its_attacks_are() -> None:
    rec = start(korsun(), 1)
    default = rec.state.ext["active_hqs"]
    assert sorted(default) == ["s-hq-2tk", "s-hq-4gd", "s-hq-5gdtk"]  # the referee's (K161)
    order = Opponent("soviet", 1).choose(rec.state)
    assert isinstance(order, o.Activate)
    chosen = set(order.units)
    assert {"s-hq-5gdtk", "s-hq-2tk"} <= chosen and len(chosen) == 3  # 23.12, the schedule
    (third,) = chosen - {"s-hq-5gdtk", "s-hq-2tk"}
    assert third != "s-hq-4gd"
    assert _front_strength(rec, third) > _front_strength(rec, "s-hq-4gd")
    done = ok(rec, "soviet", order)
    assert any(e.kind == "hqs_activated" for e in done.events)
    assert set(rec.state.ext["active_hqs"]) == chosen


def test_6_0_it_overruns_at_5_1_or_better() -> None:
    rec = start(korsun(), 1, dice=(2,))
    given = _soviet_phase(rec, Opponent("soviet", 1), stop_at_roll=True)
    attack = given[-1]
    assert isinstance(attack, o.Attack) and attack.units == ("s-gd-tc-5",)
    assert attack.target == "0711"  # g-79-16 beside the supported corps (24.2)
    res = next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")
    crt = game.scenario(rec.state).crt
    assert res["overrun"] and crt.columns.index(res["column"]) >= crt.columns.index("5-1")
    assert res["result"] == "-/2"  # 6-1, die 2
    while rec.state.pending:  # the German answer by the defaults (retreat, 9.66)
        order = rec.system.next_default(rec.state, "german")
        assert order is not None
        ok(rec, "german", order)
    assert rec.state.units["g-79-16"].hex != "0711"
    assert rec.state.units["s-gd-tc-5"].hex == "0711"  # 6.24: the overrunner moved in


def test_25_2_it_air_supplies_isolated_units() -> None:
    rec = start(korsun(), 1)
    _to_german_mech(rec)
    uid, town = _isolate(rec)
    rec.state.ext["air"] = {"soviet": 3, "german": 3}  # a mud turn's (a test's shortcut)
    order = Opponent("german", 1).choose(rec.state)
    assert order == o.Air(mission="supply", hex=town, amount=1)
    done = ok(rec, "german", order)
    drop = next(e.data for e in done.events if e.kind == "air_supply")
    assert uid in drop["units"] and game.in_supply(rec.state, rec.state.units[uid])


def test_it_never_reads_the_dice_to_come_nor_changes_the_state() -> None:
    """The same inputs whatever the dice to come (games of seeds 1 and 2), up to the first
    input that rolled; asking it changes nothing in the game."""
    a, b = start(korsun(), 1), start(korsun(), 2)
    assert a.state.dice.seed != b.state.dice.seed
    before = a.state.snapshot()
    first = Opponent("soviet", 5).choose(a.state)
    assert a.state.snapshot() == before and first is not None  # tried, never kept
    seen_a = _soviet_phase(a, Opponent("soviet", 5), stop_at_roll=True)
    seen_b = _soviet_phase(b, Opponent("soviet", 5), stop_at_roll=True)
    assert seen_a == seen_b and isinstance(seen_a[-1], o.Attack)


def test_it_reads_the_enemy_through_its_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its targets come from its side's view (engine.view.view): with the German counters
    taken out of the view it sees none to overrun."""
    rec = start(korsun(), 1, dice=(2,))
    from engine.view import view as real

    def blind(state: GameState, viewer: str) -> View:
        v = real(state, viewer)
        return replace(v, units=tuple(u for u in v.units if u.side == viewer))

    monkeypatch.setattr(opponent_module, "view", blind)
    given = _soviet_phase(rec, Opponent("soviet", 1))
    assert not any(isinstance(x, o.Attack) for x in given)


def _drive(seed: int, new_side: str, until: str) -> GameRecord:
    """The opponent against the baseline until the phase titled `until`."""
    rec = GameRecord(korsun(), seed)
    chooser = duel.players(new_side, seed)
    while rec.system.phase(rec.state).title != until:
        st = rec.state
        side = ([d.side for d in st.pending] or rec.system.awaited_sides(st))[0]
        order = chooser[side](st) or rec.system.next_default(st, side)
        assert order is not None
        ok(rec, side, order)
    return rec


def test_it_is_deterministic_for_a_seed() -> None:
    a = _drive(4, "soviet", "the German Initial Movement Phase, turn 1")
    b = _drive(4, "soviet", "the German Initial Movement Phase, turn 1")
    assert a.order_lines() == b.order_lines()
    assert any(e.kind == "overrun_declared" for e in a.events)


@pytest.mark.parametrize("side", ["soviet", "german"])
def test_a_short_game_against_the_baseline_is_played_out(side: str) -> None:
    g = duel.play(1, side, turns=1)  # `play` raises on an input the referee refuses
    assert g.turns == 2 and g.level.startswith("unfinished")
    assert g.overruns + g.activations > 0 if side == "soviet" else g.longest["new"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("side", ["soviet", "german"])
def test_a_whole_game_against_the_baseline_ends_with_a_level(side: str) -> None:
    g = duel.play(1, side)
    assert g.turns == 13 and not g.level.startswith("unfinished")  # AGS-K 19.12, 27.3
    ref = duel.play(1, None)
    assert g.margin > ref.margin_of(side)  # it scores better than the baseline there

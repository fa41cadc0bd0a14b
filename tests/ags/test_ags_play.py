"""AGS Korsun played through the rule-system interface (issue #19): registration, the
sequence of play (AGS 4.2, AGS-K 19.11), movement and zones of control (AGS 5.2, 8.2),
combat on the CRT with the owner's loss-or-retreat choice (AGS 9.66-9.68), retreat (9.7)
and advance (9.8), reinforcements (AGS-K 26.1), weather and air points (20.1, 19.8),
victory points (27.x), a game played to its end by the deadline defaults, replay, the
fuzzer's invariants."""

from __future__ import annotations

from pathlib import Path

import pytest
from agsstart import korsun, start
from agsstart import ok as _ok
from agsstart import refused as _refused

from bot import fuzz
from bot import systems as bot_systems
from engine import orders as o
from engine import systems
from engine.core import Applied, Rejection
from engine.record import GameRecord
from engine.view import view, visible_events
from scenarios import list_scenarios


def test_ags_korsun_is_listed_and_played_by_the_ags_system() -> None:
    info = {i.id: i for i in list_scenarios()}["ags-korsun"]
    assert info.turns == 13  # AGS-K 19.12
    setup = korsun()
    assert systems.of(setup).id == "ags" and bot_systems.get("ags").describer is not None
    rec = start(setup, 1)
    assert rec.state.ext["weather"] == "snow" and rec.state.ext["air"] == {"soviet": 0, "german": 0}
    assert set(rec.state.ext["active_hqs"]) >= {"s-hq-5gdtk", "s-hq-2tk"}  # AGS-K 23.12
    assert len(rec.state.ext["active_hqs"]) == 3  # 23.11: three on turns 1-3
    assert rec.system.phase(rec.state).title == "the Soviet Initial Movement Phase, turn 1"
    assert rec.system.awaited_sides(rec.state) == ["soviet"]  # AGS-K 19.11
    assert setup.results.date(13).isoformat() == "1944-02-19"


def test_a_unit_stops_on_entering_an_enemy_zone_and_may_not_leave_it() -> None:
    rec = start(korsun(), 1)
    rules = rec.system
    reach = rules.legal_moves(rec.state, "s-rd-58")  # 0313, behind the line
    stops = {h for h, r in reach.items() if r.stops}
    assert "0314" in stops  # AGS 5.23: it stops there
    assert not any(h in stops for r in reach.values() for h in r.path[:-1])
    assert all(r.cost <= 5 for r in reach.values() if len(r.path) > 1)  # 5.11
    # 5.24: a unit in an enemy-controlled hex at the start may not move
    assert rules.why_immobile(rec.state, "s-gd-cd-1") is not None
    r = _refused(rec, "soviet", o.Move(units=("s-gd-cd-1",), path=("0412",)))
    assert "AGS 5.24" in str(r)
    r = _refused(rec, "soviet", o.Move(units=("s-rd-58",), path=("0513",)))  # a German stack
    assert "enemy unit" in str(r) and "5.22" in r.rule
    r = _refused(rec, "german", o.Move(units=("g-2-16",), path=("0215",)))
    assert "AGS 4.1" in str(r)


def test_an_attack_resolves_on_the_crt_and_the_defender_chooses_losses() -> None:
    rec = start(korsun(), 1, dice=(1,))
    _ok(rec, "soviet", o.Done())
    assert rec.system.phase(rec.state).kind == "combat"
    r = _ok(rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    resolved = next(e for e in r.events if e.kind == "combat_resolved").data
    assert (resolved["column"], resolved["die"], resolved["result"]) == ("1-1", 1, "-/1")
    (d,) = rec.state.pending
    assert d.side == "german" and d.kind == "losses_or_retreat" and d.options["steps"] == 1
    assert rec.system.awaited_sides(rec.state) == ["german"]
    _refused(rec, "soviet", o.Done())  # the German decision first
    r2 = _refused(rec, "german", o.Losses(units=("g-4-6", "g-64-16")))  # 9.67: one step
    assert "AGS 9.66" in str(r2) and "A27" in str(r2)
    _ok(rec, "german", o.Losses(units=("g-4-6",)))
    assert rec.state.units["g-4-6"].cel == 1
    # the hex is still held: no advance; the attackers may not attack again (9.14)
    assert not rec.state.pending and "combat" not in rec.state.ext
    r3 = _refused(rec, "soviet", o.Attack(units=("s-gd-cd-1",), target="0513"))
    assert "AGS 9.14" in str(r3)


def test_a_retreat_is_all_units_the_full_distance_and_the_attacker_may_advance() -> None:
    rec = start(korsun(), 1, dice=(1,))
    _ok(rec, "soviet", o.Done())
    _ok(rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    r = _refused(rec, "german", o.Retreat(unit="g-4-6", path=("0514", "0515")))
    assert "AGS 9.71" in str(r)  # exactly one hex (9.73)
    _ok(rec, "german", o.Retreat(unit="g-4-6", path=("0514",)))
    r = _refused(rec, "german", o.Losses(units=("g-64-16",)))  # 9.66: never a mix
    assert "never a mix" in str(r)
    _ok(rec, "german", o.Retreat(unit="g-64-16", path=("0613",)))
    (d,) = rec.state.pending
    assert d.side == "soviet" and d.kind == "advance" and d.options["hexes"] == {"0513": 1}
    r = _refused(rec, "soviet", o.Pursue(unit="s-gd-cd-1", path=("0513", "0514")))
    assert "AGS 9.8" in str(r)
    _ok(rec, "soviet", o.Pursue(unit="s-gd-cd-1", path=("0513",)))
    assert rec.state.units["s-gd-cd-1"].hex == "0513"
    _ok(rec, "soviet", o.Pass())
    assert not rec.state.pending
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_an_eliminated_german_unit_scores_for_the_soviet_player() -> None:
    rec = start(korsun(), 1, dice=(1,))
    _ok(rec, "soviet", o.Done())
    _ok(rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    before = rec.state.units["g-4-6"].cel
    steps = ("g-4-6",) * 1
    _ok(rec, "german", o.Losses(units=steps))
    assert rec.state.units["g-4-6"].cel == before - 1
    assert rec.system.victory_points(rec.state) == {"soviet": 0, "german": 0}


def _play_by_defaults(rec: GameRecord, limit: int = 3000) -> int:
    n = 0
    while not rec.state.over and n < limit:
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None, "liveness"
        _ok(rec, side, order)
        n += 1
    return n


def test_a_game_played_to_its_end_by_the_deadline_defaults_replays_identically() -> None:
    rec = start(korsun(), 7)
    _play_by_defaults(rec)
    s = rec.state
    assert s.over and s.turn == 13 and s.result is not None
    assert s.result["level"] and "AGS-K 27.3" in s.result["why"]
    # reinforcements entered on their turns (AGS-K 26.1, 26.2)
    assert s.units["s-gd-tc-11"].on_map and s.units["s-gd-tc-11"].arrives is None
    assert all(u.arrives is None for u in s.units.values())
    assert rec.rebuild().snapshot() == s.snapshot()
    kinds = [e for e in rec.events if e.kind == "turn_started"]
    assert [e.data["weather"] for e in kinds][3] == "mud"  # AGS-K 20.1: turn 4
    assert kinds[3].data["air"] == {"soviet": 3, "german": 3}  # 19.8
    assert [len(e.data["active_hqs"]) for e in kinds][6] == 1  # 23.11: turns 7-10
    lines = bot_systems.get("ags").describer.lines(visible_events(rec.events, "german", s))
    assert any("Game-Turn 4" in x for x in lines) and "The game is over" in lines[-1]


def test_nothing_is_hidden_in_ags() -> None:
    rec = start(korsun(), 1)
    for viewer in ("soviet", "german", "spectator"):
        v = view(rec.state, viewer)
        assert all(u.known == "full" for u in v.units)
    assert rec.system.perturbed(rec.state, "soviet") == (rec.state, [])


def test_the_fuzzer_plays_ags_with_its_invariants(tmp_path: Path) -> None:
    report = fuzz.play_game(korsun(), 3, max_inputs=250, player=fuzz.RandomPlayer(), out=tmp_path)
    assert report.failure is None, report.failure


@pytest.mark.parametrize("bad", ["0515"])
def test_reinforcements_enter_only_their_area_on_their_turn(bad: str) -> None:
    rec = start(korsun(), 1)
    r = _refused(rec, "soviet", o.Enter(units=("s-gd-tc-11",), where=bad))
    assert "AGS-K 26.1" in str(r) or "AGS-K 26.0" in str(r)


def test_k140_a_unit_with_no_legal_retreat_is_eliminated() -> None:
    rec = start(korsun(), 1, dice=(1,))
    _ok(rec, "soviet", o.Done())
    _ok(rec, "soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    rules = rec.system
    # a still life: Soviet units in both hexes the Germans could retreat to (AGS 9.71)
    state = rec.state.clone()
    state.units["s-rd-58"].hex, state.units["s-rd-6"].hex = "0514", "0613"
    r = rules.apply(state, "german", o.Retreat(unit="g-4-6", path=("0514",)))
    assert isinstance(r, Rejection) and "K140" in str(r)
    r2 = rules.apply(state, "german", o.Retreat(unit="g-4-6", path=()))
    assert isinstance(r2, Applied)
    assert [e.kind for e in r2.events if e.kind == "unit_eliminated"] == ["unit_eliminated"]
    assert r2.state.ext["vp"]["soviet"] == 6  # AGS-K 27.1: a panzergrenadier regiment, "other"
    # where a path exists, holding is refused (AGS 9.73)
    r3 = rules.apply(rec.state, "german", o.Retreat(unit="g-4-6", path=()))
    assert isinstance(r3, Rejection) and "AGS 9.73" in str(r3)


def test_a41_k151_a_move_that_cannot_be_cleared_is_refused() -> None:
    rec = start(korsun(), 1)
    rules = rec.system
    corps = {u.hex: u.id for u in rec.state.on_map("soviet") if u.id.startswith("s-gd-tc")}
    for u in rec.state.on_map("soviet"):
        hit = [h for h in rules.legal_moves(rec.state, u.id) if h in corps]
        if hit and not u.id.startswith("s-hq"):
            r = rules.apply(rec.state, "soviet", o.Move(units=(u.id,), path=(hit[0],)))
            if isinstance(r, Rejection):
                assert "AGS 7.0" in str(r) and "K151" in str(r) and "AGS-K 24.12" in str(r)
                return
    pytest.fail("no Soviet unit's move into a corps hex is refused")


def test_a41_the_owner_eliminates_the_excess_at_the_phase_end_without_vps() -> None:
    from engine.ags.overstack import KIND

    rec = start(korsun(), 1)
    while rec.system.phase(rec.state).title != "the German Initial Movement Phase, turn 1":
        side = rec.system.awaited_sides(rec.state)[0]
        _ok(rec, side, rec.system.next_default(rec.state, side))
    state = rec.state.clone()
    extra = next(
        u for u in state.on_map("german") if u.hex != "2306" and u.id.startswith("g-")
    )  # a fourth unit in the 2306 group's hex
    extra.hex = "2306"
    r = rec.system.apply(state, "german", o.Done())
    assert isinstance(r, Applied)
    (d,) = r.state.pending
    assert d.kind == KIND and d.rule == "AGS 7.0, A41" and "2306" in d.options["hexes"]
    group = d.options["hexes"]["2306"]
    r2 = rec.system.apply(r.state, "german", o.Losses(units=tuple(group[:2])))
    assert isinstance(r2, Rejection) and "A41" in str(r2)  # only the excess
    r3 = rec.system.apply(r.state, "german", o.Losses(units=(extra.id,)))
    assert isinstance(r3, Applied)
    assert [e.data["unit"] for e in r3.events if e.kind == "unit_eliminated"] == [extra.id]
    assert not any(e.kind == "vp_awarded" for e in r3.events)  # A41: no award
    assert rec.system.phase(r3.state).kind == "combat"


def test_the_service_starts_ags_korsun_against_the_built_in_player(tmp_path: Path) -> None:
    import asyncio

    from bot.service import Caller, Referee
    from engine.notation import format_order

    alice = Caller("u-alice", "Alice", guild="g1", channel="c1")

    async def go() -> None:
        ref = await Referee.open(tmp_path / "kessel.db")
        try:
            out = await ref.new_game(alice, "ags-korsun", seed=1, side="soviet")
            gid = out[0].game
            assert gid is not None
            await ref.seat_ai(alice, gid, "german")
            for _ in range(3):  # the Soviet player-turn; the German one by its opponent
                await ref.orders(alice, gid, "done")
            g = await ref.game(gid)
            for _ in range(40):  # the German attacks ask the Soviet player for answers
                if g.state.turn != 1:
                    break
                order = g.system.next_default(g.state, "soviet")
                assert order is not None
                await ref.orders(alice, gid, format_order(order))
                g = await ref.game(gid)
            assert g.state.turn == 2 and g.awaited() == ["soviet"]
            log = "\n".join(r.text for r in await ref.history(alice, gid, limit=80))
            assert "Game-Turn 2" in log and "German Initial Movement Phase" in log
        finally:
            await ref.close()

    asyncio.run(go())

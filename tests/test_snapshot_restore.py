"""GameState.from_snapshot (DESIGN §2, issue #7): the exact inverse of snapshot(), also
through JSON, and the restored state plays on identically -- over self-play positions with
pending decisions, sealed inputs and combats in progress."""

from __future__ import annotations

import json
import random

import pytest

from engine.core import Applied
from engine.record import GameRecord
from engine.state import GameState
from engine.wb95.choices import candidate_orders
from engine.wb95.flow import awaited_sides
from engine.wb95.game import apply
from scenarios import load_scenario

SCENARIOS = [
    ("demo-steblev", 80),
    ("demo-kursk", 80),
    ("korsun-1944", 25),
    ("kursk", 25),
]


def _check(state: GameState, rng: random.Random) -> None:
    snap = state.snapshot()
    back = GameState.from_snapshot(state.setup, snap)
    assert back.snapshot() == snap
    via_json = GameState.from_snapshot(state.setup, json.loads(json.dumps(snap)))
    assert via_json.snapshot() == snap
    assert list(back.units) == list(state.units)  # the scenario's order, as built
    if state.over:
        return
    side = awaited_sides(state)[0]
    options = candidate_orders(state, side)
    if not options:
        return
    order = rng.choice(options)
    a, b = apply(state, side, order), apply(via_json, side, order)
    assert type(a) is type(b)
    if isinstance(a, Applied) and isinstance(b, Applied):
        assert [e.to_json() for e in a.events] == [e.to_json() for e in b.events]
        assert a.state.snapshot() == b.state.snapshot()


@pytest.mark.parametrize(("scenario_id", "steps"), SCENARIOS)
def test_from_snapshot_round_trip_over_self_play(scenario_id: str, steps: int) -> None:
    setup = load_scenario(scenario_id)
    seen: set[str] = set()
    for seed in (1, 2, 3, 4):  # a demo's random walk may end without a combat
        if seed > 2 and {"pending", "combat"} <= seen:
            break
        rng = random.Random(seed)
        rec = GameRecord(setup, seed=seed)
        for _ in range(steps):
            s = rec.state
            if s.over:
                break
            if s.pending:
                seen.add("pending")
            if s.combat is not None:
                seen.add("combat")
            if s.sealed:
                seen.add("sealed")
            _check(s, rng)
            side = awaited_sides(s)[0]
            options = candidate_orders(s, side)
            if not options:
                break
            rec.submit(side, rng.choice(options))
    if scenario_id.startswith("demo"):
        assert {"pending", "combat"} <= seen, seen


def test_from_snapshot_restores_fractions_tuples_and_dice() -> None:
    setup = load_scenario("demo-steblev")
    rec = GameRecord(setup, seed=7, dice=(3, 4, 5))
    s = rec.state
    u = next(iter(s.units.values()))
    from fractions import Fraction

    u.mp_spent = Fraction(3, 2)
    u.disorganized_at = (1, 2)
    u.fired_at = (1, 3)
    back = GameState.from_snapshot(setup, json.loads(json.dumps(s.snapshot())))
    bu = back.units[u.id]
    assert bu.mp_spent == Fraction(3, 2) and isinstance(bu.mp_spent, Fraction)
    assert bu.disorganized_at == (1, 2) and bu.fired_at == (1, 3)
    assert back.dice.seed == 7 and back.dice.forced == [3, 4, 5]
    assert back.dice.draw(3) == s.dice.draw(3)

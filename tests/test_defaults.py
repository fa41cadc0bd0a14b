"""Deadline defaults (engine.wb95.defaults, issue #7, docs/deadlines.md, K87): for every
decision kind the engine raises the default answer is accepted, and from self-play
positions the defaults always make progress and are never rejected."""

from __future__ import annotations

import random

import pytest

from engine import orders as o
from engine.core import Applied
from engine.record import GameRecord
from engine.wb95.choices import candidate_orders
from engine.wb95.defaults import next_default
from engine.wb95.flow import awaited_sides
from engine.wb95.game import apply
from scenarios import load_scenario


def _positions(scenario_id: str, seeds: range, steps: int):  # type: ignore[no-untyped-def]
    setup = load_scenario(scenario_id)
    for seed in seeds:
        rng = random.Random(seed)
        rec = GameRecord(setup, seed=seed)
        for _ in range(steps):
            if rec.state.over:
                break
            yield rec.state
            side = awaited_sides(rec.state)[0]
            options = candidate_orders(rec.state, side)
            if not options:
                break
            rec.submit(side, rng.choice(options))


def test_default_answers_every_decision_kind() -> None:
    seen: set[str] = set()
    for sid in ("demo-steblev", "demo-kursk"):
        for state in _positions(sid, range(8), 120):
            for d in state.pending[:1]:
                order = next_default(state, d.side)
                assert order is not None, d.kind
                r = apply(state, d.side, order)
                assert isinstance(r, Applied), (d.kind, order, r)
                seen.add(d.kind)
    assert {"losses", "retreat"} <= seen, seen


def test_7_2_1_default_places_the_free_improved_fortifications() -> None:
    setup = load_scenario("korsun-1944")
    rec = GameRecord(setup, seed=1)
    mine = [d for d in rec.state.pending if d.kind == "place-if"]
    if not mine:
        pytest.skip("korsun-1944 opens no IF placement step")
    d = mine[0]
    order = next_default(rec.state, d.side)
    assert isinstance(order, o.PlaceIf) and order.hexes
    assert isinstance(rec.submit(d.side, order), Applied)


def test_next_default_is_none_for_a_side_not_awaited() -> None:
    setup = load_scenario("demo-steblev")
    rec = GameRecord(setup, seed=1)
    waiting = awaited_sides(rec.state)
    for side in setup.sides:
        if side not in waiting:
            assert next_default(rec.state, side) is None


@pytest.mark.parametrize("scenario_id", ["demo-steblev", "demo-kursk", "kursk"])
def test_defaults_always_make_progress(scenario_id: str) -> None:
    """From random positions, the awaited side's defaults are accepted and within a bounded
    number of inputs the phase ends or that side is no longer awaited."""
    steps = 60 if scenario_id.startswith("demo") else 12
    for n, state in enumerate(_positions(scenario_id, range(3), steps)):
        if n % 4:
            continue
        side = awaited_sides(state)[0]
        phase, turn = state.phase, state.turn
        s = state
        for _ in range(40):
            order = next_default(s, side)
            if order is None:
                break
            r = apply(s, side, order)
            assert isinstance(r, Applied), (order, r)
            s = r.state
            if s.over or (s.phase, s.turn) != (phase, turn) or side not in awaited_sides(s):
                break
        else:
            raise AssertionError(f"{side} defaults made no progress in {scenario_id}")

"""The built-in AGS opponent (bot/systems/ags/opponent.py, issue #19): registered for
"ags", it plays a whole Korsun game against the deadline defaults without a refused
input, attacks at the odds the engine computes (engine/ags/odds.py, AGS 9.4, A25) and
overruns at 5-1 or better (AGS 6.0), is deterministic for a seed and scores more victory
points (AGS-K 27.1-27.2) than the deadline defaults do on the same side. Its use of the
system's tools and the duel against the first opponent: test_ags_opponent_tools.py."""

from __future__ import annotations

from functools import cache

import pytest

from bot import systems as bot_systems
from bot.systems.ags.opponent import Opponent, column_index
from engine import orders as o
from engine import systems
from engine.ags import odds
from engine.core import Applied, Rejection
from engine.model import Setup
from engine.record import GameRecord
from scenarios import load_scenario


@cache
def korsun() -> Setup:
    return load_scenario("ags-korsun")


def _play(seed: int, bot_side: str | None, limit: int = 4000) -> tuple[GameRecord, list[str]]:
    """A game with the opponent on `bot_side` (None: both by the deadline defaults);
    every input must be accepted."""
    rec = GameRecord(korsun(), seed)
    bot = Opponent(bot_side, seed).choose if bot_side else None
    played: list[str] = []
    while not rec.state.over and len(played) < limit:
        side = rec.system.awaited_sides(rec.state)[0]
        order = bot(rec.state) if bot and side == bot_side else None
        if order is None:
            order = rec.system.next_default(rec.state, side)
        assert order is not None, "liveness"
        r = rec.submit(side, order)
        assert isinstance(r, Applied), (side, order, r)
        played.append(f"{side}: {order.verb} {order}")
    return rec, played


@cache
def _by_defaults(seed: int) -> dict[str, int]:
    rec, _ = _play(seed, None)
    assert rec.state.over
    return dict(rec.state.ext["vp"])


def test_the_ags_system_has_a_builtin_opponent() -> None:
    assert bot_systems.get("ags").opponent is not None
    choose = bot_systems.builtin_opponent("soviet", 1)
    rec = GameRecord(korsun(), 1)
    side = rec.system.awaited_sides(rec.state)[0]
    if side == "soviet":
        assert isinstance(rec.system.apply(rec.state, "soviet", choose(rec.state)), Applied)
    else:
        assert choose(rec.state) is None  # not awaited


@pytest.mark.slow  # a whole game each side; tests/ags/test_ags_opponent_tools.py plays a turn
@pytest.mark.parametrize("side", ["soviet", "german"])
def test_it_plays_a_whole_game_attacks_and_outscores_the_deadline_defaults(side: str) -> None:
    seed = 1
    rec, played = _play(seed, side)
    assert rec.state.over and rec.state.result is not None
    attacks = [p for p in played if p.startswith(f"{side}: attack")]
    assert attacks, "it attacks"
    vp = rec.state.ext["vp"]
    # AGS-K 27.1, 27.2: the defaults never attack, so they score nothing for this side
    assert vp[side] > _by_defaults(seed)[side]


def test_it_attacks_only_at_good_odds() -> None:
    rec = GameRecord(korsun(), 2)
    bot = Opponent("soviet", 2)
    seen = 0
    while not rec.state.over and rec.state.turn <= 2:
        side = rec.system.awaited_sides(rec.state)[0]
        order = bot.choose(rec.state) if side == "soviet" else None
        order = order or rec.system.next_default(rec.state, side)
        assert order is not None
        if side == "soviet" and isinstance(order, o.Attack) and rec.state.phase in (0, 2):
            # an overrun (AGS 6.0): only at 5-1 or better, as `overrun` resolves it
            done = rec.submit(side, order)
            assert isinstance(done, Applied)
            res = next(e.data for e in done.events if e.kind == "combat_resolved")
            assert res["overrun"] and column_index(rec.state, res["column"]) >= column_index(
                rec.state, "5-1"
            )
            seen += 1
            continue
        if side == "soviet" and isinstance(order, o.Attack) and rec.state.pending == []:
            got = odds.preview(rec.state, "soviet", order)
            assert got["worst"] in ("2-1", "3-1", "4-1", "5-1", "6-1", "7-1", "8-1", "9-1", "10-1")
            preview = systems.of(rec.state).preview(rec.state, "soviet", order)
            assert not isinstance(preview, Rejection) and preview["column"] == got["column"]
            seen += 1
        assert isinstance(rec.submit(side, order), Applied)
    assert seen


def test_it_is_deterministic_for_a_seed() -> None:
    a = _play(3, "soviet", limit=60)[1]
    b = _play(3, "soviet", limit=60)[1]
    assert a == b

"""Ladder challenges and VP bids for sides (bot/league/ladder.py, bot/league/bids.py)."""

from __future__ import annotations

import random

import pytest

from bot.league.pairing import (
    Bid,
    can_challenge,
    challenge,
    challengeable,
    join,
    ladder_after,
    ladder_after_result,
    resolve_bids,
)

from .helpers import SIDES, game

LADDER = ["ann", "bob", "cid", "dan", "eve"]


def test_who_may_challenge_whom() -> None:
    assert challengeable(LADDER, "eve") == ["bob", "cid", "dan"]  # up to 3 places up
    assert challengeable(LADDER, "bob") == ["ann"]
    assert challengeable(LADDER, "ann") == []
    assert can_challenge(LADDER, "eve", "bob")
    assert not can_challenge(LADDER, "eve", "ann")
    assert not can_challenge(LADDER, "bob", "eve")  # only upward
    assert challengeable(LADDER, "eve", reach=1) == ["dan"]
    with pytest.raises(ValueError, match="not on the ladder"):
        challengeable(LADDER, "zed")


def test_a_challenge_is_a_pairing() -> None:
    p = challenge(LADDER, "eve", "cid", sides=SIDES, challenger_side="soviet", round=3)
    assert (p.round, p.game_key, p.sides) == (3, "eve-v-cid", {"soviet": "eve", "german": "cid"})
    with pytest.raises(ValueError, match="may not challenge"):
        challenge(LADDER, "eve", "ann", sides=SIDES, challenger_side="soviet")


def test_the_ladder_after_a_result() -> None:
    # A lower winner takes the loser's place; those between move down one.
    assert ladder_after(LADDER, "eve", "bob") == ["ann", "eve", "bob", "cid", "dan"]
    assert ladder_after(LADDER, "dan", "cid") == ["ann", "bob", "dan", "cid", "eve"]
    # A higher winner stays where it is.
    assert ladder_after(LADDER, "bob", "eve") == LADDER
    assert ladder_after_result(LADDER, game("g", "eve", "bob", 1.0)) == ladder_after(
        LADDER, "eve", "bob"
    )
    assert ladder_after_result(LADDER, game("g", "eve", "bob", 0.5)) == LADDER
    assert ladder_after_result(LADDER, game("g", "eve", "bob", -1, how="forfeit")) == LADDER
    assert join(LADDER, "fay")[-1] == "fay"
    with pytest.raises(ValueError):
        join(LADDER, "ann")


def test_bids_for_different_sides_cost_nothing() -> None:
    out = resolve_bids([Bid("ann", "german", 3), Bid("bob", "soviet", 1)], sides=SIDES, seed=1)
    assert out.sides == {"german": "ann", "soviet": "bob"}
    assert (out.bid, out.payer, out.coin) == (0.0, None, False)


def test_the_higher_bid_takes_the_side_and_gives_the_bid() -> None:
    out = resolve_bids([Bid("bob", "german", 2), Bid("ann", "german", 5)], sides=SIDES, seed=1)
    assert out.sides == {"german": "ann", "soviet": "bob"}
    assert (out.bid, out.payer, out.coin) == (5.0, "ann", False)
    assert out.reason == "ann bid 5 VP for german; bob gets them"


def test_equal_bids_are_decided_by_the_seeded_coin() -> None:
    bids = [Bid("bob", "german", 4), Bid("ann", "german", 4)]
    # random.Random(1).random() = 0.134... < 0.5: the first by id (ann) wins;
    # random.Random(2).random() = 0.956...: bob wins.
    assert random.Random(1).random() < 0.5 < random.Random(2).random()
    one = resolve_bids(bids, sides=SIDES, seed=1)
    two = resolve_bids(list(reversed(bids)), sides=SIDES, seed=2)
    assert (one.sides["german"], one.payer, one.bid, one.coin) == ("ann", "ann", 4.0, True)
    assert (two.sides["german"], two.payer, two.bid, two.coin) == ("bob", "bob", 4.0, True)
    assert resolve_bids(list(reversed(bids)), sides=SIDES, seed=1) == one  # order-free


def test_bad_bids() -> None:
    with pytest.raises(ValueError):
        resolve_bids([Bid("ann", "german", 1)], sides=SIDES, seed=0)
    with pytest.raises(ValueError):
        resolve_bids([Bid("ann", "german", 1), Bid("ann", "soviet", 1)], sides=SIDES, seed=0)
    with pytest.raises(ValueError, match="not one of"):
        resolve_bids([Bid("ann", "allied", 1), Bid("bob", "soviet", 1)], sides=SIDES, seed=0)
    with pytest.raises(ValueError, match="0 or more"):
        resolve_bids([Bid("ann", "german", -1), Bid("bob", "soviet", 1)], sides=SIDES, seed=0)

"""VP bidding for sides, as PBEM ladders do for unbalanced scenarios.

Each player names the side it wants and the victory points it would give its opponent
to play it. Players who want different sides get them, and nobody pays. When both want
the same side, the higher bid takes it and gives its bid to the opponent (the game's
VP margin is counted with that handicap; `GameResult.bid`). Equal bids are decided by
a coin the caller seeds, so the outcome can be replayed and checked.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Bid:
    player: str
    side: str  # the side the player wants
    vp: float  # the VP it offers its opponent for that side (>= 0)


@dataclass(frozen=True)
class BidOutcome:
    sides: dict[str, str]  # side -> player
    bid: float  # the VP handicap the payer gives its opponent (0: none)
    payer: str | None
    coin: bool  # a coin decided equal bids
    reason: str


def resolve_bids(bids: Sequence[Bid], *, sides: tuple[str, str], seed: int) -> BidOutcome:
    """Who plays which side, and the VP handicap, from the two players' bids."""
    if len(bids) != 2 or bids[0].player == bids[1].player:
        raise ValueError("a bid settles the sides of one game between two players")
    for b in bids:
        if b.side not in sides:
            raise ValueError(f"{b.player} bid for {b.side!r}, not one of {sides}")
        if b.vp < 0:
            raise ValueError(f"{b.player} bid {b.vp} VP; a bid is 0 or more")
    a, b = sorted(bids, key=lambda x: x.player)  # the input order must not matter
    if a.side != b.side:
        return BidOutcome(
            {a.side: a.player, b.side: b.player}, 0.0, None, False, "each wanted a different side"
        )
    coin = a.vp == b.vp
    if coin:
        # random.Random(int) gives the same first draw on every Python version.
        high = a if random.Random(seed).random() < 0.5 else b
    else:
        high = a if a.vp > b.vp else b
    low = b if high is a else a
    other = sides[1] if high.side == sides[0] else sides[0]
    how = "won the coin toss at" if coin else "bid"
    reason = f"{high.player} {how} {high.vp:g} VP for {high.side}; {low.player} gets them"
    return BidOutcome(
        {high.side: high.player, other: low.player}, high.vp, high.player, coin, reason
    )

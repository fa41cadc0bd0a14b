"""The AGS tests' shared start: the scenario, a game whose German set-up step (AGS-K
18.2, K170) is finished with the scenario's set-up, so a test may open with Soviet
orders, and inputs that must be accepted or refused."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from engine import orders as o
from engine.core import Applied, Rejection
from engine.model import Setup
from engine.record import GameRecord
from scenarios import load_scenario


def start(setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> GameRecord:
    """A new game with the German set-up accepted as shipped (`done`, AGS-K 18.24)."""
    rec = GameRecord(setup, seed, dice=tuple(dice))
    r = rec.submit("german", o.Done())
    assert isinstance(r, Applied), r
    return rec


@cache
def korsun() -> Setup:
    return load_scenario("ags-korsun")


def ok(rec: GameRecord, side: str, order: o.Order) -> Applied:
    r = rec.submit(side, order)
    assert isinstance(r, Applied), r
    return r


def refused(rec: GameRecord, side: str, order: o.Order) -> Rejection:
    r = rec.submit(side, order)
    assert isinstance(r, Rejection), r
    return r

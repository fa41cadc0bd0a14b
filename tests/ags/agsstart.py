"""The AGS tests' shared start: a game whose German set-up step (AGS-K 18.2, K170)
is finished with the scenario's set-up, so a test may open with Soviet orders."""

from __future__ import annotations

from collections.abc import Sequence

from engine import orders as o
from engine.core import Applied
from engine.model import Setup
from engine.record import GameRecord


def start(setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> GameRecord:
    """A new game with the German set-up accepted as shipped (`done`, AGS-K 18.24)."""
    rec = GameRecord(setup, seed, dice=tuple(dice))
    r = rec.submit("german", o.Done())
    assert isinstance(r, Applied), r
    return rec

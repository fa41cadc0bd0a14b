"""The Korsun turn track: dates, weather (AGS-K 20.1, 28.0), air points (AGS-K 19.8) and
the active-HQ schedule (AGS-K 23.11, A33)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from engine.ags.provenance import Provenance

Weather = Literal["snow", "mud"]


@dataclass(frozen=True)
class Turn:
    number: int
    date: dt.date
    weather: Weather  # as printed on the track (the fixed weather of AGS-K 20.1)
    active_hqs: int  # the most Soviet HQs that may be active (AGS-K 23.11, A33)
    reinforcements: tuple[str, ...] = ()  # sides with reinforcements (track's "Rnf")


@dataclass(frozen=True)
class WeatherEffect:
    air_points: int  # per side (AGS-K 19.8)
    mech_allowance: int | None  # mud: 4 for mechanized units and HQs (AGS-K 20.12)


@dataclass(frozen=True)
class TurnTrack:
    turns: dict[int, Turn]
    effects: dict[Weather, WeatherEffect]
    variable_from: int  # AGS-K 28.0: the first turn with a weather roll
    variable_die: dict[int, Weather]
    provenance: Provenance

    @property
    def last(self) -> int:
        return max(self.turns)

    def turn(self, n: int) -> Turn:
        if n not in self.turns:
            raise ValueError(f"turn {n} is not on the track (1-{self.last}; AGS-K 19.12)")
        return self.turns[n]

    def weather(self, n: int, die: int | None = None) -> Weather:
        """The weather of turn n: as printed, or with the optional rule (AGS-K 28.0) the
        die's from turn 4 on (snow before)."""
        if die is None or n < self.variable_from:
            return self.turn(n).weather
        if die not in self.variable_die:
            raise ValueError(f"die {die} is not 1-6 (AGS-K 28.0)")
        return self.variable_die[die]

    def air_points(self, n: int, die: int | None = None) -> int:
        """Air points each side receives (AGS-K 19.8: three on mud turns, none on snow)."""
        return self.effects[self.weather(n, die)].air_points

"""The record every pairing function returns: one game to be played (or a bye)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.league.results import BYE_SIDE

BYE = BYE_SIDE  # a bye is a pairing whose only "side" is BYE


@dataclass(frozen=True)
class Pairing:
    """Game `game_key` of round `round`: side -> player. A bye has the one side BYE."""

    round: int
    game_key: str
    sides: dict[str, str]

    @property
    def is_bye(self) -> bool:
        return BYE in self.sides

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.sides.values())


def bye_pairing(round: int, player: str) -> Pairing:
    return Pairing(round, f"r{round}.bye", {BYE: player})

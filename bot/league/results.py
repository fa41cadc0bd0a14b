"""A finished league game as the league keeps it: who played which side, who scored what,
how it ended. Ratings, standings and pairings are all computed from these records only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

HOW = ("played", "resigned", "forfeit", "moderator", "bye")
SCORES = (0.0, 0.5, 1.0)
BYE_SIDE = "bye"  # the one "side" of a bye: a round without an opponent


@dataclass(frozen=True)
class GameResult:
    """One result. `finished` is the caller's timestamp (seconds), never read from a clock,
    so a recomputation orders games the same way. `score` maps each player to 1, 0.5 or 0
    (a double forfeit is 0 and 0); `margin` is the VP margin from the winner's view (0 for
    a draw); `bid` the VP a player gave for a side (pairing.resolve_bids); `started` is
    False for a game forfeited before both players had made an input (K130)."""

    game: str
    system: str
    scenario: str
    finished: float
    sides: Mapping[str, str]
    score: Mapping[str, float]
    margin: float
    how: str
    bid: float = 0.0
    rated: bool = True
    started: bool = True
    round: int = 0  # the pairing round, when the format has rounds; 0 otherwise

    def __post_init__(self) -> None:
        if self.how not in HOW:
            raise ValueError(f"{self.game}: how is {self.how!r}, not one of {HOW}")
        players = list(self.sides.values())
        if len(set(players)) != len(players) or set(players) != set(self.score):
            raise ValueError(f"{self.game}: the sides' players and the scored players differ")
        if any(s not in SCORES for s in self.score.values()):
            raise ValueError(f"{self.game}: a score is not 1, 0.5 or 0")
        total = sum(self.score.values())
        if self.how == "bye":
            if len(players) != 1 or self.rated:
                raise ValueError(f"{self.game}: a bye has one player and is not rated")
        elif len(players) != 2:
            raise ValueError(f"{self.game}: a league game has two players")
        elif total != 1.0 and not (total == 0.0 and self.how in ("forfeit", "moderator")):
            # Only a forfeit or a moderator can make both players lose.
            raise ValueError(f"{self.game}: the scores add up to {total}, not 1")
        if self.margin < 0:
            raise ValueError(f"{self.game}: the margin is seen from the winner, so >= 0")

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.sides.values())

    def side_of(self, player: str) -> str:
        return next(s for s, p in self.sides.items() if p == player)

    def opponent(self, player: str) -> str | None:
        return next((p for p in self.sides.values() if p != player), None)

    @property
    def winner(self) -> str | None:
        return next((p for p, s in self.score.items() if s == 1.0), None)

    @property
    def double_forfeit(self) -> bool:
        return len(self.score) == 2 and sum(self.score.values()) == 0.0

    def signed_margin(self, player: str) -> float:
        """The VP margin from `player`'s view: + when it won, - when it lost, 0 in a draw."""
        s = self.score[player]
        return self.margin if s == 1.0 else -self.margin if s == 0.0 and self.winner else 0.0


def bye(game: str, system: str, scenario: str, finished: float, player: str) -> GameResult:
    """A round without an opponent (Swiss): scored as a win, never rated."""
    return GameResult(
        game=game,
        system=system,
        scenario=scenario,
        finished=finished,
        sides={BYE_SIDE: player},
        score={player: 1.0},
        margin=0.0,
        how="bye",
        rated=False,
    )


def in_order(results: Iterable[GameResult]) -> list[GameResult]:
    """The order every computation replays results in: by finish time, then game id, so
    two games finished in the same second still come in one fixed order."""
    return sorted(results, key=lambda r: (r.finished, r.game))

"""Small builders for league tests: results written as one line each."""

from __future__ import annotations

from bot.league.results import GameResult

SIDES = ("german", "soviet")


def game(
    key: str,
    german: str,
    soviet: str,
    german_score: float,
    *,
    t: float = 0.0,
    margin: float = 0.0,
    how: str = "played",
    system: str = "wb95",
    scenario: str = "the-retreat",
    started: bool = True,
    bid: float = 0.0,
    rnd: int = 0,
) -> GameResult:
    """A game `german` (on the German side) against `soviet`; the German's score."""
    score = {german: german_score, soviet: 1.0 - german_score}
    if german_score < 0:  # a double forfeit
        score = {german: 0.0, soviet: 0.0}
    return GameResult(
        game=key,
        system=system,
        scenario=scenario,
        finished=t,
        sides={"german": german, "soviet": soviet},
        score=score,
        margin=margin,
        how=how,
        bid=bid,
        started=started,
        round=rnd,
    )

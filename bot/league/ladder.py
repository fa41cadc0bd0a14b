"""A ladder (challenge) league: players in one ordered list, best at the top.

A player may challenge anyone up to `reach` places above it. When the lower player
wins, it takes the loser's place and everyone from there down to its old place moves
down one; when the higher player wins, or the game is drawn, the ladder stays as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.league.pairing_model import Pairing
from bot.league.results import GameResult

REACH = 3


def _place(ladder: Sequence[str], player: str) -> int:
    try:
        return list(ladder).index(player)
    except ValueError:
        raise ValueError(f"{player} is not on the ladder") from None


def challengeable(ladder: Sequence[str], challenger: str, reach: int = REACH) -> list[str]:
    """Whom `challenger` may challenge: the players up to `reach` places above it."""
    i = _place(ladder, challenger)
    return list(ladder[max(0, i - reach) : i])


def can_challenge(ladder: Sequence[str], challenger: str, target: str, reach: int = REACH) -> bool:
    return target in challengeable(ladder, challenger, reach)


def challenge(
    ladder: Sequence[str],
    challenger: str,
    target: str,
    *,
    sides: tuple[str, str],
    challenger_side: str,
    round: int = 0,
    game_key: str = "",
    reach: int = REACH,
) -> Pairing:
    """The game of a challenge; the side the challenger plays is the league's rule (or
    a bid, `resolve_bids`), so it is given."""
    if not can_challenge(ladder, challenger, target, reach):
        raise ValueError(f"{challenger} may not challenge {target} (at most {reach} places up)")
    if challenger_side not in sides:
        raise ValueError(f"{challenger_side} is not one of {sides}")
    other = sides[1] if challenger_side == sides[0] else sides[0]
    key = game_key or f"{challenger}-v-{target}"
    return Pairing(round, key, {challenger_side: challenger, other: target})


def ladder_after(ladder: Sequence[str], winner: str, loser: str) -> list[str]:
    """The ladder after `winner` beat `loser`: a lower winner takes the loser's place."""
    w, lo = _place(ladder, winner), _place(ladder, loser)
    out = list(ladder)
    if w > lo:
        out.pop(w)
        out.insert(lo, winner)
    return out


def ladder_after_result(ladder: Sequence[str], result: GameResult) -> list[str]:
    """The ladder after a result; a draw, a double forfeit or a bye changes nothing."""
    win = result.winner
    lose = result.opponent(win) if win else None
    if win is None or lose is None:
        return list(ladder)
    return ladder_after(ladder, win, lose)


def join(ladder: Sequence[str], player: str) -> list[str]:
    """A newcomer starts at the bottom."""
    if player in ladder:
        raise ValueError(f"{player} is already on the ladder")
    return [*ladder, player]

"""The league formats' pairings in one place. Every function returns `Pairing` records
and is deterministic; a coin or a draw by lot, when there is one, is a parameter.

- round robin (Berger tables, sides balanced) and double round robin: `round_robin`
- Swiss (the Dutch system, simplified): `swiss_round`
- ladder / challenge: `challengeable`, `can_challenge`, `challenge`, `ladder_after`
- AHIKS two-game sets, sides switched: `two_game_sets`
- VP bidding for sides: `resolve_bids`
"""

from bot.league.bids import Bid, BidOutcome, resolve_bids
from bot.league.ladder import (
    REACH,
    can_challenge,
    challenge,
    challengeable,
    join,
    ladder_after,
    ladder_after_result,
)
from bot.league.pairing_model import BYE, Pairing, bye_pairing
from bot.league.round_robin import berger_table, round_robin, two_game_sets
from bot.league.swiss import swiss_round

__all__ = [
    "BYE",
    "REACH",
    "Bid",
    "BidOutcome",
    "Pairing",
    "berger_table",
    "bye_pairing",
    "can_challenge",
    "challenge",
    "challengeable",
    "join",
    "ladder_after",
    "ladder_after_result",
    "resolve_bids",
    "round_robin",
    "swiss_round",
    "two_game_sets",
]

"""WB-95 in the bot: its describer (bot/describe.py) and its built-in opponent
(bot/systems/wb95/opponent.py)."""

from __future__ import annotations

from bot import describe
from bot.systems import BotSystem, Chooser


def _opponent(side: str, seed: int) -> Chooser:
    from bot.systems.wb95.opponent import Opponent

    return Opponent(side, seed).choose


BOT_SYSTEM = BotSystem(
    "wb95",
    describer=describe,
    opponent=_opponent,
    # bot/describe.py is WB-95's describer (its event kinds, decisions and answers)
    adapters=("bot.describe", "bot.systems.wb95", "bot.systems.wb95.opponent"),
)

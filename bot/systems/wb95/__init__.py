"""WB-95 in the bot: its describer (bot/describe.py) and its built-in opponent
(bot/systems/wb95/ai/, issue #23; the opponent of issue 7, bot/systems/wb95/opponent.py,
stays as the baseline that `kessel duel` measures it against)."""

from __future__ import annotations

from bot import describe
from bot.systems import BotSystem, Chooser

AI = "bot.systems.wb95.ai"


def _opponent(side: str, seed: int) -> Chooser:
    from bot.systems.wb95.ai.opponent import Opponent

    return Opponent(side, seed).choose


BOT_SYSTEM = BotSystem(
    "wb95",
    describer=describe,
    opponent=_opponent,
    # bot/describe.py is WB-95's describer (its event kinds, decisions and answers)
    adapters=(
        "bot.describe",
        "bot.systems.wb95",
        "bot.systems.wb95.opponent",
        "bot.systems.wb95.duel",
        *(
            f"{AI}.{m}"
            for m in ("aims", "airplay", "answers", "battle", "opponent", "plan", "reckon", "sight")
        ),
    ),
)

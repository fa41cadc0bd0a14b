"""Army Group South in the bot: its describer (bot/systems/ags/describe.py) and its
built-in opponent (bot/systems/ags/opponent.py)."""

from __future__ import annotations

from bot.systems import BotSystem, Chooser
from bot.systems.ags.describe import Words


def _opponent(side: str, seed: int) -> Chooser:
    from bot.systems.ags.opponent import Opponent

    return Opponent(side, seed).choose


BOT_SYSTEM = BotSystem(
    "ags",
    describer=Words(),
    opponent=_opponent,
    # the AGS loaders build the engine's AGS objects from the data files (docs/ags.md)
    adapters=(
        "scenarios.ags.build",
        "scenarios.ags.counters",
        "scenarios.ags.maps",
        "scenarios.ags.scenario",
        "scenarios.ags.tables",
        "scenarios.ags.validate",  # kessel validate's AGS checks (issue #19)
        "bot.systems.ags.opponent",  # the built-in opponent reads the AGS state
        "bot.systems.ags.baseline",  # the first opponent, the duel's baseline
        "bot.systems.ags.duel",  # the opponent against the baseline (issue #19)
    ),
)

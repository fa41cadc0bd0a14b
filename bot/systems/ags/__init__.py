"""Army Group South in the bot: its describer (bot/systems/ags/describe.py). It has no
opponent of its own: the built-in player plays the deadline defaults
(`RuleSystem.next_default`: answers the decisions, brings in the reinforcements, `done`)."""

from __future__ import annotations

from bot.systems import BotSystem
from bot.systems.ags.describe import Words

BOT_SYSTEM = BotSystem(
    "ags",
    describer=Words(),
    # the AGS loaders build the engine's AGS objects from the data files (docs/ags.md)
    adapters=(
        "scenarios.ags.build",
        "scenarios.ags.counters",
        "scenarios.ags.maps",
        "scenarios.ags.scenario",
        "scenarios.ags.tables",
        "scenarios.ags.validate",  # kessel validate's AGS checks (issue #19)
    ),
)

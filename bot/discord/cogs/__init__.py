"""The slash commands, one module per family; `register` puts them on the tree."""

from __future__ import annotations

from typing import Any

from discord import app_commands


def register(tree: app_commands.CommandTree[Any]) -> None:
    from bot.discord.cogs import game, help, league, looking, mod, orders

    for module in (game, orders, looking, mod, league, help):
        for command in module.COMMANDS:
            tree.add_command(command)

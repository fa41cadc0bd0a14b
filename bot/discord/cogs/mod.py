"""`/mod act TEXT` — every moderator tool of the service (rollback, pause, resume, extend,
deadline, policy, set, announce, substitute, seat, unseat, answer, end, or a position
edit) — and `/mod role` for the server's moderator role (Manage Server only)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.discord.context import (
    MOD_ROLE_KEY,
    ack,
    bot_of,
    caller_of,
    described,
    game_choices,
    in_game,
    key_of,
)
from bot.discord.notify import send
from bot.service import Refusal
from bot.service.referee import SERVICE_VERBS

Interaction = discord.Interaction[Any]
EDITS = ("place UNIT HEX", "cel UNIT N")
EXAMPLES = [
    "pause",
    "resume",
    "extend 24",
    "deadline 48",
    "deadline off",
    "policy pass",
    "announce TEXT",
    "rollback EVENT",
    "substitute OLD_USER NEW_USER",
    "seat SIDE USER",
    "unseat USER",
    "answer SIDE ORDER",
    "end draw REASON",
    "set KEY VALUE",
    *EDITS,
]


class ModGroup(app_commands.Group):
    def __init__(self) -> None:
        super().__init__(name="mod", description="Moderator tools")

    @app_commands.command(name="act", description="A moderator command (pause, extend 24, ...)")
    @app_commands.describe(text="e.g. pause · extend 24 · answer soviet pass · place s-232 0434")
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def act(self, interaction: Interaction, text: str, game: str | None = None) -> None:
        await in_game(
            interaction, game, lambda ref, c, g: ref.mod(c, g, text, key=key_of(interaction))
        )

    @act.autocomplete("text")
    async def act_text(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        cur = current.strip().lower()
        out = [e for e in EXAMPLES if e.startswith(cur.split(" ")[0] if cur else "")]
        return [app_commands.Choice(name=e, value=e) for e in out][:25]

    @app_commands.command(
        name="channel", description="Move a game to this channel (its channel was deleted)"
    )
    @app_commands.describe(game="the id of the game to move here (its moderators were told it)")
    async def channel(self, interaction: Interaction, game: str) -> None:
        await ack(interaction)
        caller = await caller_of(interaction)
        if not caller.guild:
            raise Refusal(
                "a game moves to a server channel: use this in a server, in the new channel"
            )
        ref = bot_of(interaction).ref
        out = await ref.move_channel(caller, game.strip(), caller.guild, caller.channel)
        bot_of(interaction).notifier.lost.discard(game.strip())
        await bot_of(interaction).notifier.deliver(out, interaction)

    @app_commands.command(name="role", description="Set the server's Kessel moderator role")
    @described()
    async def role(self, interaction: Interaction, role: discord.Role | None = None) -> None:
        if not interaction.guild_id:
            raise Refusal("the moderator role is a server setting: use this in a server")
        if not (interaction.permissions.manage_guild or interaction.permissions.administrator):
            raise Refusal("only members with Manage Server may set the moderator role")
        store = bot_of(interaction).ref.store
        await store.set_server_setting(
            str(interaction.guild_id), MOD_ROLE_KEY, None if role is None else str(role.id)
        )
        text = (
            f"Kessel moderators here: members with {role.mention} or Manage Server."
            if role
            else "Kessel moderators here: members with Manage Server."
        )
        await send(interaction, text)

    @app_commands.command(name="help", description="The moderator commands")
    @described()
    async def help(self, interaction: Interaction) -> None:
        verbs = ", ".join(SERVICE_VERBS)
        await send(
            interaction,
            f"`/mod act TEXT` with one of: {verbs}; or a position edit such as "
            + " · ".join(f"`{e}`" for e in EDITS)
            + ". Every act is logged.",
        )


COMMANDS: list[Any] = [ModGroup()]

"""The bot: a `discord.Client` with the command tree, the persistent buttons and the
deadline clock (`Referee.tick` every minute); run as shards, a `discord.AutoShardedClient`
running this process's shards (`make_bot`, bot/discord/shards.py)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot import incident
from bot.discord.context import refuse
from bot.discord.notify import Notifier
from bot.discord.shards import Shards, of_discord
from bot.discord.views import DYNAMIC_ITEMS
from bot.service import Referee, Refusal

log = logging.getLogger("kessel.discord")
TICK_SECONDS = 60


class RefereeTree(app_commands.CommandTree[Any]):
    """Errors become friendly private messages; nothing internal reaches a channel."""

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        cause: BaseException = error
        if isinstance(error, app_commands.CommandInvokeError):
            cause = error.original
        if isinstance(cause, Refusal):
            message = cause.message
        elif isinstance(cause, app_commands.TransformerError):
            message = f"'{cause.value}' is not a valid {cause.type.name.lower()}"
        elif isinstance(cause, app_commands.CheckFailure | app_commands.CommandOnCooldown):
            message = str(cause)
        else:  # the interaction's error boundary: an incident id, never a traceback
            command = interaction.command.qualified_name if interaction.command else "?"
            iid = incident.record(cause, f"/{command} by {interaction.user.id}")
            message = incident.sentence(iid) + " Look at `/game status` and try again."
        try:
            await refuse(interaction, message)
        except discord.HTTPException:
            log.warning("could not report an error", extra={"error": message})


class KesselBot(discord.Client):
    def __init__(self, ref: Referee, *, tick: bool = True, **kw: Any) -> None:
        kw.setdefault("intents", discord.Intents.none() | discord.Intents(guilds=True))
        super().__init__(**kw)
        self.ref = ref
        # the deadline clock and opponents' resumption for Discord's games only (shards.py)
        ref.owns_guild = of_discord
        self.tree = RefereeTree(self)
        self.notifier = Notifier(self)
        self.legal_cache: dict[tuple[str, str, int, str], dict[str, Any]] = {}
        self.open_forms: set[str] = set()  # custom_ids of the /orders forms this process opened
        self._tick_enabled = tick
        self._ticker: asyncio.Task[None] | None = None
        from bot.discord.cogs import register

        register(self.tree)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self._tick_enabled:
            self._ticker = asyncio.create_task(self._tick_forever())

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A form submitted after a restart is unknown to discord.py's modal store: the
        /orders form is carried out here (its custom_id names the game)."""
        if interaction.type == discord.InteractionType.modal_submit:
            from bot.discord.cogs.orders import submitted_after_restart

            await submitted_after_restart(interaction)

    async def tick(self, now: float | None = None) -> None:
        """One round of reminders and deadline expiries."""
        replies = await self.ref.tick(now)
        if replies:
            await self.notifier.deliver(replies)

    async def _tick_forever(self) -> None:
        await self.wait_until_ready()
        try:  # a restart between a player's input and the opponent's answer
            replies = await self.ref.nudge()
            if replies:
                await self.notifier.deliver(replies)
        except Exception:
            log.exception("resuming the built-in opponents failed")
        while not self.is_closed():
            try:
                await self.tick()
            except Exception:
                log.exception("deadline tick failed")
            await asyncio.sleep(TICK_SECONDS)

    @property
    def syncs_commands(self) -> bool:
        """Whether this process uploads the slash commands (one process does: shard 0's)."""
        return True

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        await super().close()

    def command_payload(self) -> list[dict[str, Any]]:
        """What a sync uploads (checked offline in the tests)."""
        return [c.to_dict(self.tree) for c in self.tree.get_commands()]

    async def sync_if_changed(self, where: str) -> int | None:
        """Sync only when the commands differ from the last upload to `where` (creates
        are limited to 200 a day per guild); None when nothing changed."""
        digest = hashlib.sha256(
            json.dumps(self.command_payload(), sort_keys=True).encode()
        ).hexdigest()
        key = f"commands_synced:{where}"
        if await self.ref.store.server_setting("", key) == digest:
            return None
        count = await self.sync(where)
        await self.ref.store.set_server_setting("", key, digest)
        return count

    async def sync(self, where: str) -> int:
        """Upload the commands: `global` or a guild id (instant; for development)."""
        if where == "global":
            done = await self.tree.sync()
        else:
            guild = discord.Object(int(where))
            self.tree.copy_global_to(guild=guild)
            done = await self.tree.sync(guild=guild)
        return len(done)


class ShardedKesselBot(KesselBot, discord.AutoShardedClient):
    """The bot running some of its shards in this process (`shards.ids` of `shards.count`);
    other processes run the others against the same game database. This process does the
    deadline clock and the opponents' moves after a restart only for the games of its
    shards (`Referee.owns_guild`), and uploads the commands only if it runs shard 0."""

    def __init__(self, ref: Referee, shards: Shards, **kw: Any) -> None:
        super().__init__(ref, shard_count=shards.count, shard_ids=list(shards.ids), **kw)
        self.kessel_shards = shards
        ref.owns_guild = shards.owns

    @property
    def syncs_commands(self) -> bool:
        return 0 in self.kessel_shards.ids


def make_bot(ref: Referee, shards: Shards | None, **kw: Any) -> KesselBot:
    """The bot for this process: unsharded, or running `shards`."""
    return KesselBot(ref, **kw) if shards is None else ShardedKesselBot(ref, shards, **kw)

"""Turning the service's `Reply`s into Discord messages: the caller's (ephemeral) answer,
the game channel's spectator texts, DMs to a side's players with decision buttons, pings
of only the players who must act, and map snapshots in the viewer's own view.

DMs can be closed (403 / 50007). A user whose DM failed is remembered ("DMs closed") and
gets the message as an ephemeral follow-up when they are the one interacting, else in a
private thread of the game channel; repeated 403s are avoided (they count toward
Discord's invalid-request limit).
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.views import decision_view
from bot.service import Refusal, Reply
from bot.service.game import AI_PREFIX
from bot.service.roles import moderator_readers
from engine.numbers import is_snowflake

if TYPE_CHECKING:
    from bot.discord.client import KesselBot

log = logging.getLogger("kessel.discord.notify")
LIMIT = 1900  # below Discord's 2,000 characters per message


def chunks(text: str, limit: int = LIMIT) -> list[str]:
    """The text cut at line ends into messages Discord accepts."""
    out: list[str] = []
    cur = ""
    for line in text.splitlines() or [""]:
        while len(line) > limit:
            if cur:
                out.append(cur)
                cur = ""
            out.append(line[:limit])
            line = line[limit:]
        if cur and len(cur) + 1 + len(line) > limit:
            out.append(cur)
            cur = line
        else:
            cur = f"{cur}\n{line}" if cur else line
    if cur or not out:
        out.append(cur or "\u200b")
    return out


def _people(ids: list[str]) -> list[str]:
    """Discord users among seat holders (not the built-in opponent or local players)."""
    return [i for i in ids if is_snowflake(i) and not i.startswith(AI_PREFIX)]


DM_RETRY_SECONDS = 24 * 3600


class Notifier:
    def __init__(self, bot: KesselBot) -> None:
        self.bot = bot
        # Users whose DMs failed, with when: kept in the store so a restart does not
        # retry them (repeated 403s count toward Discord's invalid-request limit), and
        # tried again after a day, when they may have opened their DMs.
        self.dm_closed: dict[str, float] = {}
        self._closed_loaded = False
        self.threads: dict[tuple[str, str], int] = {}  # (game, user) -> private thread id

    async def _dms_closed(self, user: str) -> bool:
        if not self._closed_loaded:
            stored = await self.bot.ref.store.server_setting("", "dm_closed", {})
            self.dm_closed.update({str(k): float(v) for k, v in stored.items()})
            self._closed_loaded = True
        since = self.dm_closed.get(user)
        return since is not None and self.bot.ref.clock() - since < DM_RETRY_SECONDS

    async def _mark_closed(self, user: str) -> None:
        self.dm_closed[user] = self.bot.ref.clock()
        await self.bot.ref.store.set_server_setting("", "dm_closed", self.dm_closed)

    async def deliver(
        self, replies: list[Reply], interaction: discord.Interaction[Any] | None = None
    ) -> None:
        """Send every reply to its audience; the caller's through the interaction."""
        pings: dict[str | None, list[str]] = {}
        for r in replies:
            if r.to == "side" and r.kind in ("turn", "decision", "reminder"):
                found = pings.setdefault(r.game, [])
                found += [m for m in r.mention if is_snowflake(m) and m not in found]
        # the pings go with the last turn notice of the game in the channel
        last_notice = {
            r.game: i for i, r in enumerate(replies) if r.to == "channel" and r.kind == "turn"
        }
        pinged: set[str | None] = set()
        for i, r in enumerate(replies):
            try:
                if r.to == "caller":
                    await self._to_caller(r, interaction)
                elif r.to == "channel":
                    extra = pings.get(r.game, []) if last_notice.get(r.game) == i else []
                    if extra:
                        pinged.add(r.game)
                    await self._to_channel(r, extra)
                elif r.to == "side":
                    g = await self.bot.ref.game(r.game or "")
                    for user in _people(g.humans(r.side or "")):
                        await self.dm(user, r, interaction)
                elif r.to == "user" and r.user:
                    await self.dm(r.user, r, interaction)
                elif r.to == "moderators":
                    g = await self.bot.ref.game(r.game or "")
                    mods = moderator_readers(g, organisers=bool(r.data.get("organisers")))
                    for user in _people(mods):
                        await self.dm(user, r, interaction)
            except (discord.HTTPException, Refusal) as e:
                log.warning("delivery failed", extra={"to": r.to, "game": r.game, "error": str(e)})
        for game, users in pings.items():  # a turn change without a channel notice
            if game not in pinged and users:
                await self._to_channel(Reply("channel", "Your move:", game), users)

    async def _files(self, r: Reply) -> list[discord.File]:
        if not r.map_viewer or not r.game:
            return []
        try:
            png = await self.bot.ref.reply_map(r)
        except Refusal:
            return []
        if png is None:
            return []
        return [discord.File(io.BytesIO(png), filename=f"{r.game}-{r.map_viewer}.png")]

    async def _to_caller(self, r: Reply, interaction: discord.Interaction[Any] | None) -> None:
        if interaction is None:
            return
        parts = chunks(r.text)
        files = await self._files(r)
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            await send(interaction, part, ephemeral=True, files=files if last else [])

    async def _to_channel(self, r: Reply, ping: list[str]) -> None:
        if not r.game:
            return
        g = await self.bot.ref.game(r.game)
        if not is_snowflake(g.row.channel):
            return
        channel = self.bot.get_partial_messageable(int(g.row.channel))
        text = r.text + ("\n" + " ".join(f"<@{u}>" for u in ping) if ping else "")
        parts = chunks(text)
        files = await self._files(r)
        allowed = discord.AllowedMentions(
            everyone=False, roles=False, users=[discord.Object(int(u)) for u in ping]
        )
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            await channel.send(part, files=files if last else [], allowed_mentions=allowed)

    async def dm(
        self, user: str, r: Reply, interaction: discord.Interaction[Any] | None = None
    ) -> None:
        """A private message: DM, else an ephemeral follow-up to the same user, else a
        private thread in the game's channel."""
        view = decision_view(r) if r.kind == "decision" else None
        files = await self._files(r)
        text = r.text
        if view is None and r.kind == "decision":
            text += "\n(answer with `/orders`)"
        if not await self._dms_closed(user):
            try:
                channel = await self.bot.create_dm(discord.Object(int(user)))
                await _send_parts(channel, text, files, view)
                return
            except discord.Forbidden:
                await self._mark_closed(user)
                log.info("DMs closed", extra={"user": user})
        if interaction is not None and str(interaction.user.id) == user:
            for i, part in enumerate(chunks(text)):
                last = i == len(chunks(text)) - 1
                await send(
                    interaction,
                    part,
                    ephemeral=True,
                    files=files if last else [],
                    view=view if last else None,
                )
            return
        await self._thread_message(user, r, text, files, view)

    async def _thread_message(
        self,
        user: str,
        r: Reply,
        text: str,
        files: list[discord.File],
        view: discord.ui.View | None,
    ) -> None:
        if not r.game:
            return
        g = await self.bot.ref.game(r.game)
        if not is_snowflake(g.row.channel):
            return
        key = f"thread:{g.id}:{user}"
        tid = self.threads.get((g.id, user)) or await self.bot.ref.store.server_setting("", key)
        if tid is None:
            data = await self.bot.http.start_thread_without_message(
                int(g.row.channel),
                name=f"kessel {g.id} private",
                auto_archive_duration=10080,
                type=discord.ChannelType.private_thread.value,
                invitable=False,
            )
            tid = int(data["id"])
            await self.bot.http.add_user_to_thread(tid, int(user))
            await self.bot.ref.store.set_server_setting("", key, tid)
        self.threads[(g.id, user)] = tid
        thread = self.bot.get_partial_messageable(tid)
        await _send_parts(thread, f"<@{user}> {text}", files, view)


async def _send_parts(
    channel: discord.abc.Messageable,
    text: str,
    files: list[discord.File],
    view: discord.ui.View | None,
) -> None:
    parts = chunks(text)
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        kw: dict[str, Any] = {"files": files} if last and files else {}
        if last and view is not None:
            kw["view"] = view
        await channel.send(part, **kw)


async def send(
    interaction: discord.Interaction[Any],
    text: str,
    *,
    ephemeral: bool = True,
    files: list[discord.File] | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """Answer an interaction: the initial response if none was given yet, else a follow-up."""
    kw: dict[str, Any] = {"ephemeral": ephemeral}
    if files:
        kw["files"] = files
    if view is not None:
        kw["view"] = view
    if interaction.response.is_done():
        await interaction.followup.send(text, **kw)
    else:
        await interaction.response.send_message(text, **kw)

"""Turning the service's `Reply`s into Discord messages: the caller's (ephemeral) answer,
the game channel's spectator texts, DMs to a side's players with decision buttons, pings
of only the players who must act, and map snapshots in the viewer's own view.

DMs can be closed (403 / 50007). A user whose DM failed is remembered ("DMs closed") and
gets the message as an ephemeral follow-up when they are the one interacting, else in a
private thread of the game channel; repeated 403s are avoided (they count toward
Discord's invalid-request limit).
"""

from __future__ import annotations

import contextlib
import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.views import MAX_LOSS_LINES, PAGE, decision_view, reply_answers
from bot.service import Refusal, Reply
from bot.service.game import AI_PREFIX
from bot.service.roles import moderator_readers
from engine.numbers import is_snowflake

if TYPE_CHECKING:
    from bot.discord.client import KesselBot

log = logging.getLogger("kessel.discord.notify")
LIMIT = 1900  # below Discord's 2,000 characters per message


def listing(names: list[str], limit: int = 20) -> str:
    """Names joined with commas; past `limit`, the rest counted ("and 50 more")."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


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
EMBED_TEXT = 4000  # a text longer than this goes as plain messages (embed limit 4,096)
SIDE_COLOURS = {"soviet": 0xC0392B, "german": 0x5D6D7E}
KIND_TITLES = {
    "turn": "Turn",
    "decision": "Your decision",
    "result": "Result",
    "reminder": "Reminder",
}


def embeds_for(r: Reply, where: str, side: str | None, due: float | None) -> discord.Embed | None:
    """A turn notice, a combat result, a decision or a reminder as an embed (title, colour
    of the side concerned, the deadline as a relative timestamp), or None: other replies,
    and texts too long for one embed, go as plain messages."""
    if r.kind not in KIND_TITLES or len(r.text) > EMBED_TEXT or not r.game:
        return None
    colour = SIDE_COLOURS.get(side or "", 0x5865F2)
    title = f"Game {r.game} · {KIND_TITLES[r.kind]}" + (f" · {where}" if where else "")
    e = discord.Embed(title=title[:256], description=r.text, colour=colour)
    if due is not None and r.kind in ("turn", "decision", "reminder"):
        e.add_field(name="Deadline", value=f"<t:{int(due)}:R>")
    return e


def map_name(r: Reply) -> str:
    return f"{r.game}-{r.map_viewer}.png"


def with_map(embed: discord.Embed | None, r: Reply, files: list[discord.File]) -> None:
    """The reply's map shown inside its embed (issue #17), not as a loose attachment."""
    if embed is not None and any(f.filename == map_name(r) for f in files):
        embed.set_image(url=f"attachment://{map_name(r)}")


class Notifier:
    def __init__(self, bot: KesselBot) -> None:
        self.bot = bot
        # Users whose DMs failed, with when: kept in the store so a restart does not
        # retry them (repeated 403s count toward Discord's invalid-request limit), and
        # tried again after a day, when they may have opened their DMs.
        self.dm_closed: dict[str, float] = {}
        self._closed_loaded = False
        self.threads: dict[tuple[str, str], int] = {}  # (game, user) -> private thread id
        self.lost: set[str] = set()  # games whose lost channel the moderators were told of

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

    async def _embed(self, r: Reply) -> discord.Embed | None:
        if r.kind not in KIND_TITLES or not r.game or (r.to, r.kind) == ("caller", "result"):
            return None  # the caller's own receipts stay plain
        try:
            g = await self.bot.ref.game(r.game)
        except Refusal:
            return None
        side = r.side or next(iter(g.awaited()), None)
        found = await self.bot.ref.store.deadline(g.id)
        due = found[1] if found and g.status == "active" else None
        return embeds_for(r, g.where(), side, due)

    async def _files(self, r: Reply) -> list[discord.File]:
        if not r.map_viewer or not r.game:
            return []
        try:
            png = await self.bot.ref.reply_map(r)
        except Refusal:
            return []
        if png is None:
            return []
        return [discord.File(io.BytesIO(png), filename=map_name(r))]

    async def _to_caller(self, r: Reply, interaction: discord.Interaction[Any] | None) -> None:
        if interaction is None:
            return
        embed = await self._embed(r)
        files = await self._files(r)
        with_map(embed, r, files)
        view = decision_view(r) if r.kind == "decision" else None  # `/decision`: its buttons
        if embed is not None:
            await send(interaction, "", ephemeral=True, files=files, embeds=[embed], view=view)
        else:
            await send(interaction, r.text, ephemeral=True, files=files, view=view)

    async def _to_channel(self, r: Reply, ping: list[str]) -> None:
        if not r.game:  # a league's announcement names its channel (bot/service/leagues.py)
            where = str(r.data.get("channel") or "")
            if is_snowflake(where):
                with contextlib.suppress(discord.HTTPException):
                    for part in chunks(r.text):
                        await self.bot.get_partial_messageable(int(where)).send(part)
            return
        g = await self.bot.ref.game(r.game)
        if not is_snowflake(g.row.channel):
            return
        channel = self.bot.get_partial_messageable(int(g.row.channel))
        pings = " ".join(f"<@{u}>" for u in ping)
        embed = await self._embed(r)
        files = await self._files(r)
        with_map(embed, r, files)
        allowed = discord.AllowedMentions(
            everyone=False, roles=False, users=[discord.Object(int(u)) for u in ping]
        )
        try:
            if embed is not None:  # the pings in the text: mentions in an embed do not ping
                await channel.send(
                    pings or None, embed=embed, files=files, allowed_mentions=allowed
                )
                return
            parts = chunks(r.text + ("\n" + pings if pings else ""))
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                await channel.send(part, files=files if last else [], allowed_mentions=allowed)
        except discord.NotFound:
            await self._channel_lost(g.id)

    async def _channel_lost(self, game: str) -> None:
        """The game's channel is gone (404, Unknown Channel): its moderators are told once,
        with the way to move the game."""
        if game in self.lost:
            return
        self.lost.add(game)
        log.warning("game channel lost", extra={"game": game})
        text = (
            f"⚠ Game {game}: its channel (or a private thread in it) is gone, so its notices "
            "cannot be posted. A moderator who plays no side moves the game with "
            f"`/mod channel game:{game}` in the new channel."
        )
        g = await self.bot.ref.game(game)
        for user in _people(moderator_readers(g, organisers=True)):
            await self.dm(user, Reply("moderators", text, game))

    async def dm(
        self, user: str, r: Reply, interaction: discord.Interaction[Any] | None = None
    ) -> None:
        """A private message: DM, else an ephemeral follow-up to the same user, else a
        private thread in the game's channel."""
        view = decision_view(r) if r.kind == "decision" else None
        files = await self._files(r)
        embed = await self._embed(r)
        with_map(embed, r, files)
        text = r.text
        if view is None and r.kind == "decision":
            text += "\n(answer with `/orders`)"
        elif r.kind == "decision":
            lines = reply_answers(r)
            text += "\n(press an answer, or write any answer with `/orders`: its number works)"
            if len(lines) > PAGE:
                text += (
                    f"\n{len(lines)} answers: the first {PAGE} are below; "
                    "**More answers** shows the others."
                )
            if len(lines) >= MAX_LOSS_LINES:
                text += f"\nThe buttons show {len(lines)} choices; write any other with `/orders`."
        if embed is not None:
            embed.description = text if len(text) <= EMBED_TEXT else r.text
        if not await self._dms_closed(user):
            try:
                channel = await self.bot.create_dm(discord.Object(int(user)))
                await _send_parts(channel, "" if embed else text, files, view, embed)
                return
            except discord.Forbidden:
                await self._mark_closed(user)
                log.info("DMs closed", extra={"user": user})
        if interaction is not None and str(interaction.user.id) == user:
            embeds = [embed] if embed is not None else None
            body = "" if embed is not None else text
            await send(interaction, body, ephemeral=True, files=files, view=view, embeds=embeds)
            return
        await self._thread_message(user, r, text, files, view, embed)

    async def _thread_message(
        self,
        user: str,
        r: Reply,
        text: str,
        files: list[discord.File],
        view: discord.ui.View | None,
        embed: discord.Embed | None = None,
        retry: bool = True,
    ) -> None:
        if not r.game:
            return
        g = await self.bot.ref.game(r.game)
        if not is_snowflake(g.row.channel):
            return
        key = f"thread:{g.id}:{user}"
        tid = self.threads.get((g.id, user)) or await self.bot.ref.store.server_setting("", key)
        if tid is None:
            try:
                data = await self._new_thread(g.id, int(g.row.channel))
            except discord.NotFound:  # the game's channel itself is gone
                await self._channel_lost(g.id)
                return
            tid = int(data["id"])
            await self.bot.http.add_user_to_thread(tid, int(user))
            await self.bot.ref.store.set_server_setting("", key, tid)
        self.threads[(g.id, user)] = tid
        thread = self.bot.get_partial_messageable(tid)
        body = f"<@{user}>" if embed else f"<@{user}> {text}"
        try:
            await _send_parts(thread, body, files, view, embed)
        except discord.NotFound:  # the thread was deleted: a new one, once
            self.threads.pop((g.id, user), None)
            await self.bot.ref.store.set_server_setting("", key, None)
            if retry:
                await self._thread_message(user, r, text, files, view, embed, retry=False)
            else:
                await self._channel_lost(g.id)

    async def _new_thread(self, game: str, channel: int) -> Any:
        return await self.bot.http.start_thread_without_message(
            channel,
            name=f"kessel {game} private",
            auto_archive_duration=10080,
            type=discord.ChannelType.private_thread.value,
            invitable=False,
        )


async def _send_parts(
    channel: discord.abc.Messageable,
    text: str,
    files: list[discord.File],
    view: discord.ui.View | None,
    embed: discord.Embed | None = None,
) -> None:
    """A text as messages cut at line ends; files, buttons and the embed (whose text is
    not repeated in `text`) go with the last."""
    parts = chunks(text) if text or embed is None else [""]
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        kw: dict[str, Any] = {"files": files} if last and files else {}
        if last and view is not None:
            kw["view"] = view
        if last and embed is not None:
            kw["embed"] = embed
        await channel.send(part or None, **kw)


async def send(
    interaction: discord.Interaction[Any],
    text: str,
    *,
    ephemeral: bool = True,
    files: list[discord.File] | None = None,
    view: discord.ui.View | None = None,
    embeds: list[discord.Embed] | None = None,
) -> None:
    """Answer an interaction: the initial response if none was given yet, else a follow-up.
    A long text goes as several messages cut at line ends; files, embeds and buttons go
    with the last."""
    parts = chunks(text) if text or not embeds else [""]
    for i, part in enumerate(parts):
        kw: dict[str, Any] = {"ephemeral": ephemeral}
        if i == len(parts) - 1:
            if files:
                kw["files"] = files
            if view is not None:
                kw["view"] = view
            if embeds:
                kw["embeds"] = embeds[:10]
        if interaction.response.is_done():
            await interaction.followup.send(part or None, **kw)  # type: ignore[arg-type]
        else:
            await interaction.response.send_message(part or None, **kw)

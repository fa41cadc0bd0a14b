"""A letter (deliver.py) written as a mail to its reader: the subject naming the game,
its turn, phase and deadline in UTC; the texts without Discord's markdown; for a player,
their own log since their last input in place of a public result; the footer with the
reader's seat address (its Reply-To), the passphrase of a new seat, the `expect` number;
the map of the reader's own view; the thread of the game for that reader."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from bot.mail import identity
from bot.mail.config import MailConfig
from bot.mail.deliver import GUILD, Letter, mail_caller
from bot.mail.outbound import Outgoing
from bot.mail.parse import Inbound
from bot.service import Caller, Referee, Refusal
from bot.terminal import plain

log = logging.getLogger("kessel.mail")
_STAMP = re.compile(r"<t:(\d{1,12}):[a-zA-Z]>")


def utc(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts))


def readable(text: str) -> str:
    """A service text (written for Discord) for a mail: no markdown, UTC times."""
    return plain(_STAMP.sub(lambda m: utc(float(m[1])), text))


class Writer:
    def __init__(self, ref: Referee, cfg: MailConfig, secret: Callable[[], Awaitable[str]]) -> None:
        self.ref = ref
        self.cfg = cfg
        self.secret = secret

    async def outgoing(self, letter: Letter, msg: Inbound | None) -> Outgoing | None:
        texts = [readable(t) for t in letter.texts]
        reader = mail_caller(letter.to)
        subject = "Kessel"
        footer: list[str] = []
        reply_to = self.cfg.address
        png = None
        refs: tuple[str, ...] = ()
        in_reply_to = None
        if letter.game:
            g = await self.ref.game(letter.game)
            reader = replace(reader, guild=g.row.guild, channel=g.row.channel)
            subject = await self.subject(letter.game)
            seat = seat_of(g, reader.id)
            if seat == identity.WATCH_SEAT:
                footer.append(f"Game {g.id}: you watch it.")
            elif seat is not None:
                key = await self.secret()
                tok = identity.token(key, g.id, seat, letter.to)
                reply_to = identity.seat_address(self.cfg.address, g.id, seat, tok)
                footer.append(
                    f"Game {g.id}: {seat_words(seat)}. Your seat address is {reply_to}: "
                    "reply to this mail (its Reply-To) to answer."
                )
                if letter.welcome:
                    footer.append(
                        "If your mail program cannot write to that address, write to "
                        f"{self.cfg.address} with the lines `game {g.id}` and `passphrase "
                        f"{identity.passphrase(key, g.id, seat, letter.to)}`. Keep both secret: "
                        "they prove it is you."
                    )
            if g.status == "active":
                footer.append(
                    f"Position: event {g.last_event}. A line `expect {g.last_event}` refuses "
                    "your orders if the game moved on before they arrive."
                )
            if letter.catch_up and seat not in (None, identity.MOD_SEAT, identity.WATCH_SEAT):
                texts += await self.catch_up(reader, g.id, texts)
            if letter.map:
                png = await self.map(reader, letter)
            last = await self.ref.store.server_setting(GUILD, f"thread:{g.id}:{letter.to}")
            if isinstance(last, str):
                in_reply_to, refs = last, (last,)
        if letter.answer and msg is not None:
            in_reply_to = msg.message_id
            refs = (*msg.references, msg.message_id)
        if not any(t.strip() for t in texts):
            return None  # a public result the reader's own log has nothing new of
        footer.append("Commands: `help`.")
        body = (
            "\n\n".join(t for t in texts if t.strip())
            + "\n\n-- \n"
            + "\n".join(readable(x) for x in footer)
            + "\n"
        )
        return Outgoing(
            to=letter.to,
            subject=subject,
            text=body,
            reply_to=reply_to,
            in_reply_to=in_reply_to,
            references=refs,
            png=png,
            png_name=f"kessel-{letter.game}.png",
            answer=letter.answer,
            game=letter.game,
        )

    async def subject(self, gid: str) -> str:
        """The game, its turn and phase, and the deadline in UTC."""
        g = await self.ref.game(gid)
        if g.status == "over" or g.state.over:
            return f"Kessel {g.id} · {g.row.name} · game over"
        if g.status == "open":
            return f"Kessel {g.id} · {g.row.name} · waiting for players"
        due = await self.ref.store.deadline(g.id)
        when = f"deadline {utc(due[1])}" if due and g.status == "active" else "no deadline"
        paused = " · paused" if g.status == "paused" else ""
        return f"Kessel {g.id} · turn {g.state.turn} · {g.where()}{paused} · {when}"

    async def catch_up(self, reader: Caller, gid: str, texts: list[str]) -> list[str]:
        try:
            out = await self.ref.history(reader, gid, since_last=True, limit=200)
        except Refusal:
            return []
        lines = [readable(r.text) for r in out if "nothing new" not in r.text]
        return [x for x in lines if x not in texts]

    async def map(self, reader: Caller, letter: Letter) -> bytes | None:
        try:
            return await self.ref.map_png(
                reader,
                letter.game or "",
                around=letter.map_around,
                radius=letter.map_radius,
                whole=letter.map_whole,
            )
        except Refusal as e:
            log.warning("no map", extra={"game": letter.game, "error": str(e)})
            return None


def seat_of(g: Any, user: str) -> str | None:
    sides = g.sides_of(user)
    if sides:
        return str(sides[0])
    if g.is_moderator(user):
        return identity.MOD_SEAT
    if g.is_spectator(user):
        return identity.WATCH_SEAT
    return None


def seat_words(seat: str) -> str:
    if seat == identity.MOD_SEAT:
        return "you moderate it"
    if seat == identity.WATCH_SEAT:
        return "you watch it"
    return f"you play {seat}"

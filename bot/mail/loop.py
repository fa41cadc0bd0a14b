"""`kessel mail`: the referee by e-mail. The mailbox reader (IMAP, Maildir, or the SMTP
receiver with its Maildir queue), the deadline clock (reminders to the seats that must
act, expired deadlines) and the outbox, over one Referee.

    kessel mail [--db FILE] [--once] [--log-level INFO]

`--once` handles what waits in the mailbox, runs the clock once and exits (for a timer
such as cron); without it Kessel runs until stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import threading

from bot import incident
from bot.mail import inbound_maildir
from bot.mail.config import ConfigError, MailConfig, load_config
from bot.mail.deliver import GUILD
from bot.mail.desk import Desk
from bot.mail.inbound_imap import ImapError, ImapReader
from bot.mail.outbound import Sender
from bot.service import Referee

log = logging.getLogger("kessel.mail")
RETRY_SECONDS = 30.0


class MailReferee:
    """The transport's tasks; `stop()` ends them (each finishes the message in hand)."""

    def __init__(self, ref: Referee, cfg: MailConfig, *, sender: Sender | None = None) -> None:
        self.ref = ref
        # the deadline clock for mail's games only: a Discord game's reminder sent from
        # here would reach no one (the bot's process ticks those)
        ref.owns_guild = lambda guild: guild == GUILD
        self.cfg = cfg
        self.desk = Desk(ref, cfg, sender or Sender(cfg))
        self.stopping = asyncio.Event()
        self._thread_stop = threading.Event()
        self.arrived = asyncio.Event()  # the SMTP receiver queued a message
        self.rounds = 0  # mailbox rounds done (tests wait on it)

    def stop(self) -> None:
        self.stopping.set()
        self._thread_stop.set()
        self.arrived.set()

    async def run(self, *, once: bool = False) -> None:
        await self.desk.flush()
        await self.desk.deliver(await self.ref.nudge(), None)  # the built-in opponent
        if once:
            await self._round()
            await self.desk.tick()
            return
        tasks = [asyncio.create_task(self._reading()), asyncio.create_task(self._clock())]
        server = None
        if self.cfg.inbound == "smtp":
            from bot.mail.inbound_smtp import listen

            server = await listen(self.cfg, self.arrived)
            log.info(
                "listening", extra={"host": self.cfg.listen_host, "port": self.cfg.listen_port}
            )
        try:
            await self.stopping.wait()
        finally:
            if server is not None:
                server.close()
            self.stop()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await t

    async def _clock(self) -> None:
        while not self.stopping.is_set():
            try:
                await self.desk.tick()
            except Exception as e:  # a store or SMTP failure: the next tick tries again
                incident.record(e, "the mail referee's clock")
            await self._sleep(self.cfg.tick_seconds)

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    async def _reading(self) -> None:
        if self.cfg.inbound == "imap":
            await self._imap()
        else:
            await self._maildir()

    async def _round(self) -> None:
        if self.cfg.inbound == "imap":
            reader = ImapReader(self.cfg)
            try:
                await self._imap_round(reader)
            finally:
                await asyncio.to_thread(reader.close)
        else:
            await self._maildir_round()

    # --- IMAP -------------------------------------------------------------------------
    async def _imap(self) -> None:
        reader = ImapReader(self.cfg)
        try:
            while not self.stopping.is_set():
                try:
                    await self._imap_round(reader)
                    await asyncio.to_thread(reader.wait, self._wait_seconds(), self._thread_stop)
                except (ImapError, OSError, EOFError) as e:
                    log.warning("IMAP failed; retrying", extra={"error": str(e)})
                    await asyncio.to_thread(reader.close)
                    await self._sleep(min(RETRY_SECONDS, self.cfg.poll_seconds * 5))
                except Exception as e:  # a store failure...: recorded; reading goes on
                    incident.record(e, "reading mail by IMAP")
                    await asyncio.to_thread(reader.close)
                    await self._sleep(RETRY_SECONDS)
        finally:
            await asyncio.to_thread(reader.close)

    def _wait_seconds(self) -> float:
        # IDLE is renewed well within the 29 minutes servers allow (RFC 2177)
        return 20 * 60.0 if self.cfg.imap_idle else self.cfg.poll_seconds

    async def _imap_round(self, reader: ImapReader) -> None:
        import imaplib

        try:
            if reader.imap is None:
                await asyncio.to_thread(reader.connect)
            mark = await self.ref.store.server_setting(GUILD, reader.mailbox_key, {})
            after = int(mark.get("uid", 0)) if mark.get("validity") == reader.validity else 0
            for f in await asyncio.to_thread(reader.new, after, self.cfg.max_message_bytes):
                await self.desk.handle(f.raw, oversize=f.too_large)
                await asyncio.to_thread(reader.seen, f.uid)
                await self.ref.store.set_server_setting(
                    GUILD, reader.mailbox_key, {"validity": reader.validity, "uid": f.uid}
                )
                if self.stopping.is_set():
                    break
        except imaplib.IMAP4.error as e:
            raise ImapError(str(e)) from None
        self.rounds += 1

    # --- Maildir ----------------------------------------------------------------------
    async def _maildir(self) -> None:
        while not self.stopping.is_set():
            try:
                await self._maildir_round()
            except OSError as e:
                log.warning("Maildir failed; retrying", extra={"error": str(e)})
            except Exception as e:  # a store failure...: recorded; reading goes on
                incident.record(e, "reading mail from the Maildir")
            self.arrived.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), self.cfg.poll_seconds)

    async def _maildir_round(self) -> None:
        limit = self.cfg.max_message_bytes
        for file in await asyncio.to_thread(inbound_maildir.waiting, self.cfg.maildir):
            raw = await asyncio.to_thread(inbound_maildir.read, file, limit)
            await self.desk.handle(raw, oversize=len(raw) > limit)
            await asyncio.to_thread(inbound_maildir.done, file)
            if self.stopping.is_set():
                break
        self.rounds += 1


async def serve(cfg: MailConfig, *, once: bool = False) -> None:
    ref = await Referee.open(cfg.db)
    try:
        mail = MailReferee(ref, cfg)
        await mail.run(once=once)
    finally:
        await ref.close()


def main(args: argparse.Namespace) -> int:
    from bot.startup import settings

    cfg = settings(
        "mail",
        args.log_level,
        load_config,
        (ConfigError,),
        'no referee address. Set KESSEL_MAIL_ADDRESS, or put `address = "kessel@example.org"` '
        "under [mail] in kessel.toml (docs/mail.md)",
    )
    if cfg is None:
        return 1
    if args.db:
        from dataclasses import replace

        cfg = replace(cfg, db=args.db)
    try:
        asyncio.run(serve(cfg, once=args.once))
    except KeyboardInterrupt:
        return 0
    except ImapError as e:  # --once: one round, so no retry (the service retries)
        print(f"kessel mail: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the Maildir cannot be made or read, the port cannot be had
        where = f"{e.filename}: " if e.filename else ""
        print(f"kessel mail: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    return 0

"""Receiving mail over SMTP (aiosmtpd), for people who host their own mail: Kessel is the
mail server of its address. A message is accepted only for the referee's address and its
seat addresses, is written into the Maildir queue (safe on disk) before the sender is
told 250, and the Maildir reader handles it from there: a crash loses nothing accepted.

The envelope's recipients go into the stored message as Delivered-To lines (what a
delivering server adds), so the seat address a message came to is known.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

from bot.mail import inbound_maildir
from bot.mail.config import MailConfig


class Receiver:
    def __init__(self, cfg: MailConfig, arrived: asyncio.Event) -> None:
        self.cfg = cfg
        self.arrived = arrived

    def ours(self, address: str) -> bool:
        local, _, domain = address.lower().rpartition("@")
        return domain == self.cfg.domain and (
            local == self.cfg.local or local.startswith(self.cfg.local + "+")
        )

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        if not self.ours(address):
            return "550 5.1.1 not an address of this Kessel referee"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        if isinstance(content, str):
            content = content.encode("utf-8", "replace")
        head = b"".join(
            b"Delivered-To: " + r.encode("ascii", "replace") + b"\r\n" for r in envelope.rcpt_tos
        )
        name = f"{time.time():.6f}.{secrets.token_hex(6)}.kessel"
        try:
            await asyncio.to_thread(inbound_maildir.deliver, self.cfg.maildir, head + content, name)
        except OSError:
            return "451 4.3.0 cannot queue the message now; try again later"
        self.arrived.set()
        return "250 2.0.0 queued"


async def listen(cfg: MailConfig, arrived: asyncio.Event) -> asyncio.AbstractServer:
    """The SMTP server on cfg.listen_host:listen_port, in the running event loop."""
    loop = asyncio.get_running_loop()
    handler = Receiver(cfg, arrived)
    return await loop.create_server(
        lambda: SMTP(
            handler,
            data_size_limit=cfg.max_message_bytes,
            hostname=cfg.domain,
            enable_SMTPUTF8=True,
        ),
        cfg.listen_host,
        cfg.listen_port,
    )

"""Mail out: one composed message per reader (threading headers, the RFC 3834 marks that
keep other robots from answering, the map PNG), sent by SMTP with TLS or STARTTLS and
authentication (smtplib, in a thread: it blocks)."""

from __future__ import annotations

import asyncio
import email.policy
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid

from bot.mail.config import MailConfig
from bot.mail.parse import LOOP_HEADER


@dataclass(frozen=True)
class Outgoing:
    to: str
    subject: str
    text: str
    reply_to: str
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    png: bytes | None = None
    png_name: str = "map.png"
    answer: bool = False  # an answer to a person's message (else a notice Kessel sent)
    game: str | None = None


def compose(o: Outgoing, cfg: MailConfig) -> EmailMessage:
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = formataddr((cfg.name, cfg.address))
    msg["To"] = o.to
    msg["Reply-To"] = o.reply_to
    msg["Subject"] = o.subject
    msg["Date"] = formatdate(usegmt=True)
    msg["Message-ID"] = make_msgid("kessel", domain=cfg.domain)
    if o.in_reply_to:
        msg["In-Reply-To"] = o.in_reply_to
    refs = [r for r in o.references if r][-10:]
    if refs:
        msg["References"] = " ".join(refs)
    # RFC 3834: robots must not answer; the loop header: Kessel never reads its own mail
    msg["Auto-Submitted"] = "auto-replied" if o.answer else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"
    msg[LOOP_HEADER] = cfg.domain
    if o.game:
        msg["X-Kessel-Game"] = o.game
    msg.set_content(o.text, charset="utf-8")
    if o.png is not None:
        msg.add_attachment(o.png, maintype="image", subtype="png", filename=o.png_name)
    return msg


class Sender:
    """SMTP with the configured security; one connection per batch of messages."""

    def __init__(self, cfg: MailConfig, *, context: ssl.SSLContext | None = None) -> None:
        self.cfg = cfg
        self.context = context or cfg.tls()

    async def send(self, messages: list[EmailMessage]) -> None:
        """Send them all, or raise (OSError, smtplib.SMTPException) having sent a prefix:
        the ones sent are dropped from `messages` as they go."""
        if messages:
            await asyncio.to_thread(self._send, messages)

    def _send(self, messages: list[EmailMessage]) -> None:
        cfg = self.cfg
        smtp: smtplib.SMTP
        if cfg.smtp_security == "tls":
            smtp = smtplib.SMTP_SSL(cfg.smtp_host, cfg.smtp_port, timeout=60, context=self.context)
        else:
            smtp = smtplib.SMTP(cfg.smtp_host, cfg.smtp_port, timeout=60)
        with smtp:
            smtp.ehlo()
            if cfg.smtp_security == "starttls":
                smtp.starttls(context=self.context)
                smtp.ehlo()
            if cfg.smtp_user:
                smtp.login(cfg.smtp_user, cfg.smtp_password)
            while messages:
                smtp.send_message(messages[0], from_addr=cfg.address, to_addrs=[messages[0]["To"]])
                messages.pop(0)

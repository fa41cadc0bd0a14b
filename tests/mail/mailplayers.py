"""Mail players for the tests: each reads what Kessel sent to their address (the SMTP
sink) and writes as a mail program does -- replies to the Reply-To, with In-Reply-To,
the quoted message below and a signature -- delivered into Kessel's IMAP mailbox."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import replace
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any

from bot.mail.config import MailConfig
from bot.mail.loop import MailReferee
from bot.service import Referee
from mail.mailservers import Dovecot, Sink

REFEREE = "kessel@referee.test"
_ids = itertools.count(1)


def config(dovecot: Dovecot, smtp_port: int, db: str, **kw: Any) -> MailConfig:
    return replace(
        MailConfig(
            address=REFEREE,
            db=db,
            secret="test-secret-of-the-referee",
            inbound="imap",
            imap_host="127.0.0.1",
            imap_port=dovecot.port,
            imap_security="none",
            imap_user="kessel",
            imap_password="kessel-test-pw",
            poll_seconds=0.2,
            smtp_host="127.0.0.1",
            smtp_port=smtp_port,
            smtp_security="none",
            trusted_authserv=("mx.referee.test",),
            tick_seconds=0.5,
        ),
        **kw,
    )


class Kessel:
    """`kessel mail` running in this test's event loop; restartable."""

    def __init__(self, cfg: MailConfig) -> None:
        self.cfg = cfg
        self.mail: MailReferee | None = None
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> Kessel:
        ref = await Referee.open(self.cfg.db, opponents=None)
        self.mail = MailReferee(ref, self.cfg)
        self.task = asyncio.create_task(self.mail.run())
        return self

    async def stop(self) -> None:
        assert self.mail is not None and self.task is not None
        self.mail.stop()
        await asyncio.wait_for(self.task, 30)
        await self.mail.ref.close()
        self.mail = None

    @property
    def ref(self) -> Referee:
        assert self.mail is not None
        return self.mail.ref

    async def handled(self, uid: int, timeout: float = 20) -> None:
        """Until Kessel has handled the mailbox's message `uid`."""
        key = f"imap:kessel@127.0.0.1:{self.cfg.imap_port}/INBOX"
        end = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < end:
            mark = await self.ref.store.server_setting("mail", key, {})
            if int(mark.get("uid", 0)) >= uid:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"message {uid} was not handled within {timeout} s")


class Player:
    def __init__(self, address: str, name: str, sink: Sink, dovecot: Dovecot) -> None:
        self.address = address
        self.name = name
        self.sink = sink
        self.dovecot = dovecot
        self.read = 0  # mails already looked at

    def inbox(self) -> list[EmailMessage]:
        return self.sink.to(self.address)

    async def next_mail(
        self, match: Callable[[EmailMessage], bool] = lambda m: True, timeout: float = 20
    ) -> EmailMessage:
        """The next mail (after those read) that `match`es; the ones before it are read."""
        end = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < end:
            mails = self.inbox()
            for i in range(self.read, len(mails)):
                if match(mails[i]):
                    self.read = i + 1
                    return mails[i]
            await asyncio.sleep(0.05)
        got = [text(m)[:300] for m in self.inbox()[self.read :]]
        raise AssertionError(f"{self.address}: no such mail within {timeout} s; got {got}")

    def latest(self, match: Callable[[EmailMessage], bool]) -> EmailMessage:
        """The last mail received that `match`es, read or not."""
        found = [m for m in self.inbox() if match(m)]
        assert found, f"{self.address}: no such mail among {len(self.inbox())}"
        return found[-1]

    def message(
        self,
        body: str,
        *,
        to: str = REFEREE,
        subject: str = "orders",
        reply_to: EmailMessage | None = None,
        sender: str | None = None,
        headers: dict[str, str] | None = None,
        message_id: str | None = None,
    ) -> bytes:
        m = EmailMessage()
        m["From"] = f"{self.name} <{sender or self.address}>"
        m["To"] = to
        m["Date"] = formatdate()
        m["Message-ID"] = message_id or f"<t{next(_ids)}.{self.name.lower()}@players.test>"
        if reply_to is not None:
            m["Subject"] = "Re: " + str(reply_to["Subject"])
            m["In-Reply-To"] = str(reply_to["Message-ID"])
            m["References"] = str(reply_to["Message-ID"])
            quoted = "\n".join("> " + x for x in text(reply_to).splitlines())
            body = f"{body}\n\nOn Wed, Kessel referee wrote:\n{quoted}\n"
        else:
            m["Subject"] = subject
        body += f"\n-- \n{self.name}\nsent from a mail program\n"
        for k, v in (headers or {}).items():
            m[k] = v
        m.set_content(body)
        return m.as_bytes()

    async def send(self, raw: bytes) -> int:
        return await asyncio.to_thread(self.dovecot.append, raw)

    async def reply(self, mail: EmailMessage, body: str, **kw: Any) -> int:
        """Answer `mail` as a mail program does: to its Reply-To (the seat address)."""
        return await self.send(self.message(body, to=str(mail["Reply-To"]), reply_to=mail, **kw))


def text(m: EmailMessage) -> str:
    part = m.get_body(preferencelist=("plain",))
    assert part is not None
    content = part.get_content()
    assert isinstance(content, str)
    return content


def pngs(m: EmailMessage) -> list[bytes]:
    out = []
    for part in m.iter_attachments():
        if part.get_content_type() == "image/png":
            data = part.get_content()
            assert isinstance(data, bytes)
            out.append(data)
    return out

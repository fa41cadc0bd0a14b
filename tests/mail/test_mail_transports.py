"""The other ways in and out: Kessel as the SMTP server of its address (aiosmtpd, into
its Maildir queue), sending with STARTTLS and authentication to a real SMTP server,
deadline reminders by mail, and unreadable mail answered in words."""

from __future__ import annotations

import asyncio
import shutil
import smtplib
import ssl
import subprocess
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailplayers import REFEREE, text
from mailservers import Sink, SmtpServer, free_port

from bot.mail.config import MailConfig
from bot.mail.loop import MailReferee
from bot.mail.outbound import Sender
from bot.service import Referee

ALICE, BOB = "alice@soviet.test", "bob@german.test"


def _cert(tmp: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test certificate")
    key, cert = tmp / "key.pem", tmp / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return key, cert


def _message(sender: str, body: str, to: str = REFEREE, mid: str = "") -> EmailMessage:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = to
    m["Subject"] = "kessel"
    m["Message-ID"] = mid or f"<{abs(hash((sender, body)))}@players.test>"
    m.set_content(body)
    return m


async def _submit(port: int, m: EmailMessage, to: str | None = None) -> None:
    def send() -> None:
        with smtplib.SMTP("127.0.0.1", port, timeout=20) as s:
            s.send_message(m, to_addrs=[to or str(m["To"])])

    await asyncio.to_thread(send)


async def _wait(sink: Sink, address: str, match: str, timeout: float = 20) -> EmailMessage:
    end = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < end:
        for m in sink.to(address):
            if match in text(m) or match in str(m["Subject"]):
                return m
        await asyncio.sleep(0.05)
    raise AssertionError(
        f"{address}: no mail with {match!r}: {[text(m)[:200] for m in sink.to(address)]}"
    )


async def test_the_smtp_receiver_and_sending_with_starttls_and_auth(tmp_path: Path) -> None:
    key, cert = _cert(tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    sink = Sink()
    with SmtpServer(
        sink, auth=("kessel", "s3cret"), tls_context=server_tls, require_starttls=True
    ) as outgoing:
        cfg = MailConfig(
            address=REFEREE,
            db=str(tmp_path / "kessel.db"),
            inbound="smtp",
            maildir=str(tmp_path / "queue"),
            listen_port=free_port(),
            poll_seconds=5,
            smtp_host="127.0.0.1",
            smtp_port=outgoing.port,
            smtp_security="starttls",
            smtp_user="kessel",
            smtp_password="s3cret",
            tick_seconds=0.3,
        )
        ref = await Referee.open(cfg.db, opponents=None)
        mail = MailReferee(
            ref, cfg, sender=Sender(cfg, context=ssl.create_default_context(cafile=cert))
        )
        task = asyncio.create_task(mail.run())
        try:
            for _ in range(100):  # until the receiver listens
                try:
                    await asyncio.open_connection("127.0.0.1", cfg.listen_port)
                    break
                except OSError:
                    await asyncio.sleep(0.05)
            # mail for anyone but the referee is refused at RCPT
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                await _submit(cfg.listen_port, _message(ALICE, "help"), to="someone@else.test")
            await _submit(cfg.listen_port, _message(ALICE, "game new demo-steblev soviet seed 7"))
            made = await _wait(sink, ALICE, "created")
            assert sink.logins and sink.logins[0] == "kessel"  # authenticated, after STARTTLS
            gid = str(made["Subject"]).split()[1]
            await _submit(cfg.listen_port, _message(BOB, f"join {gid} german"))
            notice = await _wait(sink, ALICE, "your turn")
            # the seat address, from the Reply-To, over SMTP: the envelope proves the seat
            seat = str(notice["Reply-To"])
            await _submit(cfg.listen_port, _message(ALICE, "mod set deadline_hours 1", to=seat))
            await _wait(sink, ALICE, "deadline_hours")
            # the clock: a reminder to the seat that must act, the deadline in UTC
            reminder = await _wait(sink, ALICE, "Reminder")
            assert "UTC" in text(reminder) and "<t:" not in text(reminder)
            assert "deadline 20" in str(reminder["Subject"])
            assert not [m for m in sink.to(BOB) if "Reminder" in text(m)]  # not awaited
            assert not list((tmp_path / "queue" / "new").iterdir())  # all handled
        finally:
            mail.stop()
            await asyncio.wait_for(task, 30)
            await ref.close()


async def test_unreadable_and_oversized_mail_is_answered_in_words(tmp_path: Path) -> None:
    sink = Sink()
    with SmtpServer(sink) as outgoing:
        cfg = MailConfig(
            address=REFEREE,
            db=str(tmp_path / "kessel.db"),
            inbound="maildir",
            maildir=str(tmp_path / "md"),
            smtp_host="127.0.0.1",
            smtp_port=outgoing.port,
            smtp_security="none",
            max_message_bytes=4096,
        )
        from bot.mail import inbound_maildir

        big = _message(ALICE, "move s-180 0509\n" + "x" * 8000, mid="<big@soviet.test>")
        inbound_maildir.deliver(cfg.maildir, big.as_bytes(), "1.big")
        nonsense = _message(BOB, "frobnicate the Dnieper\nstatus", mid="<n@german.test>")
        inbound_maildir.deliver(cfg.maildir, nonsense.as_bytes(), "2.nonsense")
        bounce = _message("MAILER-DAEMON@mx.test", "Undelivered", mid="<b@mx.test>")
        inbound_maildir.deliver(cfg.maildir, bounce.as_bytes(), "3.bounce")
        ref = await Referee.open(cfg.db, opponents=None)
        mail = MailReferee(ref, cfg)
        try:
            await mail.run(once=True)  # `kessel mail --once`
            too_big = await _wait(sink, ALICE, "too large")
            assert "Traceback" not in text(too_big)
            await _wait(sink, BOB, "which game")  # nothing to refer to: said so
            assert not sink.to("mailer-daemon@mx.test")
            assert sorted(p.name.split(":")[0] for p in (Path(cfg.maildir) / "cur").iterdir()) == [
                "1.big",
                "2.nonsense",
                "3.bounce",
            ]
            # the same message again (another copy of its Message-ID): not answered twice
            count = sink.count()
            inbound_maildir.deliver(cfg.maildir, nonsense.as_bytes(), "4.again")
            await mail.run(once=True)
            assert sink.count() == count
        finally:
            await ref.close()

"""The other ways in and out: Kessel as the SMTP server of its address (aiosmtpd, into
its Maildir queue), sending with STARTTLS and authentication to a real SMTP server,
deadline reminders by mail, and unreadable mail answered in words."""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from bot.mail.config import MailConfig
from bot.mail.loop import MailReferee
from bot.mail.outbound import Sender
from bot.service import Referee
from mail.mailplayers import REFEREE, Kessel, config, text
from mail.mailservers import Dovecot, Sink, SmtpServer, certificate, free_port

ALICE, BOB = "alice@soviet.test", "bob@german.test"


def _message(sender: str, body: str, to: str = REFEREE, mid: str = "") -> EmailMessage:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = to
    m["Subject"] = "kessel"
    m["Message-ID"] = mid or f"<{abs(hash((sender, body)))}@players.test>"
    m.set_content(body)
    return m


def _sending_to(port: int, tmp_path: Path) -> MailConfig:
    """A referee reading a Maildir and sending to the SMTP server on `port`."""
    return MailConfig(
        address=REFEREE,
        db=str(tmp_path / "kessel.db"),
        inbound="maildir",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_security="none",
    )


async def _two_players(desk: Any, sink: Sink) -> tuple[str, str]:
    """A demo-steblev game by mail, Alice the Soviets, Bob the Germans: its id and
    Alice's seat address."""
    await desk.handle(_message(ALICE, "game new demo-steblev soviet seed 3").as_bytes())
    gid = str(sink.to(ALICE)[-1]["Subject"]).split()[1]
    await desk.handle(_message(BOB, f"join {gid} german").as_bytes())
    return gid, str(sink.to(ALICE)[-1]["Reply-To"])


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
    key, cert = certificate(tmp_path)
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


@pytest.mark.parametrize("security", ["tls", "starttls"])
async def test_imap_over_tls_and_starttls(
    dovecot_tls: Dovecot, smtp_sink: tuple[Sink, int], tmp_path: Path, security: str
) -> None:
    """Kessel's mailbox on a server that takes TLS only, its certificate checked against
    the `ca_file` setting (a self-hosted server's own authority)."""
    sink, port = smtp_sink
    cfg = config(
        dovecot_tls,
        port,
        str(tmp_path / "k.db"),
        imap_security=security,
        imap_port=dovecot_tls.tls_port if security == "tls" else dovecot_tls.port,
        ca_file=str(dovecot_tls.cert),
    )
    k = await Kessel(cfg).start()
    try:
        await asyncio.to_thread(dovecot_tls.append, _message(ALICE, "help").as_bytes())
        answer = await _wait(sink, ALICE, "Kessel by e-mail")
        assert "game new SCENARIO" in text(answer)
    finally:
        await k.stop()


async def test_mail_that_cannot_be_sent_waits_in_the_outbox(tmp_path: Path) -> None:
    from bot.mail import inbound_maildir

    port = free_port()  # nothing listens there yet: the SMTP server is down
    cfg = MailConfig(
        address=REFEREE,
        db=str(tmp_path / "kessel.db"),
        inbound="maildir",
        maildir=str(tmp_path / "md"),
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_security="none",
    )
    inbound_maildir.deliver(cfg.maildir, _message(ALICE, "help").as_bytes(), "1.help")
    ref = await Referee.open(cfg.db, opponents=None)
    try:
        mail = MailReferee(ref, cfg)
        # its clock ticks mail's games only: a Discord game's reminder would reach no one
        assert ref.owns_guild is not None and ref.owns_guild("mail")
        assert not ref.owns_guild("81384788765712384") and not ref.owns_guild("")
        await mail.run(once=True)
        box = await ref.store.server_setting("mail", "outbox", [])
        assert len(box) == 1  # kept, and the message counts as handled
        assert await mail.desk.handled("<" + str(abs(hash((ALICE, "help")))) + "@players.test>")
        sink = Sink()
        with SmtpServer(sink, port=port):
            await mail.desk.tick()  # the clock sends what waits
            answer = await _wait(sink, ALICE, "Kessel by e-mail")
        assert answer["Auto-Submitted"] == "auto-replied"
        assert await ref.store.server_setting("mail", "outbox", []) == []
    finally:
        await ref.close()


def test_kessel_mail_once_from_kessel_toml(tmp_path: Path) -> None:
    """`kessel mail --once` as a person runs it: settings from kessel.toml (the test runs
    in an empty directory of its own), the waiting mail answered, exit 0."""
    import logging

    from bot.cli import main
    from bot.mail import inbound_maildir

    sink = Sink()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    with SmtpServer(sink) as smtp:
        Path("kessel.toml").write_text(
            f'[mail]\naddress = "{REFEREE}"\ninbound = "maildir"\nmaildir = "box"\n'
            f'smtp_host = "127.0.0.1"\nsmtp_port = {smtp.port}\nsmtp_security = "none"\n'
        )
        inbound_maildir.deliver("box", _message(ALICE, "games").as_bytes(), "1.games")
        try:
            assert main(["mail", "--once", "--db", str(tmp_path / "k.db")]) == 0
        finally:
            root.handlers[:], root.level = handlers, level
        mails = sink.to(ALICE)
    assert len(mails) == 1 and "Your games:" in text(mails[0])


def test_kessel_mail_once_with_the_imap_server_down_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An IMAP server that cannot be reached: one sentence naming it, exit 1, no incident
    (the long-running reader retries instead)."""
    import logging

    from bot.cli import main

    port = free_port()  # nothing listens there
    Path("kessel.toml").write_text(
        f'[mail]\naddress = "{REFEREE}"\nimap_host = "127.0.0.1"\nimap_port = {port}\n'
        'imap_user = "kessel"\nimap_password = "pw"\nimap_security = "none"\n'
        'smtp_host = "127.0.0.1"\n'
    )
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        assert main(["mail", "--once", "--db", str(tmp_path / "k.db")]) == 1
    finally:
        root.handlers[:], root.level = handlers, level
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"kessel mail: the IMAP server 127.0.0.1:{port} cannot be reached (Connection refused)"
    ]
    # a Maildir that cannot be made: the folder named, exit 1
    Path("kessel.toml").write_text(
        f'[mail]\naddress = "{REFEREE}"\ninbound = "maildir"\nmaildir = "kessel.toml/box"\n'
        'smtp_host = "127.0.0.1"\n'
    )
    try:
        assert main(["mail", "--once", "--db", str(tmp_path / "k.db")]) == 1
    finally:
        root.handlers[:], root.level = handlers, level
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kessel mail: kessel.toml/box")


async def test_a_message_handled_again_after_a_crash_is_applied_once(store_url: str) -> None:
    """The crash between applying a message's orders and recording its Message-ID as
    handled: handled again, the service's request key (the Message-ID) applies it once
    and gives the same answer. On both backends (issue #21)."""
    sink = Sink()
    with SmtpServer(sink) as smtp:
        cfg = MailConfig(
            address=REFEREE,
            db=store_url,
            inbound="maildir",
            smtp_host="127.0.0.1",
            smtp_port=smtp.port,
            smtp_security="none",
            secret="s",
        )
        ref = await Referee.open(cfg.db, opponents=None)
        try:
            desk = MailReferee(ref, cfg).desk
            gid, seat = await _two_players(desk, sink)
            orders = _message(ALICE, "move s-180 0509", to=seat, mid="<once@soviet.test>")
            first = await desk.handle(orders.as_bytes(), (seat,))
            g = await ref.game(gid)
            head = g.head
            await ref.store.set_server_setting("mail", desk._ledger_key("<once@soviet.test>"), None)
            again = await desk.handle(orders.as_bytes(), (seat,))
            assert (await ref.game(gid)).head == head
            inputs = [r.body["line"] for r in await ref.store.log(gid) if r.kind == "input"]
            assert inputs.count("soviet: move s-180 0509") + inputs.count("move s-180 0509") == 1
            assert [text(m).split("-- ")[0] for m in first.sent if m["To"] == ALICE] == [
                text(m).split("-- ")[0] for m in again.sent if m["To"] == ALICE
            ]
            # and once recorded, a third copy is not answered at all
            third = await desk.handle(orders.as_bytes(), (seat,))
            assert third.what == "duplicate" and not third.sent
        finally:
            await ref.close()


async def test_playing_the_built_in_opponent_by_mail(tmp_path: Path) -> None:
    sink = Sink()
    with SmtpServer(sink) as smtp:
        cfg = _sending_to(smtp.port, tmp_path)
        ref = await Referee.open(cfg.db)  # with the built-in opponents
        try:
            desk = MailReferee(ref, cfg).desk
            await desk.handle(_message(ALICE, "game new demo-steblev soviet seed 3").as_bytes())
            made = sink.to(ALICE)[-1]
            gid = str(made["Subject"]).split()[1]
            seat = str(made["Reply-To"])
            # from the plain address, the seat is not proven: refused
            await desk.handle(_message(ALICE, f"game {gid}\nopponent german").as_bytes())
            assert "Not applied" in text(sink.to(ALICE)[-1])
            await desk.handle(_message(ALICE, "opponent german", to=seat).as_bytes(), (seat,))
            mine = "\n".join(text(m) for m in sink.to(ALICE))
            assert "The built-in opponent plays german" in mine and "your turn" in mine
            g = await ref.game(gid)
            assert g.status == "active" and g.ai_sides() == ["german"]
        finally:
            await ref.close()


async def test_refusals_to_one_address_are_limited_per_hour(tmp_path: Path) -> None:
    """A forger writing in a seat holder's name with no trusted provider's verdict: each
    message is refused to the From (the real holder learns of it), but at most
    `refusals_per_hour` of them in an hour -- the referee is no source of backscatter."""
    sink = Sink()
    now = [1_800_000_000.0]
    with SmtpServer(sink) as smtp:
        cfg = replace(_sending_to(smtp.port, tmp_path), refusals_per_hour=3)
        ref = await Referee.open(cfg.db, opponents=None, clock=lambda: now[0])
        try:
            desk = MailReferee(ref, cfg).desk
            outcomes = []
            for i in range(5):
                m = _message(ALICE, "frobnicate the Dnieper", mid=f"<f{i}@forger.test>")
                outcomes.append((await desk.handle(m.as_bytes())).what)
            assert outcomes == ["answered"] * 3 + ["ignored"] * 2
            assert len(sink.to(ALICE)) == 3
            # another address is not held back by Alice's count
            assert (await desk.handle(_message(BOB, "status", mid="<b@x.test>").as_bytes())).sent
            now[0] += 3601  # an hour later, Alice may be answered again
            m = _message(ALICE, "frobnicate the Dnieper", mid="<f9@forger.test>")
            assert (await desk.handle(m.as_bytes())).what == "answered"
            assert len(sink.to(ALICE)) == 4
        finally:
            await ref.close()


async def test_odds_by_mail_in_the_senders_own_view(tmp_path: Path) -> None:
    """`odds UNITS -> HEX` by mail: the preview the sender's side may know (K181 while
    moving: planning), nothing declared; a look, so the plain address will do."""
    sink = Sink()
    with SmtpServer(sink) as smtp:
        cfg = _sending_to(smtp.port, tmp_path)
        ref = await Referee.open(cfg.db, opponents=None)
        try:
            desk = MailReferee(ref, cfg).desk
            gid, seat = await _two_players(desk, sink)
            await desk.handle(_message(ALICE, "move s-180 0307", to=seat).as_bytes(), (seat,))
            head = (await ref.game(gid)).head
            ask = _message(ALICE, f"game {gid}\nodds s-180 -> 0306", mid="<odds@soviet.test>")
            await desk.handle(ask.as_bytes())
            said = text(sink.to(ALICE)[-1])
            assert "Odds preview (nothing was declared): attack s-180 -> 0306" in said
            assert "planning: it is the Movement Phase" in said and "column" in said
            assert (await ref.game(gid)).head == head  # nothing declared, nothing written
        finally:
            await ref.close()

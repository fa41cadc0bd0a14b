"""Reading mail (bot/mail/parse.py), seat identity (identity.py), the body's plan
(commands.py) and the settings (config.py): real messages as mail programs write them."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from bot.mail import identity
from bot.mail.commands import PlanError, plan
from bot.mail.config import ConfigError, load_config
from bot.mail.parse import MailError, read_message


def _mail(body: str, html: str | None = None, **headers: str) -> bytes:
    m = EmailMessage()
    m["From"] = headers.pop("From", "Alice <Alice@Soviet.test>")
    m["To"] = headers.pop("To", "kessel@referee.test")
    m["Subject"] = headers.pop("Subject", "Re: Kessel k7qd · turn 1")
    m["Message-ID"] = headers.pop("MessageID", "<m1@soviet.test>")
    for k, v in headers.items():
        m[k.replace("_", "-")] = v
    if body:
        m.set_content(body)
    if html is not None:
        if body:
            m.add_alternative(html, subtype="html")
        else:
            m.set_content(html, subtype="html")
    return m.as_bytes()


def test_a_reply_keeps_what_was_written_not_the_quote_or_signature() -> None:
    body = (
        "move s-337 0406\n\ndone\n\nOn Wed, 25 Nov 2026, Kessel referee wrote:\n"
        "> Game k7qd: your turn\n> move s-180 0509\n"
    )
    msg = read_message(_mail(body + "-- \nAlice\n"))
    assert msg.lines == ("move s-337 0406", "", "done")
    assert msg.sender == "alice@soviet.test" and msg.sender_name == "Alice"
    outlook = "done\n\n-----Original Message-----\nFrom: Kessel\nmove s-180 0509\n"
    assert read_message(_mail(outlook)).lines == ("done",)
    headers = "2\n\nFrom: Kessel referee\nSent: Wednesday\nTo: Alice\n\nmove x 0101\n"
    assert read_message(_mail(headers)).lines == ("2",)
    sig = "status\n--\nAlice Smith\nmove s-180 0509\n"
    assert read_message(_mail(sig)).lines == ("status",)


def test_html_only_mail_is_read_as_text_and_plain_text_is_preferred() -> None:
    html = (
        "<html><head><style>p{}</style></head><body><div>move s-337 0406</div>"
        "<div>done<br></div><div class='gmail_quote'>On Wed wrote:<blockquote>"
        "move s-180 0509</blockquote></div></body></html>"
    )
    assert read_message(_mail("", html)).lines == ("move s-337 0406", "", "done")
    both = read_message(_mail("status\n", "<p>resign</p>"))
    assert both.lines == ("status",)


def test_hostile_mail_is_refused_in_words() -> None:
    with pytest.raises(MailError, match="too large"):
        read_message(_mail("x" * 5000), limit=1000)
    nested = (
        b"From: a@b.test\r\nMessage-ID: <n@b>\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n"
    )
    for i in range(20):
        nested += f"--b{i}\r\nContent-Type: multipart/mixed; boundary=b{i + 1}\r\n\r\n".encode()
    with pytest.raises(MailError, match="too many parts"):
        read_message(nested)
    with pytest.raises(MailError, match="longer than"):
        read_message(_mail("done\n" * 1000))
    junk = read_message(b"\x00\xff garbage without headers")
    assert junk.sender == "" and junk.message_id.startswith("<sha256.")


def test_automatic_mail_is_recognised() -> None:
    assert read_message(_mail("away", Auto_Submitted="auto-replied")).automatic
    assert read_message(_mail("x", Precedence="bulk")).automatic
    assert read_message(_mail("x", From="MAILER-DAEMON@mx.test")).automatic
    assert read_message(_mail("x", X_Kessel_Loop="referee.test")).automatic
    assert read_message(_mail("x", List_Id="<games.list.test>")).automatic
    assert read_message(_mail("x", Subject="Out of Office: back on Monday")).automatic
    assert read_message(_mail("x", Subject="Automatic reply: orders")).automatic
    assert not read_message(_mail("x", Auto_Submitted="no")).automatic
    # a person's mail asking robots not to answer it is still a person's mail
    assert not read_message(_mail("x", X_Auto_Response_Suppress="OOF, AutoReply")).automatic


def test_seat_tokens_and_passphrases_are_keyed_and_bound_to_the_address() -> None:
    t = identity.token("secret", "k7qd", "german", "bob@german.test")
    assert len(t) == 16 and t == identity.token("secret", "k7qd", "german", "BOB@german.test")
    assert t != identity.token("secret", "k7qd", "german", "mallory@evil.test")
    assert t != identity.token("other secret", "k7qd", "german", "bob@german.test")
    assert t != identity.token("secret", "k7qd", "soviet", "bob@german.test")
    addr = identity.seat_address("kessel@referee.test", "k7qd", "german", t)
    assert addr == f"kessel+k7qd.german.{t}@referee.test"
    found = identity.tags("kessel@referee.test", ("x@y.test", addr.upper()))
    assert [(x.game, x.seat, x.token) for x in found] == [("k7qd", "german", t)]
    assert identity.tags("kessel@referee.test", ("kessel+k7qd.german.x@other.test",)) == []
    p = identity.passphrase("secret", "k7qd", "german", "bob@german.test")
    assert len(p) == 14 and p.count("-") == 2


def test_authentication_results_only_from_a_trusted_server() -> None:
    trusted = ("mx.referee.test",)
    fail = "mx.referee.test; spf=fail smtp.mailfrom=evil.test; dkim=none; dmarc=fail"
    good = "mx.referee.test; spf=pass; dkim=pass header.d=soviet.test; dmarc=pass"
    assert identity.auth_verdict((fail,), trusted, "alice@soviet.test") == "fail"
    assert identity.auth_verdict((good,), trusted, "alice@soviet.test") == "pass"
    # the same verdict written by anyone else (the sender can add headers) counts nothing
    assert identity.auth_verdict(("evil.test; dmarc=pass",), trusted, "alice@soviet.test") == "none"
    assert identity.auth_verdict((fail,), (), "alice@soviet.test") == "none"
    dkim_of_another = "mx.referee.test; spf=fail; dkim=pass header.d=evil.test"
    assert identity.auth_verdict((dkim_of_another,), trusted, "alice@soviet.test") == "fail"


def test_a_plan_keeps_the_order_lines_at_their_numbers() -> None:
    p = plan(["game k7qd", "expect 12", "move s-337 0406", "status", "done", "map 0305 2"])
    assert p.game == "k7qd" and p.expect == 12
    assert [s.verb for s in p.steps] == ["orders-block", "status", "map"]
    assert p.block.split("\n") == ["", "", "move s-337 0406", "", "done", ""]
    assert p.acts_for_a_seat
    assert not plan(["status", "log new"]).acts_for_a_seat
    with pytest.raises(PlanError, match="line 1"):
        plan(["expect soon"])
    with pytest.raises(PlanError, match="one game"):
        plan(["game k7qd", "game abcd"])


def test_settings_from_kessel_toml_and_the_environment(tmp_path: Path) -> None:
    (tmp_path / "kessel.toml").write_text(
        '[mail]\naddress = "Kessel@Referee.test"\nimap_host = "imap.test"\n'
        'imap_user = "kessel"\nsmtp_host = "smtp.test"\nsmtp_port = 465\n'
        'smtp_security = "tls"\ntrusted_authserv = ["mx.google.com"]\nimap_idle = false\n'
    )
    cfg = load_config(tmp_path, env={"KESSEL_MAIL_IMAP_PASSWORD": "pw"})
    assert cfg is not None
    assert (cfg.address, cfg.smtp_port, cfg.smtp_security) == ("kessel@referee.test", 465, "tls")
    assert cfg.imap_password == "pw" and cfg.trusted_authserv == ("mx.google.com",)
    assert cfg.imap_idle is False
    assert load_config(tmp_path / "none", env={}) is None
    with pytest.raises(ConfigError, match="unknown mail settings: imap_hots"):
        load_config(tmp_path, env={"KESSEL_MAIL_IMAP_HOTS": "x"})
    with pytest.raises(ConfigError, match="smtp_port"):
        load_config(tmp_path, env={"KESSEL_MAIL_SMTP_PORT": "many"})
    with pytest.raises(ConfigError, match="without a \\+tag"):
        load_config(tmp_path, env={"KESSEL_MAIL_ADDRESS": "kessel+x@referee.test"})

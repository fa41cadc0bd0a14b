"""Real mail servers for the mail transport's tests (issue #22), no mocks:

- Dovecot (Debian's dovecot-imapd), a throw-away IMAP server per test in a temporary
  folder on a free port of 127.0.0.1, holding Kessel's mailbox. Test mail is delivered
  into it by IMAP APPEND, as a mail server delivers it.
- aiosmtpd (a real SMTP implementation) in a thread, receiving what Kessel sends: the
  players' and spectators' mailboxes.

Dovecot runs as root here with its own users (`dovecot`, `dovenull`) owning the mail
folder; as another user, everything runs as that user.
"""

from __future__ import annotations

import email
import email.policy
import imaplib
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from servers import unavailable

DOVECOT = "/usr/sbin/dovecot"
PASSWORD = "kessel-test-pw"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (key, cert), made by openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test certificate")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    key.chmod(0o644)  # read by dovecot's processes too (a throw-away key)
    return key, cert


class Dovecot:
    def __init__(self, tls: tuple[Path, Path] | None = None) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="kessel-dovecot-"))
        self.dir.chmod(0o755)  # the mail processes run as another user
        self.port = free_port()
        self.tls_port = free_port() if tls else 0
        self.cert = tls[1] if tls else None
        ssl_conf = "ssl = no\ndisable_plaintext_auth = no"
        if tls:
            ssl_conf = (
                f"ssl = required\nssl_cert = <{tls[1]}\nssl_key = <{tls[0]}\n"
                "disable_plaintext_auth = yes"
            )
        self.proc: subprocess.Popen[bytes] | None = None
        if os.geteuid() == 0:
            mail_user, internal, login = "dovecot", "dovecot", "dovenull"
        else:
            mail_user = internal = login = pwd.getpwuid(os.geteuid()).pw_name
        pw = pwd.getpwnam(mail_user)
        self.uid, self.gid = pw.pw_uid, pw.pw_gid
        mail = self.dir / "mail"
        mail.mkdir()
        os.chown(mail, self.uid, self.gid)
        (self.dir / "run").mkdir()
        (self.dir / "state").mkdir()
        users = "".join(
            f"{u}:{{PLAIN}}{PASSWORD}:{self.uid}:{self.gid}::{mail}/{u}::\n"
            for u in ("kessel", "other")
        )
        (self.dir / "users").write_text(users)
        (self.dir / "dovecot.conf").write_text(
            f"""base_dir = {self.dir}/run
state_dir = {self.dir}/state
log_path = {self.dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
{ssl_conf}
auth_mechanisms = plain login
first_valid_uid = 1
first_valid_gid = 1
default_internal_user = {internal}
default_internal_group = {_group(internal)}
default_login_user = {login}
mail_location = maildir:{mail}/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.dir}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {self.dir}/users
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.tls_port}
  }}
}}
"""
        )

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [DOVECOT, "-F", "-c", str(self.dir / "dovecot.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        end = time.monotonic() + 20
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(self.log() or "dovecot exited at once")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    if s.recv(100).startswith(b"* OK"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("dovecot did not listen within 20 s: " + self.log())

    def log(self) -> str:
        f = self.dir / "dovecot.log"
        return f.read_text(errors="replace")[-3000:] if f.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def connect(self) -> imaplib.IMAP4:
        if self.cert is None:
            return imaplib.IMAP4("127.0.0.1", self.port, timeout=20)
        context = ssl.create_default_context(cafile=str(self.cert))
        return imaplib.IMAP4_SSL("127.0.0.1", self.tls_port, ssl_context=context, timeout=20)

    def append(self, raw: bytes, user: str = "kessel") -> int:
        """Deliver a message into `user`'s INBOX; its UID."""
        imap = self.connect()
        try:
            imap.login(user, PASSWORD)
            typ, data = imap.append("INBOX", None, None, raw)
            assert typ == "OK", data
            text = data[0].decode() if data and isinstance(data[0], bytes) else ""
            return int(text.split("APPENDUID")[1].split()[1].rstrip("]"))
        finally:
            imap.logout()

    def flags(self, uid: int, user: str = "kessel") -> str:
        imap = self.connect()
        try:
            imap.login(user, PASSWORD)
            imap.select("INBOX")
            _, data = imap.uid("FETCH", str(uid), "(FLAGS)")
            return data[0].decode() if data and isinstance(data[0], bytes) else ""
        finally:
            imap.logout()


def _group(user: str) -> str:
    import grp

    return grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    yield from _dovecot(None)


@pytest.fixture
def dovecot_tls(tmp_path: Path) -> Iterator[Dovecot]:
    """Dovecot taking only TLS: implicit on `tls_port`, STARTTLS on `port`."""
    yield from _dovecot(certificate(tmp_path))


def _dovecot(tls: tuple[Path, Path] | None) -> Iterator[Dovecot]:
    if not os.path.exists(DOVECOT):
        unavailable("Dovecot")
    server = Dovecot(tls)
    try:
        server.start()
    except (RuntimeError, OSError) as e:
        log = server.log()
        server.stop()
        pytest.fail(f"the test Dovecot did not start: {e}\n{log}")
    yield server
    server.stop()


class Sink:
    """What Kessel sends, as the receiving mail servers got it (envelope and message)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.mails: list[tuple[str, EmailMessage]] = []  # (envelope recipient, message)
        self.logins: list[str] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        assert isinstance(raw, bytes)
        msg = email.message_from_bytes(raw, _class=EmailMessage, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        with self.lock:
            for rcpt in envelope.rcpt_tos:
                self.mails.append((rcpt.lower(), msg))
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for a, m in self.mails if a == address]

    def count(self) -> int:
        with self.lock:
            return len(self.mails)


class SmtpServer:
    def __init__(
        self, sink: Sink, *, auth: tuple[str, str] | None = None, port: int = 0, **kw: Any
    ) -> None:
        self.sink = sink
        self.port = port or free_port()

        def check(
            server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
        ) -> AuthResult:
            ok = (
                auth is not None
                and isinstance(data, LoginPassword)
                and (data.login.decode(), data.password.decode()) == auth
            )
            if ok:
                sink.logins.append(data.login.decode())
            return AuthResult(success=ok)

        extra: dict[str, Any] = {}
        if auth is not None:
            extra = {"authenticator": check, "auth_required": True}
        self.controller = Controller(sink, hostname="127.0.0.1", port=self.port, **(extra | kw))

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


@pytest.fixture
def smtp_sink() -> Iterator[tuple[Sink, int]]:
    sink = Sink()
    with SmtpServer(sink) as server:
        yield sink, server.port

"""Reading the referee's mailbox by IMAP (stdlib imaplib, in a thread: it blocks).

New messages are found by UID: the last UID handled (with the folder's UIDVALIDITY) is
kept in the store, so a message is fetched once even if a person reads the mailbox in a
mail program meanwhile; handled messages are also flagged \\Seen. Between rounds the
reader waits in IMAP IDLE where the server offers it (RFC 2177; the server says at once
when mail arrives), else it polls.
"""

from __future__ import annotations

import contextlib
import imaplib
import io
import re
import select
import ssl
import threading
import time
from dataclasses import dataclass

from bot.mail.config import MailConfig

IDLE_SLICE = 0.5  # seconds between looks at the stop flag while idling


class ImapError(Exception):
    """The server cannot be reached or refused us; the message says which."""


@dataclass(frozen=True)
class Fetched:
    uid: int
    raw: bytes
    too_large: bool = False  # only the headers were fetched


class ImapReader:
    def __init__(self, cfg: MailConfig, *, context: ssl.SSLContext | None = None) -> None:
        self.cfg = cfg
        self.context = context or cfg.tls()
        self.imap: imaplib.IMAP4 | None = None
        self.validity = 0
        self._tags = 0

    @property
    def mailbox_key(self) -> str:
        c = self.cfg
        return f"imap:{c.imap_user}@{c.imap_host}:{c.imap_port}/{c.imap_folder}"

    def connect(self) -> None:
        c = self.cfg
        try:
            if c.imap_security == "tls":
                imap: imaplib.IMAP4 = imaplib.IMAP4_SSL(
                    c.imap_host, c.imap_port, ssl_context=self.context, timeout=60
                )
            else:
                imap = imaplib.IMAP4(c.imap_host, c.imap_port, timeout=60)
                if c.imap_security == "starttls":
                    imap.starttls(ssl_context=self.context)
            imap.login(c.imap_user, c.imap_password)
            typ, _ = imap.select(_quoted(c.imap_folder))
            if typ != "OK":
                raise ImapError(f"the IMAP folder {c.imap_folder!r} cannot be opened")
            _, data = imap.response("UIDVALIDITY")
            self.validity = int(data[0]) if data and data[0] else 0
        except imaplib.IMAP4.error as e:
            raise ImapError(f"IMAP {c.imap_host}:{c.imap_port}: {e}") from None
        except (OSError, EOFError) as e:  # refused, unknown host, TLS failure, timeout
            why = getattr(e, "strerror", None) or str(e) or type(e).__name__
            raise ImapError(
                f"the IMAP server {c.imap_host}:{c.imap_port} cannot be reached ({why})"
            ) from None
        self.imap = imap

    def close(self) -> None:
        imap, self.imap = self.imap, None
        if imap is not None:
            with contextlib.suppress(imaplib.IMAP4.error, OSError):
                imap.logout()

    def _need(self) -> imaplib.IMAP4:
        if self.imap is None:
            self.connect()
        assert self.imap is not None
        return self.imap

    def new(self, after: int, limit: int) -> list[Fetched]:
        """The messages with a UID above `after`, oldest first (at most 50 a round);
        a message larger than `limit` bytes comes with its headers only."""
        imap = self._need()
        imap.noop()  # the server tells of new messages in the selected folder
        imap.response("EXISTS")  # forgotten: the search below sees those messages
        typ, data = imap.uid("SEARCH", f"UID {after + 1}:*")
        if typ != "OK":
            raise ImapError("the IMAP server refused to search the folder")
        uids = sorted(int(x) for x in (data[0] or b"").split() if int(x) > after)[:50]
        out = []
        for uid in uids:
            typ, sized = imap.uid("FETCH", str(uid), "(RFC822.SIZE)")
            found = re.search(
                rb"RFC822\.SIZE (\d+)", b" ".join(x for x in sized if isinstance(x, bytes))
            )
            big = found is not None and int(found[1]) > limit
            part = "BODY.PEEK[HEADER]" if big else "BODY.PEEK[]"
            typ, data = imap.uid("FETCH", str(uid), f"({part})")
            raw = next((x[1] for x in data if isinstance(x, tuple) and len(x) == 2), None)
            if typ == "OK" and isinstance(raw, bytes):
                out.append(Fetched(uid, raw, big))
        return out

    def seen(self, uid: int) -> None:
        self._need().uid("STORE", str(uid), "+FLAGS", "(\\Seen)")

    def wait(self, seconds: float, stop: threading.Event) -> None:
        """Until new mail may be there: IDLE where offered (and wanted), else a sleep."""
        imap = self._need()
        _, told = imap.response("EXISTS")
        if told and told[0] is not None:
            return  # a message arrived during the last round (told in a FETCH's answer)
        if not self.cfg.imap_idle or "IDLE" not in imap.capabilities:
            stop.wait(seconds)
            return
        self._tags += 1
        tag = f"KI{self._tags}".encode()
        imap.send(tag + b" IDLE\r\n")
        line = imap.readline()
        if not line.startswith(b"+"):
            raise ImapError(f"IMAP IDLE refused: {line[:200]!r}")
        sock = imap.socket()
        end = time.monotonic() + seconds
        while not stop.is_set() and time.monotonic() < end:
            # a line may already wait in imaplib's buffer (it came with "+ idling")
            ready = _buffered(imap) or bool(select.select([sock], [], [], IDLE_SLICE)[0])
            if ready or (isinstance(sock, ssl.SSLSocket) and sock.pending() > 0):
                line = imap.readline()
                if not line:
                    raise ImapError("the IMAP server closed the connection")
                if re.search(rb"\d+ (EXISTS|RECENT)", line):
                    break
        imap.send(b"DONE\r\n")
        while True:
            line = imap.readline()
            if not line:
                raise ImapError("the IMAP server closed the connection")
            if line.startswith(tag + b" "):
                return


def _buffered(imap: imaplib.IMAP4) -> bool:
    """Whether imaplib's reader holds unread bytes (peeked without blocking)."""
    sock = imap.socket()
    timeout = sock.gettimeout()
    sock.setblocking(False)
    reader = imap.file
    try:
        return isinstance(reader, io.BufferedReader) and bool(reader.peek(1))
    except (BlockingIOError, ssl.SSLWantReadError):
        return False
    finally:
        sock.settimeout(timeout)


def _quoted(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'

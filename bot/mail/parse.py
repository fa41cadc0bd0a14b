"""A raw message as Kessel reads it: who sent it, to which addresses, its Message-ID and
thread, and the lines a person wrote (text/plain preferred, HTML-only mail turned into
text; quoted replies and signatures left out). Hostile mail (huge, deeply nested, broken
MIME) is refused with a `MailError` whose sentence can be mailed back.

Automatic mail (auto-replies, bounces, lists, Kessel's own) is recognised here
(`Inbound.automatic`) so it is never answered: two robots must not write to each other.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from dataclasses import dataclass, field
from email.message import Message
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

MAX_PARTS = 64
MAX_DEPTH = 8
MAX_LINES = 400
MAX_LINE = 1000
LOOP_HEADER = "X-Kessel-Loop"  # on every message Kessel sends


class MailError(Exception):
    """A message Kessel cannot read; the sentence says why, in player words."""


@dataclass(frozen=True)
class Inbound:
    message_id: str  # <...> as sent; a digest of the bytes when the message had none
    sender: str  # the From address, lower case ("" when there is none)
    sender_name: str
    recipients: tuple[str, ...]  # Delivered-To, X-Original-To, To, Cc and the envelope's
    subject: str
    references: tuple[str, ...]  # References then In-Reply-To, oldest first
    lines: tuple[str, ...]  # what the person wrote, quotes and signature left out
    auth_results: tuple[str, ...] = ()
    automatic: str = ""  # why this is an automatic message (never answered), or ""
    headers: dict[str, str] = field(default_factory=dict)


def read_message(raw: bytes, envelope_to: tuple[str, ...] = (), limit: int = 256 * 1024) -> Inbound:
    """`raw` read; MailError when it cannot be (too large, not a message)."""
    if len(raw) > limit:
        raise MailError(
            f"the message is too large ({len(raw) // 1024:,} KiB; at most {limit // 1024:,} KiB): "
            "send the orders as plain text, without attachments"
        )
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    except Exception:  # the parser is lenient; anything it raises is a broken message
        raise MailError("the message could not be read as e-mail (broken MIME)") from None
    headers = {k.lower(): _header(v) for k, v in msg.items()[:200]}
    name, sender = parseaddr(headers.get("from", ""))
    froms = [a for _, a in getaddresses([headers.get("from", "")]) if a]
    if len(froms) > 1:
        sender = ""  # several authors: nobody in particular (answered by nobody)
    mid = headers.get("message-id", "").strip()
    if not re.fullmatch(r"<[^<>\s]{1,250}>", mid):
        mid = "<sha256." + hashlib.sha256(raw).hexdigest()[:40] + "@kessel.invalid>"
    recipients: list[str] = [a.lower() for a in envelope_to]
    for key in ("delivered-to", "x-original-to", "to", "cc"):
        for value in msg.get_all(key) or []:
            recipients += [a.lower() for _, a in getaddresses([_header(value)]) if a]
    refs = re.findall(r"<[^<>\s]{1,250}>", headers.get("references", ""))[-20:]
    refs += [
        r
        for r in re.findall(r"<[^<>\s]{1,250}>", headers.get("in-reply-to", ""))[:1]
        if r not in refs
    ]
    text = _body_text(msg)
    return Inbound(
        message_id=mid,
        sender=sender.strip().lower(),
        sender_name=" ".join(name.split())[:40],
        recipients=tuple(dict.fromkeys(recipients)),
        subject=" ".join(headers.get("subject", "").split())[:200],
        references=tuple(refs),
        lines=tuple(written_lines(text)),
        auth_results=tuple(_header(v) for v in (msg.get_all("authentication-results") or [])[:10]),
        automatic=_automatic(msg, headers, sender.lower()),
        headers=headers,
    )


def _header(value: object) -> str:
    """A header's text, encoded words decoded; never raises."""
    try:
        parts = email.header.decode_header(str(value))
        out = []
        for chunk, charset in parts:
            if isinstance(chunk, bytes):
                out.append(chunk.decode(_charset(charset), "replace"))
            else:
                out.append(chunk)
        return "".join(out)[:2000]
    except Exception:
        return str(value)[:2000]


def _charset(name: str | None) -> str:
    name = (name or "utf-8").lower()
    try:
        "".encode(name)
        return name
    except LookupError:
        return "utf-8"


_AWAY = re.compile(
    r"^(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesend|abwesenheit|"
    r"r[ée]ponse automatique|respuesta autom[áa]tica|undeliver(able|ed) mail|"
    r"delivery status notification)\b",
    re.I,
)


def _automatic(msg: Message, h: dict[str, str], sender: str) -> str:
    """Why this message was written by a machine (RFC 3834 and common practice), or ""."""
    auto = h.get("auto-submitted", "no").strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    if h.get("precedence", "").strip().lower() in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {h['precedence'].strip()}"
    for key in ("x-autoreply", "x-autorespond", "list-id"):
        if key in h:
            return f"{key} header"
    if _AWAY.match(h.get("subject", "").strip()):
        return "an out-of-office reply (its subject)"  # some send no header at all
    if LOOP_HEADER.lower() in h:
        return "Kessel's own message (a mail loop)"
    local = sender.partition("@")[0]
    if not sender or local in ("mailer-daemon", "postmaster", "noreply", "no-reply", "bounce"):
        return f"sent by {sender or 'nobody (no From)'}"
    if msg.get_content_type() == "multipart/report":
        return "a delivery report"
    if h.get("return-path", "").strip() == "<>":
        return "a bounce (empty Return-Path)"
    return ""


# --- the body ------------------------------------------------------------------------------


def _body_text(msg: Message) -> str:
    """The text/plain part a person wrote (the first one, outside attachments); else the
    text of the HTML part; else ""."""
    plain: list[str] = []
    html: list[str] = []
    count = 0

    def walk(part: Message, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_PARTS or depth > MAX_DEPTH:
            raise MailError(
                f"the message has too many parts (more than {MAX_PARTS}, or nested deeper "
                f"than {MAX_DEPTH}): send the orders as plain text"
            )
        if part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                for sub in payload:
                    if isinstance(sub, Message):
                        walk(sub, depth + 1)
            return
        if (part.get("content-disposition") or "").strip().lower().startswith("attachment"):
            return
        kind = part.get_content_type()
        if kind not in ("text/plain", "text/html"):
            return
        try:
            data = part.get_payload(decode=True)
        except Exception:
            data = None
        if not isinstance(data, bytes):
            data = str(part.get_payload()).encode("utf-8", "replace")
        text = data.decode(_charset(part.get_content_charset()), "replace")
        (plain if kind == "text/plain" else html).append(text)

    walk(msg, 0)
    if plain:
        return plain[0]
    if html:
        return html_text(html[0])
    return ""


class _Text(HTMLParser):
    BREAKS = frozenset({"br", "p", "div", "li", "tr", "h1", "h2", "h3", "pre", "table"})
    SKIP = frozenset({"style", "script", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.quote = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skip += 1
        elif tag == "blockquote":
            self.quote += 1
            self.out.append("\n")
        elif tag in self.BREAKS:
            self.out.append("\n")
        cls = " ".join(v or "" for k, v in attrs if k == "class")
        if tag == "div" and ("gmail_quote" in cls or "moz-cite-prefix" in cls):
            self.quote += 1  # a quoted reply's wrapper: the rest of the message is quoted

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "blockquote":
            self.quote = max(0, self.quote - 1)
        if tag in self.BREAKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.quote:  # quoted text is marked as a plain-text quote would be
            self.out.append("\n".join("> " + x for x in data.splitlines() if x.strip()))
            self.out.append("\n")
            return
        self.out.append(data)


def html_text(html: str) -> str:
    """The text of an HTML part: tags dropped, line breaks kept, quotes marked `>`."""
    p = _Text()
    try:
        p.feed(html[:200_000])
        p.close()
    except Exception:  # a parser error: what was read so far
        pass
    return "".join(p.out).replace("\xa0", " ")


_WROTE = re.compile(
    r"^(on\b.*|le\b.*|am\b.*|el\b.*)?\bwrote:?\s*$|^.*\b(schrieb|a écrit|escribió)\b.*:\s*$", re.I
)
_CUT = re.compile(
    r"^(-{2,}\s*original message\s*-{2,}|-{2,}\s*forwarded message\s*-{2,}|_{10,}|"
    r"begin forwarded message:|sent from my \w+.*)$",
    re.I,
)


def written_lines(text: str) -> list[str]:
    """The lines a person wrote: up to a signature (`-- `), a quoted reply's header
    ("On ... wrote:", "-----Original Message-----", Outlook's "From: ... Sent:" block);
    quoted lines (`>`) left out; at most MAX_LINES lines, each cut at MAX_LINE."""
    out: list[str] = []
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for i, line in enumerate(raw):
        stripped = line.strip()
        if line.rstrip() in ("--", "-- ") or line == "-- ":
            break
        if _CUT.match(stripped):
            break
        if (
            re.match(r"^from:\s", stripped, re.I)
            and i + 1 < len(raw)
            and re.match(r"^(sent|date|to):\s", raw[i + 1].strip(), re.I)
        ):
            break  # Outlook's header block of the message replied to
        if _WROTE.match(stripped) and _quote_follows(raw, i + 1):
            break
        if stripped.startswith(">"):
            continue
        out.append(line[:MAX_LINE].rstrip())
        if len(out) > MAX_LINES:
            raise MailError(
                f"the message is longer than {MAX_LINES} lines: send at most {MAX_LINES} "
                "lines of orders at a time"
            )
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return out


def _quote_follows(lines: list[str], start: int) -> bool:
    for line in lines[start : start + 3]:
        if line.strip():
            return line.strip().startswith(">")
    return True  # "On ... wrote:" at the end: the quote was cut by the client

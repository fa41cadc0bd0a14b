"""Who is speaking. A From: header can be forged, so a seat is proved by something only
Kessel and the seat's holder know, derived from the referee's secret:

- the seat address `LOCAL+GAME.SEAT.TOKEN@DOMAIN` (the Reply-To of every mail the holder
  gets), where TOKEN is an HMAC of the game, the seat and the holder's address;
- or a passphrase line (`passphrase XXXX-XXXX-XXXX`), another HMAC of the same, for mail
  clients that cannot write to a plus-address.

Both are mailed only to the holder's own address, and both are checked against the From
address too (a leaked token alone does not make its finder the player). Where the
receiving provider says the From was forged (a trusted Authentication-Results header
with dmarc=fail, or spf=fail without a passing DKIM), the message is not believed at all.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

MAIL_PREFIX = "mail:"  # the service's user id of a mail player: mail:ADDRESS
MOD_SEAT = "mod"  # the seat name of a moderator who plays no side
WATCH_SEAT = "watch"  # and of a spectator


def user_id(address: str) -> str:
    return MAIL_PREFIX + address.strip().lower()


def address_of(user: str) -> str | None:
    """The address of a mail user id; None for anyone else (Discord, local, built-in)."""
    if not user.startswith(MAIL_PREFIX):
        return None
    addr = user[len(MAIL_PREFIX) :]
    return addr if re.fullmatch(r"[^@\s<>]+@[^@\s<>]+", addr) else None


def _mac(secret: str, purpose: str, game: str, seat: str, address: str) -> bytes:
    msg = f"{purpose}\x00{game.lower()}\x00{seat.lower()}\x00{address.lower()}".encode()
    return hmac.new(secret.encode(), msg, hashlib.sha256).digest()


def token(secret: str, game: str, seat: str, address: str) -> str:
    """The seat address's token: 16 base32 characters (80 bits)."""
    return base64.b32encode(_mac(secret, "token", game, seat, address)[:10]).decode().lower()


def passphrase(secret: str, game: str, seat: str, address: str) -> str:
    """The seat's passphrase: three groups of four letters and digits."""
    code = base64.b32encode(_mac(secret, "pass", game, seat, address)[:10]).decode().lower()
    return "-".join(code[i : i + 4] for i in (0, 4, 8))


def seat_address(referee: str, game: str, seat: str, tok: str) -> str:
    local, _, domain = referee.partition("@")
    return f"{local}+{game}.{seat}.{tok}@{domain}"


@dataclass(frozen=True)
class Tag:
    game: str
    seat: str
    token: str


def tags(referee: str, recipients: tuple[str, ...]) -> list[Tag]:
    """The seat tags of the recipients that are the referee's plus-addresses."""
    local, _, domain = referee.lower().partition("@")
    out: list[Tag] = []
    for r in recipients:
        m = re.fullmatch(
            re.escape(local)
            + r"\+([a-z0-9]{1,12})\.([a-z0-9-]{1,20})\.([a-z2-7]{16})@"
            + re.escape(domain),
            r.lower(),
        )
        if m:
            out.append(Tag(m[1], m[2], m[3]))
    return out


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


# --- Authentication-Results (RFC 8601) ------------------------------------------------------


def auth_verdict(results: tuple[str, ...], trusted: tuple[str, ...], sender: str) -> str:
    """ "fail" when a trusted server says the From was forged, "pass" when one verified it,
    "none" otherwise (no trusted header: nothing is concluded)."""
    domain = sender.rpartition("@")[2]
    verdict = "none"
    for value in results:
        serv = value.split(";", 1)[0].strip().split()[0].lower() if value.strip() else ""
        if serv not in trusted:
            continue
        found = {
            m[0].lower(): m[1].lower()
            for m in re.findall(r"\b(dmarc|spf|dkim)\s*=\s*([a-z]+)", value, re.I)
        }
        dkim_domains = [d.lower() for d in re.findall(r"header\.[di]\s*=\s*@?([^\s;]+)", value)]
        dkim_ok = found.get("dkim") == "pass" and (
            not dkim_domains
            or any(
                d == domain or d.endswith("." + domain) or d.endswith("@" + domain)
                for d in dkim_domains
            )
        )
        if found.get("dmarc") == "fail" or (found.get("spf") == "fail" and not dkim_ok):
            return "fail"
        if found.get("dmarc") == "pass" or dkim_ok:
            verdict = "pass"
    return verdict

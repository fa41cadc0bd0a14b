"""One message from arrival to answer, exactly once.

handle(raw): read it (parse.py); automatic mail (auto-replies, bounces, loops) is dropped
unanswered; a Message-ID already handled is dropped (the ledger in the store); a From the
receiving provider calls forged is dropped unanswered (answering it would mail the person
whose address was forged). Then who is speaking (identity.py), the plan of its lines
(commands.py), the service calls -- the orders with the Message-ID as the service's
idempotency key, so a message handled again after a crash is applied once -- and the
letters (deliver.py) mailed (outbound.py). Mail that cannot be sent waits in the outbox
(kept in the store) and is retried at every tick.
"""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import logging
import re
import secrets
from dataclasses import dataclass, field
from email.message import EmailMessage

from bot import incident
from bot.mail import identity
from bot.mail.commands import Plan, PlanError, plan
from bot.mail.config import MailConfig
from bot.mail.deliver import GUILD, letters, mail_caller
from bot.mail.outbound import Sender, compose
from bot.mail.parse import Inbound, MailError, read_message
from bot.mail.steps import refusal_text, run_step
from bot.mail.writing import Writer
from bot.service import Caller, Referee, Refusal, Reply

log = logging.getLogger("kessel.mail")


@dataclass
class Outcome:
    """What became of a message (the log line; the tests read it)."""

    what: str  # answered | duplicate | ignored | unreadable
    why: str = ""
    sent: list[EmailMessage] = field(default_factory=list)


class Desk:
    def __init__(self, ref: Referee, cfg: MailConfig, sender: Sender) -> None:
        self.ref = ref
        self.cfg = cfg
        self.sender = sender
        self._secret = cfg.secret
        self.writer = Writer(ref, cfg, self.secret)
        self._refused: dict[str, list[float]] = {}  # sender -> when refusals were mailed

    # --- state kept in the store ------------------------------------------------------
    async def secret(self) -> str:
        """The key of seat tokens: the configured one, else one made once and kept."""
        if not self._secret:
            found = await self.ref.store.server_setting(GUILD, "secret")
            if not isinstance(found, str) or len(found) < 32:
                found = secrets.token_hex(32)
                await self.ref.store.set_server_setting(GUILD, "secret", found)
            self._secret = found
        return self._secret

    @staticmethod
    def _ledger_key(mid: str) -> str:
        return "seen:" + hashlib.sha256(mid.encode()).hexdigest()[:40]

    async def handled(self, mid: str) -> bool:
        return await self.ref.store.server_setting(GUILD, self._ledger_key(mid)) is not None

    async def _mark(self, mid: str, what: str) -> None:
        await self.ref.store.set_server_setting(
            GUILD, self._ledger_key(mid), {"at": self.ref.clock(), "what": what}
        )

    # --- one message ------------------------------------------------------------------
    async def handle(
        self, raw: bytes, envelope_to: tuple[str, ...] = (), *, oversize: bool = False
    ) -> Outcome:
        """Handle one raw message (`oversize`: only its first part or its headers were
        read, it is too large); never raises for what a message holds."""
        if oversize:
            return await self._unreadable(raw, _too_large(self.cfg.max_message_bytes))
        try:
            msg = read_message(raw, envelope_to, self.cfg.max_message_bytes)
        except MailError as e:
            return await self._unreadable(raw, str(e))
        except Exception as e:  # a message the parser chokes on: said, recorded
            incident.record(e, "reading a mail message")
            return await self._unreadable(raw, "the message could not be read as e-mail")
        if msg.automatic:
            log.info("ignored", extra={"mid": msg.message_id, "why": msg.automatic})
            return Outcome("ignored", msg.automatic)
        if await self.handled(msg.message_id):
            log.info("duplicate", extra={"mid": msg.message_id})
            return Outcome("duplicate", "this Message-ID was handled already")
        verdict = identity.auth_verdict(msg.auth_results, self.cfg.trusted_authserv, msg.sender)
        if verdict == "fail":
            await self._mark(msg.message_id, "forged")
            log.warning("forged From", extra={"mid": msg.message_id, "from": msg.sender})
            return Outcome("ignored", "the receiving server says the From: is forged")
        try:
            replies = await self._run(msg)
        except Exception as e:  # the error boundary of one message: a sentence
            iid = incident.record(e, "a mail message")
            replies = [Reply("caller", incident.sentence(iid), kind="error")]
        if replies and all(r.kind == "error" for r in replies) and self._refusals_spent(msg):
            await self._mark(msg.message_id, "refusal held back")
            log.warning("refusals held back", extra={"mid": msg.message_id, "from": msg.sender})
            return Outcome("ignored", "too many refusals mailed to this address this hour")
        sent = await self.deliver(replies, msg)
        await self._mark(msg.message_id, "answered")
        return Outcome("answered", sent=sent)

    def _refusals_spent(self, msg: Inbound) -> bool:
        """Whether the sender had its hour's refusals (`refusals_per_hour`); if not, this
        one is counted. Kept in memory: a restart forgives, which bounds nothing worse
        than one hour's allowance again."""
        now = self.ref.clock()
        sent = [t for t in self._refused.get(msg.sender, []) if now - t < 3600]
        if len(sent) >= self.cfg.refusals_per_hour:
            self._refused[msg.sender] = sent
            return True
        self._refused[msg.sender] = [*sent, now]
        if len(self._refused) > 10_000:  # addresses seen once long ago go
            self._refused = {a: ts for a, ts in self._refused.items() if now - ts[-1] < 3600}
        return False

    async def _unreadable(self, raw: bytes, why: str) -> Outcome:
        """A message that cannot be read: its sender is told why, when it has a sender
        who is a person (its headers are read alone)."""
        try:
            head = email.message_from_bytes(raw[:65536].split(b"\r\n\r\n")[0].split(b"\n\n")[0])
            msg = read_message(head.as_bytes()[:65536], limit=1 << 20)
        except Exception:
            return Outcome("unreadable", why)
        if msg.automatic or not msg.sender or await self.handled(msg.message_id):
            return Outcome("unreadable", why)
        if self._refusals_spent(msg):
            await self._mark(msg.message_id, "refusal held back")
            return Outcome("unreadable", why)
        sent = await self.deliver([Reply("caller", f"Not read: {why}.", kind="error")], msg)
        await self._mark(msg.message_id, "unreadable")
        return Outcome("unreadable", why, sent)

    async def _run(self, msg: Inbound) -> list[Reply]:
        if not msg.sender:
            return []
        try:
            p = plan(msg.lines)
        except PlanError as e:
            return [_error(f"Nothing was applied: {e}")]
        if not p.steps:
            return [_error("There were no commands or orders in your message (`help` lists them).")]
        caller = mail_caller(msg.sender, msg.sender_name)
        try:
            gid = await self._game_of(msg, p, caller)
        except Refusal as e:
            return [_error(f"Nothing was applied: {e}")]
        if p.acts_for_a_seat and gid is not None:
            refused = await self._unproven(msg, p, gid)
            if refused:
                return [_error(refused)]
        out: list[Reply] = []
        for step in p.steps:
            try:
                out += await run_step(self.ref, step, p, msg, caller, gid)
            except Refusal as e:
                out.append(_error(refusal_text(step, e), gid))
                if step.verb in ("orders-block", "new", "join"):
                    break  # what follows was written on the assumption it worked
            except PlanError as e:
                out.append(_error(f"line {step.line}: {e}", gid))
        return out

    async def _game_of(self, msg: Inbound, p: Plan, caller: Caller) -> str | None:
        """The game the message is about: its seat address's, its `game` line's, its
        subject's, else the sender's only running game."""
        tagged = {t.game for t in identity.tags(self.cfg.address, msg.recipients)}
        if len(tagged) > 1:
            raise Refusal("the message went to seat addresses of several games; write to one")
        tag = next(iter(tagged), None)
        if p.game and tag and p.game != tag:
            raise Refusal(f"this seat address is for game {tag}, not {p.game}")
        if p.game or tag:
            return p.game or tag
        found = re.search(r"\bkessel ([a-z0-9]{4})\b", msg.subject.lower())
        if found:
            return found[1]
        mine = [x for x in await self.ref.games(caller, mine=True)]
        if len(mine) == 1:
            return str(mine[0]["id"])
        return None

    async def _unproven(self, msg: Inbound, p: Plan, gid: str) -> str:
        """Why the message may not act for its sender's seat in `gid` ("" when it may):
        it must come through the seat's own address, or carry the seat's passphrase."""
        try:
            g = await self.ref.game(gid)
        except Refusal:
            return ""  # the service says there is no such game
        user = identity.user_id(msg.sender)
        seats = g.sides_of(user) or ([identity.MOD_SEAT] if g.is_moderator(user) else [])
        if not seats:
            return ""  # not a player: the service refuses in its own words
        key = await self.secret()
        for t in identity.tags(self.cfg.address, msg.recipients):
            mine = t.game == gid and t.seat in seats
            if mine and identity.same(t.token, identity.token(key, gid, t.seat, msg.sender)):
                return ""
        if p.passphrase:
            for seat in seats:
                if identity.same(p.passphrase, identity.passphrase(key, gid, seat, msg.sender)):
                    return ""
        log.warning("unproven seat", extra={"mid": msg.message_id, "from": msg.sender, "game": gid})
        return (
            f"Not applied: orders for game {gid} are taken only from your seat address "
            "(reply to a mail of the game: its Reply-To is your seat address) or with your "
            "seat's passphrase (`passphrase ...`). A From: line alone can be forged. "
            "Nothing was changed."
        )

    # --- the clock --------------------------------------------------------------------
    async def tick(self) -> list[EmailMessage]:
        """Reminders and expired deadlines (the service's tick), then the outbox."""
        try:
            replies = await self.ref.tick()
        except Refusal as e:
            log.warning("tick refused", extra={"error": str(e)})
            replies = []
        sent = await self.deliver(replies, None)
        await self.flush()
        return sent

    # --- sending ----------------------------------------------------------------------
    async def deliver(self, replies: list[Reply], msg: Inbound | None) -> list[EmailMessage]:
        sender = msg.sender if msg is not None else None
        mails: list[EmailMessage] = []
        for letter in await letters(self.ref, replies, sender):
            try:
                out = await self.writer.outgoing(letter, msg)
                if out is not None:
                    mails.append(compose(out, self.cfg))
            except Exception as e:  # one letter that cannot be written does not stop the rest
                incident.record(e, "composing a mail")
        sent = list(mails)
        await self._send(mails)
        return sent

    async def _send(self, mails: list[EmailMessage]) -> None:
        pending = list(mails)
        try:
            await self.sender.send(pending)
        except Exception as e:  # the server is down or refuses: kept for the next tick
            log.warning("sending failed; kept in the outbox", extra={"error": str(e)})
            await self._keep(pending)
        for m in mails:
            if m not in pending and m["X-Kessel-Game"] and m["To"]:
                await self.ref.store.set_server_setting(
                    GUILD, f"thread:{m['X-Kessel-Game']}:{m['To']}", m["Message-ID"]
                )

    async def _keep(self, mails: list[EmailMessage]) -> None:
        box = await self.ref.store.server_setting(GUILD, "outbox", [])
        box = list(box) if isinstance(box, list) else []
        box += [base64.b64encode(m.as_bytes()).decode() for m in mails]
        await self.ref.store.set_server_setting(GUILD, "outbox", box[-500:])

    async def flush(self) -> None:
        """Send what waits in the outbox."""
        box = await self.ref.store.server_setting(GUILD, "outbox", [])
        if not box:
            return
        mails = [
            email.message_from_bytes(
                base64.b64decode(x), _class=EmailMessage, policy=email.policy.SMTP
            )
            for x in box
        ]
        await self.ref.store.set_server_setting(GUILD, "outbox", [])
        await self._send([m for m in mails if isinstance(m, EmailMessage)])


def _too_large(limit: int) -> str:
    return (
        f"the message is too large (at most {limit // 1024:,} KiB): send the orders as "
        "plain text, without attachments"
    )


def _error(text: str, game: str | None = None) -> Reply:
    return Reply("caller", text, game=game, kind="error")

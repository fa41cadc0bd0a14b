"""The service's replies as letters: one mail per reader and game, holding what that
reader may read (the audience rules of docs/service.md, as the Discord notifier applies
them), in their own view:

- `caller`: the sender's own address (the one the service answered: never a Reply-To);
- `side`: the side's mail players; `user`: that person; `moderators`: the moderators
  who may read it (`roles.moderator_readers`);
- `channel` (written for a spectator): the game's spectators and moderators; a player
  gets, instead of the public copy of a result, the log since their last input in their
  own view (the public copy of their own result is left out, as at the terminal).

Nothing here sends: `desk.py` turns letters into mails.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.mail.identity import address_of
from bot.service import Caller, Referee, Refusal, Reply
from bot.service.roles import moderator_readers

# the service's "server" of games made by mail, and the key space of the transport's
# settings in the store (ledger, outbox, threads, the IMAP mark, the secret)
GUILD = "mail"


@dataclass
class Letter:
    to: str
    game: str | None
    texts: list[str] = field(default_factory=list)
    map: bool = False  # attach the map in the reader's view
    map_around: str | None = None
    map_radius: int = 4
    map_whole: bool = False
    answer: bool = False  # holds the answer to the sender's own message
    welcome: bool = False  # a new seat: say its address and passphrase
    catch_up: bool = False  # replace public results by the reader's own log


async def letters(ref: Referee, replies: list[Reply], sender: str | None) -> list[Letter]:
    """The replies grouped into letters, in order of first appearance."""
    out: dict[tuple[str, str | None], Letter] = {}
    noticed: set[tuple[str, str | None]] = set()  # (reader, game) with a side notice
    for r in replies:
        if r.to in ("side", "user") and r.kind in ("turn", "decision", "reminder"):
            for a in await _readers(ref, r, sender):
                noticed.add((a, r.game))
    for r in replies:
        for a in await _readers(ref, r, sender):
            key = (a, r.game)
            if r.to == "channel" and await _player(ref, r.game, a):
                if r.kind == "turn" and key in noticed:
                    continue  # their own side's notice says it in their view
                if r.kind == "result" and not r.text.startswith(f"Game {r.game} is over"):
                    letter = out.setdefault(key, Letter(a, r.game))
                    letter.catch_up = a != sender  # the sender read their own result
                    continue
            letter = out.setdefault(key, Letter(a, r.game))
            if r.text not in letter.texts:
                letter.texts.append(r.text)
            if r.to == "caller":
                letter.answer = True
            if r.map_viewer:
                letter.map = True
                around = r.data.get("map_around")
                if isinstance(around, str) and letter.map_around is None:
                    letter.map_around = around
                    radius = r.data.get("map_radius")
                    letter.map_radius = radius if isinstance(radius, int) else 4
                letter.map_whole = letter.map_whole or bool(r.data.get("map_whole"))
            if r.data.get("welcome"):
                letter.welcome = True
    return list(out.values())


async def _readers(ref: Referee, r: Reply, sender: str | None) -> list[str]:
    if r.to == "caller":
        return [sender] if sender else []
    if r.to == "user":
        a = address_of(r.user or "")
        return [a] if a else []
    if not r.game:
        return []  # a league's channel announcement: no mail readers
    try:
        g = await ref.game(r.game)
    except Refusal:
        return []
    if r.to == "side":
        users = g.humans(r.side or "")
    elif r.to == "moderators":
        users = moderator_readers(g, organisers=bool(r.data.get("organisers")))
    else:  # the channel: everyone seated, by mail
        users = [s.user_id for s in g.seats]
    found = [address_of(u) for u in users]
    return list(dict.fromkeys(a for a in found if a))


async def _player(ref: Referee, game: str | None, address: str) -> bool:
    if not game:
        return False
    try:
        g = await ref.game(game)
    except Refusal:
        return False
    return bool(g.sides_of("mail:" + address))


def mail_caller(address: str, name: str = "") -> Caller:
    """The service's caller for a mail address (games made by mail live in guild "mail")."""
    return Caller("mail:" + address, name or address.partition("@")[0], guild=GUILD, channel="mail")

"""Who may see and do what in a game: the roles, defined once (issue #15, docs/service.md).

- player: holds a seat on one side. Sees that side's view, always, whatever else they
  are; gives orders and answers for their side, undoes, resigns.
- organiser: a moderator of the game (or of its server) who also plays. Sees their side's
  view only; may schedule: pause, resume, deadlines, extensions, policy, settings,
  announcements, start.
- referee: a moderator of the game (or of its server) who plays no side. Sees everything
  (the moderator's view) and may export mid-game; all moderator tools: position edits,
  answers for a side, rollback, seats, substitutes, co-moderators, ending the game.
- spectator: watches the game; the spectator's view.
- outsider: anyone else who reaches the game (in its channel): the spectator's view; may
  join an open seat.

A game belongs to the server and channel where it was created (`reachable`): a command
from elsewhere does not find it, except from a direct message by someone who holds a seat
in it. A server's moderators (Manage Server or the moderator role) are moderators of that
server's games only. One person holds one side, except at one keyboard (local hot seat),
where the person holding every side sees everything.
"""

from __future__ import annotations

from enum import StrEnum

from bot.service.game import LiveGame
from bot.service.model import Caller
from engine.view import MODERATOR, SPECTATOR

LOCAL_GUILD = "local"  # local play at one terminal (bot/local.py): hot seat allowed

# The moderator commands an organiser (a moderator who plays) may use: none reveals
# hidden information or changes the position.
SCHEDULING = frozenset(
    {"pause", "resume", "extend", "deadline", "policy", "set", "announce", "start"}
)


class Role(StrEnum):
    PLAYER = "player"
    ORGANISER = "organiser"
    REFEREE = "referee"
    SPECTATOR = "spectator"
    OUTSIDER = "outsider"


def hot_seat(g: LiveGame) -> bool:
    """One person may hold several sides only in local play at one keyboard."""
    return g.row.guild == LOCAL_GUILD


def server_moderator(g: LiveGame, caller: Caller) -> bool:
    """A moderator of the server the game belongs to (rights from another server, or from
    a direct message, do not count)."""
    return caller.server_mod and bool(caller.guild) and caller.guild == g.row.guild


def moderates(g: LiveGame, caller: Caller) -> bool:
    return g.is_moderator(caller.id) or server_moderator(g, caller)


def role_of(g: LiveGame, caller: Caller) -> Role:
    sides = g.sides_of(caller.id)
    if moderates(g, caller):
        return Role.ORGANISER if sides else Role.REFEREE
    if sides:
        return Role.PLAYER
    if g.is_spectator(caller.id):
        return Role.SPECTATOR
    return Role.OUTSIDER


def viewer_of(g: LiveGame, caller: Caller) -> str:
    """The view `caller` gets: a seated player always their side's (a hot-seat player who
    holds every side sees everything); a referee everything; anyone else a spectator's."""
    sides = g.sides_of(caller.id)
    if sides:
        if hot_seat(g) and set(sides) >= set(g.setup.sides):
            return MODERATOR
        return sides[0]
    if moderates(g, caller):
        return MODERATOR
    return SPECTATOR


def may_referee(g: LiveGame, caller: Caller) -> bool:
    """The full moderator tools (and the full view): a moderator who plays no side, or the
    hot-seat player at one keyboard."""
    role = role_of(g, caller)
    if role is Role.REFEREE:
        return True
    return role is Role.ORGANISER and viewer_of(g, caller) == MODERATOR


def may_schedule(g: LiveGame, caller: Caller) -> bool:
    return moderates(g, caller)


def moderator_readers(g: LiveGame, *, organisers: bool = False) -> list[str]:
    """Who reads a reply addressed to the game's moderators: its moderators who play no
    side (and the hot-seat player at one keyboard); the moderators who play a side
    (organisers) only when the reply holds nothing hidden from that side (`organisers`,
    e.g. a request to join). A moderator's reply may name hidden counters or orders (a
    stuck opponent, a deadline policy that could not go on)."""
    out: list[str] = []
    for s in g.seats:
        if s.role != "moderator" or s.user_id in out:
            continue
        sides = g.sides_of(s.user_id)
        everything = hot_seat(g) and set(sides) >= set(g.setup.sides)
        if not sides or organisers or everything:
            out.append(s.user_id)
    return out


def reachable(g: LiveGame, caller: Caller) -> bool:
    """Whether a command from where `caller` is may find game `g` (scoping)."""
    if caller.guild == g.row.guild and caller.channel == g.row.channel:
        return True
    if not caller.guild:  # a direct message: the games one holds a seat in
        return any(s.user_id == caller.id for s in g.seats)
    return False

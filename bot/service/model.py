"""What goes in and out of the referee service: who calls, and the replies it returns.

The service never talks to a transport. It returns `Reply` objects addressed to an
audience; the Discord adapter and the terminal turn them into messages, DMs, pings and
map snapshots. Anything a player may not see never goes into a reply addressed to them:
the service builds every text from the engine's per-viewer view and `visible_events`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

# Who a reply is for:
#   caller     the person who asked (Discord: the interaction response; ephemeral if private)
#   channel    the game's public channel (written for a spectator's eyes)
#   side       every player seated on `side`, privately
#   user       one person, privately (DM)
#   moderators the game's moderators, privately
Audience = Literal["caller", "channel", "side", "user", "moderators"]


@dataclass(frozen=True)
class Caller:
    """A person giving a command. `id` is stable (a Discord user id, or `local:NAME`);
    `server_mod` is set by the adapter when the person holds the server's moderator role."""

    id: str
    name: str = ""
    server_mod: bool = False
    guild: str = ""
    channel: str = ""

    @property
    def display(self) -> str:
        return self.name or self.id


@dataclass(frozen=True)
class Reply:
    to: Audience
    text: str
    game: str | None = None
    side: str | None = None  # to == "side"
    user: str | None = None  # to == "user"
    kind: str = "info"  # info | result | decision | reminder | announcement | error | turn
    private: bool = False  # a caller reply only the caller sees (ephemeral)
    mention: tuple[str, ...] = ()  # user ids to ping
    map_viewer: str | None = None  # attach a map drawn for this viewer
    data: dict[str, Any] = field(default_factory=dict)  # structured extras (decisions ...)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["mention"] = list(self.mention)
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> Reply:
        return Reply(**(d | {"mention": tuple(d.get("mention", ()))}))


class Refusal(Exception):
    """A command the service will not carry out; the message says why, in player words,
    and nothing changed."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        return self.message


# Game settings a moderator may change (`mod: set KEY VALUE`), with their defaults.
DEFAULT_SETTINGS: dict[str, Any] = {
    "deadline_hours": None,  # per step of play; None: no deadlines
    "policy": "pause",  # on expiry: pass | default | pause (docs/deadlines.md)
    "reminders": [24.0, 2.0],  # hours before a deadline
    "max_extensions": 3,  # per game
    "extensions_used": 0,
    "autostart": True,  # start when every side has a player
    "late_join": "moderator",  # an open seat of a started game: moderator (asks) | open
}

STATUSES = ("open", "active", "paused", "over")

"""The lines of a message: control lines, commands, and the orders.

One message is one block of orders in the PBEM notation (docs/orders.md), applied all or
nothing; the other lines are commands, run in the order written (the block runs where its
first order line stands):

    game GAME                 the game the message is about (else: the seat address's, the
                              subject's, or the sender's only game)
    expect N                  refuse the orders if the game moved past event N meanwhile
    passphrase XXXX-XXXX-XXXX the seat's passphrase (for mail to the plain address)
    game new SCENARIO [SIDE] [seed N]    join GAME SIDE|spectator    leave
    opponent SIDE             the built-in opponent takes that side
    status   map [HEX [RADIUS]]   log [new|N]   decision   games   help [ORDER]
    odds UNITS -> HEX         the odds of an attack, in your own view (nothing declared)
    undo   resign   mod COMMAND...
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.numbers import NumberError, shown, whole

CONTROL = frozenset({"expect", "passphrase"})
LOOKS = frozenset({"status", "map", "log", "help", "decision", "games", "orders", "odds"})
ACTS = frozenset({"join", "watch", "leave", "undo", "resign", "mod", "new", "opponent"})
# the commands that act for a seat: proven by the seat address or passphrase
SEATED = frozenset({"orders-block", "undo", "resign", "leave", "mod", "opponent"})


class PlanError(Exception):
    """A line that cannot be run; nothing of the message is applied."""


@dataclass
class Step:
    verb: str  # a command, or "orders-block"
    args: list[str] = field(default_factory=list)
    line: int = 0


@dataclass
class Plan:
    game: str | None = None
    expect: int | None = None
    passphrase: str | None = None
    steps: list[Step] = field(default_factory=list)
    block: str = ""  # the order lines at their own line numbers, other lines blank

    @property
    def acts_for_a_seat(self) -> bool:
        return any(s.verb in SEATED for s in self.steps)


def plan(lines: tuple[str, ...] | list[str]) -> Plan:
    """The message's lines as a plan; PlanError for a control line that is wrong."""
    p = Plan()
    block: list[str] = []
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        words = line.split()
        verb = words[0].lower().rstrip(":") if words else ""
        if not words or line.startswith("#"):
            block.append("")
            continue
        block.append("")
        if verb == "game" and len(words) >= 2 and words[1].lower() == "new":
            if len(words) < 3:
                raise PlanError(f"line {n}: game new SCENARIO [SIDE] [seed N]")
            p.steps.append(Step("new", words[2:], n))
        elif verb == "game":
            if len(words) != 2 or not re.fullmatch(r"[a-z0-9]{1,12}", words[1].lower()):
                raise PlanError(f"line {n}: `game GAME` names one game, e.g. game k7qd")
            if p.game is not None and p.game != words[1].lower():
                raise PlanError(f"line {n}: one message is about one game ({p.game} above)")
            p.game = words[1].lower()
        elif verb == "expect":
            try:
                p.expect = whole(words[1] if len(words) == 2 else "", "expect", 0, 10**9)
            except NumberError:
                raise PlanError(f"line {n}: expect N, the event number of the position") from None
        elif verb == "passphrase":
            if len(words) != 2:
                raise PlanError(f"line {n}: passphrase XXXX-XXXX-XXXX")
            p.passphrase = words[1].lower()
        elif verb in LOOKS or verb in ACTS:
            p.steps.append(Step(verb, words[1:], n))
        else:
            block[-1] = raw
            _order_step(p, n)
    p.block = "\n".join(block)
    return p


def _order_step(p: Plan, n: int) -> None:
    if not any(s.verb == "orders-block" for s in p.steps):
        p.steps.append(Step("orders-block", [], n))


def map_args(args: list[str]) -> tuple[str | None, int]:
    """`map [HEX [RADIUS]]`: the hex and the radius (PlanError when wrong)."""
    if len(args) > 2:
        raise PlanError("map [HEX [RADIUS]], e.g. map 0305 3")
    around = args[0] if args else None
    if around is not None and not re.fullmatch(r"[0-9]{3,4}", around):
        raise PlanError(f"'{shown(around, 20)}' is not a hex number (e.g. 0305)")
    radius = 4
    if len(args) == 2:
        try:
            radius = whole(args[1], "the radius (hexes)", 0, 12)
        except NumberError as e:
            raise PlanError(str(e)) from None
    return around, radius


HELP = """Kessel by e-mail: write commands and orders in the body of a mail, one per line.
Reply to a mail of the game: its Reply-To is your own seat address, which proves it is you.

Orders (all the order lines of one mail are one block: all applied, or none):
  move s-232 0434            attack s-337 s-20tb -> 0306        done
  air 2 attack 0305          (sealed inputs are taken only from your seat address)
  2                          answer an open decision by its number in the prompt
Lines that help:
  expect 57                  refuse the orders if the game moved past event 57 meanwhile
  game k7qd                  which game (a reply to a game's mail needs no such line)
  passphrase abcd-efgh-ijkm  your seat's passphrase, when writing to the plain address
Commands:
  game new SCENARIO [SIDE] [seed N]   start a game (demo-steblev, korsun-1944, ...)
  join GAME SIDE|spectator   take a seat, or watch
  opponent SIDE              the built-in opponent plays SIDE (from your seat address)
  status                     where the game is, who is awaited, your open decisions
  map [HEX [RADIUS]]         the map as you see it, attached as a PNG
  log [new|N]                the turn log, what is new since your last input, the last N lines
  decision                   your open decision again
  odds s-337 s-20tb -> 0306  the odds of an attack as you see it (nothing is declared)
  games                      your games
  undo                       take back your last input (not past a die roll)
  resign, leave              give up the game; leave a game not started
  help [ORDER]               this text, or one order's form
Quoted text (lines starting with >) and your signature (after a line `-- `) are ignored;
auto-replies and bounces are never answered."""

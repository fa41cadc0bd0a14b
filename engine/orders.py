"""Player inputs (DESIGN §2, §4): typed orders parsed from the order notation.

Every order carries the side that gave it (None when the line had no `side:` prefix,
meaning "the side whose input the game awaits"), its 1-based line number in the text it
came from, and that line's text, so a rejection can point back at it.

Unit references are scenario ids, or `@HEX` (every friendly unit in that hex that may
take the order); the engine resolves them, the parser only checks their form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SideName = str  # "soviet", "german", ... or "mod" for moderator lines


@dataclass(frozen=True)
class Order:
    side: SideName | None = field(default=None, kw_only=True)
    line: int = field(default=0, kw_only=True)
    text: str = field(default="", kw_only=True, compare=False)

    @property
    def verb(self) -> str:
        return VERBS_BY_TYPE[type(self)]


@dataclass(frozen=True)
class Move(Order):
    """`move UNITS HEX [HEX ...] [full]`: a path of adjacent hexes, or just the destination.
    `full`: the out-of-supply units among them pay an OoS level to move with their full MPs
    (10.2.3)."""

    units: tuple[str, ...]
    path: tuple[str, ...]
    full: bool = False


@dataclass(frozen=True)
class Attack(Order):
    """`attack UNITS -> HEX [HEX ...] [support UNITS] [air AIRREFS] [nohq]` (5.1). Several
    defending hexes (`also`) are allowed when the attackers stand in one hex (5.1.5)."""

    units: tuple[str, ...]
    target: str
    support: tuple[str, ...] = ()
    air: tuple[str, ...] = ()
    also: tuple[str, ...] = ()
    stars: tuple[str, ...] = ()  # attackers using their special abilities (15.1.6)
    cms: int = 0  # CMs spent from an HQ loss (9.1.6-9.1.7, R17)
    # 10.2.3: attackers paying an OoS level for full strength; () = every OoS attacker
    full: tuple[str, ...] | None = None
    nohq: bool = False  # 9.2.1 "can subtract": decline the HQ dice modifier (K100)


@dataclass(frozen=True)
class Fire(Order):
    """`fire UNITS -> HEX`: artillery ranged attack (6.4); `fire UNITS -> HEX/HEX` fires at
    the bridge on that hexside (6.4.7), `target` then being "AAAA/BBBB"."""

    units: tuple[str, ...]
    target: str


@dataclass(frozen=True)
class Barrage(Order):
    """`barrage UNITS -> HEX` (6.5)."""

    units: tuple[str, ...]
    target: str


@dataclass(frozen=True)
class Fortify(Order):
    """`fortify UNITS`: build field fortifications (7.1)."""

    units: tuple[str, ...]


@dataclass(frozen=True)
class SetupChange(Order):
    """`setup UNIT combat|transport` (6.2)."""

    units: tuple[str, ...]
    mode: Literal["combat", "transport"]


@dataclass(frozen=True)
class Strategic(Order):
    """`strategic UNITS [full]`: mark for strategic movement (12.0); `full`: the
    out-of-supply ones will pay a level for their full MPs when they move (10.2.3, K82)."""

    units: tuple[str, ...]
    full: bool = False


@dataclass(frozen=True)
class Enter(Order):
    """`enter UNITS ZONE|HEX [HEX ...]`: reinforcement entry (11.0), optionally with a path
    continuing from the entry hex."""

    units: tuple[str, ...]
    where: str
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class Delay(Order):
    """`delay UNITS ZONE|HEX`: instead of entering, reinforcements move up to 3 entry zones
    off the map and may enter from there from the next turn on (11.2.2)."""

    units: tuple[str, ...]
    where: str


@dataclass(frozen=True)
class Leave(Order):
    """`leave UNITS [HEX ...]`: units leave the map through an entry zone, after moving to
    it along the path if one is given (11.2.3)."""

    units: tuple[str, ...]
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class Air(Order):
    """`air COUNTER|SPs MISSION HEX`: a sealed air mission (8.0). `amount` is set when the
    first word is a number (Korsun SPs), `counter` when it is an air counter id (Kursk)."""

    mission: str
    hex: str
    counter: str | None = None
    amount: int | None = None


@dataclass(frozen=True)
class Mask(Order):
    """`mask HEX on|off` (16.1.2)."""

    hex: str
    on: bool


@dataclass(frozen=True)
class Bridge(Order):
    """`bridge destroy A/B [by UNIT]` or `bridge build UNIT A/B` (14.0). `hq` is the unit
    that does the work: the HQ building over a big river (14.3.2), the unit rebuilding a
    printed bridge (14.2.2) or, optionally, the one that destroys it (14.2.1)."""

    action: Literal["destroy", "build"]
    hexside: tuple[str, str]
    hq: str | None = None


@dataclass(frozen=True)
class Reinforce(Order):
    """`reinforce UNIT from VS`: an infantry unit regains a CEL from a Volkssturm unit in
    its hex (15.3.3)."""

    unit: str
    source: str


@dataclass(frozen=True)
class Repair(Order):
    """`repair UNIT [UNIT ...]` / `repair none`: answer the Repair decision of the Supply
    Phase, putting a Repair counter on each unit named (one per front) or none (Kursk
    17.1.2)."""

    units: tuple[str, ...] = ()


@dataclass(frozen=True)
class Withdraw(Order):
    """`withdraw UNIT [UNIT ...]`: take units off the map for good, as the scenario
    requires on that day (e.g. Kursk: 4th Armoured Division on 12 July)."""

    units: tuple[str, ...]


@dataclass(frozen=True)
class PlaceIf(Order):
    """`place-if HEX [HEX ...]`: place improved fortification markers, one per hex, in the
    scenario's set-up step (7.2.1; Korsuń 1944: "German Player can freely place 30 counters
    of Improved Fortifications on the map"); `done` ends the placement."""

    hexes: tuple[str, ...]


@dataclass(frozen=True)
class Activate(Order):
    """`activate HQ [HQ ...]`: the HQs active this Game-Turn (AGS-K 23.11); the others are
    inactive."""

    units: tuple[str, ...]


@dataclass(frozen=True)
class Unsupport(Order):
    """`unsupport UNIT [UNIT ...]`: the corps whose Supported markers come off (AGS-K
    24.22)."""

    units: tuple[str, ...]


@dataclass(frozen=True)
class Losses(Order):
    """`losses UNIT [UNIT ...]`: answer a losses decision, one CEL per listing."""

    units: tuple[str, ...]


@dataclass(frozen=True)
class Retreat(Order):
    """`retreat UNIT [HEX ...]`: retreat path; no hexes = hold (sustained retreat 5.3.7)."""

    unit: str
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pursue(Order):
    """`pursue UNIT [UNIT ...] HEX [HEX ...]` (5.4): each unit in turn takes the same path;
    `also` holds the units after the first (issue #17: a stack pursues in one order)."""

    unit: str
    path: tuple[str, ...]
    also: tuple[str, ...] = ()

    @property
    def units(self) -> tuple[str, ...]:
        return (self.unit, *self.also)


@dataclass(frozen=True)
class Defend(Order):
    """`defend [stars UNITS] [cms N] [support UNITS] [nohq]`: the defender's answer before the
    combat roll -- which units use their special abilities (stars 15.1, fortification units
    15.4), how many HQ-loss CMs it spends (9.1.6, R17) and which artillery supports the
    defence (6.3.3, 6.6.1). `pass` uses none."""

    stars: tuple[str, ...] = ()
    cms: int = 0
    support: tuple[str, ...] = ()
    nohq: bool = False  # 9.2.1 "can add": decline the HQ dice modifier (K100)


@dataclass(frozen=True)
class Pass(Order):
    """`pass`: decline an optional step (pursuit, advance, a voluntary ability)."""


@dataclass(frozen=True)
class Done(Order):
    """`done`: end my part of the current phase."""


@dataclass(frozen=True)
class Mod(Order):
    """`mod: VERB ARGS...`: a moderator command; `words` are the raw words after `mod:`."""

    words: tuple[str, ...]


@dataclass(frozen=True)
class HqClaim(Order):
    """`hq claim` / `hq decline`: the side's standing choice whether its HQs' dice modifier
    (9.2.1: the player "can" add or subtract 1) is used in its combats from now on, in
    attack and in defence; `attack ... nohq` and `defend ... nohq` decline it for one
    combat (K100). The default is to claim it."""

    claim: bool = True


VERBS_BY_TYPE: dict[type[Order], str] = {
    Move: "move",
    Attack: "attack",
    Fire: "fire",
    Barrage: "barrage",
    Fortify: "fortify",
    SetupChange: "setup",
    Strategic: "strategic",
    Enter: "enter",
    Delay: "delay",
    Leave: "leave",
    Air: "air",
    Mask: "mask",
    Bridge: "bridge",
    Reinforce: "reinforce",
    Repair: "repair",
    Withdraw: "withdraw",
    PlaceIf: "place-if",
    Activate: "activate",
    Unsupport: "unsupport",
    Losses: "losses",
    Retreat: "retreat",
    Pursue: "pursue",
    Defend: "defend",
    Pass: "pass",
    Done: "done",
    Mod: "mod",
    HqClaim: "hq",
}

"""The order notation (DESIGN §4): text lines <-> typed orders (engine.orders).

One order per line, `#` starts a comment, blank lines are ignored. A line may start with a
side prefix (`soviet:`, `german:`, ...; `mod:` for moderator lines). Verbs and keywords are
case-insensitive; unit ids are kept as written; hex numbers (3 or 4 digits) are normalised
to four digits. `parse_order` / `parse_orders` read the notation, `format_order` writes an
order back in canonical form (so `parse_order(format_order(o)) == o`).

Pure: no I/O.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from engine.hexgrid import HexIdError, normalize
from engine.model import AIR_MISSION_WORDS
from engine.numbers import is_whole
from engine.orders import (
    Activate,
    Air,
    Attack,
    Barrage,
    Bridge,
    Defend,
    Delay,
    Done,
    Enter,
    Fire,
    Fortify,
    HqClaim,
    Leave,
    Losses,
    Mask,
    Mod,
    Move,
    Order,
    Pass,
    PlaceIf,
    Pursue,
    Reinforce,
    Repair,
    Retreat,
    SetupChange,
    Strategic,
    Unsupport,
    Withdraw,
)

__all__ = ["USAGE", "VERBS", "NotationError", "format_order", "parse_order", "parse_orders"]


MAX_LINE = 2000  # characters in one order line (a long move path is ~150)


class NotationError(ValueError):
    """A line that is not a valid order. `message` is the full text shown to the player,
    starting `line N: `; `problem` is the same without that prefix."""

    line: int
    text: str
    problem: str
    message: str

    def __init__(self, line: int, text: str, problem: str) -> None:
        self.line = line
        self.text = text
        self.problem = problem
        self.message = f"line {line}: {problem}"
        super().__init__(self.message)


class _Problem(Exception):
    """Raised inside the parser; turned into a NotationError with the line attached."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


# How each order is written, for help texts and error messages.
USAGE: dict[str, str] = {
    "move": "move UNIT [UNIT...] HEX [HEX...] [full]",
    "attack": (
        "attack UNIT [UNIT...] -> HEX [HEX...] [support UNIT...] [air COUNTER...] "
        "[stars UNIT...] [cms N] [full [UNIT...]] [nohq]"
    ),
    "defend": "defend [stars UNIT...] [cms N] [support UNIT...] [nohq]",
    "hq": "hq claim|decline  (9.2.1: use your HQs' dice modifier from now on, or not)",
    "reinforce": "reinforce UNIT from VS-UNIT",
    "repair": "repair UNIT [UNIT...]  or  repair none",
    "withdraw": "withdraw UNIT [UNIT...]",
    "activate": "activate HQ [HQ...]  (AGS: the active Soviet HQs, 23.11)",
    "unsupport": "unsupport UNIT [UNIT...]  (AGS: Supported markers removed, 24.22)",
    "place-if": "place-if HEX [HEX...]  (set-up step: improved fortifications, one per hex)",
    "fire": "fire UNIT [UNIT...] -> HEX  or  fire UNIT [UNIT...] -> HEX/HEX (a bridge)",
    "barrage": "barrage UNIT [UNIT...] -> HEX",
    "fortify": "fortify UNIT [UNIT...]",
    "setup": "setup UNIT [UNIT...] combat|transport",
    "strategic": "strategic UNIT [UNIT...] [full]",
    "enter": "enter UNIT [UNIT...] ZONE|HEX [HEX...]",
    "delay": "delay UNIT [UNIT...] ZONE|HEX",
    "leave": "leave UNIT [UNIT...] [HEX...]",
    "air": "air COUNTER|SPs MISSION HEX  (MISSION: support-attack support-defence attack "
    "object disorganize river supply; object takes a bridge A/B; river may split its "
    "attacks over connected hexes: HEX:N HEX:N ...)",
    "mask": "mask HEX on|off",
    "bridge": "bridge destroy HEX/HEX [by UNIT]  or  bridge build UNIT HEX/HEX",
    "losses": "losses UNIT [UNIT...]",
    "retreat": "retreat UNIT [HEX...]",
    "pursue": "pursue UNIT [UNIT...] HEX [HEX...]",
    "pass": "pass",
    "done": "done",
}

_HEX = re.compile(r"^[0-9]{3,4}$")  # ASCII digits only (\d takes any script)
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")
_ZONE = re.compile(r"^[A-Za-z]$")
_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_SIDE_PREFIX = re.compile(r"^([^\s:]*)\s*:(.*)$")
_ARROW = re.compile(r"->|→")
_HEX_HELP = "hex numbers are 3 or 4 digits, column then row, e.g. 0535"
_UNIT_HELP = "unit ids look like s-232 or g-88a; @HEX means your units in that hex"


# --- tokens -----------------------------------------------------------------------------


def _hexish(tok: str) -> bool:
    """A token that is meant as a hex number (starts with a digit)."""
    return tok[:1].isascii() and tok[:1].isdigit()


def _hex(tok: str) -> str:
    """A plain hex number, normalised."""
    if tok.startswith("@") and _HEX.match(tok[1:]):
        return normalize(tok[1:])  # a player writing `-> @1619` means hex 1619
    if not _HEX.match(tok):
        if _ID.match(tok) or tok.startswith("@"):
            raise _Problem(f"expected a hex number but found '{tok}'; {_HEX_HELP}")
        raise _Problem(f"'{tok}' is not a hex number; {_HEX_HELP}")
    try:
        return normalize(tok)
    except HexIdError as e:  # pragma: no cover - the regex already guarantees the form
        raise _Problem(str(e)) from e


def _unit_id(tok: str) -> str:
    """A scenario unit id (no @HEX)."""
    if _ID.match(tok):
        return tok
    if _HEX.match(tok):
        raise _Problem(f"'{tok}' is a hex number where a unit id was expected")
    raise _Problem(f"'{tok}' is not a unit id; unit ids look like s-232 or g-88a")


def _unit(tok: str) -> str:
    """A unit reference: an id kept as written, or `@HEX` with the hex normalised."""
    if tok.startswith("@"):
        if not _HEX.match(tok[1:]):
            raise _Problem(f"'{tok}' is not a hex reference: write @ and a hex number, e.g. @0535")
        return "@" + normalize(tok[1:])
    if _ID.match(tok):
        return tok
    if _HEX.match(tok):
        raise _Problem(
            f"'{tok}' is a hex number where a unit was expected; "
            f"write @{normalize(tok)} for your units in that hex"
        )
    if _hexish(tok):
        raise _Problem(f"'{tok}' is neither a unit id nor a hex number; {_HEX_HELP}")
    raise _Problem(f"'{tok}' is not a unit; {_UNIT_HELP}")


def _hexside(tok: str) -> tuple[str, str]:
    parts = tok.split("/")
    if len(parts) != 2 or not all(parts):
        raise _Problem(
            f"'{tok}' is not a hexside: write the hexes on both sides with a slash, e.g. 1618/1619"
        )
    a, b = _hex(parts[0]), _hex(parts[1])
    if a == b:
        raise _Problem(f"'{tok}' is not a hexside: the two hexes must differ")
    return a, b


def _need(verb: str, what: str) -> _Problem:
    return _Problem(f"{verb} needs {what}: {USAGE[verb]}")


def _extra(verb: str, words: list[str], after: str) -> _Problem:
    return _Problem(f"extra words after {after}: '{' '.join(words)}'; {USAGE[verb]}")


# --- the forms --------------------------------------------------------------------------


def _leading_units(args: list[str], stop: Callable[[str], bool]) -> list[str]:
    """The leading unit references of `args`, up to the first token for which stop() holds."""
    units: list[str] = []
    for tok in args:
        if stop(tok):
            break
        units.append(_unit(tok))
    return units


def _path(verb: str, toks: list[str]) -> tuple[str, ...]:
    path: list[str] = []
    for tok in toks:
        if not _hexish(tok) and (_ID.match(tok) or tok.startswith("@")):
            raise _Problem(
                f"'{tok}' comes after the hexes; name every unit before the first hex: "
                f"{USAGE[verb]}"
            )
        path.append(_hex(tok))
    return tuple(path)


def _parse_move(args: list[str]) -> Order:
    if not args:
        raise _need("move", "at least one unit and a destination hex")
    units = _leading_units(args, _hexish)
    if not units:
        if _HEX.match(args[0]):
            h = normalize(args[0])
            raise _need(
                "move", f"at least one unit before the hexes (for your units in {h} write @{h})"
            )
        raise _need("move", f"at least one unit before the hexes ({_UNIT_HELP})")
    rest = args[len(units) :]
    full = bool(rest) and rest[-1].lower() == "full"  # 10.2.3: full MPs for an OoS level
    if full:
        rest = rest[:-1]
    if not rest:
        raise _need("move", "a destination hex after the units")
    return Move(units=tuple(units), path=_path("move", rest), full=full)


def _split_arrow(verb: str, args: list[str]) -> tuple[list[str], list[str]]:
    arrows = [i for i, tok in enumerate(args) if tok == "->"]
    if not arrows:
        raise _need(verb, "'->' between the units and the target hex")
    if len(arrows) > 1:
        raise _Problem(f"{verb} has more than one '->': {USAGE[verb]}")
    i = arrows[0]
    before, after = args[:i], args[i + 1 :]
    if not before:
        raise _need(verb, "at least one unit before '->'")
    if not after:
        raise _need(verb, "a target hex after '->'")
    return before, after


def _units(verb: str, toks: list[str]) -> tuple[str, ...]:
    if not toks:
        raise _need(verb, "at least one unit")
    return tuple(_unit(t) for t in toks)


def _parse_attack(args: list[str]) -> Order:
    before, after = _split_arrow("attack", args)
    units = _units("attack", before)
    target = _hex(after[0])
    rest = after[1:]
    also: list[str] = []
    while rest and _hexish(rest[0]):  # more defending hexes (5.1.5: one attacking hex)
        also.append(_hex(rest.pop(0)))
    groups: dict[str, list[str]] = {}
    current: list[str] | None = None
    nohq = _flag(rest, "nohq")
    for tok in rest:
        key = tok.lower()
        if key in ("support", "air", "stars", "cms", "full"):
            if key in groups:
                raise _Problem(f"attack lists '{key}' twice; put all of them after one '{key}'")
            current = groups[key] = []
        elif current is None:
            raise _Problem(
                f"extra words after the target hex {target}: '{' '.join(after[1:])}'; "
                "an attack may only go on with 'support UNIT...' and/or 'air COUNTER...': "
                f"{USAGE['attack']}"
            )
        else:
            current.append(tok)
    support: tuple[str, ...] = ()
    air: tuple[str, ...] = ()
    if "support" in groups:
        if not groups["support"]:
            raise _Problem(f"'support' is not followed by any unit: {USAGE['attack']}")
        support = tuple(_unit(t) for t in groups["support"])
    if "air" in groups:
        if not groups["air"]:
            raise _Problem(
                f"'air' is not followed by any air counter or SP amount: {USAGE['attack']}"
            )
        refs: list[str] = []
        for tok in groups["air"]:
            if not (_ID.match(tok) or is_whole(tok)):
                raise _Problem(f"'{tok}' is not an air counter id or SP amount (e.g. g-air1 or 2)")
            refs.append(tok)
        air = tuple(refs)
    stars = _stars_group("attack", groups)
    cms = _cms_group("attack", groups)
    # 10.2.3: `full` alone = every OoS attacker pays a level; `full UNIT...` = those units
    full = tuple(_unit(t) for t in groups["full"]) if "full" in groups else None
    return Attack(
        units=units,
        target=target,
        support=support,
        air=air,
        also=tuple(also),
        stars=stars,
        cms=cms,
        full=full,
        nohq=nohq,
    )


def _stars_group(verb: str, groups: dict[str, list[str]]) -> tuple[str, ...]:
    if "stars" not in groups:
        return ()
    if not groups["stars"]:
        raise _Problem(f"'stars' is not followed by any unit: {USAGE[verb]}")
    return tuple(_unit(t) for t in groups["stars"])


def _cms_group(verb: str, groups: dict[str, list[str]]) -> int:
    if "cms" not in groups:
        return 0
    vals = groups["cms"]
    if len(vals) != 1 or not is_whole(vals[0]) or int(vals[0]) < 1:
        raise _Problem(f"'cms' takes one whole number of CMs (e.g. cms 2): {USAGE[verb]}")
    return int(vals[0])


def _parse_reinforce(args: list[str]) -> Order:
    if len(args) != 3 or args[1].lower() != "from":
        raise _Problem(f"reinforce names the infantry and the Volkssturm: {USAGE['reinforce']}")
    return Reinforce(unit=_unit(args[0]), source=_unit(args[2]))


def _parse_hq(args: list[str]) -> Order:
    if len(args) != 1 or args[0].lower() not in ("claim", "decline"):
        raise _Problem(f"hq takes one word, claim or decline: {USAGE['hq']}")
    return HqClaim(claim=args[0].lower() == "claim")


def _flag(words: list[str], flag: str) -> bool:
    """Take a bare keyword (e.g. `nohq`) out of `words`, wherever it stands."""
    found = [w for w in words if w.lower() == flag]
    if len(found) > 1:
        raise _Problem(f"'{flag}' is given twice")
    if found:
        words.remove(found[0])
    return bool(found)


def _parse_defend(args: list[str]) -> Order:
    groups: dict[str, list[str]] = {}
    current: list[str] | None = None
    args = list(args)
    nohq = _flag(args, "nohq")
    for tok in args:
        key = tok.lower()
        if key in ("stars", "cms", "support"):
            if key in groups:
                raise _Problem(f"defend lists '{key}' twice: {USAGE['defend']}")
            current = groups[key] = []
        elif current is None:
            raise _Problem(
                f"defend takes 'stars UNIT...', 'cms N' and/or 'support UNIT...': {USAGE['defend']}"
            )
        else:
            current.append(tok)
    support: tuple[str, ...] = ()
    if "support" in groups:
        if not groups["support"]:
            raise _Problem(f"'support' is not followed by any unit: {USAGE['defend']}")
        support = tuple(_unit(t) for t in groups["support"])
    return Defend(
        stars=_stars_group("defend", groups),
        cms=_cms_group("defend", groups),
        support=support,
        nohq=nohq,
    )


def _units_to_hex(verb: str, args: list[str]) -> tuple[tuple[str, ...], str]:
    before, after = _split_arrow(verb, args)
    units = _units(verb, before)
    target = _hex(after[0])
    if len(after) > 1:
        raise _extra(verb, after[1:], f"the target hex {target}")
    return units, target


def _parse_fire(args: list[str]) -> Order:
    before, after = _split_arrow("fire", args)
    if "/" in after[0]:  # 6.4.7: a bridge, named by its hexside
        units = _units("fire", before)
        if len(after) > 1:
            raise _extra("fire", after[1:], f"the hexside {after[0]}")
        return Fire(units=units, target="/".join(_hexside(after[0])))
    units, target = _units_to_hex("fire", args)
    return Fire(units=units, target=target)


def _parse_barrage(args: list[str]) -> Order:
    before, after = _split_arrow("barrage", args)
    if "/" in after[0]:  # a hexside: read as for fire, so the engine can say why not (6.5.4)
        units = _units("barrage", before)
        if len(after) > 1:
            raise _extra("barrage", after[1:], f"the hexside {after[0]}")
        return Barrage(units=units, target="/".join(_hexside(after[0])))
    units, target = _units_to_hex("barrage", args)
    return Barrage(units=units, target=target)


def _parse_fortify(args: list[str]) -> Order:
    return Fortify(units=_units("fortify", args))


def _parse_strategic(args: list[str]) -> Order:
    full = bool(args) and args[-1].lower() == "full"  # 10.2.3, K82
    return Strategic(units=_units("strategic", args[:-1] if full else args), full=full)


def _parse_repair(args: list[str]) -> Order:
    if len(args) == 1 and args[0].lower() == "none":
        return Repair(units=())
    if not args:
        raise _need("repair", "the units to repair, or 'none'")
    return Repair(units=_units("repair", args))


def _parse_withdraw(args: list[str]) -> Order:
    return Withdraw(units=_units("withdraw", args))


def _parse_activate(args: list[str]) -> Order:
    return Activate(units=_units("activate", args))


def _parse_unsupport(args: list[str]) -> Order:
    return Unsupport(units=_units("unsupport", args))


def _parse_place_if(args: list[str]) -> Order:
    if not args:
        raise _need("place-if", "at least one hex")
    return PlaceIf(hexes=_path("place-if", args))


def _parse_losses(args: list[str]) -> Order:
    return Losses(units=_units("losses", args))


def _parse_setup(args: list[str]) -> Order:
    if len(args) < 2:
        if args and args[0].lower() in ("combat", "transport"):
            raise _need("setup", "at least one unit before the mode")
        raise _need("setup", "at least one unit and then the mode, combat or transport")
    word = args[-1].lower()
    if word not in ("combat", "transport"):
        raise _Problem(
            f"setup ends with the mode, 'combat' or 'transport', not '{args[-1]}': {USAGE['setup']}"
        )
    mode: Literal["combat", "transport"] = "combat" if word == "combat" else "transport"
    return SetupChange(units=_units("setup", args[:-1]), mode=mode)


def _parse_enter(args: list[str]) -> Order:
    if not args:
        raise _need("enter", "at least one unit and an entry zone or hex")
    units = _leading_units(args, lambda t: _hexish(t) or bool(_ZONE.match(t)))
    if not units:
        raise _need("enter", "at least one unit before the entry zone or hex")
    rest = args[len(units) :]
    if not rest:
        raise _need("enter", "an entry zone (a letter, e.g. C) or hex after the units")
    where = rest[0].upper() if _ZONE.match(rest[0]) else _hex(rest[0])
    return Enter(units=tuple(units), where=where, path=_path("enter", rest[1:]))


def _parse_delay(args: list[str]) -> Order:
    units = _leading_units(args, lambda t: _hexish(t) or bool(_ZONE.match(t)))
    if not units:
        raise _need("delay", "at least one unit before the entry zone or hex")
    rest = args[len(units) :]
    if len(rest) != 1:
        raise _need("delay", "one entry zone (a letter, e.g. F) or hex after the units")
    where = rest[0].upper() if _ZONE.match(rest[0]) else _hex(rest[0])
    return Delay(units=tuple(units), where=where)


def _parse_leave(args: list[str]) -> Order:
    units = _leading_units(args, _hexish)
    if not units:
        raise _need("leave", "at least one unit")
    return Leave(units=tuple(units), path=_path("leave", args[len(units) :]))


def _river_part(word: str) -> str:
    """`HEX` or `HEX:ATTACKS`, one hex of a river crossing attack split (8.2.19)."""
    where, colon, n = word.partition(":")
    if colon and not is_whole(n):
        raise _Problem(f"'{word}': give the hex and its number of attacks, e.g. 1619:2 (8.2.19)")
    return _hex(where) + (f":{int(n)}" if colon else "")


def _parse_air(args: list[str]) -> Order:
    river = len(args) > 1 and AIR_MISSION_WORDS.get(args[1].lower()) == "river"
    if len(args) < 3 or (len(args) > 3 and not river):
        raise _Problem(
            "air needs three words: the air counter (or SP amount), the mission and the "
            f"target hex: {USAGE['air']}"
        )
    first, mission, where = args[:3]
    counter: str | None = None
    amount: int | None = None
    if is_whole(first):
        amount = int(first)
        if amount < 1:
            raise _Problem("an air mission needs at least 1 SP")
    elif _ID.match(first):
        counter = first
    else:
        raise _Problem(f"'{first}' is not an air counter id or SP amount (e.g. g-air1 or 4)")
    if not _WORD.match(mission):
        raise _Problem(f"'{mission}' is not an air mission (e.g. support-attack); {USAGE['air']}")
    if len(args) > 3 or ":" in where:  # 8.2.19: river crossing attacks split over hexes
        target = " ".join(_river_part(w) for w in args[2:])
    elif "/" in where:  # 8.2.8: a bridge, named by its hexside
        target = "/".join(_hexside(where))
    else:
        target = _hex(where)
    return Air(mission=mission.lower(), hex=target, counter=counter, amount=amount)


def _parse_mask(args: list[str]) -> Order:
    if len(args) < 2:
        raise _need("mask", "a hex and then on or off")
    if len(args) > 2:
        raise _extra("mask", args[2:], f"'{args[1]}'")
    where, state = args
    if state.lower() not in ("on", "off"):
        raise _Problem(f"mask ends with 'on' or 'off', not '{state}': {USAGE['mask']}")
    return Mask(hex=_hex(where), on=state.lower() == "on")


def _parse_bridge(args: list[str]) -> Order:
    action = args[0].lower() if args else ""
    if action == "destroy":
        if len(args) < 2:
            raise _need("bridge", "the hexside of the bridge to destroy")
        if len(args) > 2 and args[2].lower() == "by":  # 14.2.1: the unit that blows it
            if len(args) < 4:
                raise _need("bridge", "the unit after 'by'")
            if len(args) > 4:
                raise _extra("bridge", args[4:], f"the unit {args[3]}")
            return Bridge(action="destroy", hexside=_hexside(args[1]), hq=_unit_id(args[3]))
        if len(args) > 2:
            raise _extra("bridge", args[2:], f"the hexside {args[1]}")
        return Bridge(action="destroy", hexside=_hexside(args[1]))
    if action == "build":
        if len(args) < 3:
            raise _need("bridge", "the building HQ and the hexside")
        if len(args) > 3:
            raise _extra("bridge", args[3:], f"the hexside {args[2]}")
        return Bridge(action="build", hexside=_hexside(args[2]), hq=_unit_id(args[1]))
    found = f", not '{args[0]}'" if args else ""
    raise _Problem(f"bridge is followed by 'destroy' or 'build'{found}: {USAGE['bridge']}")


def _parse_retreat(args: list[str]) -> Order:
    if not args:
        raise _need("retreat", "a unit (and its path, or no hex to hold)")
    if len(args) > 1 and not _hexish(args[1]):
        raise _Problem(f"retreat takes one unit, then its path: {USAGE['retreat']}")
    return Retreat(unit=_unit(args[0]), path=_path("retreat", args[1:]))


def _parse_pursue(args: list[str]) -> Order:
    if not args:
        raise _need("pursue", "a unit and at least one hex")
    units = _leading_units(args, _hexish)
    if not units:
        raise _need("pursue", f"at least one unit before the hexes ({_UNIT_HELP})")
    if len(args) == len(units):
        raise _need("pursue", "at least one hex after the units")
    return Pursue(unit=units[0], path=_path("pursue", args[len(units) :]), also=tuple(units[1:]))


def _parse_pass(args: list[str]) -> Order:
    if args:
        raise _extra("pass", args, "'pass'")
    return Pass()


def _parse_done(args: list[str]) -> Order:
    if args:
        raise _extra("done", args, "'done'")
    return Done()


_PARSERS: dict[str, Callable[[list[str]], Order]] = {
    "move": _parse_move,
    "attack": _parse_attack,
    "fire": _parse_fire,
    "barrage": _parse_barrage,
    "fortify": _parse_fortify,
    "setup": _parse_setup,
    "strategic": _parse_strategic,
    "enter": _parse_enter,
    "delay": _parse_delay,
    "leave": _parse_leave,
    "air": _parse_air,
    "mask": _parse_mask,
    "bridge": _parse_bridge,
    "losses": _parse_losses,
    "retreat": _parse_retreat,
    "pursue": _parse_pursue,
    "defend": _parse_defend,
    "reinforce": _parse_reinforce,
    "repair": _parse_repair,
    "withdraw": _parse_withdraw,
    "place-if": _parse_place_if,
    "activate": _parse_activate,
    "unsupport": _parse_unsupport,
    "hq": _parse_hq,
    "pass": _parse_pass,
    "done": _parse_done,
}


VERBS = tuple(_PARSERS)  # the order words, for transports' own typo suggestions


def _unknown_verb(word: str, args: list[str]) -> _Problem:
    verbs = ", ".join(_PARSERS)
    if word.lower() == "mod":
        return _Problem("moderator lines start with 'mod:' (with a colon)")
    if args and args[0].lower() in _PARSERS and _WORD.match(word):
        return _Problem(
            f"'{word}' is not an order; to give it as a side write a colon after it: "
            f"'{word.lower()}: {args[0]} ...'"
        )
    close = difflib.get_close_matches(word.lower(), list(_PARSERS), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return _Problem(f"'{word}' is not an order{hint}; orders are: {verbs}")


# --- public API -------------------------------------------------------------------------


def parse_order(line: str, lineno: int = 1) -> Order | None:
    """One line of notation -> its order, or None for a blank or comment-only line.

    Raises NotationError naming the line number and what is wrong."""
    order = line.split("#", 1)[0]  # a comment may be long: it is never read back
    if len(order) > MAX_LINE:  # refused unread, and never echoed whole
        raise NotationError(
            lineno,
            order[:40],
            f"the line is {len(order):,} characters long; an order is at most {MAX_LINE:,}",
        )
    # tabs and no-break spaces (pasted orders) are spaces; other control characters are not
    text = "".join(" " if c.isspace() else c for c in order).strip()
    if not text:
        return None
    if bad := next((c for c in text if not c.isprintable()), None):
        raise NotationError(
            lineno, text, f"the line holds a control character ({bad!r}); type the order again"
        )
    try:
        return _parse(text, lineno)
    except _Problem as p:
        raise NotationError(lineno, text, p.problem) from None


def _parse(text: str, lineno: int) -> Order:
    side: str | None = None
    body = text
    m = _SIDE_PREFIX.match(text)
    if m:
        name, body = m.group(1), m.group(2).strip()
        if not name:
            raise _Problem(
                "a side prefix is empty: write the side before the colon, "
                "e.g. 'soviet: move s-232 0334'"
            )
        if not _WORD.match(name):
            raise _Problem(f"'{name}' is not a side name (a word such as soviet or german)")
        side = name.lower()
        if not body:
            raise _Problem(f"'{name}:' is not followed by an order")
        if side == "mod":
            return Mod(words=tuple(body.split()), side=side, line=lineno, text=text)
        again = _SIDE_PREFIX.match(body)
        if again:
            raise _Problem(f"two side prefixes, '{name}:' and '{again.group(1)}:'; write only one")
    words = _ARROW.sub(" -> ", body).split()
    verb, args = words[0], words[1:]
    parser = _PARSERS.get(verb.lower())
    if parser is None:
        raise _unknown_verb(verb, args)
    return replace(parser(args), side=side, line=lineno, text=text)


def parse_orders(text: str) -> list[Order]:
    """Every order in a block of notation, in order. Raises NotationError at the first bad
    line (line numbers are 1-based within `text`)."""
    orders: list[Order] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        order = parse_order(line, lineno)
        if order is not None:
            orders.append(order)
    return orders


def format_order(order: Order) -> str:
    """An order in canonical notation, with a `side: ` prefix when the side is set."""
    if isinstance(order, Mod):
        return " ".join(("mod:", *order.words))
    words: list[str] = [order.verb]
    if isinstance(order, Move):
        words += [*order.units, *order.path]
        if order.full:
            words.append("full")
    elif isinstance(order, Attack):
        words += [*order.units, "->", order.target, *order.also]
        if order.support:
            words += ["support", *order.support]
        if order.air:
            words += ["air", *order.air]
        if order.stars:
            words += ["stars", *order.stars]
        if order.cms:
            words += ["cms", str(order.cms)]
        if order.full is not None:
            words += ["full", *order.full]
        if order.nohq:
            words.append("nohq")
    elif isinstance(order, HqClaim):
        words.append("claim" if order.claim else "decline")
    elif isinstance(order, Defend):
        if order.stars:
            words += ["stars", *order.stars]
        if order.cms:
            words += ["cms", str(order.cms)]
        if order.support:
            words += ["support", *order.support]
        if order.nohq:
            words.append("nohq")
    elif isinstance(order, Fire | Barrage):
        words += [*order.units, "->", order.target]
    elif isinstance(order, Reinforce):
        words += [order.unit, "from", order.source]
    elif isinstance(order, Fortify | Strategic | Losses | Withdraw | Activate | Unsupport):
        words += order.units
        if isinstance(order, Strategic) and order.full:
            words.append("full")
    elif isinstance(order, Repair):
        words += order.units or ["none"]
    elif isinstance(order, SetupChange):
        words += [*order.units, order.mode]
    elif isinstance(order, Enter):
        words += [*order.units, order.where, *order.path]
    elif isinstance(order, Delay):
        words += [*order.units, order.where]
    elif isinstance(order, Leave):
        words += [*order.units, *order.path]
    elif isinstance(order, Air):
        first = order.counter if order.counter is not None else str(order.amount)
        words += [first, order.mission, order.hex]
    elif isinstance(order, Mask):
        words += [order.hex, "on" if order.on else "off"]
    elif isinstance(order, Bridge):
        words.append(order.action)
        if order.action == "build" and order.hq is not None:
            words.append(order.hq)
        words.append("/".join(order.hexside))
        if order.action == "destroy" and order.hq is not None:
            words += ["by", order.hq]
    elif isinstance(order, Pursue):
        words += [*order.units, *order.path]
    elif isinstance(order, Retreat):
        words += [order.unit, *order.path]
    elif isinstance(order, PlaceIf):
        words += order.hexes
    elif isinstance(order, Pass | Done):
        pass
    else:  # pragma: no cover - every Order subclass is handled above
        raise TypeError(f"cannot format {type(order).__name__}")
    line = " ".join(words)
    return f"{order.side}: {line}" if order.side is not None else line

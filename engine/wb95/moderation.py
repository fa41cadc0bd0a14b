"""Moderator edits: `mod:` lines that correct the position (DESIGN §4, issue #7).

A moderator (side "mod") may correct the position at any moment -- also while a decision
is pending or a combat is being resolved -- with one of the EDIT_VERBS. Each accepted
edit is one `mod_edited` event (the field, its value before and after, and any other
field the edit had to set for the state to stay consistent), applied by its reducer, so
a replay of the log rebuilds the edited state. An edit that would leave the state
inconsistent is refused with the reason: a unit taking part in the combat being
resolved or named in a pending decision may not be moved, removed or have its CELs
changed; no hex may end up over the stacking limit when the rules do not allow it at
that moment (3.2.1); no unit may be placed with enemy units or a marker put under enemy
units.

The referee service's own commands (rollback, deadlines, ...) are not the engine's: the
engine refuses them with "... is a referee-service command" so the service intercepts
them first (docs/rulings.md K86).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, HexIdError, normalize
from engine.numbers import is_whole, shown
from engine.state import GameState, UnitState, field_value
from engine.wb95 import flow
from engine.wb95.fortification_markers import FF, IF, initial_markers, markers, own_marker, place
from engine.wb95.reducer import on
from engine.wb95.stacking import STACK_LIMIT, stack_cels
from engine.wb95.units import find_unit

MODERATOR = "mod"

# The referee service's commands (bot/service): never the engine's.
SERVICE_VERBS = frozenset(
    {
        "rollback",
        "deadline",
        "pause",
        "resume",
        "extend",
        "announce",
        "substitute",
        "answer",
        "policy",
    }
)

USAGE: dict[str, str] = {
    "place": "place UNIT HEX",
    "remove": "remove UNIT",
    "eliminate": "eliminate UNIT",
    "cel": "cel UNIT N",
    "oos": "oos UNIT N",
    "disorganized": "disorganized UNIT on|off",
    "strategic": "strategic UNIT on|off",
    "setup": "setup UNIT combat|transport",
    "moved": "moved UNIT on|off",
    "fought": "fought UNIT on|off",
    "mp": "mp UNIT N",
    "fortification": "fortification HEX none|ff|if [SIDE]",
    "control": "control HEX SIDE|none",
}
EDIT_VERBS = tuple(USAGE)

MAX_OOS = 3  # 10.2: OoS levels 1-3 (a fourth level is the surrender test's business)


def do_mod(ctx: Ctx, side: str, order: o.Mod) -> None:
    """Referee one `mod:` line: a position edit, or an honest refusal."""
    if side != MODERATOR:
        raise Rejected(f"'mod:' lines are the moderator's: {side} cannot give them")
    if not order.words:
        raise Rejected(_verbs_message("a 'mod:' line needs a verb"))
    verb, args = order.words[0].lower(), list(order.words[1:])
    if verb in SERVICE_VERBS:
        raise Rejected(
            f"'mod: {verb}' is a referee-service command: the service carries it out, "
            "not the rules engine"
        )
    edit = _EDITS.get(verb)
    if edit is None:
        raise Rejected(_verbs_message(f"'{verb}' is not a moderator edit"))
    edit(ctx, verb, args)


def _verbs_message(head: str) -> str:
    return f"{head}; the edits are: " + "; ".join(f"mod: {u}" for u in USAGE.values())


# --- parsing the words ---------------------------------------------------------------------


def _args(verb: str, args: list[str], low: int, high: int) -> None:
    if not low <= len(args) <= high:
        raise Rejected(f"usage: mod: {USAGE[verb]}")


def _unit(state: GameState, ref: str) -> UnitState:
    return find_unit(state, ref)


def _hex(state: GameState, ref: str) -> HexId:
    try:
        h = normalize(ref)
    except HexIdError as e:
        raise Rejected(str(e)) from None
    if not state.setup.map.grid.contains(h):
        raise Rejected(f"{h} is not on the map")
    return h


def _flag(verb: str, word: str) -> bool:
    w = word.lower()
    if w in ("on", "yes", "true"):
        return True
    if w in ("off", "no", "false"):
        return False
    raise Rejected(f"'{word}' is not on or off; usage: mod: {USAGE[verb]}")


def _number(verb: str, word: str) -> int:
    digits = word[1:] if word.startswith("-") else word
    if not is_whole(digits):
        raise Rejected(f"'{shown(word)}' is not a number; usage: mod: {USAGE[verb]}")
    return int(word)


# --- what must stay consistent -------------------------------------------------------------


def _strings(x: Any) -> Iterator[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(x, list | tuple):
        for v in x:
            yield from _strings(v)


def _engaged(state: GameState, uid: str) -> str | None:
    """Why the unit may not be moved or have its CELs changed now, or None."""
    if state.combat is not None and uid in set(_strings(state.combat)):
        return f"{uid} takes part in the combat being resolved (5.2.1): edit it after the combat"
    for d in state.pending:
        if uid in set(_strings(d.options)) | set(_strings(d.info)):
            return f"{uid} is named in {d.side}'s pending {d.kind} decision: answer it first"
    return None


def _combat_hexes(state: GameState) -> set[str]:
    if state.combat is None:
        return set()
    grid = state.setup.map.grid
    return {s for s in _strings(state.combat) if len(s) == 4 and is_whole(s) and grid.contains(s)}


def _overstack_allowed(state: GameState, side: str) -> bool:
    """3.2.1: stacking is checked at the end of every phase; while a side's own Movement
    Phase is under way it may be over the limit for a moment (`done` refuses it)."""
    kind = flow.current_phase(state).kind
    return (
        kind in ("movement", "strategic")
        and not state.pending
        and side in flow.acting_sides(state)
        and side not in state.done
    )


def _check_stack(state: GameState, u: UnitState, h: HexId, weight: int) -> None:
    """Refuse `u` ending in `h` with stacking weight `weight` over the limit (3.2.1) when
    the rules do not allow it at this moment; and refuse it among enemy units."""
    if state.occupant_side(h) not in (None, u.side):
        raise Rejected(f"{h} holds enemy units: a unit cannot be placed with them (3.1.8)")
    if _overstack_allowed(state, u.side):
        return
    here = stack_cels(state, u.side).get(h, 0)
    if u.on_map and u.hex == h:
        here -= _weight(state, u, u.cel)
    if here + weight > STACK_LIMIT:
        raise Rejected(
            f"{h} would hold {here + weight} CELs, over the limit of {STACK_LIMIT} at the end "
            f"of a phase (3.2.1): the rules allow that only during the side's own movement"
        )


def _weight(state: GameState, u: UnitState, cel: int) -> int:
    return 1 if state.setup.units[u.id].is_hq else cel  # 3.2.2


# --- the edits -----------------------------------------------------------------------------


def _emit_unit(
    ctx: Ctx,
    verb: str,
    u: UnitState,
    field: str,
    after: Any,
    also: dict[str, Any] | None = None,
) -> None:
    before = _plain(getattr(u, field))
    also = also or {}
    if before == after and all(_plain(getattr(u, k)) == v for k, v in also.items()):
        raise Rejected(f"{u.id} already has {field} {after}: nothing to change")
    hexes = [h for h in (u.hex, after if field == "hex" else None) if h is not None]
    ctx.emit(
        "mod_edited",
        verb=verb,
        field=field,
        unit=u.id,
        side=u.side,
        hex=None,
        hexes=sorted(set(hexes)),
        before=before,
        after=after,
        also=also,
        also_before={k: _plain(getattr(u, k)) for k in also},
    )


def _plain(v: Any) -> Any:
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, tuple):
        return list(v)
    return v


def _place(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    state = ctx.state
    u = _unit(state, args[0])
    h = _hex(state, args[1])
    if (why := _engaged(state, u.id)) is not None:
        raise Rejected(f"cannot place {u.id}: {why}")
    if h in _combat_hexes(state):
        raise Rejected(f"cannot place {u.id} in {h}: the combat being resolved involves that hex")
    cel = u.cel if u.cel > 0 else 1
    _check_stack(state, u, h, _weight(state, u, cel))
    also: dict[str, Any] = {
        "eliminated": False,
        "arrives": None,
        "withdrawn": None,
        "fortification": own_marker(state, u.side, h),
    }
    if u.cel <= 0:
        also["cel"] = 1
    _emit_unit(ctx, verb, u, "hex", h, also)


def _remove(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 1, 1)
    u = _unit(ctx.state, args[0])
    if (why := _engaged(ctx.state, u.id)) is not None:
        raise Rejected(f"cannot remove {u.id}: {why}")
    if u.hex is None and u.arrives is None and not u.eliminated:
        raise Rejected(f"{u.id} is not on the map")
    also = {"arrives": None, "fortification": None, "eliminated": False, "strategic": False}
    _emit_unit(ctx, verb, u, "hex", None, also)


def _eliminate(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 1, 1)
    u = _unit(ctx.state, args[0])
    if (why := _engaged(ctx.state, u.id)) is not None:
        raise Rejected(f"cannot eliminate {u.id}: {why}")
    _emit_unit(ctx, verb, u, "eliminated", True, {"fortification": None, "strategic": False})


def _cel(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    state = ctx.state
    u = _unit(state, args[0])
    n = _number(verb, args[1])
    if not 1 <= n <= u.max_cel:
        raise Rejected(
            f"{u.id} may have 1 to {u.max_cel} CELs (use 'mod: eliminate {u.id}' for none)"
        )
    if (why := _engaged(state, u.id)) is not None:
        raise Rejected(f"cannot change the CELs of {u.id}: {why}")
    if u.on_map and u.hex is not None:
        _check_stack(state, u, u.hex, _weight(state, u, n))
    _emit_unit(ctx, verb, u, "cel", n)


def _oos(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    u = _unit(ctx.state, args[0])
    n = _number(verb, args[1])
    if not 0 <= n <= MAX_OOS:
        raise Rejected(f"an OoS level is 0 to {MAX_OOS} (10.2)")
    _emit_unit(ctx, verb, u, "oos", n)


def _disorganized(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    state = ctx.state
    u = _unit(state, args[0])
    on_ = _flag(verb, args[1])
    also: dict[str, Any] = {
        "disorganized_at": [state.turn, state.phase] if on_ else None,  # R22: counts from now
        "active_since_disorg": False,
    }
    _emit_unit(ctx, verb, u, "disorganized", on_, also)


def _strategic(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    u = _unit(ctx.state, args[0])
    _emit_unit(ctx, verb, u, "strategic", _flag(verb, args[1]))


def _setup(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    u = _unit(ctx.state, args[0])
    mode = args[1].lower()
    if mode not in ("combat", "transport"):
        raise Rejected(f"usage: mod: {USAGE[verb]}")
    if ctx.state.setup.units[u.id].type != "art":
        raise Rejected(f"{u.id} is not towed artillery: it has no setup (6.2)")
    if (why := _engaged(ctx.state, u.id)) is not None:
        raise Rejected(f"cannot change the setup of {u.id}: {why}")
    _emit_unit(ctx, verb, u, "setup", mode)


def _moved(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    u = _unit(ctx.state, args[0])
    _emit_unit(ctx, verb, u, verb, _flag(verb, args[1]))


def _mp(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    u = _unit(ctx.state, args[0])
    try:
        mp = Fraction(args[1])
    except (ValueError, ZeroDivisionError):
        raise Rejected(f"'{args[1]}' is not a number of MPs; usage: mod: {USAGE[verb]}") from None
    if mp < 0:
        raise Rejected("MPs spent cannot be negative")
    _emit_unit(ctx, verb, u, "mp_spent", str(mp))


def _fortification(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 3)
    state = ctx.state
    h = _hex(state, args[0])
    kind = args[1].lower()
    if kind not in ("none", FF, IF):
        raise Rejected(f"usage: mod: {USAGE[verb]}")
    old = markers(state).get(h)
    before = None if old is None else dict(old)
    occupant = state.occupant_side(h)
    if kind == "none":
        if old is None:
            raise Rejected(f"there is no fortification marker in {h}")
        after = None
        side = str(old["side"])
    else:
        named = args[2].lower() if len(args) == 3 else None
        if named is not None and named not in state.setup.sides:
            raise Rejected(f"'{args[2]}' is not a side in this game")
        side_ = named or occupant or (None if old is None else str(old["side"]))
        if side_ is None:
            raise Rejected(f"{h} is empty: name the side the marker belongs to")
        if occupant not in (None, side_):
            raise Rejected(f"{h} holds {occupant} units: a {side_} marker cannot lie under them")
        side = side_
        after = {"kind": kind, "side": side}
        if before == after:
            raise Rejected(f"{h} already has that marker: nothing to change")
    ctx.emit(
        "mod_edited",
        verb=verb,
        field="fortification",
        unit=None,
        side=side,
        hex=h,
        hexes=[h],
        before=before,
        after=after,
        also={},
        also_before={},
    )


def _control(ctx: Ctx, verb: str, args: list[str]) -> None:
    _args(verb, args, 2, 2)
    state = ctx.state
    h = _hex(state, args[0])
    who = args[1].lower()
    if who not in (*state.setup.sides, "none"):
        raise Rejected(f"'{args[1]}' is not a side in this game (or none)")
    after = None if who == "none" else who
    before = state.control.get(h)
    if before == after:
        raise Rejected(f"{h} is already controlled by {after or 'nobody'}: nothing to change")
    ctx.emit(
        "mod_edited",
        verb=verb,
        field="control",
        unit=None,
        side=None,  # hex control is public (4.3)
        hex=h,
        hexes=[h],
        before=before,
        after=after,
        also={},
        also_before={},
    )


_EDITS: dict[str, Callable[[Ctx, str, list[str]], None]] = {
    "place": _place,
    "remove": _remove,
    "eliminate": _eliminate,
    "cel": _cel,
    "oos": _oos,
    "disorganized": _disorganized,
    "strategic": _strategic,
    "setup": _setup,
    "moved": _moved,
    "fought": _moved,
    "mp": _mp,
    "fortification": _fortification,
    "control": _control,
}
assert set(_EDITS) == set(USAGE)


@on("mod_edited")
def _mod_edited(state: GameState, e: Event) -> None:
    d = e.data
    f = str(d["field"])
    if f == "control":
        if d["after"] is None:
            state.control.pop(d["hex"], None)
        else:
            state.control[d["hex"]] = str(d["after"])
        return
    if f == "fortification":
        h = d["hex"]
        if state.fortifications is None:
            state.fortifications = initial_markers(state.setup)
        old = state.fortifications.pop(h, None)
        if old is not None:
            for x in state.units_at(h):
                if x.side == old["side"]:
                    x.fortification = None
        if d["after"] is not None:
            place(state, h, str(d["after"]["side"]), str(d["after"]["kind"]))
        return
    u = state.units[d["unit"]]
    if f == "hex" and u.hex != d["after"]:
        u.entered_seq = e.seq  # it joins the bottom of its new stack
    setattr(u, f, field_value(f, d["after"]))
    for k, v in d["also"].items():
        setattr(u, k, field_value(k, v))

"""14.0 Bridges.

Bridges are objects on hexsides (14.1.1): the map's printed bridges (`MapData.bridges`) and
the ones built in play. `GameState.bridges` keeps what changed ("destroyed" printed ones,
"built" new ones, keyed "AAAA/BBBB"); `terrain.intact_bridges` gives the bridges standing
now, which movement, retreat and pursuit cross (K2, R24, 5.3.5). ZoC never crosses a big
river, bridged or not (K11), so bridges do not change ZoCs.

- Control (14.1.3, E43, docs/rulings.md K29): the side with units at an end and no enemy
  at the other controls the bridge; with opposing units at the two ends the side that
  controlled it first keeps it; an unwatched bridge follows the hex control of its ends.
  `GameState.bridge_control` keeps each controller once it changed from set-up, checked
  after every input and at every phase end (`bridge_control_changed`).
- Destroying (14.1.4, 14.2.1, 14.3.1, K30): `bridge destroy A/B [UNIT]` in the side's
  Movement Phase, by the controller's regular unit or HQ at either end, for 1 MP (3 over a
  big river). Artillery and air attacks on objects (6.4.7, 8.2.8-8.2.10) call `destroy`.
- Rebuilding over a river or stream (14.2.2, 14.2.3, K30): `bridge build UNIT A/B`, a
  printed bridge only, by a non-artillery unit at either end within friendly HQ range (or
  the HQ), for 3 MPs, at once.
- Building or rebuilding over a big river (14.3.2-14.3.4, E44, K31): `bridge build HQ A/B`
  declares the building in the Movement Phase; the hexside is a sealed note
  (`engine.wb95.sealed`, K27). The far hex must stay held until the side's next Movement
  Phase; the note is revealed as the phase before it ends, and the bridge stands (usable
  in that Movement Phase) or the building failed. The HQ cannot move or retreat meanwhile
  (`movement.can_move`, `results.retreat_paths`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, HexIdError, Hexside, hexside, normalize
from engine.model import Setup
from engine.state import GameState, UnitState
from engine.wb95 import flow, sealed
from engine.wb95.control import initial_control
from engine.wb95.dispatch import after_input, handles
from engine.wb95.movement import available_mp, fmt_mp
from engine.wb95.reducer import on
from engine.wb95.regular import is_regular
from engine.wb95.sequence import phase_index
from engine.wb95.strength import hq_range
from engine.wb95.terrain import intact_bridges
from engine.wb95.units import find_unit
from engine.wb95.zoc import zoc_map

DESTROYED = "destroyed"
BUILT = "built"
NOTE = "bridge-note"  # the sealed kind of 14.3.2's note
DESTROY_COST = Fraction(1)  # 14.2.1
DESTROY_BIG_COST = Fraction(3)  # 14.3.1
REBUILD_COST = Fraction(3)  # 14.2.2
ARTILLERY = frozenset({"art", "sp-art"})


def key(a: HexId, b: HexId) -> str:
    x, y = hexside(a, b)
    return f"{x}/{y}"


def split(k: str) -> Hexside:
    a, b = k.split("/")
    return hexside(a, b)


def sites(state: GameState) -> list[str]:
    """Every bridge there is or was: printed ones (standing or not) and built ones."""
    keys = {key(a, b) for a, b in state.setup.map.bridges}
    keys.update(k for k, v in state.bridges.items() if v == BUILT)
    return sorted(keys)


def standing(state: GameState, a: HexId, b: HexId) -> bool:
    return hexside(a, b) in intact_bridges(state)


def big_river(state: GameState, a: HexId, b: HexId) -> bool:
    table = state.setup.table
    return any(
        table.hexsides[f].bridge_only for f in state.setup.map.features(a, b) if f in table.hexsides
    )


def mp_left(state: GameState, u: UnitState) -> Fraction:
    """The MPs a unit has left in this phase (3.1.5): what its move did not spend."""
    return max(available_mp(state, u) - u.mp_spent, Fraction(0))


def building(state: GameState, unit_id: str) -> dict[str, Any] | None:
    """The bridge work of an HQ building over a big river (14.3.4), or None."""
    for w in state.bridge_works:
        if w["hq"] == unit_id:
            return w
    return None


# --- control (14.1.3, K29) -------------------------------------------------------------------


def _presence(units: list[UnitState]) -> dict[HexId, set[str]]:
    out: dict[HexId, set[str]] = {}
    for u in units:
        if u.on_map and u.hex is not None:
            out.setdefault(u.hex, set()).add(u.side)
    return out


def _judge(
    k: str,
    prev: str | None,
    presence: Mapping[HexId, set[str]],
    control: Mapping[HexId, str],
) -> str | None:
    a, b = split(k)
    present = presence.get(a, set()) | presence.get(b, set())
    if len(present) == 1:
        return next(iter(present))  # alone at the bridge
    if present:
        return prev  # opposing units at the two ends: the first keeps it (E43)
    holders = {s for s in (control.get(a), control.get(b)) if s is not None}
    return holders.pop() if len(holders) == 1 else prev  # "analogous to other objectives"


@functools.lru_cache(maxsize=8)
def _initial(setup: Setup) -> dict[str, str | None]:
    units = {
        st.id: UnitState(
            id=st.id, side=setup.units[st.id].side, hex=st.hex, cel=st.cel, max_cel=st.cel
        )
        for st in setup.starts
    }
    control = setup.control if setup.control is not None else initial_control(setup, units)
    presence = _presence(list(units.values()))
    return {key(a, b): _judge(key(a, b), None, presence, control) for a, b in setup.map.bridges}


def controller(state: GameState, k: str) -> str | None:
    """The side controlling the bridge `k` ("AAAA/BBBB"), or None (14.1.3, K29)."""
    if k in state.bridge_control:
        return state.bridge_control[k]
    return _initial(state.setup).get(k)


@after_input
def update_control(ctx: Ctx) -> None:
    """Bring bridge control up to date with the units at the ends (14.1.3, K29)."""
    state = ctx.state
    presence = _presence(state.on_map())
    changes: dict[str, str | None] = {}
    for k in sites(state):
        prev = controller(state, k)
        new = _judge(k, prev, presence, state.control)
        if new != prev:
            changes[k] = new
    if changes:
        ctx.emit("bridge_control_changed", changes=changes, rule="14.1.3")


# --- destroying (14.1.4, 14.2.1, 14.3.1) -----------------------------------------------------


def destroy(
    ctx: Ctx, hexside: str | tuple[HexId, HexId], cause: str, rule: str, *, by: str | None = None
) -> bool:
    """Destroy the bridge on `hexside` ("AAAA/BBBB" or a pair of hexes) for an attack on
    objects -- artillery 6.4.7, air 8.2.8-8.2.10, after the ATTACK ON OBJECTS result; `cause`
    says what destroyed it, `rule` the case, `by` the attacking side. Returns False when no
    bridge stands there (nothing happens)."""
    a, b = hexside.split("/") if isinstance(hexside, str) else hexside
    if not standing(ctx.state, a, b):
        return False
    ctx.emit(
        "bridge_destroyed",
        hexside=key(a, b),
        side=by,
        unit=None,
        cost=None,
        cause=cause,
        rule=rule,
    )
    return True


def _destroy_order(ctx: Ctx, side: str, a: HexId, b: HexId, named: str | None) -> None:
    state = ctx.state
    m = state.setup.map
    k = key(a, b)
    if not standing(state, a, b):
        raise Rejected(f"no bridge stands between {m.label(a)} and {m.label(b)}", "14.1.2")
    holder = controller(state, k)
    if holder != side:
        who = f"{holder} controls it" if holder else "nobody controls it"
        raise Rejected(f"the bridge {k} is not yours to destroy: {who}", "14.1.4", "K29")
    big = big_river(state, a, b)
    cost = DESTROY_BIG_COST if big else DESTROY_COST
    rule = "14.3.1" if big else "14.2.1"

    def why_not(u: UnitState) -> str | None:
        spec = state.setup.units[u.id]
        if u.hex not in (a, b):
            return f"{u.id} is not at either end of the bridge"
        if not (is_regular(spec) or spec.is_hq):
            return f"{u.id} is neither a regular unit nor an HQ"
        if u.strategic:
            return f"{u.id} is marked for strategic movement"
        if building(state, u.id) is not None:
            return f"{u.id} is building a bridge"
        left = mp_left(state, u)
        if left < cost:
            return f"{u.id} has {fmt_mp(left)} MP left and destroying costs {fmt_mp(cost)}"
        return None

    unit = _pick(state, side, named, (a, b), why_not, rule)
    ctx.emit(
        "bridge_destroyed",
        hexside=k,
        side=side,
        unit=unit.id,
        cost=str(cost),
        cause=f"blown by {unit.id}",
        rule=rule,
    )


def _pick(
    state: GameState,
    side: str,
    named: str | None,
    ends: tuple[HexId, HexId],
    why_not: Any,
    rule: str,
) -> UnitState:
    """The named unit, or the first able unit of `side` at the ends (K30: one that has
    already moved first)."""
    if named is not None:
        u = find_unit(state, named)
        if u.side != side:
            raise Rejected(f"{u.id} is not yours: it belongs to {u.side}")
        if not u.on_map:
            raise Rejected(f"{u.id} is not on the map")
        why = why_not(u)
        if why is not None:
            raise Rejected(why, rule, "K30")
        return u
    here = sorted(
        (u for u in state.on_map(side) if u.hex in ends), key=lambda u: (not u.moved, u.id)
    )
    if not here:
        raise Rejected(f"no unit of yours stands at {ends[0]} or {ends[1]}", rule)
    for u in here:
        if why_not(u) is None:
            return u
    reasons = "; ".join(str(why_not(u)) for u in here)
    raise Rejected(f"none of your units at the bridge can do it: {reasons}", rule, "K30")


# --- rebuilding over rivers and streams (14.2.2, 14.2.3) ------------------------------------


def _rebuild_order(ctx: Ctx, side: str, a: HexId, b: HexId, named: str | None) -> None:
    state = ctx.state
    m = state.setup.map
    k = key(a, b)
    if hexside(a, b) not in m.bridges:
        raise Rejected(
            f"no bridge is printed between {m.label(a)} and {m.label(b)}: over rivers and "
            "streams only printed bridges are rebuilt",
            "14.2.3",
        )
    if standing(state, a, b):
        raise Rejected(f"the bridge {k} stands", "14.2.2")
    grid = m.grid
    hqs = [h for h in state.on_map(side) if state.setup.units[h.id].is_hq and h.hex]

    def why_not(u: UnitState) -> str | None:
        spec = state.setup.units[u.id]
        if u.hex not in (a, b):
            return f"{u.id} is not at either end of the bridge"
        if spec.type in ARTILLERY:
            return f"{u.id} is artillery"
        if not spec.is_hq and not any(
            h.hex and u.hex and grid.distance(u.hex, h.hex) <= hq_range(state, h) for h in hqs
        ):
            return f"{u.id} is not within range of a friendly HQ"
        if u.strategic:
            return f"{u.id} is marked for strategic movement"
        if building(state, u.id) is not None:
            return f"{u.id} is building a bridge"
        left = mp_left(state, u)
        if left < REBUILD_COST:
            return f"{u.id} has {fmt_mp(left)} MP left and rebuilding costs {fmt_mp(REBUILD_COST)}"
        return None

    unit = _pick(state, side, named, (a, b), why_not, "14.2.2")
    ctx.emit(
        "bridge_rebuilt", hexside=k, side=side, unit=unit.id, cost=str(REBUILD_COST), rule="14.2.2"
    )


# --- building over big rivers (14.3.2-14.3.4) ---------------------------------------------


def movement_index(state: GameState, side: str) -> int:
    return phase_index("movement", side, state.setup.side_names)


def retreated_since_supply(state: GameState, u: UnitState) -> bool:
    """Whether `u` retreated after its side's last Supply Phase (14.3.2: the HQ must be on
    the bank at the end of it)."""
    if u.retreated_turn is None:
        return False
    supply = phase_index("supply", u.side, state.setup.side_names)
    last = (state.turn - 1, supply) if state.phase <= supply else (state.turn, supply)
    if u.retreated_phase is None:
        return u.retreated_turn >= last[0]
    return (u.retreated_turn, u.retreated_phase) > last


def far_hex_held(state: GameState, side: str, near: HexId, far: HexId) -> str | None:
    """Why the far hex is not held by `side` (14.3.2: "not in enemy ZoC or friendly
    regular unit on both hexes", and no enemy unit in it), or None (K31)."""
    enemy = state.setup.enemy_of(side)
    label = state.setup.map.label(far)
    if any(u.side == enemy for u in state.units_at(far)):
        return f"enemy units stand in {label}"
    if zoc_map(state, enemy).get(far):
        both = all(
            any(u.side == side and is_regular(state.setup.units[u.id]) for u in state.units_at(h))
            for h in (near, far)
        )
        if not both:
            return f"{label} is in enemy ZoC and friendly regular units do not hold both hexes"
    return None


def _declare_order(ctx: Ctx, side: str, a: HexId, b: HexId, named: str | None) -> None:
    state = ctx.state
    k = key(a, b)
    if named is None:
        raise Rejected("name the HQ that builds: bridge build HQ A/B", "14.3.2")
    u = find_unit(state, named)
    spec = state.setup.units[u.id]
    if u.side != side:
        raise Rejected(f"{u.id} is not yours: it belongs to {u.side}")
    if not spec.is_hq:
        raise Rejected(f"only an HQ builds a bridge over a big river; {u.id} is not one", "14.3.2")
    if not u.on_map or u.hex not in (a, b):
        raise Rejected(f"{u.id} must stand at {a} or {b}, on the river's bank", "14.3.2")
    if standing(state, a, b):
        raise Rejected(f"the bridge {k} stands", "14.3.2")
    if building(state, u.id) is not None:
        raise Rejected(f"{u.id} is already building a bridge", "14.3.3", "K31")
    if any(x["item"]["hexside"] == k for x in sealed.items(state, side=side, kind=NOTE)):
        raise Rejected(f"another HQ of yours is building the bridge {k}", "14.3.3", "K31")
    if u.moved or u.mp_spent > 0:
        raise Rejected(f"{u.id} has moved this phase: building uses all its MPs", "14.3.2", "K31")
    if u.strategic:
        raise Rejected(f"{u.id} is marked for strategic movement", "12.1.2")
    if retreated_since_supply(state, u):
        raise Rejected(
            f"{u.id} was not on the bank at the end of your last Supply Phase: it retreated since",
            "14.3.2",
            "K31",
        )
    assert u.hex is not None
    far = b if u.hex == a else a
    why = far_hex_held(state, side, u.hex, far)
    if why is not None:
        raise Rejected(f"the far bank is not held: {why}", "14.3.2", "K31")
    note = sealed.submit(
        ctx,
        side,
        NOTE,
        {"hq": u.id, "hexside": k, "held": True, "why": None},
        group=f"bridge:{u.id}:{state.turn}",
        reveal="explicit",
    )
    ctx.emit(
        "bridge_building_declared",
        side=side,
        hq=u.id,
        hex=u.hex,
        turn=state.turn,
        note=note,
        mp=str(available_mp(state, u)),
        rule="14.3.2",
    )


@handles(o.Bridge)
def do_bridge(ctx: Ctx, side: str, order: o.Bridge) -> None:
    """`bridge destroy A/B [UNIT]`, `bridge build UNIT A/B` (14.0; K30, K31)."""
    state = ctx.state
    if flow.current_phase(state).kind != "movement":
        raise Rejected(
            "bridges are destroyed and built in the Movement Phase; "
            f"it is {flow.phase_title(state)}",
            "14.2.1" if order.action == "destroy" else "14.3.2",
            "K30",
        )
    try:
        a, b = (normalize(h) for h in order.hexside)
    except HexIdError as e:
        raise Rejected(str(e)) from None
    grid = state.setup.map.grid
    for h in (a, b):
        if not grid.contains(h):
            raise Rejected(f"{h} is not on the map", "1.1")
    if not grid.adjacent(a, b):
        raise Rejected(f"{a} and {b} are not adjacent: a bridge lies on a hexside", "14.1.1")
    if order.action == "destroy":
        _destroy_order(ctx, side, a, b, order.hq)
    elif big_river(state, a, b):
        _declare_order(ctx, side, a, b, order.hq)
    else:
        _rebuild_order(ctx, side, a, b, order.hq)


def _settle(ctx: Ctx, w: dict[str, Any], held: bool, why: str | None) -> None:
    """Reveal the note: the bridge stands, or the building failed (14.3.2)."""
    items = sealed.reveal(ctx, f"bridge:{w['hq']}:{w['turn']}", "the bridge building is settled")
    k = str(items[0]["item"]["hexside"]) if items else ""
    if held:
        ctx.emit("bridge_built", hexside=k, side=w["side"], hq=w["hq"], rule="14.3.2")
        ctx.emit("bridge_work_updated", hq=w["hq"], stage="finishing", rule="14.3.2")
    else:
        ctx.emit(
            "bridge_building_failed",
            hexside=k,
            side=w["side"],
            hq=w["hq"],
            reason=why or "",
            rule="14.3.2",
        )
        ctx.emit("bridge_work_ended", hq=w["hq"])


@flow.at_phase_end
def _phase_end(ctx: Ctx) -> None:
    """Every phase end: the building HQ's far bank is checked and the note brought up to
    date, whatever the answer (K27, K31); the note is settled as the phase before the
    side's Movement Phase of the next turn ends; the finished work ends with that Movement
    Phase. Bridge control is brought up to date (K29)."""
    state = ctx.state
    for w in [dict(x) for x in state.bridge_works]:
        if w["stage"] == "finishing":
            ctx.emit("bridge_work_ended", hq=w["hq"])
            continue
        hq = ctx.state.units.get(w["hq"])
        if hq is None or not hq.on_map or hq.hex != w["hex"]:
            _settle(ctx, w, False, f"the HQ {w['hq']} was eliminated")
            continue
        entry = sealed.find(ctx.state, int(w["note"]))
        assert entry is not None
        item = dict(entry["item"])
        a, b = split(str(item["hexside"]))
        far = b if w["hex"] == a else a
        why = far_hex_held(ctx.state, w["side"], w["hex"], far) if item["held"] else item["why"]
        item.update(held=why is None, why=why)
        sealed.amend(ctx, int(w["note"]), item)
        if (
            ctx.state.turn == w["turn"] + 1
            and ctx.state.phase == movement_index(ctx.state, w["side"]) - 1
        ):
            _settle(ctx, w, why is None, why)
    update_control(ctx)


# --- what a viewer sees --------------------------------------------------------------------


def public_view(state: GameState, viewer: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The bridges (standing or not, controller) and the bridge works as `viewer` sees
    them: the hexside of a work under way only for its side and the moderator (K27)."""
    standing_now = intact_bridges(state)
    bridges = {
        k: {
            "intact": split(k) in standing_now,
            "printed": split(k) in state.setup.map.bridges,
            "controller": controller(state, k),
        }
        for k in sites(state)
    }
    works = []
    for w in state.bridge_works:
        out = {"hq": w["hq"], "side": w["side"], "hex": w["hex"], "stage": w["stage"]}
        entry = sealed.find(state, int(w["note"]))
        if viewer in ("moderator", w["side"]) and entry is not None:
            out["hexside"] = entry["item"]["hexside"]
        works.append(out)
    return bridges, works


# --- reducers ------------------------------------------------------------------------------


@on("bridge_control_changed")
def _bridge_control_changed(state: GameState, e: Event) -> None:
    for k, side in e.data["changes"].items():
        state.bridge_control[k] = side


def _spend(state: GameState, e: Event) -> None:
    uid = e.data.get("unit")
    if uid:
        u = state.units[uid]
        u.mp_spent += Fraction(e.data["cost"])
        u.moved = True  # K30: the work ends its movement for the phase


@on("bridge_destroyed")
def _bridge_destroyed(state: GameState, e: Event) -> None:
    k = str(e.data["hexside"])
    if split(k) in state.setup.map.bridges:
        state.bridges[k] = DESTROYED
    else:
        state.bridges.pop(k, None)
    _spend(state, e)


@on("bridge_rebuilt")
def _bridge_rebuilt(state: GameState, e: Event) -> None:
    state.bridges.pop(str(e.data["hexside"]), None)
    _spend(state, e)


@on("bridge_built")
def _bridge_built(state: GameState, e: Event) -> None:
    k = str(e.data["hexside"])
    if split(k) in state.setup.map.bridges:
        state.bridges.pop(k, None)
    else:
        state.bridges[k] = BUILT


@on("bridge_building_declared")
def _bridge_building_declared(state: GameState, e: Event) -> None:
    state.bridge_works.append(
        {
            "hq": e.data["hq"],
            "side": e.data["side"],
            "hex": e.data["hex"],
            "turn": int(e.data["turn"]),
            "note": int(e.data["note"]),
            "stage": "building",
        }
    )
    state.units[e.data["hq"]].mp_spent = Fraction(e.data["mp"])  # 14.3.2: all its MPs


@on("bridge_work_updated")
def _bridge_work_updated(state: GameState, e: Event) -> None:
    for w in state.bridge_works:
        if w["hq"] == e.data["hq"]:
            w["stage"] = str(e.data["stage"])


@on("bridge_work_ended")
def _bridge_work_ended(state: GameState, e: Event) -> None:
    state.bridge_works = [w for w in state.bridge_works if w["hq"] != e.data["hq"]]


@on("bridge_building_failed")
def _bridge_building_failed(state: GameState, e: Event) -> None:
    """Only reports: the work ends with `bridge_work_ended`."""

"""6.0 Artillery: setup (6.2), support fire (6.3), ranged attacks (6.4), barrage (6.5);
direct combat (6.6) is counted in `engine.wb95.combat`, overrunning towed guns (6.1.7) in
`engine.wb95.overrun`.

- Towed artillery (`art`) is in combat or transport setup (6.2.2); self-propelled artillery
  (`sp-art`) is always ready to fire and moves like any mechanized unit (6.6.5, K20).
  `setup UNITS combat|transport` changes the setup in the side's Movement Phase for 1 MP of
  the unit's move in that phase, before or after it moves (6.2.4, K54); only transport
  setup moves (6.2.3, `engine.wb95.movement.can_move`).
- Every artillery unit in combat setup fires once per Combat Phase (6.1.3, 6.1.4): by
  supporting a combat, a ranged attack or fire at a bridge; in the enemy's Combat Phase only
  by supporting the defence (R21). Range is 3 hexes (6.1.2, R18).
- Support (6.3, K46) is a `combat.SupportKind`: `attack ... support UNITS` and
  `defend support UNITS`. Support from a hex next to the enemy in that combat shares its
  results (6.3.5, 5.6.3, E17); from farther it suffers nothing (6.3.4). Defensive support
  needs a regular unit among the defenders (6.3.1, 6.6.1, E23). Disorganized artillery
  supports at half (5.6.4, 6.4.6, E21). Supporting organic artillery counts for tactical
  concentration (13.1.5, K50).
- Ranged attack (6.4, K51): `fire UNITS -> HEX` at enemy units 2-3 hexes from every
  firing unit (6.4.2 a, 6.4.3): their attack SPs less twice the terrain CMs of the target
  hex on the ARTILLERY FIRE table (6.4.2, R7); the target's owner allocates CEL losses
  (`results.start_fire_results`). The units there cannot be attacked directly in that
  phase, and units that must be attacked cannot be fired at (6.4.5, K26).
- Fire at a bridge (6.4.7, K52): `fire UNITS -> A/B`, the bridge within 3 hexes of every
  firing unit (adjacent too), no terrain, ATTACK ON OBJECTS; a `D` destroys it
  (`bridges.destroy`).
- Barrage (6.5, K53): `barrage UNITS -> HEX` in the side's Barrage Phase of a turn the
  scenario allows (`barrage:`), at least 2 units, 1 Ammo Unit each (6.5.7, E22), as a
  ranged attack with the SPs doubled (6.5.3). The units cannot move in that turn's Movement
  Phase (6.5.5) nor support in the next 2 Combat Phases (6.5.6).

`fire_on_hex` is the ranged-fire procedure for any source of SPs (the air attacks of 8.2
use it with the AIR ATTACK table); `FIRE_SUPPORT` lets air join a ranged attack (6.4.4).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, HexIdError, normalize
from engine.state import GameState, UnitState
from engine.wb95 import bridges, flow
from engine.wb95.combat import (
    Engagement,
    Support,
    SupportKind,
    Who,
    mandatory_outstanding,
    register_support,
    terrain_cms,
)
from engine.wb95.crt import FireTable, fire_lookup
from engine.wb95.dispatch import handles
from engine.wb95.movement import fmt_mp
from engine.wb95.reducer import on
from engine.wb95.regular import is_regular
from engine.wb95.results import start_fire_results
from engine.wb95.sequence import PHASES
from engine.wb95.strength import strength
from engine.wb95.units import Why, own_units

RANGE = flow.ARTILLERY_RANGE  # 6.1.2
SETUP_COST = Fraction(1)  # 6.2.4
BARRAGE_MIN_UNITS = 2  # 6.5.4
BARRAGE_FACTOR = 2  # 6.5.3
TERRAIN_FACTOR = 2  # 6.4.2 b: doubled terrain modifier
SUPPORT_BAN = 2  # 6.5.6: Combat Phases without support after a barrage
ARTILLERY = frozenset({"art", "sp-art"})


# --- who may fire ----------------------------------------------------------------------------


def is_artillery(state: GameState, u: UnitState) -> bool:
    return state.setup.units[u.id].type in ARTILLERY


def ready(state: GameState, u: UnitState) -> bool:
    """In combat setup: towed artillery not in transport setup; self-propelled always."""
    return state.setup.units[u.id].type == "sp-art" or u.setup != "transport"


def now(state: GameState) -> tuple[int, int]:
    return (state.turn, state.phase)


def has_fired(state: GameState, u: UnitState) -> bool:
    return u.fired_at == now(state)


def _position(turn: int, phase: int) -> int:
    return turn * len(PHASES) + phase


def barrage_ban(state: GameState, u: UnitState) -> bool:
    """6.5.6: the unit fired a barrage and this is one of the 2 Combat Phases after it."""
    if u.barrage_at is None:
        return False
    start, here = _position(*u.barrage_at), _position(*now(state))
    combats = sum(1 for x in range(start + 1, here + 1) if PHASES[x % len(PHASES)].kind == "combat")
    return PHASES[state.phase].kind == "combat" and 1 <= combats <= SUPPORT_BAN


def why_cannot_fire(state: GameState, u: UnitState) -> Why | None:
    """Why `u` cannot fire now (support, ranged fire or barrage), or None."""
    if not is_artillery(state, u):
        return ("it is not artillery", "6.1.1")
    if not ready(state, u):
        return ("it is in transport setup: artillery fires only in combat setup", "6.1.3")
    if has_fired(state, u):
        return ("it has already fired in this phase", "6.1.4")
    return None


# --- support fire (6.3, 6.6.1, 6.6.2) ------------------------------------------------------


def _regular_defenders(state: GameState, eng: Engagement) -> bool:
    return any(is_regular(state.setup.units[d]) for d in eng.defenders)


def why_not_support(state: GameState, eng: Engagement, who: Who, u: UnitState) -> Why | None:
    """Why `u` cannot support `who` in this combat, or None (6.3.1-6.3.3, 6.6.1, 6.5.6)."""
    why = why_cannot_fire(state, u)
    if why is not None:
        return why
    if u.fought:
        return ("it has fought in this Combat Phase", "5.1.1")
    if barrage_ban(state, u):
        return ("it fired a barrage and cannot support in the next 2 Combat Phases", "6.5.6")
    assert u.hex is not None
    if u.id in eng.defenders:
        if state.setup.units[u.id].type == "sp-art":
            return ("it defends with its own defence SPs", "6.6.5")
        mates = [state.units[d] for d in eng.defenders if state.units[d].hex == u.hex]
        if not any(is_regular(state.setup.units[x.id]) for x in mates):
            return (
                "attacked directly, artillery supports only when stacked with a regular unit",
                "6.6.1",
            )
    grid = state.setup.map.grid
    if min(grid.distance(u.hex, h) for h in eng.hexes(who)) > RANGE:
        where = "attacking" if who == "attacker" else "defending"
        return (
            f"it is more than {RANGE} hexes from every {where} hex",
            "6.3.2" if who == "attacker" else "6.3.3",
        )
    return None


def _declare(state: GameState, eng: Engagement, who: Who, refs: tuple[str, ...]) -> list[str]:
    if not refs:
        return []
    if who == "defender" and not _regular_defenders(state, eng):
        raise Rejected(
            "artillery supports regular units: no regular unit defends in this combat", "6.3.1"
        )
    side = eng.owner(who)
    units = own_units(
        state, side, refs, lambda u: why_not_support(state, eng, who, u), "support this combat"
    )
    return [u.id for u in units]


def _offer(state: GameState, eng: Engagement, who: Who) -> list[str]:
    if who == "defender" and not _regular_defenders(state, eng):
        return []
    return sorted(
        u.id
        for u in state.on_map(eng.owner(who))
        if is_artillery(state, u) and why_not_support(state, eng, who, u) is None
    )


def _contributions(state: GameState, eng: Engagement, who: Who, ids: list[str]) -> list[Support]:
    grid = state.setup.map.grid
    out: list[Support] = []
    for uid in ids:
        u = state.units[uid]
        assert u.hex is not None
        st = strength(state, u, attacking=who == "attacker")
        near = u.id in eng.defenders or any(grid.adjacent(u.hex, h) for h in eng.enemy_hexes(who))
        if near:
            why = f"{st.why}; next to the enemy, it shares the results (6.3.5)"
        else:
            why = f"{st.why}; not next to the enemy, no combat results (6.3.4)"
        rule = "6.3.1, 6.6.1" if u.id in eng.defenders else "6.3.1"
        out.append(Support(u.id, "artillery", st.sp, why, rule, unit=u.id, takes_effects=near))
    return out


ARTILLERY_SUPPORT = register_support(
    SupportKind(
        name="artillery",
        part="support",
        declare=_declare,
        offer=_offer,
        contributions=_contributions,
    )
)


# --- setup (6.2) ---------------------------------------------------------------------------


def why_no_setup(state: GameState, u: UnitState, mode: str) -> Why | None:
    spec = state.setup.units[u.id]
    if spec.type == "sp-art":
        return ("self-propelled artillery has no setup to change", "6.6.5")
    if spec.type != "art":
        return ("only towed artillery has a combat and a transport setup", "6.2.2")
    if u.setup == mode:
        return (f"it is already in {mode} setup", "6.2.2")
    if any(w["hq"] == u.id for w in state.bridge_works):
        return ("it is building a bridge", "14.3.4")
    left = bridges.mp_left(state, u)
    if left < SETUP_COST:
        return (
            f"it has {fmt_mp(left)} MP left and a setup change costs {fmt_mp(SETUP_COST)}",
            "6.2.4",
        )
    return None


@handles(o.SetupChange)
def do_setup(ctx: Ctx, side: str, order: o.SetupChange) -> None:
    """6.2.4: change setup in the Movement Phase for 1 MP (K54)."""
    state = ctx.state
    if flow.current_phase(state).kind != "movement":
        raise Rejected(
            f"artillery changes setup in the Movement Phase; it is {flow.phase_title(state)}",
            "6.2.4",
        )
    units = own_units(
        state, side, order.units, lambda u: why_no_setup(state, u, order.mode), "change setup"
    )
    for u in units:
        ctx.emit(
            "setup_changed",
            unit=u.id,
            side=side,
            hex=u.hex,
            **{"from": u.setup},
            to=order.mode,
            cost=str(SETUP_COST),
            rule="6.2.4",
        )


# --- ranged fire (6.4), fire at objects (6.4.7), barrage (6.5) --------------------------------

FireSupport = Callable[[GameState, str, HexId], list[Support]]
FIRE_SUPPORT: list[FireSupport] = []


def fire_support(fn: FireSupport) -> FireSupport:
    """Register SPs that join a side's ranged attack on a hex (6.4.4: air units)."""
    FIRE_SUPPORT.append(fn)
    return fn


FireRowShift = Callable[[GameState, str, HexId, list[Support]], tuple[int, str]]
FIRE_ROW_SHIFTS: list[FireRowShift] = []


def fire_row_shift(fn: FireRowShift) -> FireRowShift:
    """Register rows a side's ranged attack reads further down the table, with why (a
    white-star air counter joining it, Kursk 21.1.1)."""
    FIRE_ROW_SHIFTS.append(fn)
    return fn


def _lines(sources: list[Support]) -> list[dict[str, object]]:
    return [
        {"source": s.source, "kind": s.kind, "unit": s.unit, "sp": s.sp, "why": s.why}
        for s in sources
    ]


def _sources(state: GameState, units: list[UnitState], factor: int = 1) -> list[Support]:
    out: list[Support] = []
    for u in units:
        st = strength(state, u, attacking=True)  # 6.4.1: offensive SPs
        sp, why = st.sp, st.why
        if factor != 1:
            sp, why = sp * factor, f"{why}, doubled {sp * factor} (6.5.3)"
        out.append(Support(u.id, "artillery", sp, why, "6.4.1", unit=u.id))
    return out


def fire_on_hex(
    ctx: Ctx,
    side: str,
    target: HexId,
    sources: list[Support],
    table: FireTable,
    mode: str,
    rule: str,
    *,
    immune: bool = False,
    row_shift: int = 0,
    shift_why: str = "",
) -> None:
    """6.4.2 (b)-(d): total the SPs, less twice the terrain CMs of the target hex, roll 2K6
    and read `table`; then apply the result to the enemy units in `target` (R7: 0 SPs or
    fewer have no effect, the fire is still spent). `immune`: the units fired at cannot be
    attacked directly in this Combat Phase (6.4.5). `row_shift`: read that many rows
    further down the table, for `shift_why` (a white-star air counter, Kursk 21.1.1). The
    event `fire_resolved` marks the firing units as having fired (6.1.4), and for `mode`
    "barrage" spends their AUs."""
    state = ctx.state
    total = sum(s.sp for s in sources)
    cms = terrain_cms(state, target)
    used = total - TERRAIN_FACTOR * cms
    explanation = [f"{s.source}: {s.sp} ({s.why})" for s in sources]
    explanation.append(
        f"{total} SPs less twice the {cms} terrain CM(s) of {target}: {used} (6.4.2 b)"
    )
    faces = ctx.roll(2, f"{mode} fire at {target} ({rule})")
    roll = sum(faces)
    result = fire_lookup(table, used, roll, row_shift)
    if result is None:
        explanation.append(f"{used} SPs: no effect (R7)")
    elif row_shift:
        explanation.append(f"{row_shift} row(s) further down the table: {shift_why}")
    ctx.emit(
        "fire_resolved",
        side=side,
        mode=mode,
        target=target,
        sources=_lines(sources),
        sp=total,
        terrain_cms=cms,
        used=used,
        table=table.name,
        dice=faces,
        roll=roll,
        result=None if result is None else result.text,
        immune=immune,
        explanation=explanation,
        rule=rule,
    )
    if result is not None and not result.nothing:
        firers = [s.unit for s in sources if s.unit]
        start_fire_results(ctx, side, firers, target, result)


def _target_hex(state: GameState, side: str, raw: str) -> HexId:
    try:
        h = normalize(raw)
    except HexIdError as e:
        raise Rejected(str(e)) from None
    m = state.setup.map
    if not m.grid.contains(h):
        raise Rejected(f"{h} is not on the map", "1.1")
    enemy = state.setup.enemy_of(side)
    if not any(u.side == enemy for u in state.units_at(h)):
        raise Rejected(f"there are no enemy units in {m.label(h)} to fire at", "6.4.1")
    return h


def _in_reach(state: GameState, units: list[UnitState], target: HexId) -> None:
    """6.4.2 a, 6.4.3: the target within 3 hexes of every firing unit, none adjacent."""
    grid = state.setup.map.grid
    for u in units:
        assert u.hex is not None
        d = grid.distance(u.hex, target)
        if d > RANGE:
            raise Rejected(
                f"{target} is {d} hexes from {u.id}: the range is {RANGE}", "6.4.2", "R18"
            )
        if d <= 1:
            raise Rejected(
                f"{u.id} at {u.hex} is next to {target}: a ranged attack cannot be made on an "
                "adjacent hex",
                "6.4.3",
            )


@handles(o.Fire)
def do_fire(ctx: Ctx, side: str, order: o.Fire) -> None:
    """6.4: a ranged attack on a hex, or fire at a bridge (6.4.7)."""
    state = ctx.state
    if flow.current_phase(state).kind != "combat":
        raise Rejected(
            f"artillery fires in the Combat Phase; it is {flow.phase_title(state)}", "6.1.4"
        )
    if side not in flow.acting_sides(state):
        raise Rejected(
            "in the enemy's Combat Phase artillery only supports the defence", "6.1.4", "R21"
        )
    if state.combat is not None:
        raise Rejected("the current combat must be resolved first", "5.2.1")
    units = own_units(state, side, order.units, lambda u: why_cannot_fire(state, u), "fire")
    if "/" in order.target:
        _fire_at_bridge(ctx, side, units, order.target)
        return
    target = _target_hex(state, side, order.target)
    _in_reach(state, units, target)
    enemy = state.setup.enemy_of(side)
    here = {u.id for u in state.units_at(target) if u.side == enemy}
    if here & set(mandatory_outstanding(state, side)[1]):
        raise Rejected(
            f"the units in {target} must be attacked in this Combat Phase (5.1.4), so they "
            "cannot be the target of a ranged attack",
            "6.4.5",
            "K26",
        )
    sources = _sources(state, units)
    for extra in FIRE_SUPPORT:
        sources.extend(extra(state, side, target))
    table = state.setup.results.artillery_fire
    shift, why = 0, ""
    for rows in FIRE_ROW_SHIFTS:
        n, reason = rows(state, side, target, sources)
        if n:
            shift, why = shift + n, "; ".join(x for x in (why, reason) if x)
    fire_on_hex(
        ctx,
        side,
        target,
        sources,
        table,
        "ranged",
        "6.4.2",
        immune=True,
        row_shift=shift,
        shift_why=why,
    )


def _fire_at_bridge(ctx: Ctx, side: str, units: list[UnitState], raw: str) -> None:
    """6.4.7: fire at a bridge (14.1.1), also from next to it; no terrain; ATTACK ON
    OBJECTS (K52)."""
    state = ctx.state
    try:
        a, b = (normalize(h) for h in raw.split("/"))
    except (HexIdError, ValueError):
        raise Rejected(f"'{raw}' is not a hexside: write it as 1618/1619") from None
    grid = state.setup.map.grid
    for h in (a, b):
        if not grid.contains(h):
            raise Rejected(f"{h} is not on the map", "1.1")
    if not grid.adjacent(a, b):
        raise Rejected(f"{a} and {b} are not adjacent: a bridge lies on a hexside", "14.1.1")
    if not bridges.standing(state, a, b):
        raise Rejected(f"no bridge stands between {a} and {b}", "14.1.2")
    for u in units:
        assert u.hex is not None
        d = min(grid.distance(u.hex, a), grid.distance(u.hex, b))
        if d > RANGE:
            raise Rejected(
                f"the bridge {a}/{b} is {d} hexes from {u.id}: the range is {RANGE}", "6.4.7", "R18"
            )
    sources = _sources(state, units)
    names = ", ".join(u.id for u in units)
    fire_on_object(
        ctx,
        side,
        bridges.key(a, b),
        _lines(sources),
        sum(s.sp for s in sources),
        "6.4.7",
        f"artillery fire by {names}",
    )


def fire_on_object(
    ctx: Ctx,
    side: str,
    key: str,
    lines: list[dict[str, Any]],
    total: int,
    rule: str,
    cause: str,
) -> None:
    """An attack on a bridge on the ATTACK ON OBJECTS table, with no terrain (6.4.7,
    8.2.8-8.2.9): roll, report, and destroy the bridge on a `D`. Artillery and air alike."""
    faces = ctx.roll(2, f"attack on the bridge {key} ({rule})")
    roll = sum(faces)
    table = ctx.state.setup.results.attack_on_objects
    result = fire_lookup(table, total, roll)
    ctx.emit(
        "fire_resolved",
        side=side,
        mode="object",
        target=key,
        sources=lines,
        sp=total,
        terrain_cms=0,
        used=total,
        table=table.name,
        dice=faces,
        roll=roll,
        result=None if result is None else result.text,
        immune=False,
        explanation=[f"{x['source']}: {x['sp']} ({x['why']})" for x in lines]
        + [f"{total} SPs, no terrain ({rule})"],
        rule=rule,
    )
    if result is not None and result.destroyed:
        bridges.destroy(ctx, key, cause, rule.split(",")[0], by=side)


# --- barrage (6.5) -------------------------------------------------------------------------


def ammo_left(state: GameState, side: str) -> int | None:
    """Ammo Units `side` has left (6.5.7); None: the scenario sets no limit."""
    ammo = state.setup.ammo
    if ammo is None:
        return None
    return ammo.get(side, 0) - state.ammo_used.get(side, 0)


def barrage_turn(state: GameState) -> bool:
    turns = state.setup.barrage_turns
    return state.setup.barrage and (not turns or state.turn in turns)


@handles(o.Barrage)
def do_barrage(ctx: Ctx, side: str, order: o.Barrage) -> None:
    """6.5: a barrage on one hex in the side's Barrage Phase (K53)."""
    state = ctx.state
    if flow.current_phase(state).kind != "barrage":
        raise Rejected(
            f"a barrage is fired in the Barrage Phase; it is {flow.phase_title(state)}", "6.5.2"
        )
    if not barrage_turn(state):
        raise Rejected(f"the scenario does not allow barrage in turn {state.turn}", "6.5.1")
    units = own_units(state, side, order.units, lambda u: why_cannot_fire(state, u), "barrage")
    if len(units) < BARRAGE_MIN_UNITS:
        raise Rejected(
            f"a barrage on one hex needs at least {BARRAGE_MIN_UNITS} artillery units", "6.5.4"
        )
    left = ammo_left(state, side)
    if left is not None and left < len(units):
        raise Rejected(
            f"{side} has {left} Ammo Unit(s) left and this barrage needs {len(units)}", "6.5.7"
        )
    if "/" in order.target:
        raise Rejected(
            f"a barrage fires on the enemy units in one hex, not at objects: fire at the bridge "
            f"{order.target} with 'fire UNITS -> {order.target}' in your Combat Phase (6.4.7)",
            "6.5.4",
            "K79",
        )
    target = _target_hex(state, side, order.target)
    _in_reach(state, units, target)
    sources = _sources(state, units, BARRAGE_FACTOR)
    table = state.setup.results.artillery_fire
    fire_on_hex(ctx, side, target, sources, table, "barrage", "6.5.3")


@flow.barrage_check
def _no_barrage(state: GameState, side: str) -> str | None:
    """2.1.4, K13: skip a Barrage Phase in which `side` cannot fire a barrage."""
    if not barrage_turn(state):
        return f"the scenario does not allow barrage in turn {state.turn} (6.5.1)"
    left = ammo_left(state, side)
    if left is not None and left < BARRAGE_MIN_UNITS:
        return f"{side} has no Ammo Units for a barrage (6.5.7)"
    if not barrage_targets(state, side):
        return f"{side} has no {BARRAGE_MIN_UNITS} artillery units in range of one hex (6.5.4)"
    return None


def barrage_targets(state: GameState, side: str) -> dict[HexId, list[str]]:
    """Enemy hexes that at least 2 of `side`'s artillery units could barrage now, with
    those units."""
    grid = state.setup.map.grid
    enemy_hexes = {u.hex for u in state.on_map(state.setup.enemy_of(side)) if u.hex}
    able = [u for u in state.on_map(side) if why_cannot_fire(state, u) is None]
    out: dict[HexId, list[str]] = {}
    for h in sorted(enemy_hexes):
        near = [u.id for u in able if u.hex and 1 < grid.distance(u.hex, h) <= RANGE]
        if len(near) >= BARRAGE_MIN_UNITS:
            out[h] = sorted(near)
    return out


def fire_targets(state: GameState, side: str) -> dict[HexId, list[str]]:
    """Enemy hexes `side`'s artillery may fire at now (6.4), with the units that can."""
    grid = state.setup.map.grid
    enemy = state.setup.enemy_of(side)
    must = set(mandatory_outstanding(state, side)[1])
    able = [u for u in state.on_map(side) if why_cannot_fire(state, u) is None]
    out: dict[HexId, list[str]] = {}
    for h in sorted({u.hex for u in state.on_map(enemy) if u.hex}):
        if any(u.id in must for u in state.units_at(h)):
            continue
        near = [u.id for u in able if u.hex and 1 < grid.distance(u.hex, h) <= RANGE]
        if near:
            out[h] = sorted(near)
    return out


def support_candidates(state: GameState, eng: Engagement, who: Who) -> list[str]:
    """The artillery that could support `who` in a combat (6.3), for previews."""
    return _offer(state, eng, who)


# --- events --------------------------------------------------------------------------------


@on("setup_changed")
def _setup_changed(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.setup = str(e.data["to"])
    u.mp_spent += Fraction(e.data["cost"])


@on("fire_resolved")
def _fire_resolved(state: GameState, e: Event) -> None:
    at = now(state)
    side = str(e.data["side"])
    fired = [state.units[x["unit"]] for x in e.data["sources"] if x.get("unit")]
    for u in fired:
        u.fired_at = at
        u.mark_active(*at)
        if e.data["mode"] == "barrage":
            u.barrage_at = at
    if e.data["mode"] == "barrage":
        state.ammo_used[side] = state.ammo_used.get(side, 0) + len(fired)
    if e.data["mode"] != "object":
        for u in state.units_at(str(e.data["target"])):
            if u.side != side:
                u.mark_active(*at)  # it was attacked (R22, K36)
                if e.data.get("immune"):
                    u.shelled_at = at  # 6.4.5

"""10.0 Supply: lines of supply (10.1), out of supply (10.2) and the Supply Phase (R8, R9).

Line of supply (10.1, docs/rulings.md K38-K41). A side's supply bases are the scenario's
sources (10.1.4): map edges, entry zones, hexes, named places and units (HQs). A line of
supply runs from a base to the unit's hex. Steps along a road (main or side road, data:
`SupplyTable.roads`) cost nothing (10.1.5); every other step costs the supply MPs a trucked
unit would pay for it (10.1.8: terrain, hexside crossings; swamps, mountains and big
rivers without a bridge are closed), from one pool per line: the nation's supply MPs
(10.1.7, data, K41). A step between two hexes that both hold friendly units costs nothing
(10.1.9). No hex of the line -- the base and the unit's own hex included -- may hold an
enemy unit or lie in enemy ZoC (10.1.10), where for this purpose every enemy unit but HQs
and artillery in transport setup has a ZoC and every town or city hex the enemy controls
has one too (10.1.11, K38), unless a friendly regular unit is in that hex. Units in fixed
positions are always supplied where the game has 7.3.7 (Korsun). One multi-source search
per side gives the least supply MPs to every hex; a unit is supplied when its hex is
reached within its nation's MPs.

Out of supply (10.2). The Supply Phase (R9): trace for every unit of the phasing side;
supplied units lose 4 levels, never below 0 (10.2.7); unsupplied units become level 1 or,
under option `oos_accumulates` (R8, default on), gain one level if already OoS; then each
unit at level 1 or more takes the surrender test (10.2.6: level - 2K6 > 0 surrenders and is
eliminated; at levels 1 and 2 it cannot surrender and no dice are rolled, K42); hex control
follows (`flow.run_supply_phase`, 4.3.4). OoS units move and attack at half (10.2.2,
`movement.available_mp`, `strength.strength`); paying a level buys full MPs for one move or
full strength for one attack (10.2.3, `move ... full`, `attack ... full`, K43); a Dx result
suffered or an attack without Dx costs a level (10.2.4, K44), at once (10.2.5).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, Hexside
from engine.model import UnitSpec
from engine.state import GameState, UnitState
from engine.wb95.elimination import eliminate
from engine.wb95.reducer import on
from engine.wb95.regular import is_regular
from engine.wb95.terrain import class_cost, impassable_terrain, intact_bridges, step_cost
from engine.wb95.units import find_unit

REGAINED = 4  # 10.2.7: levels lost by a unit that traces supply again
SURRENDER_DICE = 2  # 10.2.6: 2K6
MIN_SURRENDER_LEVEL = 3  # 10.2.6: level - 2K6 > 0 needs a level above the lowest roll, 2
TOWN_TERRAINS = frozenset({"town", "city"})  # 10.1.11: "enemy towns" (K38)

# A line of supply spends its MPs "analogously to trucked unit's movement" (10.1.8).
SUPPLY_TRUCK = UnitSpec(
    id="(line of supply)", name="line of supply", side="", nation="", type="mot", move="trucked"
)


# --- 10.1 tracing ------------------------------------------------------------------------------


def source_hexes(state: GameState, side: str) -> set[HexId]:
    """The hexes of `side`'s supply bases (10.1.4, K40)."""
    m = state.setup.map
    out: set[HexId] = set()
    for src in state.setup.sides[side].supply:
        if "edge" in src:
            out.update(m.edges.get(src["edge"], ()))
        elif "zone" in src:
            out.update(m.zones.get(src["zone"], ()))
        elif "hex" in src:
            out.add(src["hex"])
        elif "name" in src:
            out.update(h for h, n in m.names.items() if n == src["name"])
        elif "unit" in src:
            u = state.units.get(src["unit"])
            if u is not None and u.on_map and u.hex is not None:
                out.add(u.hex)
    return {h for h in out if m.grid.contains(h)}


def has_los_zoc(state: GameState, u: UnitState) -> bool:
    """10.1.11: for tracing supply every enemy unit has a ZoC except HQs and artillery in
    transport setup (6.1.5's exception: artillery in combat setup blocks supply lines)."""
    spec = state.setup.units[u.id]
    if spec.is_hq:
        return False
    return not (spec.type in ("art", "sp-art") and u.setup == "transport")


def _zoc_from(state: GameState, at: HexId, spec: UnitSpec | None) -> list[HexId]:
    """The hexes around `at` a ZoC reaches: not across a hexside that blocks ZoC (4.1.3,
    K11), nor, for a unit, into terrain impassable to it (4.1.4, R10)."""
    m, table = state.setup.map, state.setup.table
    out: list[HexId] = []
    for n in m.grid.neighbours(at):
        if any(table.hexsides[f].blocks_zoc for f in m.features(at, n) if f in table.hexsides):
            continue
        if spec is not None and impassable_terrain(table, m.terrain_of(n), spec):
            continue
        out.append(n)
    return out


@dataclass(frozen=True)
class Blocks:
    """Where `side`'s lines of supply may not pass (10.1.10, 10.1.11)."""

    enemy_units: frozenset[HexId]  # hexes holding enemy units
    enemy_zoc: frozenset[HexId]  # in the ZoC of an enemy unit, as 10.1.11 counts it
    enemy_towns: frozenset[HexId]  # enemy towns and the hexes around them (K38)
    friendly_regular: frozenset[HexId]  # hexes a friendly regular unit holds (10.1.10)
    friendly: frozenset[HexId]  # hexes holding any friendly unit (10.1.9)

    def blocked(self, h: HexId) -> bool:
        if h in self.enemy_units:
            return True
        if h in self.friendly_regular:
            return False
        return h in self.enemy_zoc or h in self.enemy_towns


def blocks(state: GameState, side: str) -> Blocks:
    setup = state.setup
    enemy = setup.enemy_of(side)
    units: set[HexId] = set()
    zoc: set[HexId] = set()
    for e in state.on_map(enemy):
        assert e.hex is not None
        units.add(e.hex)
        if has_los_zoc(state, e):
            zoc.update(_zoc_from(state, e.hex, setup.units[e.id]))
    towns: set[HexId] = set()
    for h, holder in state.control.items():
        if holder == enemy and setup.map.terrain_of(h) in TOWN_TERRAINS:
            towns.add(h)  # K38: the town hex itself and its ZoC
            towns.update(_zoc_from(state, h, None))
    friendly: set[HexId] = set()
    regular: set[HexId] = set()
    for u in state.on_map(side):
        assert u.hex is not None
        friendly.add(u.hex)
        if is_regular(setup.units[u.id]):
            regular.add(u.hex)
    return Blocks(
        frozenset(units), frozenset(zoc), frozenset(towns), frozenset(regular), frozenset(friendly)
    )


def step_supply_mp(
    state: GameState,
    b: Blocks,
    a: HexId,
    n: HexId,
    bridges: AbstractSet[Hexside] | None = None,
) -> Fraction | None:
    """Supply MPs a line spends on the step a -> n (None: it cannot be made). Along a road
    of `SupplyTable.roads` only a river crossed without a bridge costs (10.1.5, K2, K39);
    between two hexes holding friendly units nothing (10.1.9); otherwise what a trucked unit
    pays (10.1.8). `bridges`: the bridges standing (14.0; default: `intact_bridges`)."""
    setup = state.setup
    m, table = setup.map, setup.table
    if bridges is None:
        bridges = intact_bridges(state)
    sc = step_cost(m, table, SUPPLY_TRUCK, a, n, bridges=bridges)
    if sc.cost is None:
        return None
    if a in b.friendly and n in b.friendly:
        return Fraction(0)
    if sc.road is not None and m.road_kinds(a, n) & setup.supply_table.roads:
        road_cost = class_cost(table.roads[sc.road].cost, SUPPLY_TRUCK)
        return sc.cost - (road_cost or Fraction(0))
    return sc.cost


def supply_mp(state: GameState, u: UnitState) -> int:
    """10.1.7: the off-road supply MPs of the unit's nation (data)."""
    return state.setup.supply_table.mp.get(state.setup.units[u.id].nation, 0)


# Supply MPs are searched as whole multiples of 1/SCALE MP: integer sums and comparisons
# are far cheaper than Fractions, and exact. Every MP fraction of the tables divides it
# (halves, thirds, quarters ...); a cost that does not makes the search run on Fractions.
SCALE = 2520  # lcm(1..10)


class _Inexact(Exception):
    pass


def _scaled(f: Fraction | int) -> int:
    if SCALE % f.denominator:
        raise _Inexact
    return f.numerator * (SCALE // f.denominator)


def supply_costs(
    state: GameState, side: str, limit: Fraction | None = None
) -> dict[HexId, Fraction]:
    """The least supply MPs with which a line of `side` reaches each hex it can reach: one
    search from every supply base at once. `limit` stops the search (default: the most
    supply MPs any of the side's units has)."""
    if limit is None:
        mps = [supply_mp(state, u) for u in state.on_map(side)]
        limit = Fraction(max(mps, default=0))
    b = blocks(state, side)
    try:
        found = line_search(state, side, b, _scaled(limit), _scaled)
        return {h: Fraction(c, SCALE) for h, c in found.items()}
    except _Inexact:
        return line_search(state, side, b, limit)


def line_search(
    state: GameState,
    side: str,
    b: Blocks,
    limit: Any = None,
    cost_of: Callable[[Fraction], Any] = lambda f: f,
    *,
    open_ground: bool = False,
    prev: dict[HexId, HexId] | None = None,
) -> dict[HexId, Any]:
    """Dijkstra from the side's supply sources: the least supply MPs (as `cost_of` turns
    them) to each hex within `limit` (None: no limit). Enemy units, ZoC and towns (`b`)
    stop a line unless `open_ground` (the line a player would draw, supply_cut); `prev`
    gets the previous hex of each cheapest line."""
    grid = state.setup.map.grid
    bridges = intact_bridges(state)
    zero = cost_of(Fraction(0))
    dist: dict[HexId, Any] = {}
    heap: list[tuple[Any, HexId]] = []
    for h in sorted(source_hexes(state, side)):
        if open_ground or not b.blocked(h):
            dist[h] = zero
            heap.append((zero, h))
    heapq.heapify(heap)
    while heap:
        cost, h = heapq.heappop(heap)
        if cost > dist[h]:
            continue
        for n in grid.neighbours(h):
            if not open_ground and b.blocked(n):
                continue
            step = step_supply_mp(state, b, h, n, bridges)
            if step is None:
                continue
            nc = cost + cost_of(step)
            if limit is not None and nc > limit:
                continue
            if n not in dist or nc < dist[n]:
                dist[n] = nc
                if prev is not None:
                    prev[n] = h
                heapq.heappush(heap, (nc, n))
    return dist


@dataclass(frozen=True)
class Line:
    """How a unit's supply was traced."""

    supplied: bool
    mp: Fraction | None  # supply MPs the cheapest line spends; None: no line within reach
    limit: int  # the nation's supply MPs (10.1.7)
    fixed_position: bool = False  # supplied by 7.3.7


def trace(state: GameState, side: str) -> dict[str, Line]:
    """10.1: the line of supply of every unit of `side` on the map."""
    from engine.wb95.combat import in_fixed_position  # combat imports this module

    costs = supply_costs(state, side)
    fp_rule = state.setup.supply_table.fixed_positions_supplied
    out: dict[str, Line] = {}
    for u in state.on_map(side):
        assert u.hex is not None
        limit = supply_mp(state, u)
        mp = costs.get(u.hex)
        ok = mp is not None and mp <= limit
        if not ok and fp_rule and in_fixed_position(state, u.hex):
            out[u.id] = Line(True, mp, limit, fixed_position=True)  # 7.3.7
        else:
            out[u.id] = Line(ok, mp, limit)
    return out


# --- 10.2 the Supply Phase ---------------------------------------------------------------------


@dataclass(frozen=True)
class SupplyOutcome:
    supplied: frozenset[str]  # units that traced supply this phase (4.3.5, K45)
    surrendered: frozenset[str]  # units that surrendered (4.3.4)


def supply_phase(ctx: Ctx, side: str) -> SupplyOutcome:
    """R9: trace, adjust the OoS levels (10.2.7, 10.2.1, R8), test for surrender (10.2.6).
    Units are taken in scenario order."""
    state = ctx.state
    lines = trace(state, side)
    order = [uid for uid in state.units if uid in lines]
    ctx.emit(
        "supply_traced",
        side=side,
        supplied=[uid for uid in order if lines[uid].supplied],
        out_of_supply=[uid for uid in order if not lines[uid].supplied],
        fixed_position=[uid for uid in order if lines[uid].fixed_position],
        rule="10.1.2",
    )
    accumulate = bool(state.setup.options.get("oos_accumulates", True))
    from engine.wb95.supply_cut import cuts  # it builds on this module

    cut = cuts(state, side, lines)  # the reason a player reads: where the line breaks
    for uid in order:
        u = ctx.state.units[uid]
        if lines[uid].supplied:
            if u.oos > 0:
                new = max(0, u.oos - REGAINED)
                set_oos(ctx, uid, new, "it traces supply again", "10.2.7", "R9")
        elif u.oos >= 1:
            if accumulate:
                why = f"still out of supply: {cut[uid].sentence()}"
                set_oos(ctx, uid, u.oos + 1, why, "10.2.1", "R8")
        else:
            why = f"it cannot trace a line of supply: {cut[uid].sentence()}"
            set_oos(ctx, uid, 1, why, "10.2.1")
    surrendered: list[str] = []
    for uid in order:
        if ctx.state.units[uid].oos >= 1 and surrender_test(ctx, uid):
            surrendered.append(uid)
    return SupplyOutcome(
        supplied=frozenset(uid for uid in order if lines[uid].supplied),
        surrendered=frozenset(surrendered),
    )


def surrender_test(ctx: Ctx, uid: str) -> bool:
    """10.2.6: OoS level - 2K6 > 0 and the unit surrenders (it is eliminated). At levels 1
    and 2 no roll can make it surrender: the test is logged without dice (K42)."""
    u = ctx.state.units[uid]
    level = u.oos
    if level < MIN_SURRENDER_LEVEL:
        ctx.emit(
            "surrender_test",
            unit=uid,
            side=u.side,
            level=level,
            roll=None,
            surrendered=False,
            note=f"at OoS level {level} no 2K6 roll can make it surrender (K42)",
            rule="10.2.6",
        )
        return False
    faces = ctx.roll(SURRENDER_DICE, "surrender test (10.2.6)", unit=uid, side=u.side)
    roll = sum(faces)
    gone = level - roll > 0
    ctx.emit(
        "surrender_test",
        unit=uid,
        side=u.side,
        level=level,
        roll=roll,
        surrendered=gone,
        note=f"OoS level {level} - {roll} = {level - roll}: "
        + ("the unit surrenders" if gone else "it holds out"),
        rule="10.2.6",
    )
    if gone:
        eliminate(ctx, uid, f"surrendered out of supply (level {level}, roll {roll})", "10.2.6")
    return gone


def set_oos(ctx: Ctx, uid: str, new: int, reason: str, rule: str, ruling: str = "") -> None:
    """Change a unit's OoS level (`oos_changed`); other rules (air supply 8.2.26) use it too."""
    u = ctx.state.units[uid]
    if new == u.oos:
        return
    ctx.emit(
        "oos_changed",
        unit=uid,
        side=u.side,
        old=u.oos,
        new=new,
        reason=reason,
        rule=rule,
        ruling=ruling,
    )


# --- 10.2.3 paying a level, 10.2.4 combat ------------------------------------------------------


def pay_level(ctx: Ctx, uid: str, use: str) -> None:
    """10.2.3: the unit's OoS level goes up by 1 for full MPs in this move (`use` "move")
    or full strength in this attack ("attack")."""
    u = ctx.state.units[uid]
    ctx.emit("oos_paid", unit=uid, side=u.side, use=use, old=u.oos, new=u.oos + 1, rule="10.2.3")


def full_strength_units(
    state: GameState, attackers: list[UnitState], refs: tuple[str, ...] | None
) -> list[UnitState]:
    """The attackers that pay a level to attack at full strength (10.2.3, K43): `full` with
    no units names every OoS attacker; `full UNIT...` those units, which must be OoS
    attackers."""
    if refs is None:
        return []
    oos = [u for u in attackers if u.oos >= 1]
    if not refs:
        if not oos:
            raise Rejected(
                "none of the attackers is out of supply: 'full' pays an OoS level for full "
                "strength, which supplied units have anyway",
                "10.2.3",
            )
        return oos
    out: list[UnitState] = []
    for ref in refs:
        here = _refs(state, ref, attackers)
        for u in here:
            if u.oos < 1:
                raise Rejected(
                    f"{u.id} is not out of supply: it attacks at full strength anyway", "10.2.3"
                )
            if u not in out:
                out.append(u)
    return out


def _refs(state: GameState, ref: str, attackers: list[UnitState]) -> list[UnitState]:
    if ref.startswith("@"):
        here = [u for u in attackers if u.hex == ref[1:] and u.oos >= 1]
        if not here:
            raise Rejected(f"no out-of-supply attacker of yours is at {ref[1:]}", "10.2.3")
        return here
    u = find_unit(state, ref)
    if u not in attackers:
        raise Rejected(f"{u.id} is not one of the attackers, so it cannot attack at full strength")
    return [u]


def after_combat(
    ctx: Ctx, attackers: Iterable[str], defenders: Iterable[str], defender_dx: bool
) -> None:
    """10.2.4, 10.2.5, K44: right after the roll, OoS defenders that suffer a Dx result gain
    a level; if the defender gets no Dx, the attack failed and OoS attackers gain one."""
    units = defenders if defender_dx else attackers
    reason = "it was attacked successfully (Dx)" if defender_dx else "its attack failed (no Dx)"
    for uid in units:
        u = ctx.state.units[uid]
        if u.oos >= 1 and not u.eliminated:
            set_oos(ctx, uid, u.oos + 1, reason, "10.2.4", "K44")


# --- events ------------------------------------------------------------------------------------


@on("supply_traced")
def _supply_traced(state: GameState, e: Event) -> None:
    """Reports the trace; the levels change by `oos_changed`."""


@on("surrender_test")
def _surrender_test(state: GameState, e: Event) -> None:
    """Reports the test; a surrender is a `unit_eliminated`."""


@on("oos_changed")
def _oos_changed(state: GameState, e: Event) -> None:
    state.units[e.data["unit"]].oos = int(e.data["new"])


@on("oos_paid")
def _oos_paid(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.oos = int(e.data["new"])
    if e.data["use"] == "attack":
        u.full_attack = True

"""11.0 Reinforcements.

A reinforcement is a unit the scenario brings in later (11.1.1): `arrives: {turn, zone}` or
`{turn, hex}` (`UnitState.arrives`). From its turn on, in its side's Movement Phase or
Strategic Movement Phase (11.1.3), `enter UNITS ZONE|HEX [HEX ...]` brings it onto the map:
it pays the cost of entering the entry hex from off the map and goes on along the path
like any move (3.0, 4.2; `movement.check_path` with `movement.Begun`). Units that never
enter stay off the map; nothing forces them in.

- Where (11.1.2, docs/rulings.md K34): a hex of its zone -- a printed entry zone of the map
  (`MapData.zones`), or any hex of a map edge (`MapData.edges`) -- or its scenario hex and
  the rest of the printed zone that hex lies in.
- Not through a hex the enemy controls (11.1.4, K33), nor one enemy units hold (3.1.8),
  except that a regular unit may overrun enemy HQs and towed artillery alone there as a
  move does (9.1.5, 6.1.7, K23, K49; `engine.wb95.overrun`): the guns' MPs on top of the
  entry cost, paid by every unit of the stack.
- Stacks (11.1.5, R13, R23, K33): one `enter` order is one stack of at most 8 CELs (3.2.1;
  an HQ counts 1). The n-th stack through a hex in a phase pays n x the entry cost; R13's
  cap applies to the first stack only.
- 11.2.1: in the Movement Phase a unit may enter through a zone next to its own with half
  its MPs, unrounded (R23, R5).
- 11.2.2: `delay UNITS ZONE` -- instead of entering, the units move up to 3 zones along the
  map edge and may enter from the new zone from the next turn on (E40; A-40: the text, not
  the Korsun grid).
- 11.2.3: `leave UNITS [HEX ...]` -- a unit moves to (or stands in) an entry zone and
  leaves the map; from the next turn on it is a reinforcement of that zone (K35).
- 11.2.4: on a map edge without printed zones, every road that leaves the map there is an
  entry zone of its own (K34).
- In the Strategic Movement Phase a reinforcement enters as a unit in strategic movement:
  2 MPs less (12.2.3), never into enemy ZoC (12.2.2), no change of zone (A-41, K32).

`legal_entries` and `legal_delays` list what a reinforcement may do now (autocomplete,
previews, self-play).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, HexIdError, normalize, parse_hex
from engine.model import MapData, UnitSpec
from engine.state import GameState, UnitState
from engine.wb95 import flow, overrun
from engine.wb95 import fortification_markers as markers
from engine.wb95.dispatch import handles
from engine.wb95.movement import (
    Begun,
    Reach,
    after_move,
    available_mp,
    can_move,
    check_path,
    fmt_mp,
    reachable,
)
from engine.wb95.reducer import on
from engine.wb95.regular import is_regular
from engine.wb95.stacking import STACK_LIMIT
from engine.wb95.terrain import class_cost, terrain_cost
from engine.wb95.units import find_unit, own_units
from engine.wb95.zoc import zoc_map

DELAY_ZONES = 3  # 11.2.2
EDGE_ORDER = ("N", "E", "S", "W")


# --- entry zones (11.1.2, 11.2.4) ----------------------------------------------------------


@dataclass(frozen=True)
class Zone:
    """An entry zone: a printed zone (named by its letter) or, on an edge without printed
    zones, a road leaving the map (named by its edge hex, 11.2.4). Zones along one map edge
    form a row (`row`, `pos`): the next zone in the row is the adjacent one (11.2.1) and
    11.2.2 counts zones along it (K34)."""

    name: str
    hexes: tuple[HexId, ...]
    row: int
    pos: int
    printed: bool


def _along(edge: str, h: HexId) -> tuple[int, int]:
    """Where `h` lies along a map edge: west to east on N and S, north to south on E and W."""
    c, r = parse_hex(h)
    return (c, r) if edge in ("N", "S") else (r, c)


def _edge_of(m: MapData, hexes: Sequence[HexId]) -> str | None:
    """The map edge a printed zone lies on: the first edge holding all its hexes, else the
    one holding most of them; None for a zone inside the map."""
    edges = [e for e in EDGE_ORDER if e in m.edges] + [e for e in m.edges if e not in EDGE_ORDER]
    counts = {e: sum(h in m.edges[e] for h in hexes) for e in edges}
    full = [e for e in edges if counts[e] == len(hexes)]
    if full:
        return full[0]
    most = max(edges, key=lambda e: counts[e], default=None)
    return most if most is not None and counts[most] > 0 else None


@functools.lru_cache(maxsize=64)
def zones(m: MapData) -> tuple[Zone, ...]:
    """Every entry zone of the map, row by row (K34)."""
    edge_of = {name: _edge_of(m, hexes) for name, hexes in m.zones.items()}
    rows: list[list[tuple[str, tuple[HexId, ...], bool]]] = []
    taken: set[HexId] = set()
    for edge in [*EDGE_ORDER, *(e for e in m.edges if e not in EDGE_ORDER)]:
        if edge not in m.edges:
            continue
        printed = [(n, hs) for n, hs in m.zones.items() if edge_of[n] == edge]
        if printed:
            printed.sort(key=lambda z: min(_along(edge, h) for h in z[1]))
            rows.append([(n, hs, True) for n, hs in printed])
            continue
        exits = sorted(
            (h for h in m.edges[edge] if h in m.road_exits and h not in taken),
            key=lambda h: _along(edge, h),
        )
        taken.update(exits)
        if exits:
            rows.append([(h, (h,), False) for h in exits])
    rows.extend([(n, hs, True)] for n, hs in m.zones.items() if edge_of[n] is None)
    return tuple(
        Zone(name, hexes, i, j, printed)
        for i, row in enumerate(rows)
        for j, (name, hexes, printed) in enumerate(row)
    )


def _zone_named(m: MapData, name: str) -> Zone | None:
    for z in zones(m):
        if z.printed and z.name.upper() == name.upper():
            return z
    return None


def zones_of_hex(m: MapData, h: HexId) -> list[Zone]:
    return [z for z in zones(m) if h in z.hexes]


def _place(where: dict[str, Any]) -> str:
    return str(where.get("zone") or where.get("hex"))


@dataclass(frozen=True)
class Home:
    """Where a reinforcement enters with all its MPs: hexes and the zones they make up."""

    hexes: tuple[HexId, ...]
    zones: tuple[Zone, ...]
    key: str  # the zone letter, edge letter or hex of its entry
    label: str  # for messages: "zone C", "the N map edge", "0101 (Steblev)"


def home(m: MapData, arrives: dict[str, Any]) -> Home:
    """A unit's own entry hexes (K34): its printed zone; any hex of its map edge; its
    scenario hex with the rest of the printed zone (or the road zone) that hex is in."""
    name = arrives.get("zone")
    if name is not None:
        z = _zone_named(m, str(name))
        if z is not None:
            return Home(z.hexes, (z,), z.name, f"zone {z.name}")
        edge = m.edges.get(str(name), ())
        in_edge = tuple(z for z in zones(m) if set(z.hexes) <= set(edge))
        return Home(tuple(edge), in_edge, str(name), f"the {name} map edge")
    h = str(arrives["hex"])
    zs = tuple(zones_of_hex(m, h))
    hexes = [h, *(x for z in zs for x in z.hexes if x != h)]
    return Home(tuple(dict.fromkeys(hexes)), zs, h, m.label(h))


def zone_distance(home_: Home, z: Zone) -> int | None:
    """Zones between the unit's own zone and `z` along their row; None if not on its row."""
    ds = [abs(z.pos - own.pos) for own in home_.zones if own.row == z.row]
    return min(ds) if ds else None


# --- who may enter, and where ----------------------------------------------------------------


def available(state: GameState, u: UnitState) -> bool:
    """Off the map, its turn has come (11.1.1) and no scenario link holds it back."""
    return (
        u.arrives is not None
        and u.hex is None
        and not u.eliminated
        and state.turn >= int(u.arrives["turn"])
        and held_back(state, u.id) is None
    )


def held_back(state: GameState, unit_id: str) -> str | None:
    """Why a linked reinforcement may not enter yet, or None. `special.linked_reinforcements:
    {if_entered: [...], then: [...]}` (Korsuń schedule: "24 ARM*" and "V G MOT*"): the
    `then` units enter only once one of the `if_entered` units has come onto the map (it
    is, or was, on the map); until then they wait off the map (A-51, K90)."""
    link = state.setup.special.get("linked_reinforcements")
    if not isinstance(link, dict) or unit_id not in (link.get("then") or ()):
        return None
    first = [state.units[x] for x in link.get("if_entered") or () if x in state.units]
    if not first or any(
        x.hex is not None or x.eliminated or x.withdrawn is not None for x in first
    ):
        return None
    label = str(link.get("label") or first[0].id)
    return f"{unit_id} enters only once {label} has entered the map (the schedule's asterisk)"


def _entry_phase(state: GameState) -> str | None:
    kind = flow.current_phase(state).kind
    return kind if kind in ("movement", "strategic") else None


@dataclass(frozen=True)
class Gate:
    """An entry hex open to a unit now: through its own zone, or through an adjacent one
    with half its MPs (11.2.1)."""

    hex: HexId
    zone: str
    half: bool


def gates(state: GameState, u: UnitState) -> list[Gate]:
    """The hexes `u` may enter through in this phase, own zone first (before checking
    enemy units, control and costs)."""
    assert u.arrives is not None
    m = state.setup.map
    own = home(m, u.arrives)
    out = [Gate(h, _own_zone_name(own, h), False) for h in own.hexes]
    if _entry_phase(state) != "movement":
        return out  # 11.2.1 is for the Movement Phase (K32)
    seen = set(own.hexes)
    for z in zones(m):
        if zone_distance(own, z) == 1:
            for h in z.hexes:
                if h not in seen:
                    seen.add(h)
                    out.append(Gate(h, z.name, True))
    return out


def _own_zone_name(own: Home, h: HexId) -> str:
    for z in own.zones:
        if h in z.hexes:
            return z.name
    return own.key


def entry_cost(state: GameState, spec: UnitSpec, h: HexId) -> tuple[Fraction | None, str | None]:
    """What entering `h` from off the map costs (K33): the terrain of `h`, or the cost of a
    road that leaves the map there (11.1.5 example: "enters the map through hex with
    road"), whichever is cheaper; and the road kind used."""
    m, table = state.setup.map, state.setup.table
    best: tuple[Fraction | None, str | None] = (terrain_cost(table, m.terrain_of(h), spec), None)
    for kind in sorted(m.road_exits.get(h, ())):
        row = table.roads.get(kind)
        c = None if row is None else class_cost(row.cost, spec)
        if c is not None and (best[0] is None or c <= best[0]):
            best = (c, kind)
    return best


def stack_number(state: GameState, h: HexId) -> int:
    """The number the next stack entering through `h` in this phase gets (11.1.5)."""
    n = 0
    for u in state.units.values():
        e = u.entry
        if e and e["hex"] == h and e["turn"] == state.turn and e["phase"] == state.phase:
            n = max(n, int(e["stack"]))
    return n + 1


@dataclass(frozen=True)
class Way:
    """How one unit comes in through one entry hex: the MPs for the move and for entering."""

    gate: Gate
    mp: Fraction
    pay: Fraction
    road: str | None


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def way_in(state: GameState, u: UnitState, gate: Gate, stack: int) -> Way:
    """Check that `u` may enter through `gate` as the `stack`-th stack; raise Rejected with
    the reason if not."""
    setup = state.setup
    m, h = setup.map, gate.hex
    spec = setup.units[u.id]
    enemy = setup.enemy_of(u.side)
    there = [x for x in state.units_at(h) if x.side == enemy]
    weak = overrun.overrunnable(state, enemy).get(h) if there else None
    if there:
        if weak is None:
            raise Rejected(
                f"{u.id} cannot enter through {m.label(h)}: it holds enemy units", "3.1.8"
            )
        if not is_regular(spec):
            what = "towed artillery" if weak.guns else "HQs"
            raise Rejected(
                f"{u.id} cannot enter through {m.label(h)}: only a regular unit may enter a hex "
                f"held by enemy {what} alone",
                "6.1.7" if weak.guns else "9.1.5",
                "K20",
            )
    if state.control.get(h) == enemy:
        raise Rejected(
            f"{u.id} cannot enter through {m.label(h)}: the enemy controls it", "11.1.4", "K33"
        )
    strategic = _entry_phase(state) == "strategic"
    if strategic and zoc_map(state, enemy).get(h):
        raise Rejected(
            f"{u.id} cannot enter through {m.label(h)} in strategic movement: it is in enemy ZoC",
            "12.2.2",
            "K32",
        )
    cost, road = entry_cost(state, spec, h)
    if cost is None:
        raise Rejected(
            f"{u.id} cannot enter through {m.label(h)}: its {m.terrain_of(h)} is impassable "
            f"to {spec.move} units",
            "3.1.11",
        )
    mp = available_mp(state, u)
    if gate.half:
        mp = mp / 2  # 11.2.1, unrounded (R23)
    if mp <= 0:
        why = "it has no MPs left for strategic movement" if strategic else "it has no MPs"
        raise Rejected(f"{u.id} cannot enter: {why}", "12.2.3" if strategic else "3.1.5")
    pay = min(cost, mp) if stack == 1 else stack * cost  # R13 for the first stack only
    if pay > mp:
        raise Rejected(
            f"{u.id} cannot enter through {m.label(h)}: the {_ordinal(stack)} stack through it "
            f"this phase pays {stack} x {fmt_mp(cost)} = {fmt_mp(pay)} MP and it has {fmt_mp(mp)}",
            "11.1.5",
            "R13",
        )
    if weak is not None and weak.cost:  # 6.1.7: per gun, not capped by R13 (K49)
        pay += weak.cost
        if pay > mp:
            raise Rejected(
                f"{u.id} cannot enter through {m.label(h)}: overrunning the enemy towed "
                f"artillery there costs {fmt_mp(weak.cost)} MP more, {fmt_mp(pay)} MP in all, "
                f"and it has {fmt_mp(mp)}",
                "6.1.7",
                "K81",
            )
    return Way(gate, mp, pay, road)


def _begun(state: GameState, way: Way) -> Begun:
    bonus = way.road is not None and bool(
        (row := state.setup.table.roads.get(way.road)) and row.bonus
    )
    return Begun(way.gate.hex, way.pay, way.mp, bonus)


def _stops_at(state: GameState, u: UnitState, h: HexId) -> bool:
    return bool(zoc_map(state, state.setup.enemy_of(u.side)).get(h))  # 4.2.1


@dataclass(frozen=True)
class Entry:
    """A hex a reinforcement can reach now by entering: the total MPs (entry included), the
    path (entry hex first), its entry hex and zone, the stack it would be (11.1.5)."""

    hex: HexId
    cost: Fraction
    path: tuple[HexId, ...]
    entry: HexId
    zone: str
    half: bool
    stack: int
    bonus: bool = False
    stops: bool = False


def _may_give_orders(state: GameState, u: UnitState) -> bool:
    return (
        not state.over
        and not state.pending
        and _entry_phase(state) is not None
        and u.side in flow.awaited_sides(state)
        and available(state, u)
    )


def legal_entries(state: GameState, unit_id: str) -> dict[HexId, Entry]:
    """Every hex `unit_id` may end in by entering now, with the cheapest way there (own
    zone before an adjacent one); empty when it may not enter now."""
    u = state.units.get(unit_id)
    if u is None or not _may_give_orders(state, u):
        return {}
    out: dict[HexId, Entry] = {}

    def offer(e: Entry) -> None:
        old = out.get(e.hex)
        if old is None or (e.half, e.cost) < (old.half, old.cost):
            out[e.hex] = e

    for gate in gates(state, u):
        stack = stack_number(state, gate.hex)
        try:
            way = way_in(state, u, gate, stack)
        except Rejected:
            continue
        stops = _stops_at(state, u, gate.hex)
        g = (gate.hex, gate.zone, gate.half, stack)
        offer(Entry(gate.hex, way.pay, (gate.hex,), *g, stops=stops))
        if stops:
            continue
        for h, r in reachable(state, u, begun=_begun(state, way)).items():
            offer(Entry(h, r.cost, (gate.hex, *r.path), *g, bonus=r.bonus, stops=r.stops))
    return out


def legal_delays(state: GameState, unit_id: str) -> list[str]:
    """The zones `unit_id` may move to instead of entering now (11.2.2)."""
    u = state.units.get(unit_id)
    if u is None or not _may_give_orders(state, u):
        return []
    assert u.arrives is not None
    own = home(state.setup.map, u.arrives)
    return [
        z.name
        for z in zones(state.setup.map)
        if (d := zone_distance(own, z)) is not None and 1 <= d <= DELAY_ZONES
    ]


@flow.other_moves
def may_bring_in(state: GameState, side: str) -> bool:
    """11.1.3: `side` has a reinforcement that may enter (or move off the map, 11.2.2) in
    this Movement or Strategic Movement Phase, so the phase is played (2.1.4, K13)."""
    if _entry_phase(state) is None:
        return False
    for u in state.units.values():
        if u.side != side or not available(state, u):
            continue
        assert u.arrives is not None
        own = home(state.setup.map, u.arrives)
        if any(1 <= (zone_distance(own, z) or 0) <= DELAY_ZONES for z in zones(state.setup.map)):
            return True  # it may delay
        for gate in gates(state, u):
            try:
                way_in(state, u, gate, stack_number(state, gate.hex))
                return True
            except Rejected:
                continue
    return False


# --- the orders ----------------------------------------------------------------------------


def _check_phase(state: GameState, what: str, rule: str) -> None:
    if _entry_phase(state) is None:
        raise Rejected(
            f"{what} in the Movement and Strategic Movement Phases; it is "
            f"{flow.phase_title(state)}",
            rule,
        )


def reinforcements(state: GameState, side: str, refs: Sequence[str]) -> list[UnitState]:
    """Resolve the units of an `enter` or `delay` order: `side`'s reinforcements whose
    turn has come."""
    out: list[UnitState] = []
    for ref in refs:
        if ref.startswith("@"):
            raise Rejected(f"name reinforcements by id: '{ref}' means units on the map", "11.0")
        u = find_unit(state, ref)
        if u.side != side:
            raise Rejected(f"{u.id} is not yours: it belongs to {u.side}")
        if u.eliminated:
            raise Rejected(f"{u.id} has been eliminated")
        if u.hex is not None:
            raise Rejected(f"{u.id} is already on the map", "11.0")
        if u.arrives is None:
            raise Rejected(f"{u.id} is not a reinforcement", "11.1.1")
        if state.turn < int(u.arrives["turn"]):
            raise Rejected(
                f"{u.id} arrives on turn {u.arrives['turn']}; it is turn {state.turn}", "11.1.1"
            )
        if (why := held_back(state, u.id)) is not None:
            raise Rejected(why, "11.1.1", "K90")
        if u not in out:
            out.append(u)
    if not out:
        raise Rejected("no units named")
    return out


def _stack_cels(state: GameState, units: Sequence[UnitState]) -> int:
    return sum(1 if state.setup.units[u.id].is_hq else u.cel for u in units)  # 3.2.2


def _hexes(raw: Sequence[str]) -> list[HexId]:
    try:
        return [normalize(h) for h in raw]
    except HexIdError as e:
        raise Rejected(str(e)) from None


def _gate_at(state: GameState, u: UnitState, h: HexId) -> Gate:
    for g in gates(state, u):
        if g.hex == h:
            return g
    assert u.arrives is not None
    m = state.setup.map
    own = home(m, u.arrives)
    where = f"{own.label} ({', '.join(own.hexes[:6])}{' ...' if len(own.hexes) > 6 else ''})"
    near = [z for z in zones_of_hex(m, h) if zone_distance(own, z) == 1]
    if near and _entry_phase(state) == "strategic":
        raise Rejected(
            f"{u.id} may change its entry zone (to {near[0].name}) only in the Movement Phase",
            "11.2.1",
            "K32",
        )
    raise Rejected(
        f"{u.id} cannot enter through {m.label(h)}: it enters through {where} or a zone next to it",
        "11.1.2",
        "K34",
    )


def _ways(state: GameState, units: Sequence[UnitState], h: HexId, stack: int) -> list[Way]:
    return [way_in(state, u, _gate_at(state, u, h), stack) for u in units]


def _zone_hexes(state: GameState, name: str) -> list[HexId]:
    """The hexes of the zone (or map edge) named in an `enter` order."""
    m = state.setup.map
    z = _zone_named(m, name)
    if z is not None:
        return list(z.hexes)
    if name in m.edges:
        return list(m.edges[name])
    known = [z.name for z in zones(m) if z.printed] + list(m.edges)
    raise Rejected(f"there is no entry zone {name} (zones and edges: {', '.join(known)})", "11.1.2")


@dataclass(frozen=True)
class _Plan:
    entry: HexId
    ways: list[Way]
    reaches: list[Reach | None]  # None: the unit stays in the entry hex


def _plan(state: GameState, units: list[UnitState], where: str, path: list[HexId]) -> _Plan:
    """Read `enter UNITS WHERE PATH`: the entry hex and each unit's way on from it. WHERE a
    hex: the entry hex. WHERE a zone: the first hex of PATH if it is in the zone, else the
    entry hex of the zone that serves PATH's one hex (a destination) or, without a path,
    the zone's cheapest open hex."""
    if not where.isalpha():
        entry = _hexes([where])[0]
        return _plan_from(state, units, entry, path)
    hexes = _zone_hexes(state, where)
    if path and path[0] in hexes:
        return _plan_from(state, units, path[0], path[1:])
    if len(path) > 1:
        raise Rejected(
            f"the path must start at a hex of zone {where} ({', '.join(hexes[:8])})", "11.1.2"
        )
    best: tuple[tuple[Fraction, int], _Plan] | None = None
    first: Rejected | None = None
    for i, h in enumerate(hexes):
        try:
            plan = _plan_from(state, units, h, path)
        except Rejected as refused:
            first = first or refused
            continue
        costs = [
            w.pay if r is None else r.cost for w, r in zip(plan.ways, plan.reaches, strict=True)
        ]
        key = (max(costs), i)
        if best is None or key < best[0]:
            best = (key, plan)
    if best is None:
        assert first is not None
        if len(hexes) == 1:
            raise first
        why = first.rejection
        goal = f"to reach {path[0]} " if path else ""
        raise Rejected(
            f"no entry hex in {where} lets {', '.join(u.id for u in units)} enter {goal}now "
            f"(at {hexes[0]}: {why.message})",
            why.rule,
            why.ruling,
        )
    return best[1]


def _plan_from(state: GameState, units: list[UnitState], entry: HexId, path: list[HexId]) -> _Plan:
    m = state.setup.map
    if not m.grid.contains(entry):
        raise Rejected(f"{entry} is not on the map", "1.1")
    ways = _ways(state, units, entry, stack_number(state, entry))
    if path and path[0] == entry:
        path = path[1:]
    reaches: list[Reach | None] = []
    for u, way in zip(units, ways, strict=True):
        if not path:
            reaches.append(None)
            continue
        if _stops_at(state, u, entry):
            raise Rejected(f"{u.id} must stop at {m.label(entry)}: it entered enemy ZoC", "4.2.1")
        begun = _begun(state, way)
        if len(path) > 1:
            reaches.append(check_path(state, u, path, begun))
            continue
        dest = path[0]  # just the destination: the cheapest legal path (DESIGN §4)
        options = reachable(state, u, begun=begun)
        if dest in options:
            reaches.append(options[dest])
        elif m.grid.contains(dest) and m.grid.adjacent(entry, dest):
            reaches.append(check_path(state, u, [dest], begun))  # raises with the reason
        else:
            raise Rejected(
                f"{u.id} cannot reach {m.label(dest)} this phase after entering at "
                f"{m.label(entry)} with {fmt_mp(way.mp)} MP",
                "3.1.5",
            )
    return _Plan(entry, ways, reaches)


@handles(o.Enter)
def do_enter(ctx: Ctx, side: str, order: o.Enter) -> None:
    """11.1: bring reinforcements onto the map as one stack (11.1.5) through an entry hex
    of their zone (11.1.2) or of an adjacent one at half MPs (11.2.1), and on along the
    path like a move (3.0, 4.2)."""
    state = ctx.state
    _check_phase(state, "reinforcements enter", "11.1.3")
    units = reinforcements(state, side, order.units)
    cels = _stack_cels(state, units)
    if cels > STACK_LIMIT:
        raise Rejected(
            f"these units make {cels} CELs: a stack that enters holds at most {STACK_LIMIT}; "
            "divide them into stacks, each entering with its own order",
            "11.1.5",
            "3.2.1",
        )
    plan = _plan(state, units, order.where, _hexes(order.path))
    stack = stack_number(state, plan.entry)
    for u, way, reach in zip(units, plan.ways, plan.reaches, strict=True):
        path = [plan.entry, *(reach.path if reach else ())]
        ctx.emit(
            "reinforcement_entered",
            unit=u.id,
            side=side,
            zone=way.gate.zone,
            hex=plan.entry,
            half=way.gate.half,
            stack=stack,
            entry_cost=str(way.pay),
            mp=str(way.mp),
            path=path,
            to=path[-1],
            cost=str(reach.cost if reach else way.pay),
            bonus=bool(reach and reach.bonus),
            rule="11.2.1" if way.gate.half else "11.1.2",
        )
        overrun.enter(ctx, u.id, plan.entry)  # 9.1.5, 6.1.7 (K23, K49)
        markers.enemy_entered(ctx, plan.entry, side)
        after_move(ctx, u.id, path)


def _target_zone(state: GameState, where: str) -> Zone:
    m = state.setup.map
    if where.isalpha():
        z = _zone_named(m, where)
        if z is None:
            names = [z.name for z in zones(m)]
            raise Rejected(
                f"there is no entry zone {where} to move to (zones: {', '.join(names) or 'none'})",
                "11.2.2",
                "K34",
            )
        return z
    h = _hexes([where])[0]
    zs = zones_of_hex(m, h)
    if not zs:
        raise Rejected(f"{m.label(h)} is in no entry zone", "11.2.2", "K34")
    return zs[0]


def _arrival(z: Zone, turn: int) -> dict[str, Any]:
    return {"turn": turn, "zone": z.name} if z.printed else {"turn": turn, "hex": z.name}


@handles(o.Delay)
def do_delay(ctx: Ctx, side: str, order: o.Delay) -> None:
    """11.2.2: instead of entering, the units move up to 3 entry zones along the map edge;
    they may enter from the new zone, with all their MPs, from the next turn on."""
    state = ctx.state
    _check_phase(state, "reinforcements move between entry zones", "11.2.2")
    units = reinforcements(state, side, order.units)
    target = _target_zone(state, order.where)
    m = state.setup.map
    for u in units:
        assert u.arrives is not None
        d = zone_distance(home(m, u.arrives), target)
        if d is None or not 1 <= d <= DELAY_ZONES:
            how = (
                "it is its own zone"
                if d == 0
                else ("it is not along the same map edge" if d is None else f"it is {d} zones away")
            )
            raise Rejected(
                f"{u.id} cannot move to zone {target.name}: {how}; a reinforcement moves "
                f"1 to {DELAY_ZONES} zones from its own ({_place(u.arrives)})",
                "11.2.2",
                "K34",
            )
    for u in units:
        assert u.arrives is not None
        ctx.emit(
            "reinforcement_delayed",
            unit=u.id,
            side=side,
            before=dict(u.arrives),
            arrives=_arrival(target, state.turn + 1),
            rule="11.2.2",
        )


def exits(state: GameState, side: str) -> dict[HexId, dict[str, Any]]:
    """The hexes through which `side`'s units may leave the map (11.2.3, K35) and the entry
    they then have: every entry zone of the map, and the hexes and edges where the scenario
    brings in the side's reinforcements."""
    m = state.setup.map
    out: dict[HexId, dict[str, Any]] = {}
    for z in zones(m):
        for h in z.hexes:
            out.setdefault(h, {"zone": z.name} if z.printed else {"hex": h})
    for st in state.setup.starts:
        a = st.arrives
        if a is None or state.setup.units[st.id].side != side:
            continue
        if "hex" in a:
            out.setdefault(str(a["hex"]), {"hex": str(a["hex"])})
        elif _zone_named(m, str(a["zone"])) is None:
            for h in m.edges.get(str(a["zone"]), ()):
                out.setdefault(h, {"zone": str(a["zone"])})
    return out


def _leave_reach(state: GameState, u: UnitState, path: list[HexId]) -> Reach | None:
    assert u.hex is not None
    m = state.setup.map
    steps = path[1:] if len(path) > 1 and path[0] == u.hex else path
    if not steps or steps == [u.hex]:
        return None
    if len(steps) > 1:
        reach = check_path(state, u, steps)
    else:
        options = reachable(state, u)
        if steps[0] in options:
            reach = options[steps[0]]
        elif m.grid.contains(steps[0]) and m.grid.adjacent(u.hex, steps[0]):
            reach = check_path(state, u, steps)  # raises with the reason
        else:
            raise Rejected(f"{u.id} cannot reach {m.label(steps[0])} this phase", "3.1.5")
    if reach.stops:
        raise Rejected(
            f"{u.id} must stop at {m.label(reach.hex)}: it entered enemy ZoC, so it cannot "
            "leave the map",
            "4.2.1",
        )
    if reach.bonus:
        raise Rejected(
            f"{u.id} ends its move with the extra road hex at {reach.hex}", "3.1.5", "K3"
        )
    return reach


@handles(o.Leave)
def do_leave(ctx: Ctx, side: str, order: o.Leave) -> None:
    """11.2.3: units leave the map through an entry zone, moving there first along the
    path if one is given; from the next turn on they are reinforcements of that zone."""
    state = ctx.state
    _check_phase(state, "units leave the map", "11.2.3")
    units = own_units(state, side, order.units, lambda u: can_move(state, u), "leave the map")
    path = _hexes(order.path)
    out = exits(state, side)
    m = state.setup.map
    for named in units:
        u = ctx.state.units[named.id]
        assert u.hex is not None
        start = u.hex
        reach = _leave_reach(ctx.state, u, path)
        end = reach.hex if reach else start
        if end not in out:
            raise Rejected(
                f"{u.id} cannot leave the map from {m.label(end)}: it is not in an entry zone",
                "11.2.3",
                "K35",
            )
        if reach is not None:
            ctx.emit(
                "moved",
                unit=u.id,
                side=side,
                **{"from": start},
                to=reach.hex,
                path=[start, *reach.path],
                cost=str(reach.cost),
                mp=str(available_mp(ctx.state, u)),
                bonus=reach.bonus,
            )
            after_move(ctx, u.id, [start, *reach.path])
        ctx.emit(
            "left_map",
            unit=u.id,
            side=side,
            hex=end,
            arrives={"turn": ctx.state.turn + 1, **out[end]},
            rule="11.2.3",
        )


# --- events --------------------------------------------------------------------------------


@on("reinforcement_entered")
def _entered(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.hex = e.data["to"]
    u.arrives = None
    u.moved = True
    u.active_since_disorg = True
    u.mp_spent = Fraction(e.data["cost"])
    u.entered_seq = e.seq
    u.entry = {
        "turn": state.turn,
        "phase": state.phase,
        "hex": e.data["hex"],
        "stack": int(e.data["stack"]),
    }


@on("reinforcement_delayed")
def _delayed(state: GameState, e: Event) -> None:
    state.units[e.data["unit"]].arrives = dict(e.data["arrives"])


@on("left_map")
def _left_map(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.hex = None
    u.arrives = dict(e.data["arrives"])
    u.moved = True
    u.fortification = None
    u.strategic = False

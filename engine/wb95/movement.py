"""3.0 Movement, with the ZoC effects of 4.2.

A move is checked step by step: a continuous path (3.1.4) of on-map hexes free of enemy
units (3.1.8), each step paid from the unit's MPs (3.1.5) at the TERRAIN INFLUENCE cost
(3.1.11, 3.1.12), capped at the unit's starting MPs (3.1.13, R13). Entering an enemy ZoC
ends the move (4.2.1) at no extra cost (4.2.2); leaving one costs +1 MP (4.2.6); moving
from one hex in a unit's ZoC straight into another hex of the same unit's ZoC is only for
pursuit (4.2.3, R14). A unit that spends its whole move along side roads or railroads may
enter one more hex along them when its MPs run out (R12).

In the Strategic Movement Phase only units marked for it move (12.1.4), not from an enemy
ZoC (12.2.1) and never into one (12.2.2), with 2 MPs less (12.2.3); otherwise every rule
above applies (12.1.3). A regular unit may enter a hex held by enemy HQs alone, which
eliminates them (9.1.5, `engine.wb95.hq`), or by enemy towed artillery (with or without
HQs) for 1 MP more per gun (6.1.7, `engine.wb95.overrun`). After a move `after_move`
eliminates such units and keeps the fortification markers (7.1.5, 7.1.6). A setup change
of towed artillery (6.2.4) spends MPs of the unit's move in that phase.

A reinforcement's entry is a move too (11.1.5): `engine.wb95.reinforcements` prices the
entry hex and goes on with `check_path` / `reachable` from there (`Begun`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from fractions import Fraction

from engine import orders as o
from engine.core import Ctx, Rejected
from engine.hexgrid import HexId, HexIdError, Hexside, normalize
from engine.model import UnitSpec
from engine.state import GameState, UnitState
from engine.wb95 import flow, overrun, supply
from engine.wb95 import fortification_markers as markers
from engine.wb95.dispatch import handles
from engine.wb95.regular import is_regular
from engine.wb95.terrain import intact_bridges, step_cost
from engine.wb95.units import Why, own_units
from engine.wb95.zoc import ZocMap, in_enemy_zoc, zoc_map

ZOC_LEAVE_COST = Fraction(1)  # 4.2.6
SM_MP_REDUCTION = Fraction(2)  # 12.2.3

# Scenario rules plug in here (engine.wb95.scenario_rules): why a unit may not move now,
# the factor its MPs are multiplied by, why it may not make the step a -> b.
MoveCheck = Callable[[GameState, UnitState], Why | None]
MOVE_CHECKS: list[MoveCheck] = []
MpFactor = Callable[[GameState, UnitState], Fraction]
MP_FACTORS: list[MpFactor] = []
StepCheck = Callable[[GameState, UnitSpec, HexId, HexId], tuple[str, str, str] | None]
STEP_CHECKS: list[StepCheck] = []
# Extra MPs of the step a -> b of a move that began in `start` (air movement disorganization,
# 8.2.13-8.2.16, `engine.wb95.air`): part of the step's cost, so capped by R13 like the ZoC
# exit (K1); and what happens after a move (air attacks on river crossings, 8.2.17).
StepExtra = Callable[[GameState, UnitSpec, HexId, HexId, HexId], Fraction]
STEP_EXTRAS: list[StepExtra] = []
AfterMove = Callable[[Ctx, str, list[HexId]], None]
AFTER_MOVE: list[AfterMove] = []


@dataclass(frozen=True)
class Reach:
    """A hex a unit can reach this phase: the MPs it costs and the path (start excluded)."""

    hex: HexId
    cost: Fraction
    path: tuple[HexId, ...]
    bonus: bool = False  # the last step is R12's extra road hex
    stops: bool = False  # the unit must stop here (enemy ZoC, 4.2.1)


def strategic_phase(state: GameState) -> bool:
    return flow.current_phase(state).kind == "strategic"


def available_mp(
    state: GameState, unit: UnitState, strategic: bool | None = None, full: bool = False
) -> Fraction:
    """MPs at the start of the unit's move: printed MPs, halved without rounding when out
    of supply (10.2.2, R5) unless it pays an OoS level for its full MPs (`full`, 10.2.3);
    in strategic movement 2 fewer, never below 0 (12.2.3, docs/rulings.md K24).
    `strategic` None: as the current phase is."""
    mp = state.setup.units[unit.id].mp
    if unit.oos >= 1 and not full:
        mp = mp / 2
    for factor in MP_FACTORS:
        mp = mp * factor(state, unit)
    if strategic is None:
        strategic = strategic_phase(state)
    if strategic:
        mp = max(mp - SM_MP_REDUCTION, Fraction(0))
    return mp


@dataclass
class _Board:
    """What a movement search needs, computed once per move."""

    enemy_zoc: ZocMap
    enemy_hexes: set[HexId]
    lone_hqs: set[HexId]  # enemy hexes holding HQs and towed artillery alone (9.1.5, 6.1.7)
    may_overrun: bool  # the mover is a regular unit, so it may enter those hexes (9.1.5)
    weak: dict[HexId, overrun.Overrunnable]  # what entering each of them costs (6.1.7)
    strategic: bool  # strategic movement: enemy ZoC may not be entered (12.2.2)
    bridges: AbstractSet[Hexside]  # the bridges standing now (14.0)


def _board(state: GameState, unit: UnitState) -> _Board:
    enemy = state.setup.enemy_of(unit.side)
    weak = overrun.overrunnable(state, enemy)
    return _Board(
        enemy_zoc=zoc_map(state, enemy),
        enemy_hexes={u.hex for u in state.on_map(enemy) if u.hex is not None},
        lone_hqs=set(weak),
        may_overrun=is_regular(state.setup.units[unit.id]),
        weak=weak,
        strategic=strategic_phase(state),
        bridges=intact_bridges(state),
    )


def _step(
    state: GameState,
    spec: UnitSpec,
    board: _Board,
    start: HexId,
    a: HexId,
    b: HexId,
    mp: Fraction,
) -> tuple[Fraction, str | None]:
    """Cost of the step a -> b (capped per R13) and the road kind used; raises Rejected
    with the reason when the step is illegal in itself."""
    m = state.setup.map
    if not m.grid.contains(b):
        raise Rejected(f"{b} is not on the map", "1.1")
    if not m.grid.adjacent(a, b):
        raise Rejected(f"{a} and {b} are not adjacent: a path must be continuous", "3.1.4")
    if b in board.enemy_hexes and not (board.may_overrun and b in board.lone_hqs):
        if b in board.lone_hqs and board.weak[b].guns:
            raise Rejected(
                f"cannot enter {m.label(b)}: only a regular unit may enter a hex held by "
                "enemy towed artillery alone",
                "6.1.7",
                "K20",
            )
        if b in board.lone_hqs:
            raise Rejected(
                f"cannot enter {m.label(b)}: only a regular unit may enter a hex held by "
                "enemy HQs alone",
                "9.1.5",
                "K20",
            )
        raise Rejected(f"cannot enter {m.label(b)}: it holds enemy units", "3.1.8")
    for check in STEP_CHECKS:
        why = check(state, spec, a, b)
        if why is not None:
            raise Rejected(*why)
    if board.strategic and board.enemy_zoc.get(b):
        raise Rejected(
            f"cannot enter {m.label(b)}: a unit in strategic movement may not enter enemy ZoC",
            "12.2.2",
        )
    sc = step_cost(m, state.setup.table, spec, a, b, bridges=board.bridges)
    if sc.cost is None:
        raise Rejected(f"cannot enter {m.label(b)}: {sc.why}", sc.rule, sc.ruling)
    cost = sc.cost
    zoc_a = board.enemy_zoc.get(a)
    if zoc_a:
        if a != start:
            raise Rejected(f"must stop at {m.label(a)}: it is in enemy ZoC", "4.2.1")
        cost += ZOC_LEAVE_COST
        same = zoc_a & board.enemy_zoc.get(b, set())
        if same:
            holders = sorted({h for u in same if (h := state.units[u].hex) is not None})
            raise Rejected(
                f"cannot move from {a} to {b}: both are in the ZoC of the same enemy unit "
                f"(at {', '.join(holders)}); that is allowed only in pursuit",
                "4.2.3",
                "R14",
            )
    for more in STEP_EXTRAS:
        if x := more(state, spec, start, a, b):  # (no Fraction sums of 0: hot path)
            cost += x
    capped = cost if cost <= mp else mp  # R13
    if b in board.weak:  # 6.1.7's MPs per gun are not capped (K49)
        return capped + board.weak[b].cost, sc.road
    return capped, sc.road


def _overrun_mp(board: _Board, h: HexId) -> Fraction:
    """The MPs of 6.1.7 for entering `h` (per gun, fortification once; K49), 0 elsewhere."""
    return board.weak[h].cost if h in board.weak else Fraction(0)


def _bonus_overrun(
    state: GameState, unit: UnitState, board: _Board, h: HexId, spent: Fraction, mp: Fraction
) -> Fraction:
    """R12's extra hex is free of its terrain and road cost only: the 6.1.7 MPs for
    overrunning towed artillery there are paid from the MPs left (K3, K49, K80).
    Returns the MPs spent after it; raises Rejected if they are not left."""
    extra = _overrun_mp(board, h)
    if spent + extra > mp:
        raise Rejected(
            f"{unit.id} may take the extra road hex (R12) into {state.setup.map.label(h)} "
            f"for free, but overrunning the enemy towed artillery there costs "
            f"{fmt_mp(extra)} MP and it has {fmt_mp(mp - spent)} left",
            "6.1.7",
            "K80",
        )
    return spent + extra


def _is_bonus_road(state: GameState, road: str | None) -> bool:
    if road is None:
        return False
    row = state.setup.table.roads.get(road)
    return bool(row and row.bonus)


@dataclass(frozen=True)
class Begun:
    """A move that does not begin in the unit's hex with nothing spent: a reinforcement
    goes on from its entry hex (engine.wb95.reinforcements, 11.1.5) with the MPs it paid to
    enter, its MPs for the whole move, and whether it came in along a side road or
    railroad (R12)."""

    hex: HexId
    spent: Fraction
    mp: Fraction
    bonus_road: bool


def _begun(state: GameState, unit: UnitState, begun: Begun | None) -> Begun:
    if begun is not None:
        return begun
    assert unit.hex is not None
    # MPs already spent in this phase (a setup change before the move, 6.2.4) count
    return Begun(unit.hex, unit.mp_spent, available_mp(state, unit), True)


def check_path(
    state: GameState, unit: UnitState, path: list[HexId], begun: Begun | None = None
) -> Reach:
    """Validate an explicit path for `unit` (start hex excluded); return what it costs.
    `begun`: the move began elsewhere (a reinforcement's entry hex); the cost includes it."""
    spec = state.setup.units[unit.id]
    board = _board(state, unit)
    b = _begun(state, unit, begun)
    mp, start, spent, all_bonus_road = b.mp, b.hex, b.spent, b.bonus_road
    bonus = False
    prev = start
    for i, h in enumerate(path):
        if bonus:
            raise Rejected(
                f"{unit.id} has used its extra road hex at {prev} and cannot go on", "3.1.5", "R12"
            )
        cost, road = _step(state, spec, board, start, prev, h, mp)
        all_bonus_road = all_bonus_road and _is_bonus_road(state, road)
        if spent + cost > mp:
            leaving_zoc = prev == start and bool(board.enemy_zoc.get(start))
            if all_bonus_road and not leaving_zoc:
                bonus = True  # R12: one more hex along the side road / railroad
                spent = _bonus_overrun(state, unit, board, h, spent, mp)
            else:
                raise Rejected(
                    f"{unit.id} needs {fmt_mp(spent + cost)} MP to reach {h} but has {fmt_mp(mp)}",
                    "3.1.5",
                )
        else:
            spent += cost
        if board.enemy_zoc.get(h) and i < len(path) - 1:
            raise Rejected(
                f"{unit.id} must stop at {state.setup.map.label(h)}: it entered enemy ZoC",
                "4.2.1",
            )
        prev = h
    return Reach(path[-1], spent, tuple(path), bonus=bonus, stops=bool(board.enemy_zoc.get(prev)))


def reachable(
    state: GameState, unit: UnitState, mp: Fraction | None = None, begun: Begun | None = None
) -> dict[HexId, Reach]:
    """Every hex the unit can end its move in, with the cheapest cost and a path (the
    legal-move listing used by previews, autocomplete and the fuzzer). `mp` overrides the
    unit's MPs (None: its real MPs); `begun` as for `check_path` (its start not listed)."""
    if unit.hex is None and begun is None:
        return {}
    spec = state.setup.units[unit.id]
    board = _board(state, unit)
    b = _begun(state, unit, begun)
    limit = b.mp if mp is None else mp
    start = b.hex
    counter = itertools.count()
    # search state: (hex, every step so far on a bonus road, bonus used)
    best: dict[tuple[HexId, bool, bool], Fraction] = {(start, b.bonus_road, False): b.spent}
    heap: list[tuple[Fraction, int, HexId, bool, bool, tuple[HexId, ...]]] = [
        (b.spent, next(counter), start, b.bonus_road, False, ())
    ]
    out: dict[HexId, Reach] = {}
    while heap:
        cost, _, h, elig, used, path = heapq.heappop(heap)
        if best.get((h, elig, used)) != cost:
            continue
        if h != start and h not in out:
            out[h] = Reach(h, cost, path, bonus=used, stops=bool(board.enemy_zoc.get(h)))
        if used or (h != start and board.enemy_zoc.get(h)):
            continue  # R12 extra hex ends the move; 4.2.1
        for n in state.setup.map.grid.neighbours(h):
            try:
                step, road = _step(state, spec, board, start, h, n, limit)
            except Rejected:
                continue
            bonus_road = elig and _is_bonus_road(state, road)
            if (total := cost + step) <= limit:
                key = (n, bonus_road, False)
                nc = total
            elif bonus_road and not (h == start and board.enemy_zoc.get(start)):
                key = (n, True, True)
                nc = cost + _overrun_mp(board, n)  # 6.1.7: the guns are paid for (K80)
                if nc > limit:
                    continue
            else:
                continue
            if key not in best or nc < best[key]:
                best[key] = nc
                heapq.heappush(heap, (nc, next(counter), n, key[1], key[2], (*path, n)))
    return out


def fmt_mp(x: Fraction) -> str:
    """MPs as a player writes them: 4, 1.5, 4/3."""
    if x.denominator == 1:
        return str(x.numerator)
    if x.denominator == 2:
        return f"{float(x):g}"
    return f"{x.numerator}/{x.denominator}"


# --- the move order ------------------------------------------------------------------------


def can_move(state: GameState, u: UnitState) -> Why | None:
    spec = state.setup.units[u.id]
    if any(w["hq"] == u.id for w in state.bridge_works):
        return ("it is building a bridge", "14.3.4")
    if u.moved:
        return ("it has already moved this phase", "3.1.6")
    if spec.move == "none" or spec.mp <= 0:
        return ("it has no movement points", "3.1.5")
    for check in MOVE_CHECKS:
        if (why := check(state, u)) is not None:
            return why
    if strategic_phase(state):
        if not u.strategic:
            return ("only units marked for strategic movement move in this phase", "12.1.4")
        if in_enemy_zoc(state, u):
            return ("it is in enemy ZoC, so it cannot make strategic movement", "12.2.1")
        if available_mp(state, u) <= 0 and not (
            u.oos >= 1 and available_mp(state, u, full=True) > 0
        ):  # an OoS unit may still pay a level for its full MPs (`move ... full`, K82)
            return ("it has no MPs left for strategic movement", "12.2.3")
    elif u.strategic:
        return ("it is marked for strategic movement and moves in that phase", "12.0")
    elif u.ff_built_turn == state.turn and flow.current_phase(state).kind == "movement":
        return ("it is building field fortifications this phase", "7.1.2")
    if spec.type == "art" and u.setup == "combat":
        return ("towed artillery moves only in transport setup", "6.2.3")
    if u.barrage_at == (state.turn, state.phase - 1) and not strategic_phase(state):
        return ("it fired a barrage this turn", "6.5.5")
    if u.mp_spent > 0 and u.mp_spent >= available_mp(state, u):
        return ("it has no MPs left in this phase", "3.1.5")
    return None


@handles(o.Move)
def do_move(ctx: Ctx, side: str, order: o.Move) -> None:
    """3.0: move each named unit along the path, or by its cheapest path to the hex; in the
    Strategic Movement Phase the marked units (12.0)."""
    state = ctx.state
    if flow.current_phase(state).kind not in ("movement", "strategic"):
        raise Rejected(
            f"units move in the Movement Phase; it is {flow.phase_title(state)}", "2.1.2"
        )
    units = own_units(state, side, order.units, lambda u: can_move(state, u), "move")
    if order.full and not any(u.oos >= 1 for u in units):
        raise Rejected(
            "none of these units is out of supply: 'full' pays an OoS level for full MPs, "
            "which supplied units have anyway",
            "10.2.3",
        )
    try:
        path = [normalize(h) for h in order.path]
    except HexIdError as e:
        raise Rejected(str(e)) from None
    for named in units:
        u = ctx.state.units[named.id]
        assert u.hex is not None
        if strategic_phase(ctx.state) and not order.full and available_mp(ctx.state, u) <= 0:
            raise Rejected(
                f"{u.id} has no MPs for strategic movement with its MPs halved (out of "
                "supply): write 'full' at the end to pay an OoS level for its full MPs",
                "12.2.3",
                "K82",
            )
        start = u.hex
        explicit = len(path) > 1  # a path, not just a destination
        steps = path[1:] if explicit and path[0] == start else list(path)
        if not steps or steps == [start]:
            raise Rejected(f"{u.id} is already at {start}")
        full = order.full and u.oos >= 1  # 10.2.3: full MPs for an OoS level
        begun = Begun(start, u.mp_spent, available_mp(ctx.state, u, full=True), True)
        if explicit:
            reach = check_path(ctx.state, u, steps, begun if full else None)
        else:
            reach = _cheapest(ctx.state, u, steps[0], begun if full else None)
        ctx.emit(
            "moved",
            unit=u.id,
            side=side,
            **{"from": start},
            to=reach.hex,
            path=[start, *reach.path],
            cost=str(reach.cost),
            mp=str(available_mp(ctx.state, u, full=full)),
            bonus=reach.bonus,
        )
        after_move(ctx, u.id, [start, *reach.path])
        if full:
            supply.pay_level(ctx, u.id, "move")  # 10.2.5: just after the move


def after_move(ctx: Ctx, unit_id: str, path: list[HexId]) -> None:
    """What a unit's entering hexes does besides moving it: call after any event that moves
    a unit along `path` (its start hex first), also retreat, pursuit and advance. Enemy HQs
    alone in a hex it enters are eliminated (9.1.5); enemy fortifications there are removed
    (7.1.6, 7.2.1); it leaves its start hex's fortification and is in its side's
    fortification of the hex it ends in (7.1.5)."""
    for h in path[1:]:
        overrun.enter(ctx, unit_id, h)  # 9.1.5, 6.1.7
    markers.after_move(ctx, unit_id, path)
    for hook in AFTER_MOVE:  # e.g. 8.2.14, 8.2.17 in the movement phases
        hook(ctx, unit_id, path)


def _cheapest(state: GameState, u: UnitState, dest: str, begun: Begun | None = None) -> Reach:
    m = state.setup.map
    if not m.grid.contains(dest):
        raise Rejected(f"{dest} is not on the map", "1.1")
    options = reachable(state, u, begun=begun)
    if dest in options:
        return options[dest]
    assert u.hex is not None
    if m.grid.adjacent(u.hex, dest):
        return check_path(state, u, [dest], begun)  # raises with the precise reason
    board = _board(state, u)
    if dest in board.enemy_hexes and not (board.may_overrun and dest in board.lone_hqs):
        raise Rejected(f"cannot enter {m.label(dest)}: it holds enemy units", "3.1.8")
    mp = _begun(state, u, begun).mp
    unlimited = reachable(state, u, mp=mp + 10_000, begun=begun)
    if dest in unlimited:
        r = unlimited[dest]
        raise Rejected(
            f"{u.id} cannot reach {m.label(dest)} this phase: the cheapest legal path costs "
            f"{fmt_mp(r.cost)} MP and it has {fmt_mp(mp)}",
            "3.1.5",
        )
    raise Rejected(
        f"{u.id} has no legal path to {m.label(dest)}: enemy ZoC stops movement (4.2.1) "
        "and impassable terrain or enemy units are in the way",
        "4.2.1",
    )

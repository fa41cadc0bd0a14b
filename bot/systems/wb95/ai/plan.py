"""The Movement Phase planned as a whole (3.0, 5.1.3, 7.1, 11.0): first the attacks the
side can make at good odds next Combat Phase -- each enemy stack in turn, the most
rewarding first, gets the units that can reach a hex next to it until the reckoned odds
reach the bar, or nobody moves for it -- then the units already in contact that would
have to attack at poor odds step back or fortify (7.1.11: a fortified unit has no duty),
then every other unit goes where the scenario wants it (objectives to take or hold, the
withdrawal zones, back into supply) ending its move out of every enemy ZoC it can see.
No move it plans creates a mandatory attack (5.1.3) that it has not reckoned at 2:1 or
better."""

from __future__ import annotations

from fractions import Fraction

from bot.systems.wb95.ai import endgame, garrison, hold, risks
from bot.systems.wb95.ai.aims import Aims
from bot.systems.wb95.ai.board import Board, Step, attack_sp, goals
from bot.systems.wb95.ai.reckon import EVEN, FAIR, GOOD, column, crossing, guns_in_range
from bot.systems.wb95.ai.sight import Sight, Stack
from engine import orders as o
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95.air import attaching
from engine.wb95.artillery import (
    ARTILLERY,
    RANGE,
    SETUP_COST,
    why_cannot_fire,
    why_no_setup,
)
from engine.wb95.combat import can_attack, fortified, terrain_cms
from engine.wb95.fortifications import can_fortify
from engine.wb95.movement import Reach
from engine.wb95.reinforcements import legal_entries
from engine.wb95.stacking import STACK_LIMIT
from engine.wb95.strength import hq_range, strength
from engine.wb95.supply import supply_costs, trace

# How far (hexes) a unit looks for an enemy stack to attack, by level.
REACH = {1: 6, 2: 9, 3: 12}


def _regular(state: GameState, u: UnitState) -> bool:
    spec = state.setup.units[u.id]
    return not spec.is_hq and spec.type != "art"


def plan(
    state: GameState, side: str, sight: Sight, aims: Aims, level: int
) -> tuple[list[Step], dict[HexId, set[str]]]:
    """The Movement Phase's inputs, and the attacks they prepare (enemy hex -> units).
    On the last turn (endgame.py) garrison units are freed, one at a time, while that
    makes the weakest hex of the best winning set stronger; on the turn before it, free
    units may stage for the last turn's attacks (_staged)."""
    b, steps, keep = _plan(state, side, sight, aims, level, set())
    if endgame.staging(b):
        b, steps = _staged(state, side, sight, aims, level, b, steps, keep)
    if not endgame.applies(b):
        return steps, b.intents
    best = endgame.winning_set(b)
    freed: set[str] = set()
    for _ in range(2):
        found = None
        for uid in sorted(keep - freed):
            b2, steps2, _ = _plan(state, side, sight, aims, level, freed | {uid}, b.reach)
            score = endgame.winning_set(b2)
            if endgame.better(score, best):
                best, found = score, (uid, b2, steps2)
        if found is None:
            break
        freed.add(found[0])
        b, steps = found[1], found[2]
    return steps, b.intents


def _staged(
    state: GameState,
    side: str,
    sight: Sight,
    aims: Aims,
    level: int,
    b: Board,
    steps: list[Step],
    keep: set[str],
) -> tuple[Board, list[Step]]:
    """The turn before the last (endgame.staging): a free unit may end where it could
    reach the most enemy-held hexes the side must take next turn (endgame.next_reach)
    instead of where the plan sends it; up to two such units, one at a time, each taken
    when the whole plan's outlook for the last turn (endgame.staged) rises, or no hex of
    it gets weaker and more attack SPs could reach the hexes to take (endgame.reach_sp)."""
    memo: dict[tuple[str, HexId], dict[HexId, Reach]] = {}
    best = endgame.staged(b, memo)
    sp = endgame.reach_sp(b, memo)
    stage: dict[str, HexId] = {}
    for _ in range(2):
        found = None
        for u in sorted(state.on_map(side), key=lambda x: x.id):
            if u.id in keep or u.id in stage or u.hex is None or not _regular(state, u):
                continue
            h = _stage_hex(b, u, memo)
            if h is None:
                continue
            b2, steps2, _ = _plan(
                state, side, sight, aims, level, set(), b.reach, {**stage, u.id: h}
            )
            score, sp2 = endgame.staged(b2, memo), endgame.reach_sp(b2, memo)
            if endgame.better(score, best) or (endgame.even(score, best) and sp2 > sp):
                best, sp, found = score, sp2, (u.id, h, b2, steps2)
        if found is None:
            break
        stage[found[0]] = found[1]
        b, steps = found[2], found[3]
    return b, steps


def _stage_hex(
    b: Board, u: UnitState, memo: dict[tuple[str, HexId], dict[HexId, Reach]]
) -> HexId | None:
    """Where `u` could reach the most enemy-held hexes the side must take next turn (a hex
    next to each, out of every other enemy ZoC: 5.1.3), out of enemy ZoC and in supply."""
    state, sight, grid = b.state, b.sight, b.state.setup.map.grid
    targets = [
        t
        for t, w in b.aims.hexes.items()
        if w > 0 and t in sight.stacks and state.control.get(t) != b.side
    ]
    if not targets:
        return None
    sp = strength(state, u, attacking=False).sp

    def count(h: HexId) -> int:
        key = (u.id, h)
        if key not in memo:
            memo[key] = endgame.next_reach(state, u, h)
        reach = [h, *memo[key]]
        return sum(
            1
            for t in targets
            if any(
                grid.adjacent(a, t) and sight.zoc.get(a, set()) <= {t} and a not in sight.stacks
                for a in reach
            )
        )

    ok = [
        h for h in b.moves(u.id) if not sight.zoc.get(h) and h not in sight.stacks and h in b.costs
    ]
    best: tuple[int, float, int, HexId] | None = None
    for h in ok:
        n = count(h)
        if n == 0:
            continue
        key = (
            n,
            -max(0.0, b.threat.get(h, 0.0) - 2 * sp),
            -min(grid.distance(h, t) for t in targets),
            h,
        )
        if best is None or key > best:
            best = key
    return best[3] if best else None


def _plan(
    state: GameState,
    side: str,
    sight: Sight,
    aims: Aims,
    level: int,
    freed: set[str],
    reach: dict[str, dict[HexId, Reach]] | None = None,
    stage: dict[str, HexId] | None = None,
) -> tuple[Board, list[Step], set[str]]:
    """One plan, with the garrison units in `freed` free to go; the garrisons kept; the
    units in `stage` moved first to their hexes (_staged)."""
    b = Board(state, side, sight, aims, level)
    if reach is not None:
        b.reach = reach  # legal moves do not change between plans of one phase
    for u in state.on_map(side):
        if u.hex is not None:
            b.cels[u.hex] = b.cels.get(u.hex, 0) + u.cel
    b.costs = supply_costs(state, side)
    grid = state.setup.map.grid
    for e, st in sight.stacks.items():
        for h in grid.within(e, 2):
            b.threat[h] = b.threat.get(h, 0.0) + st.est
    steps: list[Step] = []
    steps += _withdraw(b)
    steps += _unstack(b)
    kept = _garrisons(b)
    keep = kept - freed
    steps += garrison.dig_in(b, keep)
    for uid, h in sorted((stage or {}).items()):
        u = state.units[uid]
        if uid not in b.done and h in b.moves(uid) and b.room(h, u):
            b.put(u, h)
            steps.append(Step(f"m-{uid}", o.Move(units=(uid,), path=b.moves(uid)[h].path)))
    steps += _attacks(b, keep)
    steps += garrison.reinforce(b, keep)
    steps += _contact(b)
    steps += _occupy(b, keep)
    steps += _free(b, keep)
    steps += _reinforcements(b)
    return b, steps, kept


# -- The Retreat: units in a withdrawal zone leave and are saved -------------------------


def _withdraw(b: Board) -> list[Step]:
    if not b.aims.escape:
        return []
    out = []
    for u in b.state.on_map(b.side):
        if u.hex in b.aims.escape:
            b.done.add(u.id)
            out.append(Step(f"w-{u.id}", o.Withdraw(units=(u.id,))))
    return out


def _unstack(b: Board) -> list[Step]:
    """3.2.1: a hex over the stacking limit (after retreats and advances) is emptied
    first -- the phase cannot end otherwise -- by its smallest units."""
    state = b.state
    out: list[Step] = []
    for h, n in sorted(b.cels.items()):
        if n <= STACK_LIMIT:
            continue
        here = sorted(
            (u for u in state.units_at(h) if u.side == b.side and u.id not in b.done),
            key=lambda u: (u.cel, strength(state, u, attacking=False).sp, u.id),
        )
        for u in here:
            if b.cels.get(h, 0) <= STACK_LIMIT:
                break
            step = _best_move(b, u, force=True) or _best_move(b, u, out_of_zoc=False, force=True)
            if step is not None:
                out.append(step)
    return out


# -- attacks -------------------------------------------------------------------------------


def _bar(b: Board, st: Stack) -> int:
    """The reckoned column a planned attack must reach: 2:1 on an objective it must take
    or in the open, 3:1 elsewhere (the defender may still add guns and air, 6.3.3)."""
    on_goal = b.aims.hexes.get(st.hex, 0.0) > 0 and b.aims.attack
    if on_goal and b.state.turn >= b.state.setup.turns:
        return EVEN  # the last turn: 1:1 for a hex that decides the game
    if on_goal or b.cover(st.hex) <= 0:
        return FAIR
    return GOOD


def _value(b: Board, st: Stack) -> float:
    worth = b.aims.hexes.get(st.hex, 0.0) * (2.0 if b.aims.attack else 1.0)
    if worth > 0:
        worth *= hold.holdable(b.state, b.side, b.sight, st.hex)
    return 1.0 + worth + b.aims.kill * min(3, st.counters) - 0.3 * st.hi / 4


def _holds(state: GameState, units: list[UnitState], counter: float, cms: int) -> bool:
    """Would the units that take a valued hex hold it (`counter`: 0 for other hexes)?"""
    return counter <= 0 or hold.safe(state, units, counter, cms)


def _retaken(b: Board) -> bool:
    """Is a valued hex taken and lost again worth nothing: before the last turn (the
    hex counts only at the end), when the scenario gives nothing for the enemy's losses."""
    return b.state.turn < b.state.setup.turns and b.aims.kill <= 0


def _attacks(b: Board, keep: set[str]) -> list[Step]:
    state, grid = b.state, b.state.setup.map.grid
    sight = b.sight
    own = [
        u
        for u in state.on_map(b.side)
        if u.hex is not None and _regular(state, u) and can_attack(state, u) is None
    ]
    retreating = bool(b.aims.escape)
    targets = sorted(sight.stacks.values(), key=lambda s: (-_value(b, s), s.hex))
    out: list[Step] = []
    planned: set[HexId] = set()
    spare = risks.spare_cels(state, b.side)  # 18.1.3: who takes the mine hits
    pool = {
        g.id: (g.hex, strength(state, g, attacking=True).sp)
        for g in state.on_map(b.side)
        if g.hex and state.setup.units[g.id].type in ARTILLERY and why_cannot_fire(state, g) is None
    }
    # a second pass may end next to a stack already planned for (5.1.4: attacked anyway)
    for st in [*targets, *targets]:
        t = st.hex
        if t in planned:
            continue
        bar = _bar(b, st)
        allowed = {t} | planned
        air = sum(int(m["sp"]) for m in attaching(state, b.side, "support-attack", [t]))
        guns = guns_in_range(state, sight, t, b.side)
        # its own guns in combat setup within range support (6.3), each in one plan only
        in_range = [g for g, (h, _) in pool.items() if grid.distance(h, t) <= RANGE]
        ours = sum(pool[g][1] for g in in_range)
        take = b.aims.hexes.get(t, 0.0) > 0 and state.control.get(t) != b.side
        # units already next to it, free to attack it alone (their only contact); a
        # fortified one only for a valued hex (7.1.11: it has no duty to attack)
        fixed = [
            u
            for u in own
            if u.id not in b.done
            and u.hex is not None
            and grid.adjacent(u.hex, t)
            and (take or not fortified(state, u))
            and not risks.last_cel_at_risk(state, u, spare)
            and sight.zoc.get(u.hex, set()) <= allowed
        ]
        have = float(air + ours + sum(attack_sp(state, u) for u in fixed))
        parts: list[tuple[HexId, float]] = [(u.hex, attack_sp(state, u)) for u in fixed if u.hex]
        picks: list[tuple[UnitState, HexId, Reach]] = []
        # a valued hex it takes must be held against the enemy's next turn (hold.py)
        counter = 0.0
        if take:
            counter = hold.counter_sp(state, sight, t)
        t_cms = terrain_cms(state, t)

        reached = have > air + ours and column(state, have, st, parts, guns) >= bar
        if not (reached and _holds(state, fixed, counter, t_cms)) and not retreating:
            movers = [
                u
                for u in own
                if u.id not in b.done
                and u.id not in keep
                and u not in fixed
                and u.hex is not None
                and (not sight.zoc.get(u.hex) or counter > 0)  # 4.2: it may leave a ZoC
                and grid.distance(u.hex, t) <= REACH[b.level]
                and not risks.last_cel_at_risk(state, u, spare)
            ]
            movers.sort(key=lambda u: (-attack_sp(state, u), u.id))
            used: dict[HexId, int] = {}
            extra = 0  # movers beyond the bar, to hold the hex
            for u in movers:
                reached = have > air + ours and column(state, have, st, parts, guns) >= bar
                capture = [*fixed, *(p[0] for p in picks)]
                if reached and (extra >= garrison.MORE or _holds(state, capture, counter, t_cms)):
                    break
                spots = [
                    (h, r)
                    for h, r in b.moves(u.id).items()
                    if grid.adjacent(h, t)
                    and sight.zoc.get(h, set()) <= allowed
                    and h not in sight.stacks
                    and b.cels.get(h, 0) + used.get(h, 0) + u.cel <= STACK_LIMIT
                ]
                if not spots:
                    continue
                h, r = max(
                    spots,
                    key=lambda x: (
                        -crossing(state, x[0], t),
                        b.cover(x[0]),
                        x[0] in b.costs,
                        -x[1].cost,
                        x[0],
                    ),
                )
                picks.append((u, h, r))
                extra += reached
                parts.append((h, attack_sp(state, u)))
                used[h] = used.get(h, 0) + u.cel
                have += attack_sp(state, u)
        # 6.3.2: a gun supports only within range of an attacking hex
        near = [g for g in in_range if any(grid.distance(pool[g][0], a) <= RANGE for a, _ in parts)]
        have -= ours - sum(pool[g][1] for g in near)
        in_range, ours = near, sum(pool[g][1] for g in near)
        if have <= air + ours or column(state, have, st, parts, guns) < bar:
            continue
        if picks and column(state, have - ours, st, parts, guns) < max(EVEN, bar - 1):
            continue  # units it moves never depend on its guns for a duty above 1:2
        if not fixed and not picks:
            continue
        capture = [*fixed, *(p[0] for p in picks)]
        if not _holds(state, capture, counter, t_cms) and _retaken(b):
            continue  # a hex it would lose again, with the units in it, for nothing
        # the smallest movers that are not needed stay free
        for p in sorted(picks, key=lambda p: attack_sp(state, p[0])):
            rest = list(parts)
            rest.remove((p[1], attack_sp(state, p[0])))  # one of equal parts only
            less = have - attack_sp(state, p[0])
            kept = [*fixed, *(q[0] for q in picks if q is not p)]
            if (
                len(picks) > 1
                and column(state, less, st, rest, guns) >= bar
                and _holds(state, kept, counter, t_cms)
            ):
                picks.remove(p)
                parts, have = rest, less
        planned.add(t)
        # its guns too: the Combat Phase gives them to this attack only (battle.py)
        b.intents[t] = {u.id for u in fixed} | {p[0].id for p in picks} | set(in_range)
        b.cols[t] = column(state, have, st, parts, guns)
        b.sps[t] = have
        for g in in_range:
            del pool[g]
            b.done.add(g)
        for u in fixed:
            b.done.add(u.id)
            risks.commit(state, u, spare)
        for u, h, r in picks:
            risks.commit(state, u, spare)
            b.put(u, h)
            out.append(Step(f"a-{t}", o.Move(units=(u.id,), path=r.path)))
    return out


# -- units in contact that would attack at poor odds -----------------------------------------


def _contact(b: Board) -> list[Step]:
    state = b.state
    out: list[Step] = []
    for u in sorted(state.on_map(b.side), key=lambda x: x.id):
        if u.id in b.done or u.hex is None or not b.sight.zoc.get(u.hex):
            continue
        if not _regular(state, u) or fortified(state, u):
            continue
        threat = sum(b.sight.stacks[h].est for h in b.sight.zoc[u.hex] if h in b.sight.stacks)
        mine = strength(state, u, attacking=False).sp
        stay_ok = b.aims.hexes.get(u.hex, 0.0) > 0 or threat < 3 * max(1, mine)
        if b.aims.escape:
            stay_ok = False
        if stay_ok and can_fortify(state, u) is None:
            b.done.add(u.id)
            out.append(Step(f"f-{u.id}", o.Fortify(units=(u.id,))))
            continue
        step = _best_move(b, u, out_of_zoc=True)
        if step is not None:
            out.append(step)
        elif can_fortify(state, u) is None:
            b.done.add(u.id)
            out.append(Step(f"f-{u.id}", o.Fortify(units=(u.id,))))
    return out


# -- everybody else ------------------------------------------------------------------------


def _best_move(b: Board, u: UnitState, out_of_zoc: bool = True, force: bool = False) -> Step | None:
    """The unit's best end hex for the aims (`force`: even when staying looks better)."""
    state, grid = b.state, b.state.setup.map.grid
    here = u.hex
    assert here is not None
    reach = b.moves(u.id)
    if not reach:
        return None
    lines_ok = here in b.costs
    sp = strength(state, u, attacking=False).sp
    own_hexes = {x for x, n in b.cels.items() if n > 0}

    def score(h: HexId) -> float:
        value = -1.0 * b.goal_distance(h) + 0.6 * b.cover(h)
        if h in b.costs:
            value += 1.0 - 0.05 * float(b.costs[h])
        else:
            value -= 8.0 if lines_ok else 3.0
        friends = sum(1 for x in grid.neighbours(h) if x in own_hexes)
        value += 0.3 * min(friends, 2)
        value -= 0.15 * max(0.0, b.threat.get(h, 0.0) - 2 * sp)  # exposure to enemy attacks
        if h in b.aims.escape:
            value += 5.0
        return value

    best: tuple[float, HexId] | None = None
    for h in reach:
        if h == here or not b.room(h, u) or h in b.sight.stacks:
            continue
        if out_of_zoc and b.sight.zoc.get(h):
            continue  # 5.1.3: no mandatory attack it has not reckoned
        s = score(h)
        if best is None or (s, h) > best:
            best = (s, h)
    if best is None:
        return None
    stay = score(here) if not b.sight.zoc.get(here) else -1e9
    if risks.breaks_down(state, u):
        stay += 1.5  # 22.1.1: a move costs a CEL half the time
    if best[0] <= stay + 0.5 and not force:
        return None
    b.put(u, best[1])
    return Step(f"m-{u.id}", o.Move(units=(u.id,), path=reach[best[1]].path))


def _garrisons(b: Board) -> set[str]:
    """The units that stay on the valued hexes the side holds: all of them while it holds
    what it needs; while it must take more, the fewest that hold the hex against the
    enemy near (hold.safe, dug in), the slowest and weakest first so that its strike
    units stay free -- at least one."""
    state = b.state
    out: set[str] = set()
    if b.aims.escape:
        return out
    for h, here in hold.held(state, b.side, b.aims).items():
        here = [u for u in here if u.id not in b.done]
        if not b.aims.attack:
            out.update(u.id for u in here)
            continue
        here.sort(
            key=lambda u: (
                state.setup.units[u.id].mp,
                strength(state, u, attacking=True).sp,
                u.id,
            )
        )
        attack = hold.counter_sp(state, b.sight, h)
        cms = hold.defence_cms(state, b.side, h, dug=True)
        kept: list[UnitState] = []
        for u in here:
            if kept and hold.safe(state, kept, attack, cms):
                break
            kept.append(u)
        out.update(u.id for u in kept)
    return out


def _occupy(b: Board, keep: set[str]) -> list[Step]:
    """Valued hexes with nobody on them: its own ones the enemy is near get the nearest
    unit that can reach them; the others' empty ones are taken when out of enemy ZoC."""
    state, grid = b.state, b.state.setup.map.grid
    out: list[Step] = []
    held = {u.hex for u in state.on_map(b.side) if u.hex and _regular(state, u)}
    for h in sorted(b.aims.hexes, key=lambda h: (-b.aims.hexes[h], h)):
        if b.aims.hexes[h] <= 0 or h in held or h in b.sight.stacks or b.sight.zoc.get(h):
            continue
        ours = state.control.get(h) == b.side
        near = any(grid.distance(h, e) <= 5 for e in b.sight.stacks)
        if ours and not near:
            continue
        free = [
            u
            for u in state.on_map(b.side)
            if u.id not in b.done and u.id not in keep and u.hex and _regular(state, u)
        ]
        free.sort(key=lambda u: (grid.distance(u.hex or h, h), u.id))
        for u in free[:6]:
            r = b.moves(u.id).get(h)
            if r is not None and b.room(h, u):
                b.put(u, h)
                out.append(Step(f"o-{u.id}", o.Move(units=(u.id,), path=r.path)))
                held.add(h)
                break
    return out


def _free(b: Board, keep: set[str]) -> list[Step]:
    state, grid = b.state, b.state.setup.map.grid
    out: list[Step] = []
    lines = trace(state, b.side)
    units = sorted(state.on_map(b.side), key=lambda x: (-strength(state, x, True).sp, x.id))
    for u in units:
        if u.id in b.done or u.hex is None:
            continue
        spec = state.setup.units[u.id]
        if u.id in keep:
            b.done.add(u.id)
            if can_fortify(state, u) is None and not fortified(state, u):
                out.append(Step(f"f-{u.id}", o.Fortify(units=(u.id,))))
            continue
        if spec.is_hq:
            step = _hq_move(b, u)
        elif spec.type == "art" and u.setup == "transport":
            post = _gun_post(b, u)
            if post:
                out += post
                continue
            step = _best_move(b, u)
        else:
            step = _best_move(b, u)
        if step is not None:
            out.append(step)
            continue
        b.done.add(u.id)
        near = any(grid.distance(u.hex, e) <= 2 for e in b.sight.stacks)
        line = lines.get(u.id)
        if _regular(state, u) and near and can_fortify(state, u) is None:
            out.append(Step(f"f-{u.id}", o.Fortify(units=(u.id,))))
        if (
            spec.type == "art"
            and u.setup == "transport"
            and why_no_setup(state, u, "combat") is None
            and any(grid.distance(u.hex, e) <= 4 for e in b.sight.stacks)
            and (line is None or line.supplied)
        ):
            out.append(Step(f"s-{u.id}", o.SetupChange(units=(u.id,), mode="combat")))
    return out


def _gun_targets(b: Board) -> list[HexId]:
    """The enemy stacks its guns should reach (6.1.2): on hexes the side must take, and
    the attacks it has planned."""
    state = b.state
    take = [
        h
        for h in b.sight.stacks
        if b.aims.hexes.get(h, 0.0) > 0 and state.control.get(h) != b.side and b.aims.attack
    ]
    return sorted(set(take) | set(b.intents))


def _gun_post(b: Board, u: UnitState) -> list[Step]:
    """Towed artillery in transport setup supports nobody (6.2.2): it moves where its range
    covers the most stacks the side must attack, out of enemy ZoC, if it can not next to
    an enemy stack, with the MP left to change to combat setup (6.2.4: 1 MP)."""
    state, grid = b.state, b.state.setup.map.grid
    targets = _gun_targets(b)
    here = u.hex
    if not targets or here is None:
        return []
    mp = Fraction(state.setup.units[u.id].mp)
    posts: dict[HexId, Reach | None] = {here: None}
    posts.update({h: r for h, r in b.moves(u.id).items() if r.cost + SETUP_COST <= mp})

    def score(h: HexId) -> tuple[int, bool, int, int, HexId]:
        covered = sum(1 for t in targets if grid.distance(h, t) <= RANGE)
        exposed = any(grid.distance(h, e) <= 1 for e in b.sight.stacks)
        near = min(grid.distance(h, t) for t in targets)
        return (covered, not exposed, b.cover(h), -near, h)

    ok = [
        h
        for h in posts
        if not b.sight.zoc.get(h)
        and h not in b.sight.stacks
        and (h == here or b.room(h, u))
        and h in b.costs
    ]
    if not ok:
        return []
    best = max(ok, key=score)
    if score(best)[0] == 0:
        return []
    out: list[Step] = []
    r = posts[best]
    if r is not None:
        b.put(u, best)
        out.append(Step(f"g-{u.id}", o.Move(units=(u.id,), path=r.path)))
    else:
        b.done.add(u.id)
    out.append(Step(f"g-{u.id}", o.SetupChange(units=(u.id,), mode="combat")))
    return out


def _hq_move(b: Board, u: UnitState) -> Step | None:
    """9.2.1: an HQ stays within range of the units that will fight; it never stands alone
    where the enemy could reach it (5.1.9: a lone HQ is attacked on the last column, and
    its loss gives the enemy 5 CMs, 9.1.6): stacked with a unit of its own or 4 hexes away
    from every enemy stack, out of enemy ZoC."""
    state, grid = b.state, b.state.setup.map.grid
    reach = dict(b.moves(u.id))
    here = u.hex
    assert here is not None
    if not reach:
        return None
    fights = [
        h for h, n in b.cels.items() if n > 0 and any(grid.adjacent(h, e) for e in b.sight.stacks)
    ]
    rng = hq_range(state, u)
    # hexes where a unit of its own that stays (or arrives) will stand
    guarded = {h for h, n in b.cels.items() if n > 0} - {here}
    guarded |= {
        x.hex
        for x in state.on_map(b.side)
        if x.hex
        and x.hex == here
        and x.id != u.id
        and _regular(state, x)
        and x.id in b.done
        and b.cels.get(here, 0) > u.cel
    }

    def score(h: HexId) -> float:
        covered = sum(1 for f in fights if grid.distance(h, f) <= rng)
        danger = min((grid.distance(h, e) for e in b.sight.stacks), default=9)
        safe = (h in guarded and danger >= 2) or danger >= 7
        value = covered + 0.5 * min(danger, 7) + (0.5 if h in b.costs else -3.0)
        return value + 10.0 * safe

    best = max(
        (h for h in reach if not b.sight.zoc.get(h) and b.room(h, u) and h not in b.sight.stacks),
        key=lambda h: (score(h), h),
        default=None,
    )
    if best is None or score(best) <= score(here) + 0.5:
        return None
    b.put(u, best)
    return Step(f"h-{u.id}", o.Move(units=(u.id,), path=reach[best].path))


# -- reinforcements (11.0) -------------------------------------------------------------------


def _reinforcements(b: Board) -> list[Step]:
    state, grid = b.state, b.state.setup.map.grid
    aims = goals(b)
    out: list[Step] = []
    for u in sorted(state.units.values(), key=lambda x: x.id):
        if u.side != b.side or u.on_map:
            continue
        entries = legal_entries(state, u.id)
        if not entries:
            continue
        safe = [e for e in entries.values() if not b.sight.zoc.get(e.hex) and b.room(e.hex, u)]
        if not safe:
            continue  # 11.0: rather wait than enter into an enemy ZoC
        best = min(
            safe,
            key=lambda e: (
                min((grid.distance(e.hex, g) for g in aims), default=0),
                -b.cover(e.hex),
                e.cost,
                e.hex,
            ),
        )
        b.put(u, best.hex)  # 3.2.1: the hexes it fills
        out.append(Step(f"r-{u.id}", o.Enter(units=(u.id,), where=best.entry, path=best.path[1:])))
    return out

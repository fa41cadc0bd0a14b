"""The last turn as a whole (4.3: a valued hex counts for whoever last had a unit in it at
the end). After the side's last Combat Phase the enemy still has a whole turn, and it
counter-attacks the weakest of the hexes the side needs; so a plan for the last turn is
worth the chance that the weakest hex of the best winning set is still the side's then.

`outlook` reads that from a plan made (board.Board): each valued hex the side will hold
has the chance its stack survives the counter-attack the enemy can bring (hold.kept, the
COMBAT TABLE, 5.2.1 f), each one it attacks the chance the attack takes it (the
defender's result, 5.2.1 f, 5.3.7) times the chance the attackers, advanced into it
(5.4), keep it. Only for scenarios decided by hexes alone (no VPs for losses, no link):
elsewhere a hex lost is not the whole game."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from bot.systems.wb95.ai import hold
from bot.systems.wb95.ai.board import Board
from bot.systems.wb95.ai.reckon import column, defence_cms
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95.combat import can_attack, terrain_cms
from engine.wb95.crt import MAX_COLUMN, MIN_COLUMN, initial_column, lookup
from engine.wb95.movement import Reach, reachable
from engine.wb95.odds import distribution
from engine.wb95.stacking import STACK_LIMIT
from engine.wb95.strength import strength


def by_hexes(b: Board) -> bool:
    """A scenario won by hexes only, which the side must still win (take hexes)."""
    return (
        b.aims.attack
        and not b.aims.escape
        and b.aims.kill <= 0
        and not b.state.setup.victory_rules.get("link")
        and any(w > 0 for w in b.aims.hexes.values())
    )


def applies(b: Board) -> bool:
    """The last turn of a scenario won by hexes only, which the side must still win."""
    return b.state.turn >= b.state.setup.turns and by_hexes(b)


def taken(
    state: GameState,
    b: Board,
    t: HexId,
    units: list[UnitState],
    col: int | None = None,
    sp: float | None = None,
) -> float:
    """The chance the attack planned on `t` leaves it to its attackers: the defender's
    stack does not survive in place (eliminated, or a retreat longer than its biggest
    unit's CELs can sustain, 5.3.7) and an attacker is left to advance into it (5.4: none
    after a retreat of its own, A1-A4, or when the attackers' last CELs are lost). A lone
    towed gun defends with 1 SP (6.6.3) on the terrain's CMs; a lone HQ does not fight
    (5.1.9). `col` and `sp`: the column and SPs of an attack not planned yet."""
    st = b.sight.stacks.get(t)
    col = b.cols.get(t, MAX_COLUMN) if col is None else col
    if st is None:
        return 1.0
    if not st.regular:
        sp = b.sps.get(t, 0.0) if sp is None else sp
        col = initial_column(int(sp), 1) - defence_cms(state, st)
        cels = [1]
    else:
        cels = list(st.cels)  # the counters seen in full, from the view (16.1)
        cels += [2] * max(0, st.counters - len(cels))  # a counter seen by type: two CELs
    ours = sum(u.cel for u in units)
    col = min(max(col, MIN_COLUMN), MAX_COLUMN)
    ways = 0
    for roll, n in distribution().items():
        r = lookup(state.setup.results, col, roll)
        d, a = r.defender, r.attacker
        left = sum(cels) - d.losses
        biggest = max(cels) - (d.losses if len(cels) == 1 else 0)
        if left > 0 and (not d.retreat or biggest > d.retreat):
            continue  # it stays
        if a.retreat or a.losses >= ours:
            continue  # nobody to advance
        ways += n
    return ways / 36


def chances(b: Board) -> dict[HexId, float]:
    """Per valued hex, the chance it is the side's at the end after the plan in `b`."""
    state = b.state
    out: dict[HexId, float] = {}
    for h, w in b.aims.hexes.items():
        if w <= 0:
            continue
        counter = hold.counter_sp(state, b.sight, h)
        if h in b.intents and h in b.cols:
            units = [state.units[i] for i in b.intents[h] if hold.regular(state, state.units[i])]
            p = taken(state, b, h, units)
            out[h] = p * hold.kept(state, units, counter, terrain_cms(state, h))
        elif (state.control.get(h) == b.side or b.stack(h)) and h not in b.sight.stacks:
            # 4.3: a hex its units stand in is its own at the end, whoever had it last
            stack = b.stack(h)
            if stack:
                cms = hold.defence_cms(state, b.side, h, dug=h in b.dug)
                out[h] = hold.kept(state, stack, counter, cms)
            else:
                out[h] = 0.0 if counter > 0 else 1.0
        else:
            out[h] = 0.0
    return out


def winning_set(b: Board) -> list[float]:
    """The chances of the hexes of the best winning set, weakest first: the strongest
    hexes until they are worth more than all the others together (the set whose weakest
    hex is strongest; the enemy attacks that one)."""
    p = chances(b)
    total = sum(b.aims.hexes[h] for h in p)
    worth = 0.0
    out: list[float] = []
    for h in sorted(p, key=lambda x: (-p[x], x)):  # the strongest first
        worth += b.aims.hexes[h]
        out.append(p[h])
        if 2 * worth > total:
            return sorted(out)
    return [0.0]


def outlook(b: Board) -> float:
    """The chance of the weakest hex of the best winning set."""
    return winning_set(b)[0]


def even(new: list[float], old: list[float]) -> bool:
    """No hex of `new` weaker than in `old` (the sets read weakest first)."""
    return all(n >= o - 0.01 for n, o in zip(new, old, strict=False))


def better(new: list[float], old: list[float]) -> bool:
    """Is `new` the stronger set: its weakest hex, and on a tie the next weakest (the enemy
    may not find the weakest, or may split its attack)?"""
    for n, o in zip(new, old, strict=False):
        if abs(n - o) > 0.01:
            return n > o
    return False


# -- the turn before the last: where the units end, for the last turn's attacks ---------


def staging(b: Board) -> bool:
    """The turn before the last of a scenario won by hexes only the side must still win."""
    return b.state.turn == b.state.setup.turns - 1 and by_hexes(b)


def next_reach(state: GameState, u: UnitState, h: HexId) -> dict[HexId, Reach]:
    """Where `u` could move next turn from `h`: its full MPs, the roads, and the enemy's
    ZoCs as they stand now (4.2.1: entering one ends the move)."""
    s = state.clone()
    s.units[u.id] = replace(u, hex=h, mp_spent=Fraction(0), moved=False)
    return reachable(s, s.units[u.id])


def ends(b: Board) -> dict[str, HexId]:
    """Each regular unit's hex after the plan in `b`."""
    state = b.state
    out = {u.id: u.hex for u in state.on_map(b.side) if u.hex and hold.regular(state, u)}
    for h, units in b.arrive.items():
        for u in units:
            if u.id in out:
                out[u.id] = h
    return out


def strikers(
    b: Board, t: HexId, memo: dict[tuple[str, HexId], dict[HexId, Reach]]
) -> tuple[list[UnitState], list[tuple[HexId, float]]]:
    """The units not holding a valued hex after the plan in `b` that could end next to
    the enemy's hex `t` next turn out of every other enemy ZoC (5.1.3), each with the hex
    it would attack from and its attack SPs."""
    state, sight, grid = b.state, b.sight, b.state.setup.map.grid
    valued = {h for h, w in b.aims.hexes.items() if w > 0}
    units: list[UnitState] = []
    parts: list[tuple[HexId, float]] = []
    for uid, h in sorted(ends(b).items()):
        u = state.units[uid]
        if h in valued or can_attack(state, u) is not None:
            continue
        if grid.distance(h, t) > 2 * state.setup.units[uid].mp + 1:
            continue
        key = (uid, h)
        if key not in memo:
            memo[key] = next_reach(state, u, h)
        spots = [
            a
            for a in [h, *memo[key]]
            if grid.adjacent(a, t) and sight.zoc.get(a, set()) <= {t} and a not in sight.stacks
        ]
        if spots:
            units.append(u)
            parts.append((spots[0], float(strength(state, u, attacking=True).sp)))
    return units, parts


def strikes(b: Board, t: HexId, memo: dict[tuple[str, HexId], dict[HexId, Reach]]) -> float:
    """The chance that the `strikers` take the enemy's valued hex `t` next turn and keep
    it: the COMBAT TABLE reads their SPs against the stack as seen now (5.2.1 f, 5.5.4),
    then `hold.kept` against the enemy near."""
    state, sight, grid = b.state, b.sight, b.state.setup.map.grid
    st = sight.stacks.get(t)
    if st is None:
        return 0.0
    units, parts = strikers(b, t, memo)
    if not units:
        return 0.0
    sp = sum(x for _, x in parts)
    col = column(state, sp, st, parts, sight.gun_sp(grid, t))
    p = taken(state, b, t, units, col, sp)
    return p * hold.kept(state, units, hold.counter_sp(state, sight, t), terrain_cms(state, t))


def reach_sp(b: Board, memo: dict[tuple[str, HexId], dict[HexId, Reach]]) -> float:
    """The attack SPs that could reach each enemy-held hex the side must take next turn
    (`strikers`), summed: what the plan leaves for the last turn when no attack yet reads
    a chance (the enemy's stacks there may leave before it)."""
    return sum(
        sum(sp for _, sp in strikers(b, t, memo)[1])
        for t, w in b.aims.hexes.items()
        if w > 0 and t in b.sight.stacks and t not in b.intents
    )


def backed(b: Board, h: HexId, memo: dict[tuple[str, HexId], dict[HexId, Reach]]) -> float:
    """The chance a valued hex it holds is kept through the enemy's last turn too: its
    stack after the plan and the units that could move into it next turn (3.2.1), against
    the enemy near it (hold.kept)."""
    state = b.state
    valued = {x for x, w in b.aims.hexes.items() if w > 0}
    stack = b.stack(h)
    room = sum(u.cel for u in stack)
    for uid, x in sorted(ends(b).items()):
        u = state.units[uid]
        if x in valued or u in stack or room + u.cel > STACK_LIMIT:
            continue
        if state.setup.map.grid.distance(x, h) > 2 * state.setup.units[uid].mp + 1:
            continue
        key = (uid, x)
        if key not in memo:
            memo[key] = next_reach(state, u, x)
        if h in memo[key]:
            stack.append(u)
            room += u.cel
    cms = hold.defence_cms(state, b.side, h, dug=h in b.dug)
    return hold.kept(state, stack, hold.counter_sp(state, b.sight, h), cms)


def staged(b: Board, memo: dict[tuple[str, HexId], dict[HexId, Reach]]) -> list[float]:
    """The best winning set as `winning_set` reads it, the enemy's valued hexes not
    attacked this turn counted by the attacks the plan leaves possible next turn."""
    p = chances(b)
    for h in p:
        if h not in b.intents and h in b.sight.stacks:
            p[h] = strikes(b, h, memo)
        elif h not in b.intents and h not in b.sight.stacks and p[h] > 0:
            p[h] *= backed(b, h, memo)
    total = sum(b.aims.hexes[h] for h in p)
    worth = 0.0
    out: list[float] = []
    for h in sorted(p, key=lambda x: (-p[x], x)):
        worth += b.aims.hexes[h]
        out.append(p[h])
        if 2 * worth > total:
            return sorted(out)
    return [0.0]

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

from bot.systems.wb95.ai import hold
from bot.systems.wb95.ai.board import Board
from bot.systems.wb95.ai.reckon import defence_cms
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95.combat import terrain_cms
from engine.wb95.crt import MAX_COLUMN, MIN_COLUMN, initial_column, lookup
from engine.wb95.odds import distribution


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


def taken(state: GameState, b: Board, t: HexId, units: list[UnitState]) -> float:
    """The chance the attack planned on `t` leaves it to its attackers: the defender's
    stack does not survive in place (eliminated, or a retreat longer than its biggest
    unit's CELs can sustain, 5.3.7) and an attacker is left to advance into it (5.4: none
    after a retreat of its own, A1-A4, or when the attackers' last CELs are lost). A lone
    towed gun defends with 1 SP (6.6.3) on the terrain's CMs; a lone HQ does not fight
    (5.1.9)."""
    st = b.sight.stacks.get(t)
    col = b.cols.get(t, MAX_COLUMN)
    if st is None:
        return 1.0
    if not st.regular:
        col = initial_column(int(b.sps.get(t, 0.0)), 1) - defence_cms(state, st)
        cels = [1]
    else:
        cels = [state.units[i].cel for i in st.ids if i in state.units]
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
        elif state.control.get(h) == b.side and h not in b.sight.stacks:
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


def better(new: list[float], old: list[float]) -> bool:
    """Is `new` the stronger set: its weakest hex, and on a tie the next weakest (the enemy
    may not find the weakest, or may split its attack)?"""
    for n, o in zip(new, old, strict=False):
        if abs(n - o) > 0.01:
            return n > o
    return False

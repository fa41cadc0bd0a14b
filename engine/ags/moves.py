"""Where a unit may move now (AGS 5.1, 5.2, 8.2, 10.13, 11.23; AGS-K 19.25, 20.12, 23.13,
23.14; A9, A21-A24): the cheapest paths within its allowance, stopping on entering an
enemy zone of control, never into an enemy unit or the Dniepr's hexes."""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction

from engine.ags import engagement, game, movement, sequence
from engine.ags.zoc import zoc_neighbours
from engine.hexgrid import HexId
from engine.state import GameState, UnitState


@dataclass(frozen=True)
class Reach:
    hex: HexId
    cost: Fraction
    path: tuple[HexId, ...]
    stops: bool  # it enters an enemy zone of control: the move ends there (5.23)


def allowance(state: GameState, u: UnitState) -> int:
    """AGS 5.25, AGS-K 20.12, A21: mud first, then halved if out of supply at the start
    of the phase."""
    sp = game.spec(state, u.id)
    mud = game.ext(state, "weather", "snow") == "mud"
    oos = u.id in game.ext(state, "out_of_supply", [])
    return movement.allowance(
        game.step(state, u).movement, sp.move_class, mud=mud, in_supply=not oos
    )


def why_immobile(state: GameState, u: UnitState) -> tuple[str, str] | None:
    """Why `u` may not move at all now (words, case), or None."""
    p = sequence.current(state)
    sp = game.spec(state, u.id)
    if p.kind != "movement" or u.side != p.side or u.hex is None or not u.on_map:
        return ("it is not its side's movement phase", "AGS 5.21")
    if state.pending:
        return ("a decision is open", "AGS 4.2")
    if p.mech and sp.move_class == "inf":
        return (
            "only cavalry, HQs and mechanized units move in the Mechanized Movement Phase",
            "AGS 4.2",
        )
    if p.mech and u.side == "soviet":
        active = game.ext(state, "active_hqs", [])
        if sp.is_hq and u.id not in active:
            return ("an inactive HQ may not move in the Mechanized Movement Phase", "AGS-K 23.13")
        if not sp.is_hq and not game.commanding_hqs(state, u, active_only=True):
            return ("no active HQ has a line of communications to it", "AGS-K 23.14")
    if u.mp_spent > 0 and u.id not in game.ext(state, "last_moved", [u.id]):
        return (
            "its move ended when other units were moved (a move is over once the hand "
            "leaves the counter)",
            "AGS 5.1, K177",
        )
    if u.id in game.ext(state, "overrun_stopped", []):
        return ("its overrun failed or cost it a loss or retreat this phase", "AGS 6.22, 6.23")
    if u.id in game.ext(state, "stopped", []):
        return ("it entered an enemy zone of control this phase", "AGS 5.23, A24")
    if u.id in game.ext(state, "disrupted", []):
        return ("it is disrupted", "AGS 6.32, A36")
    if leaving(state, u) is None and u.mp_spent == 0 and u.hex in game.enemy_zoc(state, u.side):
        return engagement.why_not_leave(state, u)
    return None


def leaving(state: GameState, u: UnitState) -> str | None:
    """ "delay" or "disengage" when `u` began the phase in an enemy-controlled hex and
    may leave it (AGS-K 22.1, 22.2); None otherwise."""
    if u.mp_spent != 0 or u.hex not in game.enemy_zoc(state, u.side):
        return None
    return engagement.leave_mode(state, u)


def first_step_extra(state: GameState, u: UnitState) -> int:
    """AGS-K 22.13, 22.23: two Movement Points more to leave by delay or disengagement."""
    return engagement.SURCHARGE if leaving(state, u) else 0


def legal_moves(state: GameState, uid: str) -> dict[HexId, Reach]:
    u = state.units.get(uid)
    if u is None or why_immobile(state, u) is not None:
        return {}
    assert u.hex is not None
    sp = game.spec(state, uid)
    sc = game.scenario(state)
    b = sc.board
    left = Fraction(allowance(state, u)) - u.mp_spent
    foes = game.hexes_of(state, game.enemy(u.side))
    friends = game.hexes_of(state, u.side) - {u.hex}
    ezoc = game.enemy_zoc(state, u.side)
    combat_friends = {
        x.hex for x in state.on_map(u.side) if x.id != uid and not game.spec(state, x.id).is_hq
    }
    river_foes = {
        h for h in foes if any(b.feature(h, n) == "major-river" for n in b.grid.neighbours(h))
    }
    mode = leaving(state, u)  # AGS-K 22.1, 22.2
    no_zoc = mode == "disengage" or uid in game.ext(state, "disengaged", [])  # 22.21
    best: dict[HexId, Reach] = {}
    heap: list[tuple[Fraction, tuple[HexId, ...]]] = [(Fraction(0), (u.hex,))]
    done: set[HexId] = set()
    while heap:
        cost, path = heapq.heappop(heap)
        h = path[-1]
        if h in done:
            continue
        done.add(h)
        if h != u.hex:
            stops = h in ezoc
            best[h] = Reach(h, cost, path[1:], stops)
            if stops:
                continue  # 5.23: it stops on entering
        for n in b.grid.neighbours(h):
            if n in done or n in foes:
                continue  # 5.22
            step = movement.step_cost(b, sc.tec, sp.move_class, h, n)
            if step is None:
                continue  # the Dniepr (19.25), prohibited terrain
            if no_zoc and n in ezoc:
                continue  # AGS-K 22.21, 22.22: never into an enemy ZoC once disengaged
            if mode and h == u.hex:
                step += engagement.SURCHARGE  # 22.13, 22.23
            if n in ezoc and sp.is_hq and n not in combat_friends:
                continue  # 11.23
            if (
                b.feature(h, n) == "major-river"
                and n in ezoc
                and n not in friends
                and any(r in river_foes for r in zoc_neighbours(b, n) if r in foes)
            ):
                continue  # 10.13, A23
            total = cost + step
            if total > left and not (h == u.hex and u.mp_spent == 0 and not mode):
                continue  # 5.11; 5.14, A22: one hex always, but not by delay (22.13, A22)
            heapq.heappush(heap, (total, (*path, n)))
    return best

"""Deadline defaults: what an absent side is made to say so that the game goes on with the
least harm to that side (issue #7's deadline policy "answer its open decisions").

`next_default(state, side)` gives one input at a time: an answer to the side's first open
decision, else what the phase requires before `done` is accepted (a scenario's
withdrawal, the mandatory attacks of 5.1.3-5.1.4, stacking 3.2.1), else `done`; None when
the side is not awaited. Every candidate is checked with `apply` before it is offered, so
a default is never rejected. The choices per decision kind and their rule cases are in
docs/deadlines.md (docs/rulings.md K87).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine import orders as o
from engine.core import Applied
from engine.hexgrid import HexId
from engine.state import Decision, GameState
from engine.wb95 import combat, flow
from engine.wb95.dispatch import DECISION_DONE
from engine.wb95.fortification_markers import markers
from engine.wb95.game import apply, legal_moves
from engine.wb95.scenario_rules import owed
from engine.wb95.stacking import STACK_LIMIT, overstacked, stack_cels
from engine.wb95.zoc import zoc_map


def next_default(state: GameState, side: str) -> o.Order | None:
    """The next input a deadline policy gives for the absent `side`, or None when the game
    does not wait for it."""
    if state.over or side not in flow.awaited_sides(state):
        return None
    mine = [d for d in state.pending if d.side == side]
    if mine:
        return _first_accepted(state, side, answers(state, mine[0]))
    return _first_accepted(state, side, _before_done(state, side))


def answers(state: GameState, d: Decision) -> list[o.Order]:
    """The default answers to decision `d`, best first (docs/deadlines.md)."""
    opts, info = d.options, d.info
    if d.kind == "losses":
        return [o.Losses(units=tuple(_spread_losses(state, opts)))]
    if d.kind == "retreat":
        unit = str(info["left"][0])
        paths = [tuple(p) for p in opts["paths"].get(unit, [])]
        ranked = sorted(paths, key=lambda p: _retreat_score(state, unit, p))
        return [*(o.Retreat(unit=unit, path=p) for p in ranked), o.Retreat(unit=unit)]
    if d.kind == "pursuit":
        return [o.Pass()]
    if d.kind == "defence":
        stars = tuple(sorted(opts.get("abilities") or {}))
        cms = int(opts.get("cms") or 0)
        backing = tuple((opts.get("support") or {}).get("artillery", []))
        full = o.Defend(stars=stars, cms=cms, support=backing)
        return [full, o.Defend(stars=stars, cms=cms), o.Defend(support=backing), o.Pass()]
    if d.kind == "repair":
        per = int(opts.get("counters", 1))
        chosen = [u for units in opts["fronts"].values() for u in _most_damaged(state, units)[:per]]
        return [o.Repair(units=tuple(chosen)), o.Repair()]
    if d.kind in DECISION_DONE:  # a set-up step that `done` closes (7.2.1 IF placement)
        return [*_place_if(state, d), o.Done()]
    return [o.Pass()]  # an unknown kind: decline, as a fair referee would


def _place_if(state: GameState, d: Decision) -> list[o.Order]:
    """7.2.1 (K85): the free improved fortifications go under the side's strongest stacks
    that have none yet, those nearest the enemy first."""
    if d.kind != "place-if":
        return []
    grid = state.setup.map.grid
    enemy = [u.hex for u in state.on_map(state.setup.enemy_of(d.side)) if u.hex]
    cels = stack_cels(state, d.side)
    have = markers(state)
    free = [h for h in cels if have.get(h, {}).get("kind") != "if"]
    free.sort(key=lambda h: (min((grid.distance(h, e) for e in enemy), default=99), -cels[h], h))
    left = int(d.options.get("left", 0))
    return [o.PlaceIf(hexes=tuple(free[:left]))] if free and left > 0 else []


def _spread_losses(state: GameState, opts: dict[str, object]) -> list[str]:
    """One CEL at a time from the unit with the most CELs left (no elimination while it can
    be avoided, 5.1.8, R1), the weaker unit first on a tie; the first from a unit that used
    its abilities when one must pay (15.1.7)."""
    units = dict(opts["units"])  # type: ignore[call-overload]
    must = list(opts.get("must_include") or [])  # type: ignore[call-overload]
    count = int(opts["count"])  # type: ignore[call-overload]
    left = {u: int(c) for u, c in units.items()}
    picks: list[str] = []

    def key(u: str) -> tuple[int, int, str]:
        return (-left[u], state.setup.units[u].sp, u)

    if must and count > 0:
        first = min((u for u in must if left.get(u, 0) > 0), key=key, default=None)
        if first is not None:
            picks.append(first)
            left[first] -= 1
    while len(picks) < count:
        able = [u for u in left if left[u] > 0]
        if not able:
            break
        u = min(able, key=key)
        picks.append(u)
        left[u] -= 1
    return picks


def _retreat_score(state: GameState, unit: str, path: tuple[HexId, ...]) -> tuple[int, ...]:
    """Lower is safer: the full length first (a short retreat costs CELs, 5.3.7), then the
    fewest hexes in enemy ZoC (a CEL each, 5.3.4), then ending next to friendly units and
    far from enemy ones."""
    u = state.units[unit]
    grid = state.setup.map.grid
    enemy = state.setup.enemy_of(u.side)
    ezoc = zoc_map(state, enemy)
    end = path[-1]
    friends = sum(
        1 for x in state.on_map(u.side) if x.id != unit and x.hex and grid.distance(x.hex, end) <= 1
    )
    foes = [grid.distance(x.hex, end) for x in state.on_map(enemy) if x.hex]
    nearest = min(foes, default=99)
    in_zoc = sum(1 for h in path if ezoc.get(h))
    return (-len(path), in_zoc, -friends, -nearest, *(int(h) for h in path))


def _most_damaged(state: GameState, units: Iterable[str]) -> list[str]:
    return sorted(units, key=lambda u: (state.units[u].cel - state.units[u].max_cel, u))


def _before_done(state: GameState, side: str) -> list[o.Order]:
    out: list[o.Order] = []
    for _, n, can in owed(state, side):  # a scenario's withdrawal due now
        out.append(o.Withdraw(units=tuple(u.id for u in can[:n])))
    in_combat = flow.current_phase(state).kind == "combat" and state.combat is None
    if in_combat and combat.mandatory_message(state, side) is not None:
        out.extend(_duty_attacks(state, side))
    if overstacked(state, side):
        out.extend(_unstack(state, side))
    out.append(o.Done())
    return out


def _duty_attacks(state: GameState, side: str) -> list[o.Order]:
    """5.1.3-5.1.4: attacks that meet a duty with the fewest units -- a unit that must
    attack alone against an adjacent enemy hex, a hex that must be attacked by one adjacent
    unit -- then the engine's groupings, smallest first."""
    grid = state.setup.map.grid
    attackers, defenders = combat.mandatory_outstanding(state, side)
    enemy = state.setup.enemy_of(side)
    enemy_hexes = sorted({u.hex for u in state.on_map(enemy) if u.hex})
    able = sorted(
        (u for u in state.on_map(side) if u.hex and combat.can_attack(state, u) is None),
        key=lambda u: (state.setup.units[u.id].sp * u.cel, u.id),
    )
    out: list[o.Order] = []
    for a in attackers:
        ah = state.units[a].hex
        for h in enemy_hexes:
            if ah and grid.adjacent(ah, h):
                out.append(o.Attack(units=(a,), target=h))
    for h in sorted({x for d in defenders if (x := state.units[d].hex) is not None}):
        for u in able:
            if u.hex and grid.adjacent(u.hex, h):
                out.append(o.Attack(units=(u.id,), target=h))
    for units, hexes in sorted(combat.attack_options(state, side), key=lambda x: len(x[0])):
        out.append(o.Attack(units=tuple(units), target=hexes[0], also=tuple(hexes[1:])))
    return out


def _unstack(state: GameState, side: str) -> list[o.Order]:
    """3.2.1: move units out of an over-stacked hex, the smallest first, to the nearest hex
    they reach that stays within the limit."""
    out: list[o.Order] = []
    cels = stack_cels(state, side)
    for h in sorted(overstacked(state, side)):
        for u in sorted(state.units_at(h), key=lambda x: (x.cel, x.id)):
            if u.side != side:
                continue
            weight = 1 if state.setup.units[u.id].is_hq else u.cel
            reach = legal_moves(state, u.id)
            fits = sorted(
                (r.cost, t) for t, r in reach.items() if cels.get(t, 0) + weight <= STACK_LIMIT
            )
            out.extend(o.Move(units=(u.id,), path=(t,)) for _, t in fits[:3])
    return out


def _first_accepted(state: GameState, side: str, candidates: list[o.Order]) -> o.Order | None:
    for c in candidates:
        if isinstance(apply(state, side, c), Applied):
            return c
    return None

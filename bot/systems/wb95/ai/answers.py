"""Decisions (5.2-5.4, 6.3.3, 9.1.6, 15.1.6): losses from the units that can best spare
them, retreats to the safest end (out of the enemy ZoC it sees, toward supply or the
withdrawal zones, next to friends), pursuit only where the pursuer is not left exposed,
and a defence with every ability, HQ-loss CM and gun it is offered."""

from __future__ import annotations

from typing import Any

from bot.systems.wb95.ai import hold
from bot.systems.wb95.ai.aims import Aims
from bot.systems.wb95.ai.sight import Sight
from bot.systems.wb95.loss_choice import spare_cels
from engine import orders as o
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95.stacking import STACK_LIMIT
from engine.wb95.strength import strength


def answers(
    state: GameState, side: str, kind: str, options: Any, info: Any, sight: Sight, aims: Aims
) -> list[o.Order]:
    try:
        if kind == "losses":
            return [losses(state, options)]
        if kind == "retreat":
            return retreats(state, side, options, info, sight, aims)
        if kind == "pursuit":
            return pursuit(state, side, options, info, sight, aims)
        if kind == "defence":
            return defence(options)
    except (KeyError, IndexError, TypeError, ValueError):
        pass
    return []  # other kinds: the engine's defaults


def losses(state: GameState, options: dict[str, Any]) -> o.Losses:
    """5.2.1 f, as the baseline chooses (loss_choice.py)."""
    return spare_cels(state, options)


def _safety(state: GameState, side: str, h: HexId, sight: Sight, aims: Aims) -> float:
    grid = state.setup.map.grid
    near = min((grid.distance(h, e) for e in sight.stacks), default=9)
    zoc = len(sight.zoc.get(h, ()))
    friends = sum(1 for u in state.on_map(side) if u.hex and grid.distance(u.hex, h) <= 1)
    value = 2.0 * min(near, 4) - 6.0 * zoc + 0.5 * min(friends, 3)
    row = state.setup.table.terrain.get(state.setup.map.terrain_of(h))
    value += 0.5 * (-row.combat if row is not None else 0)
    if aims.escape:
        value -= 0.5 * min(grid.distance(h, z) for z in aims.escape)
    return value


def retreats(
    state: GameState,
    side: str,
    options: dict[str, Any],
    info: dict[str, Any],
    sight: Sight,
    aims: Aims,
) -> list[o.Order]:
    """5.3: the path whose end is safest; holding (`retreat UNIT`, a CEL instead of the
    retreat, 5.3.7) first on a hex the scenario values while the unit has a CEL to spare,
    otherwise last."""
    unit = info["left"][0]
    paths: list[list[str]] = options["paths"][unit]
    u = state.units[unit]
    if u.hex is not None and aims.hexes.get(u.hex, 0.0) > 0 and u.cel > 1:
        return [o.Retreat(unit=unit)]
    ranked = sorted(
        paths,
        key=lambda p: (-_safety(state, side, p[-1], sight, aims) if p else 0.0, -len(p), p),
    )
    return [*(o.Retreat(unit=unit, path=tuple(p)) for p in ranked[:6]), o.Retreat(unit=unit)]


def pursuit(
    state: GameState,
    side: str,
    options: dict[str, Any],
    info: dict[str, Any],
    sight: Sight,
    aims: Aims,
) -> list[o.Order]:
    """5.4: into a hex next to less enemy strength than half the pursuer's."""
    unit = info["left"][0]
    u = state.units[unit]
    mine = strength(state, u, attacking=False).sp
    if u.hex is not None and u.hex in hold.held(state, side, aims):
        return [o.Pass()]  # it holds a hex the scenario values (4.3)
    grid = state.setup.map.grid
    out: list[o.Order] = []
    for first in options.get("first", []):
        threat = sum(s.est for h, s in sight.stacks.items() if grid.adjacent(h, first))
        here = sum(x.cel for x in state.units_at(first) if x.side == side)
        if here + u.cel > STACK_LIMIT:  # 3.2.1
            continue
        if aims.hexes.get(first, 0.0) > 0 and state.control.get(first) != side:
            out.insert(0, o.Pursue(unit=unit, path=(first,)))  # it takes a valued hex
        elif u.cel > 1 and 2 * threat <= mine:
            out.append(o.Pursue(unit=unit, path=(first,)))
    return [*out, o.Pass()]


def defence(options: dict[str, Any]) -> list[o.Order]:
    """15.1.6, 9.1.6, 6.3.3: every ability, HQ CM and gun it may use."""
    stars = tuple(sorted(options.get("abilities", {})))
    cms = int(options.get("cms", 0) or 0)
    guns = tuple(options.get("support", {}).get("artillery", []))
    return [
        o.Defend(stars=stars, cms=cms, support=guns),
        o.Defend(stars=stars, support=guns),
        o.Defend(stars=stars),
        o.Pass(),
    ]

"""WB-95's invariants and probes for the self-play fuzzer (bot/fuzz.py, issue #9): CELs and
OoS levels in bounds and changed only by their events, no over-stacked hex at the end of a
phase (3.2.1), what a side cannot see of the enemy (16.1) to perturb for the fog-of-war
check, and the orders a player has that the listings do not offer."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from engine import orders as o
from engine.core import Event
from engine.hexgrid import hexside
from engine.state import GameState
from engine.wb95 import flow, masking
from engine.wb95.stacking import overstacked
from engine.wb95.terrain import intact_bridges

# 10.2.6: a unit at level 13 always surrenders in its Supply Phase (13 - 12 > 0); paying
# levels for full MPs and strength (10.2.3) can add a few between two Supply Phases.
OOS_MAX = 16
# Events through which a unit's CELs change.
CEL_EVENTS = ("cel_lost", "repaired", "reinforced")


def bounds_problems(state: GameState) -> list[str]:
    out: list[str] = []
    for u in state.units.values():
        if not 0 <= u.cel <= u.max_cel:
            out.append(f"CEL bounds: {u.id} has {u.cel} CELs of {u.max_cel}")
        if u.on_map and u.cel < 1:
            out.append(f"CEL bounds: {u.id} is on the map with {u.cel} CELs")
        if not 0 <= u.oos <= OOS_MAX:
            out.append(f"OoS bounds: {u.id} is at OoS level {u.oos}")
    return out


def invariant_problems(before: GameState, after: GameState, events: Sequence[Event]) -> list[str]:
    """Bounds, and every CEL change accounted for by a `cel_lost`, `repaired` or
    `reinforced` event."""
    out = bounds_problems(after)
    if out:
        return out
    change: Counter[str] = Counter()
    for e in events:
        if e.kind == "cel_lost":
            change[e.data["unit"]] -= 1
        elif e.kind == "repaired":
            change[e.data["unit"]] += int(e.data["cels"])
        elif e.kind == "reinforced":
            change[e.data["unit"]] += 1
            change[e.data["source"]] -= 1
    for u in after.units.values():
        old = before.units.get(u.id)
        if old is not None and u.cel - old.cel != change.get(u.id, 0):
            out.append(
                f"CEL change without event: {u.id} went {old.cel} -> {u.cel}, "
                f"events say {change.get(u.id, 0):+d}"
            )
    return out


def phase_end_problems(state: GameState) -> list[str]:
    """3.2.1: the stacking limit holds when a phase ends."""
    over = overstacked(state)
    return [f"over-stacked at the end of a phase: {dict(sorted(over.items()))}"] if over else []


def hidden_from(state: GameState, viewer: str) -> tuple[list[str], list[str]]:
    """Enemy units `viewer` cannot see at all: (counters it sees as a plain counter or
    "?" and that are not next to its units, counters seen by type only), plus enemy
    units off the map, which it does not see either (16.1, 11.0)."""
    grid = state.setup.map.grid
    stacks: dict[str, list[Any]] = {}
    for u in state.on_map():
        assert u.hex is not None
        stacks.setdefault(u.hex, []).append(u)
    own = {h for h, us in stacks.items() if min(us, key=lambda x: x.entered_seq).side == viewer}
    hidden: list[str] = []
    typed: list[str] = []
    for h, us in stacks.items():
        us.sort(key=lambda x: x.entered_seq)
        if us[0].side == viewer:
            continue
        masked = masking.masked_by(state, h) is not None
        adjacent = any(n in own for n in grid.neighbours(h))
        for i, u in enumerate(us):
            if (i == 0 and not masked) or u.fought:
                continue
            (typed if adjacent else hidden).append(u.id)
    off = [
        u.id
        for u in state.units.values()
        if u.side != viewer and u.hex is None and not u.eliminated and u.withdrawn is None
    ]
    return hidden + off, typed


def perturbed(state: GameState, viewer: str) -> tuple[GameState, list[str]]:
    """A copy of `state` in which what `viewer` cannot see of the enemy is changed (OoS
    levels and disorganization of units it does not see in full; the CELs of units it does
    not see at all, unless the scenario scores CELs), and the units changed."""
    cel_vp = bool(state.setup.victory_rules and state.setup.victory_rules.get("cel_vp"))
    hidden, typed = hidden_from(state, viewer)
    other = state.clone()
    for uid in hidden + typed:
        u = other.units[uid]
        changed = replace(u, oos=(u.oos + 1) % 3, disorganized=not u.disorganized)
        if uid in hidden and not cel_vp and u.max_cel > 1:
            changed = replace(changed, cel=1 + u.cel % u.max_cel)
        other.units[uid] = changed
    return other, hidden + typed


def probes(state: GameState, side: str, rng: random.Random) -> list[o.Order]:
    """Inputs a real player has that the listings do not offer; the engine judges them:
    fortify, strategic marking, masks, leaving the map, bridges, Volkssturm."""
    kind = flow.current_phase(state).kind
    if kind != "movement" or state.pending or side not in flow.acting_sides(state):
        return []
    mine = state.on_map(side)
    if not mine:
        return []
    u = rng.choice(mine)
    assert u.hex is not None
    out: list[o.Order] = [o.Fortify(units=(u.id,)), o.Strategic(units=(u.id,))]
    if rng.random() < 0.2:
        out.append(o.Mask(hex=u.hex, on=rng.random() < 0.8))
    if rng.random() < 0.1:  # 11.2.3: off the map (the engine knows the edges)
        out.append(o.Leave(units=(u.id,)))
    setup = state.setup
    near = setup.map.grid.neighbours(u.hex)
    standing = intact_bridges(state)
    for n in near:  # 14.2.1 / 14.3.2: destroy a bridge next to it, or an HQ builds one
        side_ = hexside(u.hex, n)
        if side_ in standing:
            out.append(o.Bridge(action="destroy", hexside=side_))
        elif setup.units[u.id].is_hq and setup.map.features(u.hex, n):
            out.append(o.Bridge(action="build", hexside=side_, hq=u.id))
    vs = [x for x in mine if setup.units[x.id].type == "vs"]
    for v in vs[:1]:  # 15.3.3: Volkssturm gives a CEL to infantry in its hex
        out.extend(
            o.Reinforce(unit=x.id, source=v.id)
            for x in state.units_at(v.hex or "")
            if x.id != v.id and x.side == side
        )
    return out

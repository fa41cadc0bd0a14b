"""The garrisons of the valued hexes the side holds (hold.py): they dig in first, so that
a unit moving in later this phase is in the fortification too (7.1.5) and has no duty to
attack out of the enemy's ZoC (7.1.11); then each hex the enemy can reach gets units until
the counter-attack it can bring reads 1:1 or worse (5.2.1), the most valued hex first."""

from __future__ import annotations

from bot.systems.wb95.ai import hold
from bot.systems.wb95.ai.board import Board, Step
from engine import orders as o
from engine.wb95.combat import fortified
from engine.wb95.fortification_markers import own_marker
from engine.wb95.fortifications import can_fortify
from engine.wb95.strength import strength

MORE = 3  # units sent to one hex at most: the rest of the plan needs units too


def dig_in(b: Board, keep: set[str]) -> list[Step]:
    """7.1.4: every garrison unit that can builds (or is already in) a fortification."""
    state = b.state
    out: list[Step] = []
    for h in hold.held(state, b.side, b.aims):
        if own_marker(state, b.side, h):
            b.dug.add(h)
    for uid in sorted(keep):
        u = state.units[uid]
        if u.hex is None or uid in b.done:
            continue
        b.done.add(uid)
        if fortified(state, u):
            b.dug.add(u.hex)
        elif can_fortify(state, u) is None:
            b.dug.add(u.hex)
            out.append(Step(f"f-{uid}", o.Fortify(units=(uid,))))
    return out


def reinforce(b: Board, keep: set[str]) -> list[Step]:
    state, grid = b.state, b.state.setup.map.grid
    out: list[Step] = []
    if b.aims.escape:
        return out
    held = hold.held(state, b.side, b.aims)
    for h in sorted(held, key=lambda x: (-b.aims.hexes[x], x)):
        attack = hold.counter_sp(state, b.sight, h)
        if attack <= 0:
            continue
        stack = b.stack(h)
        for u in stack:
            b.done.add(u.id)  # the garrison stays
        cms = hold.defence_cms(state, b.side, h, dug=h in b.dug)
        sent = 0
        while sent < MORE and not hold.safe(state, stack, attack, cms):
            free = [
                u
                for u in state.on_map(b.side)
                if u.id not in b.done
                and u.id not in keep
                and u.hex is not None
                and u.hex != h
                and hold.regular(state, u)
                and h in b.moves(u.id)
                and b.room(h, u)
            ]
            if b.sight.zoc.get(h) and h not in b.dug:
                free = []  # 5.1.3: it would have a duty there (7.1.11: none when dug in)
            if not free:
                break
            u = max(
                free,
                key=lambda x: (
                    strength(state, x, attacking=False).sp * x.cel,
                    -grid.distance(x.hex or h, h),
                    x.id,
                ),
            )
            b.put(u, h)
            stack.append(u)
            sent += 1
            out.append(Step(f"k-{u.id}", o.Move(units=(u.id,), path=b.moves(u.id)[h].path)))
    return out

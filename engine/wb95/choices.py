"""Candidate inputs for a side: a sample of what it may legally say now.

Used by the self-play tests (and later the fuzzer and autocomplete). Every candidate is
built from the engine's own legal listings -- reachable hexes, retreat paths, decision
options -- so almost all are accepted; the engine still judges each one.
"""

from __future__ import annotations

from typing import Literal

from engine import orders as o
from engine.state import GameState
from engine.wb95 import flow
from engine.wb95.air import mission_options
from engine.wb95.artillery import (
    barrage_targets,
    fire_targets,
    support_candidates,
    why_no_setup,
)
from engine.wb95.combat import attack_options, engagement, mandatory_message
from engine.wb95.game import legal_moves
from engine.wb95.reinforcements import legal_delays, legal_entries
from engine.wb95.scenario_rules import owed


def candidate_orders(
    state: GameState, side: str, limit: int = 12, moves: bool = True
) -> list[o.Order]:
    """Up to `limit` inputs (the last ones listed); `moves=False` leaves out the per-unit
    moves (the fuzzer picks a unit first and asks `legal_moves` for it alone)."""
    if state.over:
        return []
    mine = [d for d in state.pending if d.side == side]
    if mine:
        return _answers(state, mine[0].kind, mine[0].options, mine[0].info)[:limit]
    if state.pending or side not in flow.awaited_sides(state):
        return []
    out: list[o.Order] = []
    kind = flow.current_phase(state).kind
    if kind == "movement":
        for u in sorted(state.on_map(side), key=lambda x: x.id) if moves else []:
            reach = legal_moves(state, u.id)
            for h in sorted(reach)[:: max(1, len(reach) // 3)][:3]:
                out.append(o.Move(units=(u.id,), path=(h,)))
        out.extend(_setups(state, side))
    elif kind == "combat":
        out.extend(_attacks(state, side))
        out.extend(_fires(state, side))
    elif kind == "barrage":
        out.extend(
            o.Barrage(units=tuple(units), target=h)
            for h, units in list(barrage_targets(state, side).items())[:2]
        )
    elif kind == "air":  # 8.0: a few missions for the side's counters or SP pool
        out.extend(mission_options(state, side))
    if kind in ("movement", "strategic"):
        out.extend(_entries(state, side))
    for _, n, can in owed(state, side):  # a scenario's withdrawal due today
        out.append(o.Withdraw(units=tuple(u.id for u in can[:n])))
    if not (kind == "combat" and mandatory_message(state, side)):  # 5.1.7: duties first
        out.append(o.Done())
    return out[-limit:]


def _entries(state: GameState, side: str) -> list[o.Order]:
    """Reinforcements entering (11.1) or moving between entry zones (11.2.2)."""
    out: list[o.Order] = []
    for u in sorted(state.units.values(), key=lambda x: x.id):
        if u.side != side:
            continue
        picks = sorted(legal_entries(state, u.id).values(), key=lambda e: (e.cost, e.hex))
        for e in picks[:: max(1, len(picks) // 2)][:2]:
            out.append(o.Enter(units=(u.id,), where=e.entry, path=e.path[1:]))
        out.extend(o.Delay(units=(u.id,), where=z) for z in legal_delays(state, u.id)[:1])
    return out


def _attacks(state: GameState, side: str) -> list[o.Order]:
    out: list[o.Order] = []
    for units, hexes in attack_options(state, side):
        out.append(o.Attack(units=tuple(units), target=hexes[0], also=tuple(hexes[1:])))
        if len(out) > 2:
            continue
        decl = {"side": side, "attackers": units, "defenders": [], "targets": hexes}
        backing = support_candidates(state, engagement(state, decl), "attacker")
        if backing:  # 6.3: the same attack with the artillery in range
            out.append(
                o.Attack(
                    units=tuple(units),
                    target=hexes[0],
                    also=tuple(hexes[1:]),
                    support=tuple(backing),
                )
            )
    return out


def _fires(state: GameState, side: str) -> list[o.Order]:
    """Ranged attacks (6.4): all artillery in range of an enemy hex, or one unit."""
    out: list[o.Order] = []
    for h, units in list(fire_targets(state, side).items())[:2]:
        out.append(o.Fire(units=tuple(units), target=h))
        if len(units) > 1:
            out.append(o.Fire(units=(units[0],), target=h))
    return out


def _setups(state: GameState, side: str) -> list[o.Order]:
    """Towed artillery changing setup (6.2.4)."""
    out: list[o.Order] = []
    for u in sorted(state.on_map(side), key=lambda x: x.id):
        mode: Literal["combat", "transport"] = "transport" if u.setup == "combat" else "combat"
        if state.setup.units[u.id].type == "art" and why_no_setup(state, u, mode) is None:
            out.append(o.SetupChange(units=(u.id,), mode=mode))
    return out[:3]


def _answers(state: GameState, kind: str, options: dict, info: dict) -> list[o.Order]:  # type: ignore[type-arg]
    if kind == "losses":
        units: dict[str, int] = options["units"]
        must: list[str] = options.get("must_include", [])
        count = int(options["count"])
        picks: list[str] = []
        order = sorted(units, key=lambda u: (u not in must, u))
        for u in order:
            take = min(units[u], count - len(picks))
            picks.extend([u] * take)
        alt = sorted(units, key=lambda u: (u not in must, -units[u], u), reverse=False)
        alt_picks: list[str] = []
        for u in reversed(alt):
            take = min(units[u], count - len(alt_picks))
            alt_picks.extend([u] * take)
        out: list[o.Order] = [o.Losses(units=tuple(picks))]
        if not must or any(u in must for u in alt_picks):
            out.append(o.Losses(units=tuple(alt_picks)))
        return out
    if kind == "retreat":
        unit = info["left"][0]
        paths = options["paths"][unit]
        longest = [p for p in paths if len(p) == max(len(x) for x in paths)]
        moves: list[o.Order] = [o.Retreat(unit=unit, path=tuple(p)) for p in longest[:3]]
        return [*moves, o.Retreat(unit=unit)]
    if kind == "pursuit":
        out = [o.Pass()]
        unit = info["left"][0]
        for first in options["first"]:
            out.append(o.Pursue(unit=unit, path=(first,)))
        return out
    if kind == "repair":  # Kursk 17.1.2: a counter on the first unit of each front, or none
        first = tuple(units[0] for units in options["fronts"].values())
        return [o.Repair(units=first), o.Repair()]
    if kind == "defence":
        answers: list[o.Order] = [o.Pass(), o.Defend(stars=tuple(sorted(options["abilities"])))]
        backing = options.get("support", {}).get("artillery", [])
        if backing:  # 6.3.3: the artillery in range supports the defence
            answers.append(o.Defend(support=tuple(backing)))
        return answers
    return []
